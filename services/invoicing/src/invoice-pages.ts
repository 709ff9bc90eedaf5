/**
 * One page of invoices/find: the exact count of every match, and the page in created order,
 * taken at an offset or after a cursor (see the shared pagination module). Invoices sort by
 * (created_at, id), which the scope indexes (partner_id or provider_id, created_at, id) hold in
 * order, so a page after a cursor starts where the last one ended instead of skipping rows. The
 * count sums day counts for the whole days the matches span when the filters allow it: those of
 * the kept customData values for one key's value (`keptValueMatches`), those of the invoices for
 * a createdAt range or no filter (`invoiceDayMatches`), reading entries only at the range's ends.
 */
import type { Knex } from 'knex';
import { allOf, decodeCursor, encodeCursor, FIELD_MESSAGES, FieldsValidationError, parseInstant } from '@hub/shared';
import type { SqlFragment } from '@hub/shared';
import { CUSTOM_VALUE_DAYS, CUSTOM_VALUES } from './custom-values.store';
import type { DayCountedMatches } from './filters';
import { INVOICE_DAYS, INVOICES, type InvoiceWithLinkRow, selectInvoices } from './invoices.store';

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
  /** The cursor after each invoice of the page, for a page cut shorter. */
  cursors: string[];
}

const SORT_KEY = '(i.created_at, i.id)';
/** Where each kind of entries and its day counts are, and the entries' sort key, as `v`. */
const COUNTED = {
  values: { table: CUSTOM_VALUES, days: CUSTOM_VALUE_DAYS, sortKey: '(v.created_at, v.invoice_id)' },
  invoices: { table: INVOICES, days: INVOICE_DAYS, sortKey: '(v.created_at, v.id)' },
};
const KEY_SQL = '(?::timestamptz, ?)';
// Microseconds, as Postgres keeps them: a Date would round to the millisecond and skip rows.
const CREATED_AT_TEXT = `to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** CREATED_AT_TEXT's form: in UTC, so the database and the count's days read the same instant. */
const CURSOR_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The key a caller's `pagination.after` holds, or a 400 naming it. */
export function afterInvoice(cursor: string, offset: number | undefined): InvoiceKey {
  const [createdAt, id] = decodeCursor(cursor, ['string', 'integer'], offset) as [string, number];
  if (!CURSOR_INSTANT.test(createdAt) || parseInstant(createdAt) === null)
    throw new FieldsValidationError({ 'pagination.after': [FIELD_MESSAGES.wrongFormat] });
  return { createdAt, id };
}

const DAY_MS = 86_400_000;

/** The start of the UTC day of `instant`, `later` days on, as YYYY-MM-DD; undefined past 9999. */
function dayOf(instant: string, later: number): string | undefined {
  const time = parseInstant(instant)!.getTime();
  const day = new Date(time - (((time % DAY_MS) + DAY_MS) % DAY_MS) + later * DAY_MS);
  return day.getUTCFullYear() <= 9999 ? day.toISOString().slice(0, 10) : undefined;
}

/**
 * The whole UTC days whose every entry matches: from the day after the range's lower bound up to
 * the day of its upper bound (or of the cursor), either end open when unbounded. Undefined when
 * there are none, or the createdAt filter is not a range.
 */
function wholeDays(matches: DayCountedMatches, upTo?: InvoiceKey): { from?: string; until?: string } | undefined {
  const range = matches.createdWithin;
  if (range === undefined) return undefined;
  const from = range.from === undefined ? undefined : dayOf(range.from, 1);
  if (range.from !== undefined && from === undefined) return undefined;
  const ends = [range.to, upTo?.createdAt].filter((end) => end !== undefined).map((end) => dayOf(end, 0)!);
  const until = ends.length ? ends.reduce((least, end) => (end < least ? end : least)) : undefined;
  return from !== undefined && until !== undefined && from >= until ? undefined : { from, until };
}

/**
 * The number of entries matching `matches` (and, with `upTo`, sorting up to that invoice) as a
 * SQL expression: the day counts of the whole days summed, and the entries of the days at either
 * end counted one by one.
 */
function countByDays(matches: DayCountedMatches, upTo?: InvoiceKey): SqlFragment {
  const { table, days: dayCounts, sortKey } = COUNTED[matches.entries];
  const condition = upTo
    ? allOf([matches.values, { sql: `${sortKey} <= ${KEY_SQL}`, bindings: [upTo.createdAt, upTo.id] }])
    : matches.values;
  const counted = (extra?: SqlFragment): SqlFragment => {
    const where = extra ? allOf([condition, extra]) : condition;
    return { sql: `(select count(*) from ${table} as v where ${where.sql})`, bindings: where.bindings };
  };
  const days = wholeDays(matches, upTo);
  if (days === undefined) return counted();
  const { from, until } = days;
  const inDays: SqlFragment[] = [matches.days];
  const parts: SqlFragment[] = [];
  if (from !== undefined) {
    inDays.push({ sql: 'd.day >= ?::date', bindings: [from] });
    parts.push(counted({ sql: "v.created_at < (?::date at time zone 'UTC')", bindings: [from] }));
  }
  if (until !== undefined) {
    inDays.push({ sql: 'd.day < ?::date', bindings: [until] });
    parts.push(counted({ sql: "v.created_at >= (?::date at time zone 'UTC')", bindings: [until] }));
  }
  const summed = allOf(inDays);
  parts.push({
    sql: `(select coalesce(sum(d.invoices), 0) from ${dayCounts} as d where ${summed.sql})`,
    bindings: summed.bindings,
  });
  return { sql: parts.map((part) => part.sql).join(' + '), bindings: parts.flatMap((part) => part.bindings) };
}

/** All the matches and, after a cursor, those up to it: by day counts where they can be. */
async function countMatches(
  knex: Knex,
  where: SqlFragment,
  byDays: DayCountedMatches | undefined,
  after: InvoiceKey | undefined,
): Promise<{ count: number; before: number }> {
  let counted: { count: number | string; before: number | string };
  if (byDays) {
    const [all, before] = [countByDays(byDays), after ? countByDays(byDays, after) : { sql: '0', bindings: [] }];
    [counted] = (
      await knex.raw(`select ${all.sql} as count, ${before.sql} as before`, [...all.bindings, ...before.bindings])
    ).rows;
  } else {
    // One pass over the matches counts them all and, for a cursor, those up to it.
    [counted] = await knex(`${INVOICES} as i`)
      .whereRaw(where.sql, where.bindings)
      .select(
        knex.raw('count(*) as count'),
        after
          ? knex.raw(`count(*) filter (where ${SORT_KEY} <= ${KEY_SQL}) as before`, [after.createdAt, after.id])
          : knex.raw('0 as before'),
      );
  }
  return { count: Number(counted.count), before: Number(counted.before) };
}

/**
 * `where`: the matches as a condition on the invoices as `i`; `byDays`: the same matches where
 * their count can sum day counts.
 */
export async function findPage(
  knex: Knex,
  where: SqlFragment,
  byDays: DayCountedMatches | undefined,
  page: { after?: InvoiceKey; offset: number; limit: number },
): Promise<FindPage> {
  const { after, limit } = page;
  const afterBindings = after ? [after.createdAt, after.id] : [];
  const query = selectInvoices(knex)
    .select(knex.raw(`${CREATED_AT_TEXT} as page_created_at`))
    .whereRaw(where.sql, where.bindings)
    .orderBy([{ column: 'i.created_at' }, { column: 'i.id' }])
    .limit(limit + 1);
  if (after) query.whereRaw(`${SORT_KEY} > ${KEY_SQL}`, afterBindings);
  else query.offset(page.offset);
  // On two of the pool's connections at once: neither waits for the other's round trip.
  const [counted, found] = await Promise.all([
    countMatches(knex, where, byDays, after),
    query as Promise<Array<InvoiceWithLinkRow & { page_created_at: string }>>,
  ]);

  const rows = found.slice(0, limit);
  const cursors = rows.map((row) => encodeCursor([row.page_created_at, row.id]));
  return {
    rows: rows.map(({ page_created_at: _key, ...row }) => row as InvoiceWithLinkRow),
    count: counted.count,
    offset: after ? counted.before : page.offset,
    next: found.length > limit ? cursors[cursors.length - 1] : null,
    cursors,
  };
}
