/** The search behind search-cases and unexported-cases: scoped to the caller, filtered, paged. */
import type { Knex } from 'knex';
import { type Caller, caseForPartner, hiddenProviderKeys, providerKeysOf, type StatusRules } from '@hub/shared';
import { loadCases, type CaseOut } from './case-shape';
import { type StatusReading, translateCaseFilters } from './case-filters';

export const PAGINATION = { defaultLimit: 10, maxLimit: 100 };

export interface SearchParams {
  filters?: unknown;
  pagination?: { offset?: number; limit?: number };
}

export const SEARCH_PARAMS = {
  filters: { type: 'any', optional: true },
  pagination: {
    type: 'object',
    optional: true,
    props: {
      offset: { type: 'number', integer: true, min: 0, optional: true },
      limit: { type: 'number', integer: true, min: 1, max: PAGINATION.maxLimit, optional: true },
    },
  },
};

export interface SearchResult {
  data: CaseOut[];
  pagination: { offset: number; count: number };
}

/** `unexported` narrows to the provider's cases it has not accepted yet and that are not cancelled. */
export async function searchCases(knex: Knex, caller: Caller, params: SearchParams, rules: StatusRules | null, unexported = false): Promise<SearchResult> {
  const condition = translateCaseFilters(params.filters, await statusReadingFor(knex, rules));
  const offset = params.pagination?.offset ?? 0;
  const limit = params.pagination?.limit ?? PAGINATION.defaultLimit;

  const scoped = knex('booking.cases as c').whereRaw(condition.sql, condition.bindings);
  if (caller.role === 'partner') scoped.where('c.partner_id', caller.partnerId);
  else if (caller.role === 'provider') scoped.where('c.service_provider_id', caller.providerId);
  if (unexported) scoped.where('c.accepted', false).whereNull('c.cancelled_at');

  const counted = (await scoped.clone().count<Array<{ count: number }>>('c.id as count').first()) as { count: number } | undefined;
  const rows = (await scoped.clone().orderBy('c.id').offset(offset).limit(limit).select('c.guid')) as Array<{ guid: string }>;
  const cases = await loadCases(knex, rows.map((row) => row.guid));
  return { data: cases.map((found) => caseForPartner(found, rules)), pagination: { offset, count: Number(counted?.count ?? 0) } };
}

/**
 * currentStatus as the caller reads it: a partner's keys stand for the provider keys mapped to
 * them, and with hidden statuses its current status is the last one it may see (as caseForPartner
 * shows it), not the stored one.
 */
async function statusReadingFor(knex: Knex, rules: StatusRules | null): Promise<StatusReading | undefined> {
  if (!rules) return undefined;
  const providerKeys = ((await knex('booking.status_keys').distinct('key')) as Array<{ key: string }>).map((row) => row.key);
  const keysOf = (key: string) => providerKeysOf(rules, key, providerKeys);
  const hidden = hiddenProviderKeys(rules);
  if (hidden.length === 0) return { keysOf };
  const current = {
    sql: `(select cs.key from booking.case_statuses cs where cs.case_id = c.id and cs.key not in (${hidden.map(() => '?').join(', ')}) order by cs.id desc limit 1)`,
    bindings: hidden,
  };
  return { keysOf, current };
}
