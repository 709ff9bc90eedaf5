/**
 * Keeps every answer within what the transporter carries. Between processes a request and its
 * answer each travel as one NATS message, and NATS refuses a message over its `max_payload`
 * (1 MiB unless the server says otherwise). Left alone, an answer over it throws where Moleculer
 * sends it and the serving process exits; so:
 * - an error answer is bounded where it is made: a validation error names its first fields and
 *   counts the rest (FieldsValidationError, and HubValidator for the params), an error's message
 *   is cut and its data past ERROR_DATA_MAX_BYTES dropped;
 * - a message the transporter still refuses never escapes: an answer becomes an error answer the
 *   caller receives at once, a request a 413 to its caller, an event a logged failure.
 */
import type { Middleware, ServiceBroker } from 'moleculer';
import { PayloadTooLargeError } from './errors';

/** An error's `data` is dropped past this size: it is for naming what went wrong, not for carrying input back. */
export const ERROR_DATA_MAX_BYTES = 16 * 1024;
/** An error's message is cut to this many characters. */
const ERROR_MESSAGE_MAX = 1000;

/** Moleculer's packet types for a request, its answer and an event (its `packets` module). */
const PACKET = { request: 'REQ', response: 'RES', event: 'EVENT' } as const;

/** The nats client's code for a message over the server's max_payload. */
const MAX_PAYLOAD_EXCEEDED = 'MAX_PAYLOAD_EXCEEDED';

interface Packet {
  type: string;
  target?: string | null;
  payload: { id?: string; event?: string; action?: string; meta?: unknown; [key: string]: unknown };
}

type Publish = (packet: Packet) => Promise<unknown>;

/** The error a caller gets when the answer to its call was too large to send. */
function answerTooLargePayload(broker: ServiceBroker) {
  return {
    name: 'MoleculerError',
    message: 'The answer was too large to send',
    code: 500,
    type: 'ANSWER_TOO_LARGE',
    retryable: false,
    nodeID: broker.nodeID,
    data: null,
  };
}

/** The same error with its message cut and its data dropped when either is past its bound. */
function boundedError(err: unknown): Error {
  if (!err || typeof err !== 'object') return err as Error;
  const error = err as { data?: unknown; message?: unknown };
  if (typeof error.message === 'string' && error.message.length > ERROR_MESSAGE_MAX)
    error.message = `${error.message.slice(0, ERROR_MESSAGE_MAX - 1)}…`;
  if (error.data !== undefined && error.data !== null && serializedLength(error.data) > ERROR_DATA_MAX_BYTES)
    error.data = undefined;
  return err as Error;
}

function serializedLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Infinity;
  }
}

export const TransportLimitsMiddleware = {
  name: 'TransportLimits',

  localAction(next: (ctx: unknown) => Promise<unknown>) {
    return (ctx: unknown) => next(ctx).catch((err: unknown) => Promise.reject(boundedError(err)));
  },

  /** Moleculer calls it with the transit as `this`. */
  transitPublish(this: { broker: ServiceBroker }, next: Publish): Publish {
    const { broker } = this;
    const logger = broker.getLogger('transport-limits');
    const recover = (packet: Packet, err: unknown): Promise<unknown> => {
      if ((err as { code?: unknown })?.code !== MAX_PAYLOAD_EXCEEDED) throw err;
      switch (packet.type) {
        case PACKET.response:
          logger.error(`The answer to request ${packet.payload.id} is too large to send; an error is sent instead`);
          return next({
            ...packet,
            payload: {
              id: packet.payload.id,
              meta: {},
              success: false,
              data: null,
              error: answerTooLargePayload(broker),
            },
          });
        case PACKET.request:
          return Promise.reject(new PayloadTooLargeError('The request is too large to pass between services'));
        case PACKET.event:
          logger.error(`Event ${packet.payload.event} is too large to send; it was dropped`);
          return Promise.resolve();
        default:
          throw err;
      }
    };
    return (packet) => {
      // The nats client throws at once: the throw is met here, where no caller of Moleculer's catches it.
      try {
        return next(packet).catch((err: unknown) => recover(packet, err));
      } catch (err) {
        return recover(packet, err);
      }
    };
  },
} as unknown as Middleware;
