/**
 * Tables partitioned by range of time, for rows that are many and leave by age (webhook
 * deliveries and their attempts): partitions are created a few spans ahead, and a partition whose
 * whole span is older than the shortest period of its rows is dropped at once, rather than its
 * rows deleted one by one (docs/retention.md). The rows of a dropped partition that must stay
 * (their period is longer, or they are still pending) move to the default partition first, where
 * the retention rules remove them row by row when their time comes. A span is hub time, so a
 * faster clock makes partitions shorter in real time.
 */
import type { Knex } from 'knex';
import type { HubClock } from './clock';
import { PG_ERRORS } from './pg-errors';
import { copyIndexStatisticsTargets, setStatisticsTargets, statisticsTargetsOf } from './statistics-targets';

/** Spans made ahead of the present, so a row never waits for its partition; each is read by every claim. */
export const PARTITIONS_AHEAD = 1;

export interface PartitionedTable {
  /** Schema-qualified parent, partitioned by range of `column` with a default partition `<table>_default`. */
  table: string;
  column: string;
  /** Hub time one partition spans. */
  spanMs: number;
  /**
   * Tables partitioned alike whose rows belong to rows of this one: their partitions go with this
   * table's, and their rows move with their owner's.
   */
  dependents: DependentTable[];
}

/** A table whose rows belong to rows of another (attempts to their delivery). */
export interface DependentTable {
  /** Schema-qualified. */
  table: string;
  /** Pairs of its column and the owning table's that name the owner. */
  references: Array<[string, string]>;
}

export interface Partition {
  /** Schema-qualified. */
  name: string;
  from: Date;
  to: Date;
}

/** A row of a partition that the retention would remove now: one condition per rule, with its cut-off. */
export interface Removable {
  rule: string;
  /** SQL condition on the row (`state = 'dead' and finished_at < '…'`). */
  condition: string;
}

export function defaultPartitionOf(table: string): string {
  return `${table}_default`;
}

function lockName(table: PartitionedTable): string {
  return `partitions:${table.table}`;
}

/** The table's partitions but the default one, by time. */
export async function partitionsOf(knex: Knex, table: string): Promise<Partition[]> {
  const result = await knex.raw(
    `select n.nspname || '.' || c.relname as name, bound[1]::timestamptz as "from", bound[2]::timestamptz as "to"
       from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
       join pg_namespace n on n.oid = c.relnamespace
      cross join lateral regexp_match(pg_get_expr(c.relpartbound, c.oid), $$FROM \\('([^']+)'\\) TO \\('([^']+)'\\)$$) as bound
      where i.inhparent = ?::regclass and bound is not null
      order by 2`,
    [table],
  );
  return result.rows as Partition[];
}

/** Partitions whose span is not over, still written to: the retention rules remove their rows one by one. */
export async function openPartitionsOf(knex: Knex, table: string, clock: HubClock): Promise<string[]> {
  const now = clock.storedCutoff(0);
  return (await partitionsOf(knex, table)).filter((partition) => partition.to > now).map(({ name }) => name);
}

/**
 * Creates the partitions of the spans from the present to PARTITIONS_AHEAD spans ahead that do
 * not exist yet, each table's and its dependents' together. A span for which the default partition
 * already holds rows is left to it (Postgres would refuse the partition). Answers how many spans
 * were created; null when another instance is at work on the table.
 */
