/**
 * Runs hub services as separate OS processes from the built code (`npm run build` first), the
 * way distributed mode runs them, and stops them again; with the set-up such a cluster shares:
 * its environment, a world file cut to the services running, waiting for the gateway, a private
 * NATS server that a test may kill without touching the one other suites share, and the REPL
 * driven as a user types at its prompt.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ServiceBroker } from 'moleculer';
import { DEMO_WORLD_FILE, readWorld, WORLD_PART_OWNERS } from '../../shared/src';
import { httpRequest, INFRA, waitFor } from './hub';

const HUB = path.resolve(__dirname, '../../bin/hub.js');

export interface HubProcess {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** With `interactive`, the process reads what the test writes to `child.stdin`. */
export function spawnHub(
  args: string[],
  env: Record<string, string>,
  options: { interactive?: boolean } = {},
): HubProcess {
  const child = spawn(process.execPath, [HUB, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: [options.interactive ? 'pipe' : 'ignore', 'pipe', 'pipe'],
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
export async function runHub(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const run = spawnHub(args, env);
  const code = await new Promise<number | null>((resolve) => run.child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, output: run.output() };
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The environment every process of one test cluster shares: the database, NATS and Redis, a
 * namespace of its own so suites running side by side do not meet, and the gateway's free port.
 */
export async function clusterEnv(
  databaseUrl: string,
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; baseUrl: string }> {
  const port = await freePort();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    env: {
      DATABASE_URL: databaseUrl,
      TRANSPORTER: INFRA.nats,
      CACHER: INFRA.redis,
      NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...extra,
    },
  };
}

/** Writes a world to a file of its own for `hub world load`, and returns the file's path. */
export function writeWorldFile(world: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-world-')), 'world.json');
  fs.writeFileSync(file, JSON.stringify(world));
  return file;
}

/**
 * The demo world cut to the parts the given services own (WORLD_PART_OWNERS), since a world
 * load refuses a part whose owner is not running.
 */
export function demoWorldFor(services: string[]): Record<string, unknown> {
  const owned = (part: string) => services.includes(WORLD_PART_OWNERS[part]);
  const demo = readWorld(DEMO_WORLD_FILE) as Record<string, unknown>;
  const world = Object.fromEntries(Object.entries(demo).filter(([key]) => owned(key)));
  // An object of separately owned parts keeps the parts the services own.
  const webhooks = Object.entries(demo.webhooks ?? {}).filter(([key]) => owned(`webhooks.${key}`));
  if (webhooks.length) world.webhooks = Object.fromEntries(webhooks);
  if (world.providers) {
    world.providers = (world.providers as Array<Record<string, unknown>>).map((provider) =>
      Object.fromEntries(
        Object.entries(provider).filter(([key]) => !WORLD_PART_OWNERS[`providers.${key}`] || owned(`providers.${key}`)),
      ),
    );
  }
  return world;
}

/** Waits until a GET answers 200; a process still starting may refuse the connection meanwhile. */
export async function waitForOk(
  baseUrl: string,
  urlPath: string,
  what: string,
  options: { token?: string; timeoutMs?: number } = {},
): Promise<void> {
  await waitFor(
    async () => {
      try {
        return (await httpRequest(baseUrl, 'GET', urlPath, { token: options.token })).status === 200;
      } catch {
        return false;
      }
    },
    what,
    options.timeoutMs,
  );
}

/**
 * A node's own count of an action's calls, asked by a broker of the test's on the cluster: `local`
 * the calls it served, `remote` those it sent to other nodes (each retry counted); by default how
 * many it started, `moleculer.request.active` how many are running now.
 */
export async function requestCount(
  observer: ServiceBroker,
  nodeID: string,
  action: string,
  type?: 'local' | 'remote',
  metric = 'moleculer.request.total',
): Promise<number> {
  const metrics = (await observer.call('$node.metrics', { includes: [metric] }, { nodeID })) as Array<{
    values: Array<{ labels: { action?: string; type?: string }; value: number }>;
  }>;
  return metrics
    .flatMap((found) => found.values)
    .filter((value) => value.labels.action === action && (!type || value.labels.type === type))
    .reduce((sum, value) => sum + value.value, 0);
}

const NATS_SERVER = process.env.TEST_NATS_SERVER ?? '/usr/sbin/nats-server';

export interface NatsServer {
  url: string;
  /** Starts the server (again, on the same port and store) and waits until it takes connections. */
  start(): Promise<void>;
  /** SIGKILLs the server and waits for it to exit. */
  kill(): Promise<void>;
}

export async function privateNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-nats-'));
  let child: ChildProcess | undefined;
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
  return {
    url: `nats://127.0.0.1:${port}`,
    async start() {
      child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      while (!(await accepts())) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`nats-server did not start on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
}

const POSTGRES_BIN =
  process.env.TEST_POSTGRES_BIN ??
  path.join('/usr/lib/postgresql', fs.readdirSync('/usr/lib/postgresql').sort().at(-1) ?? '', 'bin');

export interface PostgresServer {
  /** A connection string to its `postgres` database. */
  url: string;
  /** Starts the server (again, on the same port and data) and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops it at once, as a crash would (`pg_ctl stop -m immediate`). */
  stop(): Promise<void>;
  /** Stops it and deletes its data. */
  remove(): Promise<void>;
}

/**
 * A Postgres cluster of the test's own in a temporary directory, on a free port, that a test may
 * stop without touching the server other suites share. initdb refuses to run as root, so a root
 * test runs the server's programs as the `postgres` user.
 */
export async function privatePostgresServer(): Promise<PostgresServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-postgres-'));
  const dataDir = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chownSync(dir, uidOf('postgres'), -1);
  const run = (program: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [command, commandArgs] = asRoot
        ? ['runuser', ['-u', 'postgres', '--', path.join(POSTGRES_BIN, program), ...args]]
        : [path.join(POSTGRES_BIN, program), args];
      const child = spawn(command, commandArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr!.on('data', (chunk) => (errors += chunk));
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${program} failed: ${errors}`))));
    });
  await run('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => run('pg_ctl', ['start', '-w', '-D', dataDir, '-l', path.join(dir, 'log'), '-o', options]),
    stop: () => run('pg_ctl', ['stop', '-w', '-D', dataDir, '-m', 'immediate']),
    async remove() {
      await run('pg_ctl', ['stop', '-w', '-D', dataDir, '-m', 'immediate']).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The uid of a system user, from /etc/passwd. */
function uidOf(user: string): number {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${user}:`));
  if (!line) throw new Error(`No ${user} user to run Postgres as`);
  return Number(line.split(':')[2]);
}

/** The REPL (`hub repl`) as a user drives it: a command typed at the prompt, its output read back. */
export interface ReplSession {
  /** Types `command` and waits until what the REPL printed since matches `expected`; returns that text. */
  run(command: string, expected: RegExp, timeoutMs?: number): Promise<string>;
  /** Types `quit` and waits for the process to exit; returns its exit code. */
  quit(): Promise<number | null>;
  process: HubProcess;
}

const PROMPT = 'mol $';
// eslint-disable-next-line no-control-regex -- the escape character is what a colour code starts with
const withoutColours = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

export async function openRepl(env: Record<string, string>): Promise<ReplSession> {
  const repl = spawnHub(['repl'], env, { interactive: true });
  const printed = () => withoutColours(repl.output());
  await waitFor(() => printed().includes(PROMPT) || repl.child.exitCode !== null, 'the REPL prompt', 90_000);
  if (repl.child.exitCode !== null) throw new Error(`The REPL exited with ${repl.child.exitCode}:\n${printed()}`);
  return {
    process: repl,
    async run(command, expected, timeoutMs = 15_000) {
      const from = printed().length;
      repl.child.stdin!.write(`${command}\n`);
      await waitFor(() => expected.test(printed().slice(from)), `"${command}" to print ${expected}`, timeoutMs).catch(
        (err: Error) => {
          throw new Error(`${err.message}; it printed:\n${printed().slice(from)}`);
        },
      );
      return printed().slice(from);
    },
    async quit() {
      const exited = new Promise<number | null>((resolve) =>
        repl.child.exitCode !== null ? resolve(repl.child.exitCode) : repl.child.once('exit', resolve),
      );
      repl.child.stdin!.write('quit\n');
      return exited;
    },
  };
}
