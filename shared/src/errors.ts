/**
 * Domain errors and their rendering into the spec's error envelopes.
 *
 * Error classes do not survive the transporter, so rendering keys on `code` and `type` only.
 */
import { Errors } from 'moleculer';

const { MoleculerClientError, MoleculerRetryableError } = Errors;

export const ERROR_TYPES = {
  FIELDS_VALIDATION: 'FIELDS_VALIDATION',
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  NOT_ENOUGH_DATA: 'NOT_ENOUGH_DATA',
  CANNOT_PROCESS_CASE: 'CANNOT_PROCESS_CASE',
  UNAVAILABLE: 'UNAVAILABLE',
  SERVICE_MISSING: 'SERVICE_MISSING',
} as const;

/** The validator's error type of a refused record key, reported on the record's field with the key named. */
export const REFUSED_KEY_ERROR = 'recordKeyRefused';

/** Messages the spec uses for field validation, keyed by what went wrong. */
export const FIELD_MESSAGES = {
  required: 'Field is required',
  notAnOption: 'Value is not present in possible options',
  wrongFormat: 'Wrong format',
  mustBeTrue: 'Field must be equal to true',
  notAccepted: 'Field is not accepted',
} as const;

export type FieldDetails = Record<string, string[]>;

/**
 * How many failing fields a validation answer names. An answer travels back between services as
 * one transport message, so it must stay small whatever the input: a body of ten thousand wrong
 * items names the first fields and says how many failed in all (`failureCount`).
 */
export const NAMED_FAILURES_MAX = 20;
/** A field path is named up to this many characters: keys come from the client and can be long. */
const FIELD_PATH_MAX = 200;

export interface BoundedDetails {
  details: FieldDetails;
  /** Every failing field, when there were more than NAMED_FAILURES_MAX. */
  failureCount?: number;
}

/** The first NAMED_FAILURES_MAX fields of `details`, each path cut to FIELD_PATH_MAX characters. */
export function boundedDetails(details: FieldDetails): BoundedDetails {
  const fields = Object.keys(details);
  if (fields.length <= NAMED_FAILURES_MAX && fields.every((field) => field.length <= FIELD_PATH_MAX))
    return { details };
  // Field names come from the client: `__proto__` must be a key like any other.
  const named: FieldDetails = Object.create(null);
  for (const field of fields.slice(0, NAMED_FAILURES_MAX)) {
    const path = field.length > FIELD_PATH_MAX ? `${field.slice(0, FIELD_PATH_MAX - 1)}…` : field;
    (named[path] ??= []).push(...details[field]);
  }
  return fields.length > NAMED_FAILURES_MAX ? { details: named, failureCount: fields.length } : { details: named };
}

/**
 * 400 `{ error: { message: 'Fields validation failed', details } }`, details keyed by field path;
 * bounded (boundedDetails), with `failureCount` when fields were left unnamed.
 */
export class FieldsValidationError extends MoleculerClientError {
  constructor(details: FieldDetails) {
    super('Fields validation failed', 400, ERROR_TYPES.FIELDS_VALIDATION, boundedDetails(details));
  }
}

/** A request the gateway cannot read at all (malformed JSON, wrong top-level shape). */
export class BadRequestError extends MoleculerClientError {
  constructor(message: string, data?: unknown) {
    super(message, 400, ERROR_TYPES.BAD_REQUEST, data);
  }
}

export class UnauthorizedError extends MoleculerClientError {
  constructor(message = 'Access token is missing or invalid') {
    super(message, 401, ERROR_TYPES.UNAUTHORIZED);
  }
}

export class ForbiddenError extends MoleculerClientError {
  constructor(message = 'This endpoint is not available for your access level') {
    super(message, 403, ERROR_TYPES.FORBIDDEN);
  }
}

/** 404; also what a caller gets for a case it may not see, so existence never leaks. */
export class NotFoundError extends MoleculerClientError {
  constructor(message = 'Not found', data?: unknown) {
    super(message, 404, ERROR_TYPES.NOT_FOUND, data);
  }
}

export class ConflictError extends MoleculerClientError {
  constructor(message: string, data?: unknown) {
    super(message, 409, ERROR_TYPES.CONFLICT, data);
  }
}

