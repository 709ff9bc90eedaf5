/** The search behind search-cases and unexported-cases: scoped to the caller, filtered, paged. */
import type { Knex } from 'knex';
import {
  type Caller,
  caseForPartner,
  CURSOR_PARAM,
  decodeCursor,
  encodeCursor,
  itemsWithinBudget,
  hiddenProviderKeys,
  isPlainObject,
  type ParamsOf,
  providerKeysOf,
  type StatusRules,
} from '@hub/shared';
import { loadCasesById, type CaseOut } from './case-shape';
import {
  type CallerScope,
  type CommonSearchReading,
  FILTER_LIMITS,
  type NamedMatches,
  type SearchPieces,
  type StatusReading,
  type TagReading,
  translateCaseFilters,
} from './case-filters';
import { keptOrderValueIds } from './order-values';
import { rarePieces, textTrigrams } from './search-pieces';

export const PAGINATION = { defaultLimit: 10, maxLimit: 100 };
const SORTED_IN_FULL = 10_000;
/**
 * Up to this many entries of a tag in the caller's scope, the tag's cases are looked up by id
 * (see TagReading): 10,000 probes cost about what reading a partner's 333,334 index entries
 * once does.
 */
const PROBED_UP_TO = 10_000;
/**
 * A trigram held by more than this share of a text's rows is left out of a commonSearch's index
 * scan (see search-pieces.ts): it can at most halve the candidates, for a read of at least half
 * the index's entries.
 */
const COMMON_TRIGRAM_SHARE = 0.5;

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
  /** Up to this many matches, the pass that counts them also sorts them for the page (see countedThenPaged). */
  sortedInFull?: number;
  /** Up to this many entries of a tag in the caller's scope, its cases are looked up by id. */
  probedUpTo?: number;
  /** A trigram held by more of a text's rows than this share is left out of a commonSearch's index scan. */
  commonTrigramShare?: number;
  /** The lookups' names a commonSearch also reads (`catalog.lookupNames`), asked for only by a commonSearch. */
  lookupNames?: () => Promise<LookupNames>;
}

/** The manufacturers', product types' and service types' names, as `catalog.lookupNames` answers them. */
export type LookupNames = Record<keyof NamedMatches, Array<{ id: number; name: string }>>;

