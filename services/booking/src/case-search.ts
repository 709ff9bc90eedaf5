/** The search behind search-cases and unexported-cases: scoped to the caller, filtered, paged. */
import type { Knex } from 'knex';
import {
  type Caller,
  caseForPartner,
  CURSOR_PARAM,
  decodeCursor,
  encodeCursor,
  hiddenProviderKeys,
  isPlainObject,
  type ParamsOf,
  providerKeysOf,
  type StatusRules,
} from '@hub/shared';
import { loadCases, type CaseOut } from './case-shape';
import { FILTER_LIMITS, type StatusReading, translateCaseFilters } from './case-filters';

export const PAGINATION = { defaultLimit: 10, maxLimit: 100 };
const SORTED_IN_FULL = 10_000;

export const SEARCH_PARAMS = {
  filters: { type: 'any', optional: true },
  pagination: {
    type: 'object',
    optional: true,
    props: {
      offset: { type: 'number', integer: true, min: 0, optional: true },
      limit: { type: 'number', integer: true, min: 1, max: PAGINATION.maxLimit, optional: true },
      after: CURSOR_PARAM,
    },
  },
} as const;
export type SearchParams = ParamsOf<typeof SEARCH_PARAMS>;

export interface SearchResult {
  data: CaseOut[];
  /** `next`: the `pagination.after` of the following page, null on the last one. */
  pagination: { offset: number; count: number; next: string | null };
}

export interface SearchOptions {
  /** Only the provider's cases it has not accepted yet and that are not cancelled. */
  unexported?: boolean;
  /** Up to this many matches, a page is taken from all of them sorted (see pageOf). */
  sortedInFull?: number;
}

export async function searchCases(
  knex: Knex,
  caller: Caller,
  params: SearchParams,
  rules: StatusRules | null,
  { unexported = false, sortedInFull = SORTED_IN_FULL }: SearchOptions = {},
): Promise<SearchResult> {
  const condition = translateCaseFilters(
    params.filters,
    await statusReadingFor(knex, rules),
    caller.role === 'partner',
    await tagIdsOf(knex, params.filters),
  );
  const limit = params.pagination?.limit ?? PAGINATION.defaultLimit;
  // Cases sort by id: a cursor is the id of the page's last case.
  const after =
    params.pagination?.after === undefined
      ? undefined
      : (decodeCursor(params.pagination.after, ['integer'], params.pagination.offset)[0] as number);

  const scoped = knex('booking.cases as c').whereRaw(condition.sql, condition.bindings);
  if (caller.role === 'partner') scoped.where('c.partner_id', caller.partnerId);
  else if (caller.role === 'provider') scoped.where('c.service_provider_id', caller.providerId);
  if (unexported) scoped.where('c.accepted', false).whereNull('c.cancelled_at');

  const kept = condition.sql === 'true' && !unexported ? await scopeCount(knex, caller) : undefined;
  const counted = await countMatches(knex, scoped, after, kept);
  const matches = scoped.clone();
  if (after !== undefined) matches.where('c.id', '>', after);
  const found = await pageOf(
    knex,
    matches,
    counted.count <= sortedInFull,
    limit + 1,
    after === undefined ? (params.pagination?.offset ?? 0) : 0,
  );
  const rows = found.slice(0, limit);

  const cases = await loadCases(
    knex,
    rows.map((row) => row.guid),
  );
  return {
    data: cases.map((loaded) => caseForPartner(loaded, rules)),
    pagination: {
      offset: after === undefined ? (params.pagination?.offset ?? 0) : counted.before,
      count: counted.count,
      next: found.length > limit ? encodeCursor([rows[rows.length - 1].id]) : null,
    },
  };
}

/**
 * currentStatus as the caller reads it: a partner's keys stand for the provider keys mapped to
 * them, and with hidden statuses its current status is the last one it may see (as caseForPartner
 * shows it), not the stored one.
 */
