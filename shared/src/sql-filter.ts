/**
 * What the filter translators of the find endpoints (search-cases, invoices/find) and the model
 * search share: SQL built as fragments whose every value is a binding, and the checks a filter's
 * value passes before it may become one.
 */

/** A piece of a where clause: its text names only whitelisted columns; every value is a binding. */
export interface SqlFragment {
  sql: string;
  bindings: Array<string | number | boolean>;
}

/** Joins fragments with `and`; no fragment matches everything. */
export function allOf(fragments: SqlFragment[]): SqlFragment {
  if (fragments.length === 0) return { sql: 'true', bindings: [] };
  return {
    sql: fragments.map((fragment) => `(${fragment.sql})`).join(' and '),
    bindings: fragments.flatMap((fragment) => fragment.bindings),
  };
}

/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A UUID in its canonical text form, any case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Makes text match itself literally inside a LIKE pattern (with `escape '\'`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