export async function searchCases(
  knex: Knex,
  caller: Caller,
  params: SearchParams,
  rules: StatusRules | null,
  {
    unexported = false,
    sortedInFull = SORTED_IN_FULL,
    probedUpTo = PROBED_UP_TO,
    commonTrigramShare = COMMON_TRIGRAM_SHARE,
    lookupNames,
  }: SearchOptions = {},
): Promise<SearchResult> {
  const commonSearch = isPlainObject(params.filters) ? params.filters.commonSearch : undefined;
  const scope = scopeOf(caller);
  const tagReading = await tagReadingOf(knex, scope, params.filters, probedUpTo);
  const commonSearchReading: CommonSearchReading =
    typeof commonSearch === 'string'
      ? {
          pieces: await commonSearchPieces(knex, commonSearch.trim(), commonTrigramShare),
          named: lookupNames && namedMatches(await lookupNames(), commonSearch.trim()),
        }
      : {};
  const condition = translateCaseFilters(
    params.filters,
    statusReadingFor(rules),
    caller.role === 'partner',
    tagReading,
    commonSearchReading,
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
  // Tag entries and kept orderData values keep their cases' scope, so a search by tags alone, or
  // by one orderData key, finds its matches without reading a case: a read by id per match grows
  // with the matches, not with the page.
  const { taggedIds, orderValue } = condition;
  const keptIds =
    taggedIds && (caller.role === 'admin' || scope)
      ? taggedIds
      : orderValue && scope && keptOrderValueIds(scope, orderValue);
  const matches = keptIds && !unexported ? knex.from(knex.raw(`(${keptIds.sql}) as c`, keptIds.bindings)) : scoped;

  const offset = after === undefined ? (params.pagination?.offset ?? 0) : 0;
  // One case past the page, read whole with the page's, tells whether a page follows.
  const page = { after, offset, size: limit + 1 };
  let counted: CountedPage;
  if (!unexported && condition.sql === 'true') {
    counted = await pageBesideKeptCount(knex, matches, page, scopeCount(knex, caller));
  } else {
    const matching = !unexported && condition.statuses ? await scopeCount(knex, caller, condition.statuses) : 0;
    // Few matches cost less counted and sorted for the page in one pass (countedThenPaged); many fill a page at once.
    counted =
      matching > sortedInFull
        ? await pageBesideKeptCount(knex, matches, page, matching)
        : await countedThenPaged(knex, matches, page, sortedInFull);
  }
  const { count, before, found } = counted;
  // Within the answer budget too: a page of large cases ends early, and its next continues it.
  const data = itemsWithinBudget(found.slice(0, limit).map((loaded) => caseForPartner(loaded, rules)));
  return {
    data,
    pagination: {
      offset: after === undefined ? offset : before,
      count,
      next: found.length > data.length ? encodeCursor([found[data.length - 1].id]) : null,
    },
  };
}

/** The lookups whose names hold the text, in any case ("Manufacturer.name" and the others, as the product searches them). */
function namedMatches(names: LookupNames, text: string): NamedMatches {
  const wanted = text.toLowerCase();
  const holding = (kind: keyof NamedMatches) =>
    names[kind].filter(({ name }) => name.toLowerCase().includes(wanted)).map(({ id }) => id);
  return {
    manufacturers: holding('manufacturers'),
    productTypes: holding('productTypes'),
    serviceTypes: holding('serviceTypes'),
  };
}

/**
 * currentStatus as the caller reads it: a partner's keys stand for the provider keys mapped to
 * them, and with hidden statuses its current status is the last one it may see (as caseForPartner
 * shows it), not the stored one.
 */
function statusReadingFor(rules: StatusRules | null): StatusReading | undefined {
  if (!rules) return undefined;
  const keysOf = (key: string) => providerKeysOf(rules, key);
  const hidden = hiddenProviderKeys(rules);
  if (hidden.length === 0) return { keysOf };
  const current = {
    sql: `(select cs.key from booking.case_statuses cs where cs.case_id = c.id and cs.key not in (${hidden.map(() => '?').join(', ')}) order by cs.id desc limit 1)`,
    bindings: hidden,
  };
  return { keysOf, current };
}

/** The caller's cases as the tables that keep a case's scope hold them; none for an admin. */
function scopeOf(caller: Caller): CallerScope | undefined {
  if (caller.role === 'partner' && caller.partnerId !== null) return { column: 'partner_id', id: caller.partnerId };
  if (caller.role === 'provider' && caller.providerId !== null)
    return { column: 'service_provider_id', id: caller.providerId };
  return undefined;
}

/**
 * For each name a `tags` filter sends, the ids of the tags so named, and the number of their
 * entries in the caller's scope up to `probedUpTo` and one more: the name with the fewest, if
 * within the bound, is the one whose cases are looked up by id.
 */
async function tagReadingOf(
  knex: Knex,
  scope: CallerScope | undefined,
  filters: unknown,
  probedUpTo: number,
): Promise<TagReading> {
  const sent = isPlainObject(filters) ? filters.tags : undefined;
  const names = (Array.isArray(sent) ? sent : [sent]).filter((name): name is string => typeof name === 'string');
  // More names than a filter may hold are refused by translateCaseFilters: nothing to look up.
  if (names.length === 0 || names.length > FILTER_LIMITS.tags) return { idsOf: new Map(), scope };
  const inScope = scope ? `and ct.${scope.column} = ?` : '';
  const rows = (await knex.raw(
    `select q.name, array_agg(t.id) as ids,
            (select count(*) from (select from booking.case_tags ct where ct.tag_id = any(array_agg(t.id)) ${inScope} limit ?) e) as entries
       from unnest(?::text[]) as q(name) join booking.tags t on t.name = q.name
      group by q.name`,
    [...(scope ? [scope.id] : []), probedUpTo + 1, names],
  )) as { rows: Array<{ name: string; ids: number[]; entries: number | string }> };
  const fewest = rows.rows
    .filter((row) => Number(row.entries) <= probedUpTo)
    .sort((a, b) => Number(a.entries) - Number(b.entries))[0];
  return { idsOf: new Map(rows.rows.map((row) => [row.name, row.ids])), scope, probed: fewest?.name };
}

/**
 * How long a read of the texts' trigram statistics serves commonSearches. They change only when
 * a table is analyzed, and they choose only which pieces an index is searched by, never what is
 * found; their read (a view that unpacks each statistics object) is a large share of a search's
 * time on a big table.
 */
const TEXT_STATISTICS_KEPT_MS = 60_000;

/**
 * The statistics objects on the trigrams of each text a commonSearch reads through a trigram
 * index (created with the booking schema): ANALYZE keeps the most common trigrams of a sample with
 * the share of rows holding each.
 */
const TEXT_STATISTICS: Record<keyof SearchPieces, string> = {
  contacts: 'case_contacts_text_trigrams',
  orderData: 'cases_order_data_trigrams',
  productData: 'cases_product_data_trigrams',
};

/** By statistics object: the trigrams it lists with the share of rows holding each. */
type TrigramShares = Map<string, Map<string, number>>;

const keptTrigramShares = new WeakMap<Knex, { readAt: number; shares: Promise<TrigramShares> }>();

async function readTrigramShares(knex: Knex): Promise<TrigramShares> {
  const { rows } = (await knex.raw(
    `select s.statistics_name, u.trigram, u.share from pg_stats_ext_exprs s
       left join lateral unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as u(trigram, share) on true
      where s.statistics_schemaname = 'booking' and s.statistics_name = any(?)`,
    [Object.values(TEXT_STATISTICS)],
  )) as { rows: Array<{ statistics_name: string; trigram: string | null; share: number | null }> };
  const shares: TrigramShares = new Map();
  for (const { statistics_name: name, trigram, share } of rows) {
    const listed = shares.get(name) ?? new Map<string, number>();
    if (trigram !== null) listed.set(trigram, Number(share));
    shares.set(name, listed);
  }
  return shares;
}

function trigramSharesOf(knex: Knex, keptMs: number): Promise<TrigramShares> {
  const now = Date.now();
  const kept = keptTrigramShares.get(knex);
  if (kept && now - kept.readAt < keptMs) return kept.shares;
  const shares = readTrigramShares(knex);
  keptTrigramShares.set(knex, { readAt: now, shares });
  shares.catch(() => {
    if (keptTrigramShares.get(knex)?.shares === shares) keptTrigramShares.delete(knex);
  });
  return shares;
}

/**
 * The pieces of a commonSearch text by which each text's trigram index is searched (see
 * search-pieces.ts), judged by the statistics ANALYZE keeps on that text's trigrams
 * (TEXT_STATISTICS): the trigrams they list with the share of rows
 * holding each, read again once the last read is `keptMs` old. A text whose statistics are not
 * built yet (a new table's; the embedded database builds them apart from its ANALYZEs,
 * embedded-autovacuum.ts) is searched by the whole text.
 */
export async function commonSearchPieces(
  knex: Knex,
  text: string,
  commonShare: number,
  keptMs = TEXT_STATISTICS_KEPT_MS,
): Promise<SearchPieces> {
  if (textTrigrams(text).length < 2) return {};
  const shares = await trigramSharesOf(knex, keptMs);
  const pieces: SearchPieces = {};
  for (const [searched, name] of Object.entries(TEXT_STATISTICS) as Array<[keyof SearchPieces, string]>) {
    const shareOf = shares.get(name);
    if (shareOf) pieces[searched] = rarePieces(text, shareOf, commonShare);
  }
  return pieces;
}

/**
 * The exact number of the caller's cases, or of those whose stored status is one of `statuses`,
 * kept per partner, provider and status by booking.case_counts.
 */
async function scopeCount(knex: Knex, caller: Caller, statuses?: string[]): Promise<number> {
  const rows = knex('booking.case_counts');
  if (caller.role === 'partner') rows.where('partner_id', caller.partnerId);
  else if (caller.role === 'provider') rows.where('service_provider_id', caller.providerId);
  if (statuses) rows.whereIn('current_status', statuses);
  const { cases } = (await rows.first(knex.raw('coalesce(sum(cases), 0) as cases'))) as { cases: number | string };
  return Number(cases);
}

interface Page {
  /** The cursor's case id. */
  after: number | undefined;
  offset: number;
  size: number;
}

interface CountedPage {
  count: number;
  /** Matches up to the cursor's case. */
  before: number;
  /** The page's cases, and one case past it when a page follows. */
  found: CaseOut[];
}

/**
 * With the matches' count kept (`kept`: the caller's whole scope when no filter narrows it, or its
 * cases in the statuses searched when that is the only filter), the count, the matches up to the
 * cursor and the page's cases are read at once on connections of their own: none needs another's
 * answer, and one after the other each added a round trip to the search.
 */
async function pageBesideKeptCount(
  knex: Knex,
  matches: Knex.QueryBuilder,
  page: Page,
  kept: Promise<number> | number,
): Promise<CountedPage> {
  const upToCursor = async (after: number) => {
    const upTo = (await matches.clone().where('c.id', '<=', after).first(knex.raw('count(*) as before'))) as {
      before: number | string;
    };
    return Number(upTo.before);
  };
  const [count, before, found] = await Promise.all([
    kept,
    page.after === undefined ? 0 : upToCursor(page.after),
    loadCasesById(knex, walkedPage(matches, page)),
  ]);
  return { count, before, found };
}

/**
 * The matches (`matches`, a query of their ids as `c.id`) counted, and those up to the cursor, in
 * one pass over their ids (from an index alone where the filters allow) that, when there are at
 * most `bound`, also sorts them for the page: walking the scope in id order until the page fills,
 * as the planner would, reads every case of the scope before the first match when the matches
 * are old (a createdAt week long past), and a second pass would read the matches again. Then the page's cases, read whole.
 */
async function countedThenPaged(
  knex: Knex,
  matches: Knex.QueryBuilder,
  page: Page,
  bound: number,
): Promise<CountedPage> {
  const { after, offset, size } = page;
  const pageIds = knex('matches').select('id').orderBy('id').limit(size).offset(offset);
  if (after !== undefined) pageIds.where('id', '>', after);
  // The array is an init plan, computed only when the count is within the bound.
  const counted = (await knex
    .withMaterialized('matches', matches.clone().select('c.id'))
    .from('matches')
    .first(
      knex.raw('count(*) as count'),
      knex.raw('count(*) filter (where id <= ?) as before', [after ?? 0]),
      knex.raw('case when count(*) <= ? then array(?) end as ids', [bound, pageIds]),
    )) as { count: number | string; before: number | string; ids: number[] | null };
  return {
    count: Number(counted.count),
    before: Number(counted.before),
    found: await loadCasesById(knex, counted.ids ?? walkedPage(matches, page)),
  };
}

/** The page's case ids (and the next one's), the matches walked in id order (from the index alone where the filters allow). */
function walkedPage(matches: Knex.QueryBuilder, { after, offset, size }: Page): Knex.QueryBuilder {
  const walked = matches.clone().select('c.id').orderBy('c.id').limit(size).offset(offset);
  if (after !== undefined) walked.where('c.id', '>', after);
  return walked;
}
