/**
 * The registry's queries: the search, the batch upsert's reads and writes, and name resolution.
 * Every statement reads or writes `models.models` only.
 */
import type { Knex } from 'knex';
import {
  type ModelRow,
  type ModelValues,
  type PlannedWrite,
  type ModelWrite,
  HOLDERS_READ_MAX,
  SIMILAR_CANDIDATES_MAX,
  type SearchTerms,
  searchTerms,
  searchTextOf,
} from './rules';

const TABLE = 'models.models';

const COLUMNS = `id, name, mpn, manufacturer_id as "manufacturerId", product_type_id as "productTypeId", aliases, tags,
  country_of_origin as "countryOfOrigin", taric_se as "taricSE", taric_no as "taricNO", value, weight,
  created_at as "createdAt", updated_at as "updatedAt"`;

export interface SearchFilter {
  manufacturerId?: number;
  productTypeId?: number;
  model?: string;
  mpn?: string;
  limit: number;
  /** Models of the ranked answer skipped before the first answered. */
  offset?: number;
}

export interface Sql {
  sql: string;
  bindings: unknown[];
}

const isSql = (value: unknown): value is Sql =>
  typeof value === 'object' && value !== null && 'sql' in value && 'bindings' in value;

/** SQL text and its bindings: a nested fragment is spliced in, any other value becomes a binding. */
function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  let text = strings[0];
  const bindings: unknown[] = [];
  values.forEach((value, index) => {
    if (isSql(value)) {
      text += value.sql;
      bindings.push(...value.bindings);
    } else {
      text += '?';
      bindings.push(value);
    }
    text += strings[index + 1];
  });
  return { sql: text, bindings };
}

const text = (fragment: string): Sql => ({ sql: fragment, bindings: [] });
const join = (parts: Sql[], separator: string): Sql => ({
  sql: parts.map((part) => part.sql).join(separator),
  bindings: parts.flatMap((part) => part.bindings),
});
const all = (conditions: Sql[]): Sql => (conditions.length ? join(conditions, ' and ') : text('true'));

const SELECT = text(`select ${COLUMNS} from ${TABLE}`);
const FROM = text(TABLE);
const SUFFIXES = text('models.search_suffixes');
/**
 * The most models a short word (no trigram) of a longer query may be held by for the search to
 * check each of them (a few microseconds a model) instead of the trigram index's models holding
 * every longer word, which the short word cannot narrow ("galaxy s2" at a million models: 1,216
 * holders of "s2", 176,000 of "galaxy").
 */
const NARROW_WORD_MAX = 5000;
// Byte order, as the name indexes hold it, so an ordered walk of an index can stop at the limit.
const BY_NAME = text('lower(name) collate "C", id');

/** A name, mpn or alias equal to the phrase, ignoring case. */
const exactly = (phrase: string) =>
  sql`(lower(name) = ${phrase} or lower(mpn) = ${phrase} or models.lowered(aliases) @> array[${phrase}]::text[])`;

/**
 * Builds the search as SQL and bindings. With `model` the answer is ranked in three tiers, each
 * fetched through an index in its own order so a query that matches much of the table reads
 * little of it:
 * 0. a name, mpn or alias equal to the query, by name;
 * 1. a name or mpn starting with the query, by that name or mpn;
 * 2. only when tiers 0 and 1 hold fewer models than the limit: models where every word occurs
 *    in name, mpn or an alias, by trigram similarity. At most SIMILAR_CANDIDATES_MAX of them are
 *    ranked, so when more hold the words some of those are answered, not necessarily the best of
 *    all; a query of words shorter than CONTAINS_MIN_LENGTH skips this tier.
 * Tiers 0 and 1 fetch at most `limit` models per index, in the order the answer ranks them, so
 * their part of the answer is exact.
 */
