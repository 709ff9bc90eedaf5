/**
 * What the baseline-schema tests compare: each service's schema as its baseline migration builds
 * it, against the schema the migrations it replaced built (kept in `chain/`, made from that chain
 * with SCHEMA_SNAPSHOT=write on its own tree: every migration in each folder is then run, and the
 * files are written instead of compared).
 *
 * These differences are inherent and left out: knex's own rows (which migrations ran, and so its
 * sequence's value); the layout and comments of a function's body (its text is compared with
 * comments removed and whitespace collapsed; what it does is in its statements); and the names
 * the embedded database gives its NOT NULL constraints, which number a name again when an earlier
 * table had it (the columns' NOT NULL is compared, and the server's catalog has no such names).
 * The statistics targets of statistics objects are compared on the server only: the embedded
 * database's own vacuum sets them while it runs (embedded-autovacuum.ts), whenever its turn comes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { type Database, migrateSchema } from '../../shared/src';

/** The release's baseline: no migration of a service before it, every later one after it. */
export const BASELINE = '20261207000000';

export const SNAPSHOT_DIR = path.join(__dirname, 'chain');
export const writingSnapshot = process.env.SCHEMA_SNAPSHOT === 'write';

const SERVICES_DIR = path.resolve(__dirname, '../../services');
const MIGRATION_FILE = /^\d+_[a-z0-9_]+\.ts$/;

/** Every service with migrations, by schema, in the order the test template migrates them. */
export const SERVICES = fs
  .readdirSync(SERVICES_DIR)
  .sort()
  .map((service) => ({
    schema: service.replace(/-/g, '_'),
    dir: path.join(SERVICES_DIR, service, 'src', 'migrations'),
  }))
  .filter(({ dir }) => fs.existsSync(dir));

/** Each service's schema as its migrations up to the baseline leave it (all of them when writing). */
export async function migrateToBaseline(database: Database): Promise<void> {
  for (const { schema, dir } of SERVICES) {
    if (writingSnapshot) {
      await migrateSchema(database, schema, dir);
      continue;
    }
    const files = fs
      .readdirSync(dir)
      .filter((file) => MIGRATION_FILE.test(file) && file.slice(0, BASELINE.length) <= BASELINE)
      .sort();
    await database.knex.raw('create schema if not exists ??', [schema]);
    await database.knex.migrate.latest({
      schemaName: schema,
      tableName: 'knex_migrations',
      migrationSource: {
        getMigrations: () => Promise.resolve(files),
        getMigrationName: (file: string) => file.replace(/\.ts$/, ''),
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a migration file by its path, as db.ts loads them
        getMigration: (file: string) => Promise.resolve(require(path.join(dir, file)) as Knex.Migration),
      },
    });
  }
}

/** A snapshot as written: each object of the catalog on a line of its own. */
export function snapshotText(value: unknown, indent = ''): string {
  const inner = `${indent} `;
  if (Array.isArray(value))
    return value.length ? `[\n${value.map((item) => inner + JSON.stringify(item)).join(',\n')}\n${indent}]` : '[]';
  if (value && typeof value === 'object')
    return `{\n${Object.entries(value)
      .map(([key, item]) => `${inner}${JSON.stringify(key)}: ${snapshotText(item, inner)}`)
      .join(',\n')}\n${indent}}`;
  return JSON.stringify(value);
}

