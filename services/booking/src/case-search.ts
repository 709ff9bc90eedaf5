/** The search behind search-cases and unexported-cases: scoped to the caller, filtered, paged. */
import type { Knex } from 'knex';
import {
  type Caller,
  caseForPartner,
  CURSOR_PARAM,
  decodeCursor,
  encodeCursor,
  hiddenProviderKeys,
  type ParamsOf,
  providerKeysOf,
  type StatusRules,
} from '@hub/shared';
import { loadCases, type CaseOut } from './case-shape';
import { type StatusReading, translateCaseFilters } from './case-filters';

export const PAGINATION = { defaultLimit: 10, maxLimit: 100 };

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

/** `unexported` narrows to the provider's cases it has not accepted yet and that are not cancelled. */
export async function searchCases(
  knex: Knex,
  caller: Caller,
  params: SearchParams,
  rules: StatusRules | null,
  unexported = false,
): Promise<SearchResult> {
  const condition = translateCaseFilters(
    params.filters,
    await statusReadingFor(knex, rules),
    caller.role === 'partner',
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

  // One pass over the matches counts them all and, for a cursor, those up to it.
  const counted = (await scoped
    .clone()
    .select(
      knex.raw('count(*) as count'),
      after === undefined ? knex.raw('0 as before') : knex.raw('count(*) filter (where c.id <= ?) as before', [after]),
    )
    .first()) as { count: number | string; before: number | string };
  const paged = scoped
    .clone()
    .orderBy('c.id')
    .limit(limit + 1)
    .select('c.id', 'c.guid');
  if (after === undefined) paged.offset(params.pagination?.offset ?? 0);
  else paged.where('c.id', '>', after);
  const found = (await paged) as Array<{ id: number; guid: string }>;
  const rows = found.slice(0, limit);

  const cases = await loadCases(
    knex,
    rows.map((row) => row.guid),
  );
  return {
    data: cases.map((loaded) => caseForPartner(loaded, rules)),
    pagination: {
      offset: after === undefined ? (params.pagination?.offset ?? 0) : Number(counted.before),
      count: Number(counted.count),
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
