/**
 * Keyset pagination: `pagination.after` carries the sort key of the last row a page ended on, so
 * the next page starts right after it through the same index, at the cost of the first page
 * whatever its depth (an offset makes the database read and skip every row before it).
 *
 * The cursor is opaque to callers: base64url of the key's values as a JSON array. Each search
 * checks the decoded values' types itself; a cursor that does not decode is a 400 naming
 * `pagination.after`, never a silently different page.
 */
import { FIELD_MESSAGES, FieldsValidationError } from './errors';

export type CursorValue = string | number;

/** Longest cursor accepted: a sort key of a few values fits many times over. */
export const CURSOR_MAX_LENGTH = 200;

export const CURSOR_PARAM = { type: 'string', min: 1, max: CURSOR_MAX_LENGTH, optional: true } as const;

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/**
 * The sort key a cursor holds, checked against the kinds the search expects, or a 400 naming
 * `pagination.after`. Offsets and cursors do not mix: a page is either counted from the start or
 * taken after a row.
 */
export function decodeCursor(
  cursor: string,
  kinds: Array<'integer' | 'string'>,
  offset: number | undefined,
): CursorValue[] {
  if (offset !== undefined)
    throw new FieldsValidationError({ 'pagination.offset': ['Leave out offset when after is given'] });
  return cursorValues(cursor, kinds, 'pagination.after');
}

/** The values a cursor holds, checked against the kinds expected, or a 400 naming `field`. */
export function cursorValues(cursor: string, kinds: Array<'integer' | 'string'>, field: string): CursorValue[] {
  let values: unknown;
  try {
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    values = JSON.parse(text);
  } catch {
    values = undefined;
  }
  const fits =
    Array.isArray(values) &&
    values.length === kinds.length &&
    values.every((value, index) =>
      kinds[index] === 'integer'
        ? Number.isSafeInteger(value)
        : typeof value === 'string' && value.length <= CURSOR_MAX_LENGTH,
    );
  if (!fits) throw new FieldsValidationError({ [field]: [FIELD_MESSAGES.wrongFormat] });
  return values as CursorValue[];
}