/** A function's text as compared: no comments, whitespace collapsed. */
function bodyText(sql: string): string {
  return sql
    .replace(/(^|\s)--[^\n]*/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A `pg_dump --schema-only` as compared: one entry per statement, comments (the dump's headers,
 * and those in function bodies) and its random `\restrict` key left out, whitespace collapsed.
 */
export function dumpStatements(dump: string): string[] {
  return bodyText(dump.replace(/^\\(un)?restrict .*$/gm, ''))
    .split(/;\s/)
    .map((statement) => statement.trim())
    .filter(Boolean);
}

async function rows<T = Record<string, unknown>>(knex: Knex, sql: string, bindings: string[]): Promise<T[]> {
  return ((await knex.raw(sql, bindings)) as { rows: T[] }).rows;
}

/** One schema as the catalog describes it: every object, its definition and its rows. */
export async function catalogOf(knex: Knex, schema: string): Promise<Record<string, unknown>> {
  const relations = await rows(
    knex,
    `select c.relname as name, c.relkind as kind, c.reloptions as options,
            pg_get_partkeydef(c.oid) as partition_key, pg_get_expr(c.relpartbound, c.oid) as partition_bound,
            (select p.relname from pg_inherits i join pg_class p on p.oid = i.inhparent where i.inhrelid = c.oid) as parent
       from pg_class c where c.relnamespace = ?::regnamespace order by c.relname`,
    [schema],
  );
  const columns = await rows(
    knex,
    `select c.relname as relation, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
            a.attnotnull as not_null, pg_get_expr(d.adbin, d.adrelid) as "default", a.attstattarget as statistics,
            a.attidentity as identity, a.attgenerated as generated
       from pg_attribute a join pg_class c on c.oid = a.attrelid
       left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where c.relnamespace = ?::regnamespace and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`,
    [schema],
  );
  const indexes = await rows(
    knex,
    `select i.relname as name, pg_get_indexdef(i.oid) as definition
       from pg_index x join pg_class i on i.oid = x.indexrelid
      where i.relnamespace = ?::regnamespace order by i.relname`,
    [schema],
  );
  const constraints = await rows(
    knex,
    `select conrelid::regclass::text as relation, conname as name, pg_get_constraintdef(oid) as definition
       from pg_constraint where connamespace = ?::regnamespace and contype <> 'n' order by 1, 2`,
    [schema],
  );
  const functions = (
    await rows<{ name: string; definition: string }>(
      knex,
      `select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as name,
              pg_get_functiondef(p.oid) as definition
         from pg_proc p where p.pronamespace = ?::regnamespace
          and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
        order by 1`,
      [schema],
    )
  ).map(({ name, definition }) => ({ name, definition: bodyText(definition) }));
  const triggers = await rows(
    knex,
    `select t.tgname as name, pg_get_triggerdef(t.oid) as definition
       from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = ?::regnamespace and not t.tgisinternal order by 1`,
    [schema],
  );
  const sequences = await rows(
    knex,
    `select s.sequencename as name, s.data_type::text as type, s.start_value::text as start,
            s.increment_by::text as increment, s.max_value::text as max, s.cache_size::text as cache, s.cycle,
            s.last_value::text as last_value,
            (select c.relname || '.' || a.attname from pg_depend d
               join pg_class c on c.oid = d.refobjid
               join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
              where d.objid = (s.schemaname || '.' || s.sequencename)::regclass and d.deptype in ('a', 'i')) as owned_by
       from pg_sequences s where s.schemaname = ? and s.sequencename not like 'knex\\_%' order by 1`,
    [schema],
  );
  const statistics = await rows(
    knex,
    `select stxname as name, pg_get_statisticsobjdef(oid) as definition
       from pg_statistic_ext where stxnamespace = ?::regnamespace order by 1`,
    [schema],
  );
  const extensions = await rows(
    knex,
    `select extname as name, extnamespace::regnamespace::text as schema from pg_extension
      where extnamespace = ?::regnamespace order by 1`,
    [schema],
  );
  const data: Record<string, unknown[]> = {};
  for (const { name, kind } of relations as Array<{ name: string; kind: string }>) {
    if (kind !== 'r' || name.startsWith('knex_migrations')) continue;
    const content = await rows(knex, `select to_jsonb(t) as "row" from ??.?? t order by 1::text`, [schema, name]);
    if (content.length) data[name] = content.map(({ row }) => row);
  }
  return { relations, columns, indexes, constraints, functions, triggers, sequences, statistics, extensions, data };
}

/** The extensions a database holds outside its services' schemas (public's, which two services create). */
export async function sharedExtensions(knex: Knex): Promise<Array<{ name: string; schema: string }>> {
  return rows(
    knex,
    `select extname as name, extnamespace::regnamespace::text as schema from pg_extension
      where extnamespace = 'public'::regnamespace order by 1`,
    [],
  );
}