export class PayloadTooLargeError extends MoleculerClientError {
  constructor(message = 'Request body is too large') {
    super(message, 413, ERROR_TYPES.PAYLOAD_TOO_LARGE);
  }
}

export class RateLimitedError extends MoleculerClientError {
  constructor(retryAfterSeconds: number) {
    super('Too many requests', 429, ERROR_TYPES.RATE_LIMITED, { retryAfterSeconds });
  }
}

/** Routing 400 `{ error: 'Not enough data', data: { paramsNeeded } }`. */
export class NotEnoughDataError extends MoleculerClientError {
  constructor(paramsNeeded: string[]) {
    super('Not enough data', 400, ERROR_TYPES.NOT_ENOUGH_DATA, { paramsNeeded });
  }
}

/** Routing 404 `{ error: { message: "Can't process this case" }, data: null }`. */
export class CannotProcessCaseError extends MoleculerClientError {
  constructor() {
    super("Can't process this case", 404, ERROR_TYPES.CANNOT_PROCESS_CASE);
  }
}

/** A part of the cluster that a request needs is not running; retrying at once will not help. */
export class ServiceMissingError extends Errors.MoleculerError {
  constructor(message: string, data?: unknown) {
    super(message, 503, ERROR_TYPES.SERVICE_MISSING, data);
  }
}

/** A passing fault (database busy, serialization conflict): safe to retry. */
export class UnavailableError extends MoleculerRetryableError {
  constructor(message = 'Service temporarily unavailable', data?: unknown) {
    super(message, 503, ERROR_TYPES.UNAVAILABLE, data);
  }
}

/** This process is cut off from the transporter: the call was not sent, so it did not run. */
export class TransporterUnreachableError extends Errors.MoleculerError {
  constructor(data?: unknown) {
    super('Transporter unreachable', 503, ERROR_TYPES.UNAVAILABLE, data);
  }
}

/**
 * The database cannot be reached. Not retryable: a connection lost during a commit leaves the
 * write's outcome unknown, so only the client, told 503, may decide to send it again.
 */
export class DatabaseUnavailableError extends Errors.MoleculerError {
  constructor() {
    super('Database unavailable', 503, ERROR_TYPES.UNAVAILABLE);
  }
}

/**
 * Moleculer's errors for a call that was sent and whose answer never came: it timed out (a
 * stalled process may still carry it out once it resumes), or its node left while it was pending
 * (it may have committed before the node went). A 503 says a call was not carried out; these say
 * its outcome is unknown.
 */
export const OUTCOME_UNKNOWN_ERRORS: ReadonlySet<string> = new Set(['REQUEST_TIMEOUT', 'REQUEST_REJECTED']);

const OUTCOME_UNKNOWN_MESSAGE =
  'No answer came in time: the request may have been carried out. Send it again with the same Idempotency-Key to get its first answer';

interface ErrorLike {
  code?: unknown;
  type?: unknown;
  message?: unknown;
  data?: unknown;
}

/**
 * fastest-validator's rule types and the spec message each maps to; the rest are 'Wrong format'.
 * Length limits say what the limit is, which is more use to an integrator than 'Wrong format'.
 */
function messageForRule(item: { type?: string; expected?: unknown; actual?: unknown }): string {
  switch (item.type) {
    case 'required':
      return FIELD_MESSAGES.required;
    case 'enumValue':
      return FIELD_MESSAGES.notAnOption;
    case 'equalValue':
      return item.expected === true ? FIELD_MESSAGES.mustBeTrue : `Field must be equal to ${String(item.expected)}`;
    case 'stringMax':
      return `Must be at most ${String(item.expected)} characters`;
    case 'stringMin':
      return `Must be at least ${String(item.expected)} characters`;
    case 'arrayMax':
      return `Must have at most ${String(item.expected)} items`;
    case 'arrayMin':
      return `Must have at least ${String(item.expected)} items`;
    case 'numberMax':
      return `Must be at most ${String(item.expected)}`;
    case 'numberMin':
      return `Must be at least ${String(item.expected)}`;
    case 'objectStrict':
      return FIELD_MESSAGES.notAccepted;
    case REFUSED_KEY_ERROR:
      return `Key ${String(item.actual)} is not accepted`;
    default:
      return FIELD_MESSAGES.wrongFormat;
  }
}

