/**
 * Every log line written while a call is handled carries the request id of that call, on any
 * node. The gateway makes a request's id the root context's `requestID`; Moleculer hands it on
 * to every call and event the request causes, across the transporter. This middleware keeps it
 * for the async work of each local handler, where the logger reads it (logger.ts), so services
 * log with their plain `this.logger`.
 *
 * It also logs an unexpected error (a 5xx other than an outage's 503) on the node where it
 * arose, with its stack, since the gateway that renders the response only sees it from the outside.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Middleware, ServiceBroker } from 'moleculer';

/** The request id of the call being handled; emptied when the call ends, for work it left behind. */
type HandledCall = { requestId: string | undefined };

const requestIds = new AsyncLocalStorage<HandledCall>();

/** Calls being handled on this node now. */
let handling = 0;

/**
 * Runs a handler with its request id kept for the log. Keeping it costs every promise and timer
 * the process makes a hook, a cost felt in a webhook burst, so the hook runs
 * only while some call is being handled: when the last one ends it is switched off. Work a
 * handler left running behind it (a delivery worker woken by an ingest) goes on without an id,
 * as it no longer belongs to the call: the call's entry is emptied when it ends, since a context
 * Node keeps with a timer or a promise outlives the switch.
 */
function handledWithRequestId(requestId: string, handle: () => Promise<unknown>): Promise<unknown> {
  handling += 1;
  const call: HandledCall = { requestId };
  const ended = () => {
    call.requestId = undefined;
    handling -= 1;
    if (handling === 0) requestIds.disable();
  };
  let handled: Promise<unknown>;
  try {
    handled = requestIds.run(call, handle);
  } catch (err) {
    ended();
    throw err;
  }
  return handled.then(
    (value) => {
      ended();
      return value;
    },
    (err: unknown) => {
      ended();
      throw err;
    },
  );
}

/** The request id of the call being handled here, if any. */
export function currentRequestId(): string | undefined {
  return requestIds.getStore()?.requestId;
}

/** Errors already logged on this node, so a caller on the same node does not log them again. */
const loggedErrors = new WeakSet<object>();

function isUnexpected(err: unknown): err is Error & { nodeID?: string } {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  // zlib's code for a body that is not what its Content-Encoding says: the client's mistake (a 400).
  if (typeof code === 'string' && code.startsWith('Z_')) return false;
  // An outage (a timeout included) is logged once where it is met (a node gone, the database
  // unreachable), not per call.
  if (code === 503 || code === 504) return false;
  // An error with a nodeID came back from another node, which has logged it.
  return (typeof code !== 'number' || code >= 500) && !(err as { nodeID?: string }).nodeID && !loggedErrors.has(err);
}

type ActionDefinition = { name: string; service?: { logger?: ServiceBroker['logger'] } };
type Handler = (ctx: Context) => Promise<unknown>;

export const RequestLogMiddleware: Middleware = {
  name: 'RequestLog',

  localAction(this: ServiceBroker, next: Handler, action: ActionDefinition): Handler {
    const logger = action.service?.logger ?? this.logger;
    return (ctx) =>
      handledWithRequestId(ctx.requestID ?? ctx.id, () =>
        next(ctx).catch((err: unknown) => {
          if (isUnexpected(err)) {
            loggedErrors.add(err);
            logger.error(`Action '${action.name}' failed:`, err);
          }
          throw err;
        }),
      );
  },

  localEvent(next: Handler): Handler {
    return (ctx) => handledWithRequestId(ctx.requestID ?? ctx.id, () => next(ctx));
  },
} as unknown as Middleware;