export function searchSql(filter: SearchFilter): Sql {
  const scope: Sql[] = [];
  if (filter.manufacturerId !== undefined) scope.push(sql`manufacturer_id = ${filter.manufacturerId}`);
  if (filter.productTypeId !== undefined) scope.push(sql`product_type_id = ${filter.productTypeId}`);
  if (filter.mpn !== undefined) scope.push(sql`lower(mpn) = lower(${filter.mpn})`);
  const { limit: answered, offset = 0 } = filter;
  const terms = filter.model === undefined ? null : searchTerms(filter.model);
  if (!terms) return sql`${SELECT} where ${all(scope)} order by ${BY_NAME} limit ${answered} offset ${offset}`;
  // Every tier ranks the models up to the last answered; the answer skips the first `offset`.
  const limit = offset + answered;

  const exact = exactly(terms.phrase);
  const nameStarts = sql`lower(name) collate "C" like ${terms.prefix}`;
  const mpnStarts = sql`lower(mpn) collate "C" like ${terms.prefix}`;
  // A materialized CTE is planned to read all its rows, yet runs only as far as it is read. So the
  // exact matches keep their index plan (the planner cannot estimate how many models share an
  // alias, and under a limit would walk a whole name index in order hoping to meet them early),
  // and the words' candidates keep their indexes when few models match while a broad query still
  // stops after SIMILAR_CANDIDATES_MAX rows.
  // Tier 2 is ranked by what `containing` read while checking each candidate's row, so a
  // candidate is fetched once and never tiered: with the first tiers short of the limit, they hold
  // every exact and prefix match, so any other candidate is of tier 2. `containing` holds each
  // model once (a model holding the word twice is walked twice and fetched once). Tier 2 keeps its
  // own best `limit` before the tiers meet, so only those carry the answer's sort keys, not every
  // one of up to SIMILAR_CANDIDATES_MAX candidates. Only the answer's rows are fetched whole.
  const similar = terms.contains.length
    ? sql`union all (select id, 2, null, similarity, lowered
        from (select * from containing where (select count(*) from first_tiers) < ${limit} limit ${SIMILAR_CANDIDATES_MAX}) taken
        where id not in (select id from first_tiers) order by similarity desc, lowered, id limit ${limit})`
    : text('');
  const containing = terms.contains.length
    ? sql`, ${containingSql(filter, terms, scope, rankedBy(terms.phrase))}`
    : text('');
  const order = text(`tier, case when tier = 1 then starts_with end, case when tier = 1 then id end,
    case when tier = 2 then similarity end desc, lowered, id`);
  return sql`with exact as materialized (select id, name from ${FROM} where ${all([...scope, exact])})${containing},
    first_tiers as (
      (select id from exact order by ${BY_NAME} limit ${limit})
      union (select id from ${FROM} where ${all([...scope, nameStarts])} order by lower(name) collate "C", id limit ${limit})
      union (select id from ${FROM} where ${all([...scope, mpnStarts])} order by lower(mpn) collate "C", id limit ${limit})
    ), answer as (
      select * from (
        select id, case when id in (select id from exact) then 0 else 1 end as tier,
          least(case when ${nameStarts} then lower(name) collate "C" end, case when ${mpnStarts} then lower(mpn) collate "C" end) as starts_with,
          null::real as similarity, lower(name) collate "C" as lowered
        from ${FROM} where id in (select id from first_tiers)
        ${similar}
      ) ranked order by ${order} limit ${answered} offset ${offset}
    )
    select ${text(COLUMNS)} from ${FROM} join answer using (id) order by ${order}`;
}

/**
 * The columns tier 2 is ranked by, of a model row named `alias`: its similarity to the phrase
 * (pg_trgm's, from the trigrams kept with the model), then its name.
 */
const rankedBy =
  (phrase: string) =>
  (alias: string): Sql =>
    sql`${text(alias)}.id, models.trigram_similarity(${text(alias)}.search_trigrams, models.trigram_ids(${phrase})) as similarity,
      lower(${text(alias)}.name) collate "C" as lowered`;

/**
 * The CTEs naming tier 2's candidates, `containing` last, each with the columns that rank it
 * (`ranked`). The models holding a word are a range of models.search_suffixes, within the
 * manufacturer when the search names one:
 * - one word and no filter but the manufacturer: the first SIMILAR_CANDIDATES_MAX entries of its
 *   range, every match when it has fewer;
 * - otherwise each word's range is counted up to HOLDERS_READ_MAX, and when every word
 *   reaches it, each short word's again up to NARROW_WORD_MAX; when one falls short, every model
 *   holding the narrowest word (a superset of the answer, checked by the caller); when every word
 *   is broad, the trigram index's models holding every word (its bitmap holds all of them, the
 *   cost the suffixes spare the queries above).
 */
