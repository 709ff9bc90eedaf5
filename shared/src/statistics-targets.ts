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
    knex.raw(`alter column ?? set statistics ${target === null ? -1 : Math.trunc(target)}`, [column]).toQuery(),
  );
  await knex.raw(`alter table ?? ${actions.join(', ')}`, [table]);
}
