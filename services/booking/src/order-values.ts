/**
 * The cases' top-level orderData values, one row each (case, key, value as text) with the case's
 * partner and provider, kept by triggers in the transaction of every write to booking.cases
 * (keep_order_values.sql, in the booking schema's migration). Indexed by (scope, key, value, case id), they let a search
 * by one orderData key alone find its matches, count them and sort them for the page from the
 * index, without reading a case: read through the cases, each candidate of the containment test
 * is a heap page.
 *
 * A value is kept where a filter could equal it (see case-filters.ts): a string, number or
 * boolean, read as `->>` reads it, under a key a filter may name; a text longer than any a filter
 * may send is not.
 */
import type { SqlFragment } from '@hub/shared';
import type { CallerScope, CaseCondition } from './case-filters';

export const ORDER_VALUES = 'booking.case_order_values';

/**
 * The keys, and the longest texts (in characters), the triggers keep (the same bounds are written
 * in their SQL): the filters' own bounds when they were written. A search whose key or texts fall
 * outside them reads the cases; widening them takes a migration that keeps the values again.
 */
const KEPT_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const KEPT_TEXT_CHARACTERS = 255;

/**
 * The ids, as column `id`, of the cases in `scope` whose orderData `key` has one of `texts`, from
 * the kept values alone; undefined when the key or a text is one they do not keep.
 */
export function keptOrderValueIds(
  scope: CallerScope,
  { key, texts }: NonNullable<CaseCondition['orderValue']>,
): SqlFragment | undefined {
  // Code points, as Postgres counts characters.
  if (!KEPT_KEY.test(key) || texts.some((text) => [...text].length > KEPT_TEXT_CHARACTERS)) return undefined;
  return {
    sql: `select v.case_id as id from ${ORDER_VALUES} v
           where v.${scope.column} = ? and v.key = ? and v.value in (${texts.map(() => '?').join(', ')})`,
    bindings: [scope.id, key, ...texts],
  };
}
