/**
 * The logger of the hubs tests start: each line goes to the test environment's sink
 * (quiet-environment.js), which prints it only if the test fails. Outside that environment it
 * writes to stderr.
 */
import { format } from 'node:util';
import { Loggers, type LogLevels } from 'moleculer';
import type { LoggerBindings } from 'moleculer/src/logger-factory';

const LEVELS: LogLevels[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

function write(line: string): void {
  const sink = (globalThis as { __hubTestLog?: { write(line: string): void } }).__hubTestLog;
  if (sink) sink.write(line);
  else process.stderr.write(`${line}\n`);
}

export class TestLogger extends Loggers.Base<{ level: LogLevels }> {
  override getLogHandler(bindings: LoggerBindings): Loggers.Base.LogHandler | null {
    const level = this.getLogLevel(bindings.mod);
    if (!level) return null;
    const most = LEVELS.indexOf(level);
    return (type, args) => {
      if (LEVELS.indexOf(type) > most) return;
      write(
        `[${new Date().toISOString()}] ${type.toUpperCase()} ${bindings.nodeID}/${bindings.mod.toUpperCase()}: ${format(...args)}`,
      );
    };
  }
}

/** The logger option of a test broker logging at `level`. */
export function testLogger(level: LogLevels): TestLogger {
  return new TestLogger({ level });
}
