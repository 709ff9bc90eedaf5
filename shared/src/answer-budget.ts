/**
 * The size an answer may reach. In distributed mode every answer travels from its service to the
 * gateway as one NATS message, whose default limit is 1 MiB (1,048,576 bytes) with Moleculer's
 * envelope around it (the request's meta, ids, headers); an answer over it cannot be sent and the
 * request fails. An answer whose size grows with stored data is therefore built to a budget: a
 * page takes items while their JSON fits, at least one (a single record is bounded by the input
 * limits that created it: RECORD_MAX_BYTES), and says there is more the way the endpoint already
 * does (a cursor, `hasMore`, a count and offset, or a `Link` header for a bare array). A write
 * that answers every record it saved takes no more records than its answer holds.
 */
import { FieldsValidationError } from './errors';

/**
 * The most one answer's items may hold as JSON: half the transport's default limit, so that
 * Moleculer's envelope and a page's own fields beside the items never carry it over.
 */
export const ANSWER_BUDGET_BYTES = 512 * 1024;

/**
 * The most one stored record may hold as JSON when it is written: small enough that a record and
 * those it is answered with (an invoice with its case) fit the answer budget together.
 */
export const RECORD_MAX_BYTES = 128 * 1024;

/** The length in bytes of `value` as JSON, as the transporter serializes it. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/** The index of the first item with which the items' JSON as one array passes `budget`, or -1 when all fit. */
export function firstPastBudget(items: unknown[], budget: number = ANSWER_BUDGET_BYTES): number {
  let used = 2;
  for (const [index, item] of items.entries()) {
    used += jsonBytes(item) + (index > 0 ? 1 : 0);
    if (used > budget) return index;
  }
  return -1;
}

/**
 * The leading items whose JSON as one array fits `budget` bytes; always at least the first, so a
 * page always moves its reader on. Fewer items than given means the page was cut by size.
 */
export function itemsWithinBudget<T>(items: T[], budget: number = ANSWER_BUDGET_BYTES): T[] {
  const past = firstPastBudget(items, budget);
  return past === -1 ? items : items.slice(0, Math.max(past, 1));
}

/**
 * The message naming the first item of a write whose answer would pass the budget: a write
 * answers every record it saved, so it takes no more than one answer holds.
 */
export const ANSWER_FULL =
  'The records before this one fill the answer: send this one and those after it in another call';

/**
 * For a write that answers every record it saved (`answered`, in the order sent): a 400 naming
 * `fieldOf` the first that would carry the answer past the budget, thrown inside the write's
 * transaction so that nothing is saved; nothing when they all fit.
 */
export function assertAnswerFits(answered: unknown[], fieldOf: (index: number) => string): void {
  const past = firstPastBudget(answered);
  if (past !== -1) throw new FieldsValidationError({ [fieldOf(past)]: [ANSWER_FULL] });
}

/** The offset a bare list is read from (`GET ...?offset=`): its first answer starts at 0. */
export const LIST_OFFSET_PARAM = { type: 'number', integer: true, min: 0, optional: true } as const;

/**
 * A bare array answer (a case's invoices, messages, proposals), `items` being the list from its
 * `offset`-th item, within the budget. The documented answer has no field to say more follow, so when the rest do not fit,
 * a `Link` header names them as HTTP names a list's next page (RFC 8288): the same query with the
 * offset moved on, relative to the request's own path so that every version's path reads on.
 * `offsetParam` names the offset where the list is part of a larger answer, whose other part
 * takes `budget` down.
 */
export function listWithinBudget<T>(
  meta: { $responseHeaders?: Record<string, string> },
  items: T[],
  query: Record<string, string | number | boolean | undefined>,
  offset = 0,
  { offsetParam = 'offset', budget = ANSWER_BUDGET_BYTES } = {},
): T[] {
  const fitted = itemsWithinBudget(items, budget);
  if (fitted.length < items.length) {
    const next = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) next.set(key, String(value));
    next.set(offsetParam, String(offset + fitted.length));
    meta.$responseHeaders = { ...meta.$responseHeaders, Link: `<?${next.toString()}>; rel="next"` };
  }
  return fitted;
}

/** The message of a record over RECORD_MAX_BYTES. */
export const RECORD_TOO_LARGE = `Must be at most ${RECORD_MAX_BYTES} bytes as JSON`;