export async function createPartitionsAhead(
  knex: Knex,
  table: PartitionedTable,
  clock: HubClock,
): Promise<number | null> {
  const spanMs = table.spanMs / clock.rate;
  const now = clock.storedCutoff(0).getTime();
  const until = clock.storedTimeIn(PARTITIONS_AHEAD * table.spanMs).getTime();
  const thisSpan = Math.floor(now / spanMs) * spanMs;
  let created = 0;
  return knex.transaction(async (trx) => {
    if (!(await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as ok', [lockName(table)])).rows[0].ok)
      return null;
    // Read under the lock: another instance may have made some since this one last looked.
    const existing = await partitionsOf(trx, table.table);
    let from = Math.max(existing.at(-1)?.to.getTime() ?? thisSpan, thisSpan);
    for (; from < until; from += spanMs) {
      const span = { from: new Date(from), to: new Date(from + spanMs) };
      const taken = await trx.raw(`select exists (select 1 from ?? where ?? >= ? and ?? < ?) as taken`, [
        defaultPartitionOf(table.table),
        table.column,
        span.from,
        table.column,
        span.to,
      ]);
      if (taken.rows[0].taken) continue;
      for (const { table: name } of [table, ...table.dependents]) {
        const partition = partitionName(name, span.from);
        // DDL takes no parameters: the bounds go in as literals.
        await trx.raw(
          trx
            .raw('create table ?? partition of ?? for values from (?) to (?)', [
              partition,
              name,
              span.from.toISOString(),
              span.to.toISOString(),
            ])
            .toQuery(),
        );
        const ownTargets = [...(await statisticsTargetsOf(trx, name))].filter(([, target]) => target !== null);
        await setStatisticsTargets(trx, partition, new Map(ownTargets));
        await copyIndexStatisticsTargets(trx, name, partition);
        await copyStorageOptions(trx, defaultPartitionOf(name), partition);
      }
      created += 1;
    }
    return created;
  });
}

/**
 * A partitioned table holds no storage options (its fill factor, say) of its own, so its default
 * partition holds them for the partitions made later.
 */
async function copyStorageOptions(knex: Knex, from: string, to: string): Promise<void> {
  const { rows } = await knex.raw('select reloptions from pg_class where oid = ?::regclass', [from]);
  const options = (rows[0]?.reloptions ?? []) as string[];
  // Each option comes as `name=value` from the catalog itself; DDL takes no parameters.
  if (options.length > 0) await knex.raw(`alter table ?? set (${options.join(', ')})`, [to]);
}

function partitionName(table: string, from: Date): string {
  return `${table}_p${from.toISOString().replace(/[-:.]/g, '').toLowerCase()}`;
}

/**
 * Drops each partition whose whole span is older than `cutoff` (the shortest period of its rows),
 * with its dependents' partitions of the same span. The rows none of `removable` takes stay: they
 * move to the default partitions (their dependents' rows with them) before the partition goes.
 * One transaction per span, which waits at most `lockTimeoutMs` for the tables (detaching holds
 * them exclusively for its few statements); a span it could not take is left to the next run.
 * Answers the rows dropped per rule, or null when another instance is at work on the table.
 */
export async function dropExpiredPartitions(
  knex: Knex,
  table: PartitionedTable,
  cutoff: Date,
  removable: Removable[],
  lockTimeoutMs = 5000,
): Promise<Map<string, number> | null> {
  const dropped = new Map(removable.map(({ rule }) => [rule, 0]));
  const expired = (await partitionsOf(knex, table.table)).filter((partition) => partition.to <= cutoff);
  const stays = `not (${removable.map(({ condition }) => `(${condition})`).join(' or ') || 'false'})`;
  for (const partition of expired) {
    const counts = await knex
      .transaction(async (trx) => {
        if (!(await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as ok', [lockName(table)])).rows[0].ok)
          return null;
        await trx.raw(`set local lock_timeout = ${Math.round(lockTimeoutMs)}`);
        // What stays is decided once: no row of the span changes from here on.
        await trx.raw('lock table ?? in exclusive mode', [partition.name]);
        // A dependent's partition goes first, its rows kept read beside their owners' still in place.
        const kept: Array<{ table: string; holding: string }> = [];
        for (const dependent of table.dependents) {
          const own = (await partitionsOf(trx, dependent.table)).find(
            (candidate) => candidate.from.getTime() === partition.from.getTime(),
          );
          if (!own) continue;
          const holding = `${own.name.split('.')[1]}_kept`;
          const owned = dependent.references.map(([mine, theirs]) => `x.${mine} = owner.${theirs}`).join(' and ');
          await trx.raw('alter table ?? detach partition ??', [dependent.table, own.name]);
          await trx.raw(
            `create temporary table ?? on commit drop as
               select x.* from ?? x where exists (select 1 from ?? owner where ${owned} and ${stays})`,
            [holding, own.name, partition.name],
          );
          await trx.raw('drop table ??', [own.name]);
          kept.push({ table: dependent.table, holding });
        }
        await trx.raw('alter table ?? detach partition ??', [table.table, partition.name]);
        const counted = await trx.raw(
          `select ${removable.map(({ condition }, index) => `count(*) filter (where ${condition}) as "${index}"`).join(', ') || '0'} from ??`,
          [partition.name],
        );
        await trx.raw(`insert into ?? select * from ?? where ${stays}`, [table.table, partition.name]);
        for (const { table: dependent, holding } of kept)
          await trx.raw('insert into ?? select * from ??', [dependent, holding]);
        await trx.raw('drop table ??', [partition.name]);
        return counted.rows[0] as Record<string, string>;
      })
      .catch((err: Error & { code?: string }) => {
        // A lock not had in time, or a deadlock with a worker's record: the next run tries again.
        // A partition already gone was dropped by a run in this process since the list was read.
        if (
          err.code === PG_ERRORS.LOCK_NOT_AVAILABLE ||
          err.code === PG_ERRORS.DEADLOCK_DETECTED ||
          err.code === PG_ERRORS.UNDEFINED_TABLE
        )
          return undefined;
        throw err;
      });
    if (counts === null) return null;
    if (counts === undefined) continue;
    removable.forEach(({ rule }, index) => dropped.set(rule, dropped.get(rule)! + Number(counts[index])));
  }
  return dropped;
}
