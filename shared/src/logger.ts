/**
 * The hub's log: Moleculer's Pino logger. The gateway writes a line per request, so a line must
 * cost little: pino builds it without inspecting objects and hands it to a buffered writer that
 * writes in the background (and what it still holds when the process exits). `LOG_FORMAT=json`
 * writes pino's JSON lines; `short` writes them as text through pino-pretty, one line each.
 */
import { inspect } from 'node:util';
import type { BrokerOptions } from 'moleculer';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
import type { HubConfig } from './config';
import { currentRequestId } from './request-log';

/** The fields Moleculer gives every logger beside the node's own: shown by `short` in the prefix only. */
const BINDINGS = 'nodeID,ns,mod,svc,ver';

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
  const json = config.logFormat === 'json';
  return {
    level: config.logLevel,
    base: undefined,
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
    // JSON names the level and the time as people read them; pino-pretty reads pino's own forms.
    ...(json && {
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
    }),
  };
}

/** Where lines go: standard output unless `sink` is given; through pino-pretty for `short`. */
function destinationOf(config: HubConfig, sink?: DestinationStream): DestinationStream {
  const output = sink ?? pino.destination({ dest: 1, sync: false });
  if (config.logFormat === 'json') return output;
  return pinoPretty({
    destination: output,
    translateTime: 'UTC:HH:MM:ss.l"Z"',
    ignore: BINDINGS,
    // The module is a binding and the message a string, as asFieldsAndMessage makes every line.
    messageFormat: (line, messageKey) =>
      `${(line.mod as string | undefined)?.toUpperCase() ?? ''}: ${(line[messageKey] as string | undefined) ?? ''}`,
    singleLine: true,
  });
}

/** The broker's logger option: lines of `config.logFormat` at `config.logLevel`, to stdout or `sink`. */
export function hubLogger(config: HubConfig, sink?: DestinationStream): BrokerOptions['logger'] {
  return {
    type: 'Pino',
    options: {
      level: config.logLevel,
      pino: { options: pinoOptions(config), destination: destinationOf(config, sink) },
    },
  };
}