function containingSql(filter: SearchFilter, terms: SearchTerms, scope: Sql[], ranked: (alias: string) => Sql): Sql {
  const range = (pattern: string) =>
    filter.manufacturerId === undefined
      ? sql`suffix like ${pattern}`
      : sql`manufacturer_id = ${filter.manufacturerId} and suffix like ${pattern}`;
  // In key order, so each read is a walk of an index that stops at the limit, and its first
  // entries are the same whatever the table's physical order.
  const entries = (pattern: string, limit: number, ...conditions: Sql[]) =>
    sql`select model_id as id from ${SUFFIXES} where ${all([range(pattern), ...conditions])} order by suffix, model_id limit ${limit}`;
  const inScope = all([...scope, ...terms.contains.map((pattern) => sql`search_text like ${pattern}`)]);
  // A suffix proves one word; the model's row proves the rest of the query (and a suffix left
  // from a model's earlier words, which the table's first fill may leave, proves nothing). The rows
  // are checked after the walk, found by the walk's ids as an array in one scan of the primary key
  // in id order, cheaper than a lookup per walked entry. `offset 0` keeps the
  // check apart from that scan, so the planner can neither turn it into a join of its choice nor
  // read the scope's index (a manufacturer's every model) and filter it by the ids: the walk stays
  // a bare index range read in order that stops at the limit (where a narrowest word is read, its
  // range is shorter than it).
  const holders = (pattern: string, limit: number, ...conditions: Sql[]) =>
    sql`select ${ranked('m')} from (select * from ${FROM} where id = any(array(${entries(pattern, limit, ...conditions)})) offset 0) m
      where ${inScope}`;
  const rest = [filter.productTypeId, filter.mpn].some((value) => value !== undefined);
  if (terms.contains.length === 1 && terms.suffixes.length === 1 && !rest)
    return sql`containing as materialized (${holders(terms.suffixes[0], SIMILAR_CANDIDATES_MAX)})`;

  const everyWord = sql`select ${ranked('m')} from ${FROM} m where ${inScope}`;
  if (!terms.suffixes.length) return sql`containing as materialized (${everyWord})`;
  const counts = terms.suffixes.map(
    (pattern, word) =>
      sql`select ${text(`${word}`)} as word, (select count(*) from (${entries(pattern, HOLDERS_READ_MAX)}) found) as found`,
  );
  // Counted further only when every word reached HOLDERS_READ_MAX, and only a short word
  // (about a millisecond each): the trigram index's bitmap narrows by every longer word itself.
  // A query without one plans none of it (half a millisecond).
  const widerCounts = () =>
    terms.suffixes.map((pattern, word) => {
      const found = terms.shortSuffixes.includes(pattern)
        ? sql`(select count(*) from (${entries(pattern, NARROW_WORD_MAX)}) found)`
        : sql`${NARROW_WORD_MAX}::bigint`;
      return sql`select ${text(`${word}`)} as word, ${found} as found
        where (select min(found) from counts) >= ${HOLDERS_READ_MAX}`;
    });
  const counted = terms.shortSuffixes.length
    ? sql`counts as materialized (${join(counts, ' union all ')}),
      wider_counts as materialized (${join(widerCounts(), ' union all ')}),
      every_count as (select * from counts where found < ${HOLDERS_READ_MAX} union all select * from wider_counts)`
    : sql`every_count as materialized (${join(counts, ' union all ')})`;
  // The most holders of the narrowest word that are read rather than the trigram index's bitmap.
  const broad = terms.shortSuffixes.length ? NARROW_WORD_MAX : HOLDERS_READ_MAX;
  const narrowest = terms.suffixes.map(
    (pattern, word) =>
      sql`(${holders(pattern, broad, text(`(select word from narrowest) = ${word}`), sql`(select found from narrowest) < ${broad}`)})`,
  );
  return sql`${counted},
    narrowest as materialized (select word, found from every_count order by found, word limit 1),
    containing as materialized (${join(narrowest, ' union all ')}
      union all (${everyWord} and (select found from narrowest) >= ${broad}))`;
}

export async function searchModels(knex: Knex, filter: SearchFilter): Promise<ModelRow[]> {
  const { sql: query, bindings } = searchSql(filter);
  const result = await knex.raw(query, bindings as Knex.RawBinding[]);
  return result.rows as ModelRow[];
}