/** Turns Moleculer's parameter validation error data into the spec's `details` map. */
export function detailsFromValidator(items: unknown): FieldDetails {
  const details: FieldDetails = {};
  if (!Array.isArray(items)) return details;
  for (const item of items as Array<{ field?: string; type?: string; expected?: unknown }>) {
    const field = item.field && item.field.length > 0 ? item.field : 'body';
    const message = messageForRule(item);
    const messages = (details[field] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }
  return details;
}

export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * The HTTP answer for any error that reaches the gateway. A 5xx never shows internals: the
 * request id lets an operator find the log line.
 */
export function renderError(err: ErrorLike, requestId?: string): RenderedError {
  const type = typeof err.type === 'string' ? err.type : undefined;
  const code = typeof err.code === 'number' ? err.code : 500;
  const data = (err.data ?? {}) as Record<string, unknown>;
  const message = typeof err.message === 'string' ? err.message : 'Error';
  const headers: Record<string, string> = {};

  switch (type) {
    case ERROR_TYPES.FIELDS_VALIDATION: {
      // Bounded again: details built by hand in a service may not have come through the constructor.
      const bounded = boundedDetails((data.details ?? {}) as FieldDetails);
      const failureCount = typeof data.failureCount === 'number' ? data.failureCount : bounded.failureCount;
      return {
        status: 400,
        headers,
        body: {
          error: {
            message: 'Fields validation failed',
            details: bounded.details,
            ...(failureCount && { failureCount }),
          },
        },
      };
    }
    case 'VALIDATION_ERROR': // Moleculer's parameter validator
      return {
        status: 400,
        headers,
        body: { error: { message: 'Fields validation failed', ...boundedDetails(detailsFromValidator(err.data)) } },
      };
    case ERROR_TYPES.NOT_ENOUGH_DATA:
      return {
        status: 400,
        headers,
        body: { error: 'Not enough data', data: { paramsNeeded: data.paramsNeeded ?? [] } },
      };
    case ERROR_TYPES.SERVICE_MISSING:
      return { status: 503, headers, body: { error: { message, details: err.data ?? null } } };
    case ERROR_TYPES.CANNOT_PROCESS_CASE:
      return { status: 404, headers, body: { error: { message: "Can't process this case" }, data: null } };
    case ERROR_TYPES.RATE_LIMITED:
      headers['Retry-After'] = String((data.retryAfterSeconds as number | undefined) ?? 60);
      return { status: 429, headers, body: { error: { message: 'Too many requests' } } };
    case 'NOT_FOUND':
      return { status: 404, headers, body: { error: { message } } };
    // A route's action, or one it needs, runs nowhere right now: an outage, not a missing resource.
    case 'SERVICE_NOT_FOUND':
    case 'SERVICE_NOT_AVAILABLE':
      headers['Retry-After'] = '1';
      return { status: 503, headers, body: { error: { message: 'Service temporarily unavailable', requestId } } };
    // The call reached its service and no answer came: what it did is not known.
    case 'REQUEST_TIMEOUT':
    case 'REQUEST_REJECTED':
      return { status: 504, headers, body: { error: { message: OUTCOME_UNKNOWN_MESSAGE, requestId } } };
    case 'INVALID_REQUEST_TYPE':
    case 'UNSUPPORTED_MEDIA_TYPE':
      return { status: 415, headers, body: { error: { message } } };
    default:
      break;
  }

  if (code === 429) {
    // moleculer-web's rate limiter: the gateway replaces this with the time left in the window.
    headers['Retry-After'] = '60';
    return { status: 429, headers, body: { error: { message: 'Too many requests' } } };
  }
  if (code === 413 || type === 'entity.too.large') {
    return { status: 413, headers, body: { error: { message: 'Request body is too large' } } };
  }
  if (code >= 400 && code < 500) {
    const body: { error: { message: string; details?: unknown } } = { error: { message } };
    if (err.data !== undefined && err.data !== null) body.error.details = err.data;
    return { status: code, headers, body };
  }
  if (code === 503) {
    headers['Retry-After'] = '1';
    return { status: 503, headers, body: { error: { message: 'Service temporarily unavailable', requestId } } };
  }
  if (code === 504) return { status: 504, headers, body: { error: { message: OUTCOME_UNKNOWN_MESSAGE, requestId } } };
  return { status: 500, headers, body: { error: { message: 'Internal error', requestId } } };
}
