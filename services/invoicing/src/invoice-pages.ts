/**
 * One page of invoices/find: the exact count of every match, and the page in created order,
 * taken at an offset or after a cursor (see the shared pagination module). Invoices sort by
 * (created_at, id), which the scope indexes (partner_id or provider_id, created_at, id) hold in
 * order, so a page after a cursor starts where the last one ended instead of skipping rows. The
 * count reads the kept customData values instead of the invoices when the filters allow it
 * (`keptValueMatches`), in the same order by (created_at, invoice_id).
 */
import type { Knex } from 'knex';
import { decodeCursor, encodeCursor, FIELD_MESSAGES, FieldsValidationError, parseInstant } from '@hub/shared';
import type { SqlFragment } from '@hub/shared';
import { CUSTOM_VALUES } from './custom-values.store';
import { INVOICES, type InvoiceWithLinkRow, selectInvoices } from './invoices.store';

/** The sort key of the invoice a page ended on: its created_at to the microsecond, and its id. */
export interface InvoiceKey {
  createdAt: string;
  id: number;
}

export interface FindPage {
  rows: InvoiceWithLinkRow[];
  count: number;
  /** Matches before the page: the offset asked for, or those up to the cursor's invoice. */
  offset: number;
  /** The cursor of the page's last invoice when more follow, else null. */
  next: string | null;
}

const SORT_KEY = '(i.created_at, i.id)';
const KEPT_SORT_KEY = '(v.created_at, v.invoice_id)';
const KEY_SQL = '(?::timestamptz, ?)';
// Microseconds, as Postgres keeps them: a Date would round to the millisecond and skip rows.
const CREATED_AT_TEXT = `to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The key a caller's `pagination.after` holds, or a 400 naming it. */
export function afterInvoice(cursor: string, offset: number | undefined): InvoiceKey {
  const [createdAt, id] = decodeCursor(cursor, ['string', 'integer'], offset) as [string, number];
  if (parseInstant(createdAt) === null)
    throw new FieldsValidationError({ 'pagination.after': [FIELD_MESSAGES.wrongFormat] });
  return { createdAt, id };
}

/**
 * `where`: the matches as a condition on the invoices as `i`; `kept`: the same matches as a
 * condition on the kept customData values as `v`, when there is one.
 */
export async function findPage(
  knex: Knex,
  where: SqlFragment,
  kept: SqlFragment | undefined,
  page: { after?: InvoiceKey; offset: number; limit: number },
): Promise<FindPage> {
  const { after, limit } = page;
  const afterBindings = after ? [after.createdAt, after.id] : [];
  const [from, matches, sortKey] = kept
    ? [`${CUSTOM_VALUES} as v`, kept, KEPT_SORT_KEY]
    : [`${INVOICES} as i`, where, SORT_KEY];
  // One pass over the matches counts them all and, for a cursor, those up to it.
  const [counted] = (await knex(from)
    .whereRaw(matches.sql, matches.bindings)
    .select(
      knex.raw('count(*) as count'),
      after
        ? knex.raw(`count(*) filter (where ${sortKey} <= ${KEY_SQL}) as before`, afterBindings)
        : knex.raw('0 as before'),
    )) as Array<{ count: number | string; before: number | string }>;

  const query = selectInvoices(knex)
    .select(knex.raw(`${CREATED_AT_TEXT} as page_created_at`))
    .whereRaw(where.sql, where.bindings)
    .orderBy([{ column: 'i.created_at' }, { column: 'i.id' }])
    .limit(limit + 1);
  if (after) query.whereRaw(`${SORT_KEY} > ${KEY_SQL}`, afterBindings);
  else query.offset(page.offset);
  const found = (await query) as Array<InvoiceWithLinkRow & { page_created_at: string }>;

  const rows = found.slice(0, limit);
  const last = rows[rows.length - 1];
  return {
    rows: rows.map(({ page_created_at: _key, ...row }) => row as InvoiceWithLinkRow),
    count: Number(counted.count),
    offset: after ? Number(counted.before) : page.offset,
    next: found.length > limit ? encodeCursor([last.page_created_at, last.id]) : null,
  };
}