async function statusReadingFor(knex: Knex, rules: StatusRules | null): Promise<StatusReading | undefined> {
  if (!rules) return undefined;
  const providerKeys = ((await knex('booking.status_keys').distinct('key')) as Array<{ key: string }>).map(
    (row) => row.key,
  );
  const keysOf = (key: string) => providerKeysOf(rules, key, providerKeys);
  const hidden = hiddenProviderKeys(rules);
  if (hidden.length === 0) return { keysOf };
  const current = {
    sql: `(select cs.key from booking.case_statuses cs where cs.case_id = c.id and cs.key not in (${hidden.map(() => '?').join(', ')}) order by cs.id desc limit 1)`,
    bindings: hidden,
  };
  return { keysOf, current };
}

/** For each name a `tags` filter sends, the ids of the tags so named in any case. */
async function tagIdsOf(knex: Knex, filters: unknown): Promise<Map<string, number[]>> {
  const sent = isPlainObject(filters) ? filters.tags : undefined;
  const names = (Array.isArray(sent) ? sent : [sent]).filter((name): name is string => typeof name === 'string');
  const ids = new Map<string, number[]>();
  // More names than a filter may hold are refused by translateCaseFilters: nothing to look up.
  if (names.length === 0 || names.length > FILTER_LIMITS.tags) return ids;
  const rows = (await knex.raw(
    'select q.name, t.id from unnest(?::text[]) as q(name) join booking.tags t on lower(t.name) = lower(q.name)',
    [names],
  )) as { rows: Array<{ name: string; id: number }> };
  for (const { name, id } of rows.rows) ids.set(name, [...(ids.get(name) ?? []), id]);
  return ids;
}

/** The exact number of the caller's cases, kept per partner and provider by booking.case_counts. */
async function scopeCount(knex: Knex, caller: Caller): Promise<number> {
  const rows = knex('booking.case_counts');
  if (caller.role === 'partner') rows.where('partner_id', caller.partnerId);
  else if (caller.role === 'provider') rows.where('service_provider_id', caller.providerId);
  const { cases } = (await rows.first(knex.raw('coalesce(sum(cases), 0) as cases'))) as { cases: number | string };
  return Number(cases);
}

/**
 * The number of matches and, for a cursor, of those up to it. `kept`: the count of the caller's
 * whole scope when no filter narrows it, which leaves only the cases up to the cursor to count.
 */
async function countMatches(
  knex: Knex,
  scoped: Knex.QueryBuilder,
  after: number | undefined,
  kept: number | undefined,
): Promise<{ count: number; before: number }> {
  type Counted = { count: number | string; before: number | string };
  if (kept !== undefined) {
    if (after === undefined) return { count: kept, before: 0 };
    const upTo = (await scoped.clone().where('c.id', '<=', after).first(knex.raw('count(*) as before'))) as Counted;
    return { count: kept, before: Number(upTo.before) };
  }
  // One pass over the matches counts them all and, for a cursor, those up to it.
  const counted = (await scoped
    .clone()
    .first(
      knex.raw('count(*) as count'),
      after === undefined ? knex.raw('0 as before') : knex.raw('count(*) filter (where c.id <= ?) as before', [after]),
    )) as Counted;
  return { count: Number(counted.count), before: Number(counted.before) };
}

/**
 * `size` matches in id order from `offset`. When they are `few`, their ids (from an index alone
 * where the filters allow) are sorted in full, which costs what their number costs; walking the
 * scope in id order until the page fills, as the planner would, reads every case of the scope
 * before the first match (722 ms for a week of createdAt among a million cases).
 */
async function pageOf(
  knex: Knex,
  matches: Knex.QueryBuilder,
  few: boolean,
  size: number,
  offset: number,
): Promise<Array<{ id: number; guid: string }>> {
  if (!few) return matches.orderBy('c.id').limit(size).offset(offset).select('c.id', 'c.guid');
  const ids = knex
    .withMaterialized('matches', matches.select('c.id'))
    .from('matches')
    .orderBy('id')
    .limit(size)
    .offset(offset)
    .select('id');
  return knex('booking.cases as c').whereIn('c.id', ids).orderBy('c.id').select('c.id', 'c.guid');
}
