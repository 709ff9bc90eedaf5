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
  SIMILAR_CANDIDATES_MAX,
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
const all = (conditions: Sql[]): Sql =>
  conditions.length
    ? {
        sql: conditions.map((condition) => condition.sql).join(' and '),
        bindings: conditions.flatMap((condition) => condition.bindings),
      }
    : text('true');

const SELECT = text(`select ${COLUMNS} from ${TABLE}`);
const FROM = text(TABLE);
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
 *    in name, mpn or an alias (the trigram index answers `like '%word%'`), by trigram similarity.
 *    At most SIMILAR_CANDIDATES_MAX of them are ranked, so when more hold the words the best of
 *    those are answered, not necessarily the best of all; a query of words shorter than
 *    CONTAINS_MIN_LENGTH skips this tier.
 * Tiers 0 and 1 fetch at most `limit` models per index, in the order the answer ranks them, so
 * their part of the answer is exact.
 */
export function searchSql(filter: SearchFilter): Sql {
  const scope: Sql[] = [];
  if (filter.manufacturerId !== undefined) scope.push(sql`manufacturer_id = ${filter.manufacturerId}`);
  if (filter.productTypeId !== undefined) scope.push(sql`product_type_id = ${filter.productTypeId}`);
  if (filter.mpn !== undefined) scope.push(sql`lower(mpn) = lower(${filter.mpn})`);
  const { limit } = filter;
  const terms = filter.model === undefined ? null : searchTerms(filter.model);
  if (!terms) return sql`${SELECT} where ${all(scope)} order by ${BY_NAME} limit ${limit}`;

  const exact = exactly(terms.phrase);
  const nameStarts = sql`lower(name) collate "C" like ${terms.prefix}`;
  const mpnStarts = sql`lower(mpn) collate "C" like ${terms.prefix}`;
  // A materialized CTE is planned to read all its rows, yet runs only as far as it is read. So the
  // exact matches keep their index plan (the planner cannot estimate how many models share an
  // alias, and under a limit would walk a whole name index in order hoping to meet them early),
  // and the words' candidates keep the trigram index when few models match (under a limit the
  // planner would scan the table hoping to meet them early, which reads all of it when a filter
  // leaves none) while a broad query still stops after SIMILAR_CANDIDATES_MAX rows.
  const containing = terms.contains.length
    ? sql`, containing as materialized (select id from ${FROM} where ${all([...scope, ...terms.contains.map((pattern) => sql`search_text like ${pattern}`)])})`
    : text('');
  const containingCandidates = terms.contains.length
    ? sql`union (select id from containing where (select count(*) from first_tiers) < ${limit} limit ${SIMILAR_CANDIDATES_MAX})`
    : text('');
  return sql`with exact as materialized (select id, name from ${FROM} where ${all([...scope, exact])})${containing},
    first_tiers as (
      (select id from exact order by ${BY_NAME} limit ${limit})
      union (select id from ${FROM} where ${all([...scope, nameStarts])} order by lower(name) collate "C", id limit ${limit})
      union (select id from ${FROM} where ${all([...scope, mpnStarts])} order by lower(mpn) collate "C", id limit ${limit})
    ), candidates as (select id from first_tiers ${containingCandidates})
    select ${text(COLUMNS)} from (
      select *, case when ${exact} then 0 when ${nameStarts} or ${mpnStarts} then 1 else 2 end as tier,
        least(case when ${nameStarts} then lower(name) collate "C" end, case when ${mpnStarts} then lower(mpn) collate "C" end) as starts_with
      from ${FROM} where id in (select id from candidates)
    ) ranked
    order by tier, case when tier = 1 then starts_with end, case when tier = 1 then id end,
      case when tier = 2 then similarity(search_text, ${terms.phrase}) end desc, ${BY_NAME}
    limit ${limit}`;
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
