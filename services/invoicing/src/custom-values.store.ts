/**
 * The invoices' top-level scalar customData values, one row each (invoice, key, value) with the
 * invoice's scope and created_at, kept by triggers in the transaction of every write to
 * invoicing.invoices (keep_custom_values.sql, in the invoicing schema's migration). Indexed by (scope, key, value,
 * created_at, invoice id), they let invoices/find count the matches of one customData key's value
 * in a date range from the index alone, instead of rechecking each candidate invoice.
 *
 * A value is kept when a customData filter's containment test could match it: a string, number,
 * boolean or null (an object or array never equals a scalar filter value). Keys and strings
 * longer than KEPT_BYTES are not kept, so every entry fits a btree index row; a filter naming
 * one reads the invoices instead (see `keptValueMatches`). The triggers' SQL holds the same bound.
 */
import { Buffer } from 'node:buffer';

export const CUSTOM_VALUES = 'invoicing.invoice_custom_values';

/** The kept values counted per scope, key, value and UTC day of created_at (count_custom_values.sql). */
export const CUSTOM_VALUE_DAYS = 'invoicing.custom_value_days';

/** The day a kept value is counted in, from its created_at. */
export const DAY_OF_CREATED_AT = "(created_at at time zone 'UTC')::date";

/** Longest key, and longest string value, that is kept: UTF-8 bytes, as Postgres counts them. */
export const KEPT_BYTES = 1000;

/** Whether a customData key and scalar value would have been kept. */
export function isKept(key: string, value: unknown): boolean {
  if (Buffer.byteLength(key, 'utf8') > KEPT_BYTES) return false;
  return typeof value !== 'string' || Buffer.byteLength(value, 'utf8') <= KEPT_BYTES;
}
