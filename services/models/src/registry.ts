/**
 * The registry's queries: the search, the batch upsert's reads and writes, and name resolution.
 * Every statement reads or writes `models.models` only.
 */
import type { Knex } from 'knex';
import { type ModelRow, type ModelValues, type PlannedWrite, type ModelWrite, escapeLike, searchTextOf, searchWords } from './rules';

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

/**
 * Builds the search as SQL and bindings. With `model`, every word must occur in name, mpn or an
 * alias (the trigram index answers `like '%word%'`); the best come first: an exact name, mpn or
 * alias, then a name or mpn starting with the query, then by trigram similarity.
 */
export function searchSql(filter: SearchFilter): { sql: string; bindings: unknown[] } {
  const where: string[] = [];
  const bindings: unknown[] = [];
  if (filter.manufacturerId !== undefined) {
    where.push('manufacturer_id = ?');
    bindings.push(filter.manufacturerId);
  }
  if (filter.productTypeId !== undefined) {
    where.push('product_type_id = ?');
    bindings.push(filter.productTypeId);
  }
  if (filter.mpn !== undefined) {
    where.push('lower(mpn) = lower(?)');
    bindings.push(filter.mpn);
  }
  let order = 'lower(name), id';
  const orderBindings: unknown[] = [];
  const words = filter.model !== undefined ? searchWords(filter.model) : [];
  if (words.length) {
    for (const word of words) {
      where.push(`search_text like ?`);
      bindings.push(`%${word}%`);
    }
    const query = filter.model!.trim().toLowerCase();
    const prefix = `${words.join(' ')}%`;
    order = `case
        when lower(name) = ? or lower(mpn) = ? or exists (select 1 from unnest(aliases) alias where lower(alias) = ?) then 0
        when lower(name) like ? or lower(mpn) like ? then 1
        else 2
      end, similarity(search_text, ?) desc, lower(name), id`;
    orderBindings.push(query, query, query, prefix, prefix, query);
  }
  const sql = `select ${COLUMNS} from ${TABLE} where ${where.length ? where.join(' and ') : 'true'} order by ${order} limit ?`;
  return { sql, bindings: [...bindings, ...orderBindings, filter.limit] };
}

export async function searchModels(knex: Knex, filter: SearchFilter): Promise<ModelRow[]> {
  const { sql, bindings } = searchSql(filter);
  const result = await knex.raw(sql, bindings as Knex.RawBinding[]);
  return result.rows as ModelRow[];
}

/** Every stored model a batch names by id, or by (name, manufacturer) or (mpn, manufacturer). */
export async function rowsTouchedBy(trx: Knex.Transaction, entries: ModelWrite[]): Promise<ModelRow[]> {
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
const WRITTEN = 'name, mpn, manufacturer_id, product_type_id, aliases, tags, country_of_origin, taric_se, taric_no, value, weight, search_text';

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
    for (const row of result.rows as Array<{ id: number; name: string; manufacturerId: number }>) createdIds.set(`${row.manufacturerId}:${row.name}`, row.id);
  }
  const ids = writes.map((write) => (write.kind === 'create' ? createdIds.get(`${write.values.manufacturerId}:${write.values.name.toLowerCase()}`)! : write.id));
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
export async function resolveName(knex: Knex, name: string): Promise<ResolvedName | null> {
  const wanted = name.trim().toLowerCase();
  if (!wanted) return null;
  const result = await knex.raw(
    `select id, name, manufacturer_id as "manufacturerId", product_type_id as "productTypeId" from ${TABLE}
     where lower(name) = ? or lower(mpn) = ? or (search_text like ? and exists (select 1 from unnest(aliases) alias where lower(alias) = ?))
     order by case when lower(name) = ? then 0 when lower(mpn) = ? then 1 else 2 end, id
     limit 1`,
    [wanted, wanted, `%${escapeLike(wanted)}%`, wanted, wanted, wanted],
  );
  return (result.rows[0] as ResolvedName | undefined) ?? null;
}
