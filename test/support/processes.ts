/**
 * Runs hub services as separate OS processes from the built code (`npm run build` first), the
 * way distributed mode runs them, and stops them again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const HUB = path.resolve(__dirname, '../../bin/hub.js');

export interface HubProcess {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnHub(args: string[], env: Record<string, string>): HubProcess {
  const child = spawn(process.execPath, [HUB, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a hub command to completion and returns its exit code and output. */
export async function runHub(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const run = spawnHub(args, env);
  const code = await new Promise<number | null>((resolve) => run.child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, output: run.output() };
}
