/**
 * Per-column statistics targets: how many rows ANALYZE samples for a table (300 per unit of the
 * largest target) and how fine the statistics it keeps are. Postgres gives a new partition none
 * of its parent's targets, so whoever makes partitions copies them (partitions.ts).
 */
import type { Knex } from 'knex';

/** Each column of `table` (schema-qualified) with the target set on it; null where the default holds. */
export async function statisticsTargetsOf(knex: Knex, table: string): Promise<Map<string, number | null>> {
  // Before Postgres 17 the default is stored as -1, from 17 on as null.
  const { rows } = (await knex.raw(
    `select attname as "column", case when attstattarget >= 0 then attstattarget end as target
       from pg_attribute
      where attrelid = ?::regclass and attnum > 0 and not attisdropped
      order by attnum`,
    [table],
  )) as { rows: Array<{ column: string; target: number | null }> };
  return new Map(rows.map(({ column, target }) => [column, target]));
}

/**
 * Sets the statistics target of the columns `targets` names (null: back to the default), in one
 * statement; on a partitioned table, its partitions' too.
 */
export async function setStatisticsTargets(
  knex: Knex,
  table: string,
  targets: Map<string, number | null>,
): Promise<void> {
  if (targets.size === 0) return;
  const actions = [...targets].map(([column, target]) =>
    knex.raw(`alter column ?? ${statisticsSet(target)}`, [column]).toQuery(),
  );
  await knex.raw(`alter table ?? ${actions.join(', ')}`, [table]);
}

/** The clause that sets a target; null is stored as -1, the default. */
function statisticsSet(target: number | null): string {
  return `set statistics ${target === null ? -1 : Math.trunc(target)}`;
}

/**
 * Sets the statistics target of an index's expression columns, each by its number in the index
 * (null: back to the default), in one statement. ANALYZE evaluates an index's expressions on every
 * sampled row; with a target of 0 it skips them.
 */
async function setIndexStatisticsTargets(
  knex: Knex,
  index: string,
  targets: Map<number, number | null>,
): Promise<void> {
  if (targets.size === 0) return;
  const actions = [...targets].map(([column, target]) => `alter column ${Math.trunc(column)} ${statisticsSet(target)}`);
  await knex.raw(`alter index ?? ${actions.join(', ')}`, [index]);
}

/**
 * Gives each index of a partition the statistics targets set on its partitioned table's index:
 * Postgres makes a new partition's indexes from its table's without them.
 */
export async function copyIndexStatisticsTargets(knex: Knex, table: string, partition: string): Promise<void> {
  const { rows } = (await knex.raw(
    `select pn.nspname || '.' || pc.relname as parent, onn.nspname || '.' || oc.relname as own
       from pg_index p
       join pg_inherits i on i.inhparent = p.indexrelid
       join pg_index o on o.indexrelid = i.inhrelid
       join pg_class pc on pc.oid = p.indexrelid
       join pg_namespace pn on pn.oid = pc.relnamespace
       join pg_class oc on oc.oid = o.indexrelid
       join pg_namespace onn on onn.oid = oc.relnamespace
      where p.indrelid = ?::regclass and o.indrelid = ?::regclass`,
    [table, partition],
  )) as { rows: Array<{ parent: string; own: string }> };
  for (const { parent, own } of rows) {
    const set = [...(await statisticsTargetsOf(knex, parent)).values()]
      .map((target, position) => [position + 1, target] as const)
      .filter(([, target]) => target !== null);
    await setIndexStatisticsTargets(knex, own, new Map(set));
  }
}
