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

/**
 * An index of a partitioned table built without stopping writes: Postgres builds an index of a
 * partitioned table only in one locking statement, so the parent's index is made empty and
 * invalid (`on only`), each partition's own is built concurrently as `<partition>_<suffix>` and
 * attached, and the parent's turns valid with the last. Partitions made later get theirs from the
 * parent. `definition` is what follows the table's name.
 */
export async function createPartitionedIndexConcurrently(
  knex: Knex,
  table: string,
  name: string,
  suffix: string,
  definition: string,
): Promise<void> {
  const [schema] = table.split('.');
  await knex.raw(`create index if not exists ${name} on only ${table} ${definition}`);
  const partitions = await knex.raw(
    `select c.relname as name, exists (select 1 from pg_inherits a join pg_class ac on ac.oid = a.inhrelid
                                       where a.inhparent = ?::regclass and ac.relname = c.relname || '_' || ?) as attached
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ?::regclass`,
    [`${schema}.${name}`, suffix, table],
  );
  for (const partition of partitions.rows as Array<{ name: string; attached: boolean }>) {
    if (partition.attached) continue;
    const own = `${partition.name}_${suffix}`;
    await createIndexesConcurrently(knex, schema, { [own]: `${schema}.${partition.name} ${definition}` });
    await knex.raw(`alter index ${schema}.${name} attach partition ${schema}.${own}`);
  }
}
