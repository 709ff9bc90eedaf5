/**
 * The hub's log: Moleculer's Pino logger. The gateway writes a line per request, so a line must
 * cost little: it is built without inspecting objects and handed to a buffered writer that writes
 * in the background (and what it still holds when the process exits). `LOG_FORMAT=json` writes
 * pino's JSON lines; `short` writes the same content as one line of text, built directly rather
 * than by parsing JSON back, which would cost more than the rest of a request.
 */
import { inspect } from 'node:util';
import type { BrokerOptions, LogLevels } from 'moleculer';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { HubConfig } from './config';
import { currentRequestId } from './request-log';

type LogMethod = (...args: unknown[]) => void;

const LEVELS: LogLevels[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * Moleculer's loggers take console-style arguments (`'Service started', name`, `'Call failed:',
 * err`, or an object of fields first), where pino takes fields then one message: the fields stay
 * fields, an error becomes pino's `err` (its stack kept), and the rest is the message.
 */
function asFieldsAndMessage(args: unknown[]): [Record<string, unknown>, string?] {
  const [first, ...rest] = args;
  const hasFields = typeof first === 'object' && first !== null && !(first instanceof Error) && !Array.isArray(first);
  const fields: Record<string, unknown> = hasFields ? { ...(first as Record<string, unknown>) } : {};
  const parts: unknown[] = [];
  for (const part of hasFields ? rest : args) {
    if (part instanceof Error && fields.err === undefined) fields.err = part;
    else parts.push(part);
  }
  if (parts.length === 0) return [fields];
  const message = parts
    .map((part) => (typeof part === 'string' ? part : inspect(part, { depth: 2, breakLength: Infinity })))
    .join(' ');
  return [fields, message];
}

function pinoOptions(config: HubConfig): LoggerOptions {
  return {
    level: config.logLevel,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // A line written while a call is served names its request, on any node (request-log.ts).
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, asFieldsAndMessage(args) as Parameters<typeof method>);
      },
    },
  };
}

/** A line's fields as JSON, or as Node prints them where JSON cannot hold them (a cycle, a BigInt). */
function fieldsAsText(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields);
  } catch {
    return inspect(fields, { depth: 2, breakLength: Infinity });
  }
}

/** ANSI colours of the level names, on a terminal only. */
const LEVEL_COLOURS: Record<LogLevels, number> = { fatal: 41, error: 31, warn: 33, info: 32, debug: 35, trace: 90 };

/**
 * A module's `short` lines at `level`: `[HH:MM:SS.mmmZ] INFO: MODULE: message {fields}`, an
 * error's stack on the lines after.
 */
function shortLines(
  level: LogLevels,
  module: string,
  output: DestinationStream,
  colours: boolean,
): Record<LogLevels, LogMethod> {
  const most = LEVELS.indexOf(level);
  const methods = {} as Record<LogLevels, LogMethod>;
  for (const [index, type] of LEVELS.entries()) {
    const label = colours ? `\x1b[${LEVEL_COLOURS[type]}m${type.toUpperCase()}\x1b[39m` : type.toUpperCase();
    const prefix = `] ${label}: ${module.toUpperCase()}: `;
    methods[type] =
      index > most
        ? () => undefined
        : (...args) => {
            const [{ msg, err, ...fields }, message = typeof msg === 'string' ? msg : ''] = asFieldsAndMessage(args);
            let line = `[${new Date().toISOString().slice(11)}${prefix}${message}`;
            if (Object.keys(fields).length > 0) line += ` ${fieldsAsText(fields)}`;
            if (err instanceof Error) line += `\n    ${err.stack ?? err.message}`;
            output.write(`${line}\n`);
          };
  }
  return methods;
}

/**
 * Standard output, written in the background and flushed when the process exits. Lines reach it
 * as bytes: given text, the writer measures all the text it holds on every line, a cost that
 * grows with the lines waiting, just when many are.
 */
function standardOutput(): DestinationStream {
  const output = pino.destination({ dest: 1, sync: false, contentMode: 'buffer' });
  return { write: (line: string) => void output.write(Buffer.from(line) as unknown as string) };
}

/** The broker's logger option: lines of `config.logFormat` at `config.logLevel`, to stdout or `sink`. */
export function hubLogger(config: HubConfig, sink?: DestinationStream): BrokerOptions['logger'] {
  const output = sink ?? standardOutput();
  const colours = sink === undefined && process.stdout.isTTY && !process.env.NO_COLOR;
  return {
    type: 'Pino',
    options: {
      level: config.logLevel,
      pino: { options: pinoOptions(config), destination: output },
      ...(config.logFormat === 'short' && {
        createLogger: (level: LogLevels, bindings: { mod: string }) => shortLines(level, bindings.mod, output, colours),
      }),
    },
  };
}