/** Every stored model a batch names by id, or by (name, manufacturer) or (mpn, manufacturer). */
export async function rowsTouchedBy(trx: Knex, entries: ModelWrite[]): Promise<ModelRow[]> {
  const ids = entries.flatMap((entry) => (entry.id !== undefined ? [entry.id] : []));
  const manufacturers = entries.map((entry) => entry.manufacturerId);
  const names = entries.map((entry) => entry.name.toLowerCase());
  const mpns = entries.map((entry) => entry.mpn.toLowerCase());
  const result = await trx.raw(
    `select ${COLUMNS} from ${TABLE} where id = any(?::int[])
     union
     select ${COLUMNS} from ${TABLE} where (lower(name), manufacturer_id) in (select * from unnest(?::text[], ?::int[]))
     union
     select ${COLUMNS} from ${TABLE} where (lower(mpn), manufacturer_id) in (select * from unnest(?::text[], ?::int[]))`,
    [ids, names, manufacturers, mpns, manufacturers],
  );
  return result.rows as ModelRow[];
}

function recordOf(values: ModelValues, id?: number) {
  return {
    id,
    name: values.name,
    mpn: values.mpn,
    manufacturer_id: values.manufacturerId,
    product_type_id: values.productTypeId,
    aliases: values.aliases,
    tags: values.tags,
    country_of_origin: values.countryOfOrigin,
    taric_se: values.taricSE,
    taric_no: values.taricNO,
    value: values.value,
    weight: values.weight,
    search_text: searchTextOf(values.name, values.mpn, values.aliases),
  };
}

const RECORD_TYPE = `id int, name text, mpn text, manufacturer_id int, product_type_id int, aliases text[], tags jsonb,
  country_of_origin text, taric_se text, taric_no text, value numeric, weight numeric, search_text text`;
const WRITTEN =
  'name, mpn, manufacturer_id, product_type_id, aliases, tags, country_of_origin, taric_se, taric_no, value, weight, search_text';

/**
 * Writes a planned batch with one statement for the updates and one for the inserts, and answers
 * the stored models in the order of the entries.
 */
export async function writeBatch(trx: Knex.Transaction, writes: PlannedWrite[]): Promise<ModelRow[]> {
  const updates = writes.filter((write) => write.kind === 'update').map((write) => recordOf(write.values, write.id));
  const creates = writes.filter((write) => write.kind === 'create');
  if (updates.length) {
    await trx.raw(
      `update ${TABLE} m set ${WRITTEN.split(', ')
        .map((column) => `${column} = v.${column}`)
        .join(', ')}, updated_at = now()
       from jsonb_to_recordset(?::jsonb) as v(${RECORD_TYPE}) where m.id = v.id`,
      [JSON.stringify(updates)],
    );
  }
  // Within a manufacturer a name is unique, so it tells which entry each new id belongs to.
  const createdIds = new Map<string, number>();
  if (creates.length) {
    const result = await trx.raw(
      `insert into ${TABLE} (${WRITTEN})
       select ${WRITTEN} from jsonb_to_recordset(?::jsonb) as v(${RECORD_TYPE})
       returning id, lower(name) as name, manufacturer_id as "manufacturerId"`,
      [JSON.stringify(creates.map((write) => recordOf(write.values)))],
    );
    for (const row of result.rows as Array<{ id: number; name: string; manufacturerId: number }>)
      createdIds.set(`${row.manufacturerId}:${row.name}`, row.id);
  }
  const ids = writes.map((write) =>
    write.kind === 'create'
      ? createdIds.get(`${write.values.manufacturerId}:${write.values.name.toLowerCase()}`)!
      : write.id,
  );
  const stored = await trx.raw(`select ${COLUMNS} from ${TABLE} where id = any(?::int[])`, [ids]);
  const byId = new Map((stored.rows as ModelRow[]).map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)!);
}

export interface ResolvedName {
  id: number;
  name: string;
  manufacturerId: number;
  productTypeId: number;
}

/** The model a name, mpn or alias names exactly (ignoring case); a name match wins over an mpn, an mpn over an alias. */
export function resolveNameSql(name: string): Sql | null {
  const phrase = searchTerms(name)?.phrase;
  if (!phrase) return null;
  return sql`select id, name, manufacturer_id as "manufacturerId", product_type_id as "productTypeId" from ${FROM}
     where ${exactly(phrase)}
     order by case when lower(name) = ${phrase} then 0 when lower(mpn) = ${phrase} then 1 else 2 end, id
     limit 1`;
}

export async function resolveName(knex: Knex, name: string): Promise<ResolvedName | null> {
  const resolution = resolveNameSql(name);
  if (!resolution) return null;
  const result = await knex.raw(resolution.sql, resolution.bindings as Knex.RawBinding[]);
  return (result.rows[0] as ResolvedName | undefined) ?? null;
}
