/**
 * Indexes built on a service's large tables without stopping writes: CREATE INDEX CONCURRENTLY,
 * which cannot run in a transaction (a migration using these says `transaction: false`). A build
 * that fails leaves an invalid index behind, which `if not exists` would keep: each is dropped
 * first when it is invalid, so running the migration again builds it anew.
 */
import type { Knex } from 'knex';

/** `definitions`: each index's name (in `schema`) and what follows `on`. */
export async function createIndexesConcurrently(
  knex: Knex,
  schema: string,
  definitions: Record<string, string>,
): Promise<void> {
  for (const [name, definition] of Object.entries(definitions)) {
    const invalid = await knex.raw(
      `select 1 from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ? and c.relname = ? and not i.indisvalid`,
      [schema, name],
    );
    if (invalid.rows.length) await knex.raw(`drop index concurrently ${schema}.${name}`);
    await knex.raw(`create index concurrently if not exists ${name} on ${definition}`);
  }
}

export async function dropIndexesConcurrently(knex: Knex, schema: string, names: string[]): Promise<void> {
  for (const name of names) await knex.raw(`drop index concurrently if exists ${schema}.${name}`);
}
