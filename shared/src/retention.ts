/**
 * Retention: each service that owns rows which pile up (relayed outbox events, webhook
 * deliveries, the request log, expired Idempotency-Keys) removes them by age in a background
 * job, so its storage and its speed do not depend on how long the hub has run (docs/retention.md).
 *
 * A job removes rows in small batches, one short transaction each, taking only rows no one else
 * holds (`skip locked`), so it never waits on a worker nor keeps one waiting. Several instances
 * of a service may run their jobs at once: a rule's batches take a transaction-level advisory
 * lock, and an instance that finds it taken leaves the rule to the one working on it. Embedded
 * mode has no autovacuum, so there the job vacuums what it shrank.
 */
import type { Knex } from 'knex';
import type { Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { HubClock } from './clock';
import type { HubConfig, RetentionSettings } from './config';
import { clockOf, configOf } from './context';
import type { Database } from './db';
import type { DbService } from './db.mixin';
import { idempotencyKeysRetention } from './idempotency';
import { relayedEventsRetention } from './outbox';
import {
  createPartitionsAhead,
  defaultPartitionOf,
  dropExpiredPartitions,
  openPartitionsOf,
  type PartitionedTable,
} from './partitions';
import type { AgedTable, RetentionRule } from './retention-rule';

export interface RetentionPolicy {
  rules: RetentionRule[];
  aged: AgedTable[];
  /**
   * Tables partitioned by time (partitions.ts): their rules remove rows one by one only from the
   * default partition and the partitions still written to; the others go whole once expired.
   */
  partitioned?: PartitionedTable[];
}

export interface RuleRun {
  rule: string;
  table: string;
  /** Rows removed; null when another instance was running the rule. */
  removed: number | null;
}

/** The advisory lock a rule's batches take, so that one instance at a time works on it. */
export function retentionLockName(rule: Pick<RetentionRule, 'table' | 'name'>): string {
  return `retention:${rule.table}:${rule.name}`;
}

/**
 * Removes up to `limit` rows of the rule older than `cutoff` (a stored time) in one transaction,
 * from the rule's table or `from`, one of its partitions; answers how many, or null when another
 * instance holds the rule.
 */
export async function removeBatch(
  knex: Knex,
  rule: RetentionRule,
  cutoff: Date,
  limit: number,
  from: string = rule.table,
): Promise<number | null> {
  const dependents = rule.dependents ?? [];
  const keys = rule.key.map((column) => knex.raw('??', [column]).toQuery());
  const matches = rule.key.map((column) => knex.raw('t.?? = doomed.??', [column, column]).toQuery()).join(' and ');
  const ownerColumns = [...new Set(dependents.flatMap(({ references }) => references.map(([, theirs]) => theirs)))];
  const returned = ownerColumns.map((column) => knex.raw('t.??', [column]).toQuery()).join(', ');
  // Each dependent's rows go in the statement that removes their owners, so none outlives its owner.
  const dependentRemovals = dependents.map(({ table, references }, index) =>
    knex
      .raw(
        `dependent_${index} as (delete from ?? as x using removed where ${references.map(() => 'x.?? = removed.??').join(' and ')})`,
        [table, ...references.flat()],
      )
      .toQuery(),
  );
  return knex.transaction(async (trx) => {
    const lock = await trx.raw('select pg_try_advisory_xact_lock(hashtext(?)) as ok', [retentionLockName(rule)]);
    if (!lock.rows[0].ok) return null;
    const result = await trx.raw(
      `with doomed as (
         select ${keys.join(', ')} from ?? where ?? < ? and (${rule.where ?? 'true'})
          order by ?? limit ? for update skip locked
       ),
       removed as (delete from ?? as t using doomed where ${matches} returning ${returned || '1'})
       ${dependentRemovals.map((removal) => `, ${removal}`).join('')}
       select count(*)::int as removed from removed`,
      [from, rule.ageColumn, cutoff, rule.ageColumn, limit, from],
    );
    return (result.rows[0] as { removed: number }).removed;
  });
}

export interface RetentionJobOptions {
  database: Database;
  schema: string;
  policy: RetentionPolicy;
  clock: HubClock;
  batchSize: number;
  /** Asked between batches: a stopping service ends its run there. */
  stopping?: () => boolean;
  /**
   * Rows removed per table since it was last vacuumed (embedded mode), kept between runs: a table
   * is vacuumed once a batch's worth of rows is gone, not after every run that took a few.
   */
  unvacuumed?: Map<string, number>;
}

/** Runs every rule once, batch after batch, and records each rule's run. */
export async function runRetention(options: RetentionJobOptions): Promise<RuleRun[]> {
  const { database, schema, policy, clock, batchSize } = options;
  const { knex } = database;
  const runs: RuleRun[] = [];
  const dropped = new Map<string, number>();
  for (const partitioned of policy.partitioned ?? []) {
    await createPartitionsAhead(knex, partitioned, clock);
    const whole = await dropPartitionsOfExpiredRows(knex, partitioned, policy.rules, clock);
    for (const [rule, rows] of whole ?? []) dropped.set(rule, (dropped.get(rule) ?? 0) + rows);
  }
  for (const rule of policy.rules) {
    const cutoff = clock.storedCutoff(rule.keepMs);
    let removed: number | null = dropped.get(rule.name) ?? 0;
    const partitioned = policy.partitioned?.find(({ table }) => table === rule.table);
    const tables = partitioned
      ? [defaultPartitionOf(rule.table), ...(await openPartitionsOf(knex, rule.table, clock))]
      : [rule.table];
    for (const table of tables) {
      for (;;) {
        if (options.stopping?.()) break;
        const batch = await removeBatch(knex, rule, cutoff, batchSize, table);
        if (batch === null) {
          removed = removed === 0 ? null : removed;
          break;
        }
        removed += batch;
        if (batch < batchSize) break;
        // Lets queries waiting for the connection go first (embedded mode has one).
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (removed === null) break;
    }
    runs.push({ rule: rule.name, table: rule.table, removed });
    if (removed === null) continue;
    await knex(`${schema}.retention_runs`)
      .insert({ rule: rule.name, table_name: rule.table, ran_at: clock.now(), removed, removed_total: removed })
      .onConflict('rule')
      .merge({
        table_name: rule.table,
        ran_at: clock.now(),
        removed,
        removed_total: knex.raw('retention_runs.removed_total + excluded.removed'),
      });
  }
  if (database.kind === 'pglite') await vacuumShrunk(knex, policy, runs, batchSize, options.unvacuumed ?? new Map());
  return runs;
}

/**
 * Drops the partitions of a table whose whole span is older than the shortest period of its
 * rules, keeping the rows that no rule removes yet; answers the rows dropped per rule.
 */
function dropPartitionsOfExpiredRows(
  knex: Knex,
  partitioned: PartitionedTable,
  rules: RetentionRule[],
  clock: HubClock,
): Promise<Map<string, number> | null> {
  const own = rules.filter((rule) => rule.table === partitioned.table);
  if (own.length === 0) return Promise.resolve(new Map());
  const removable = own.map((rule) => ({
    rule: rule.name,
    condition: knex
      .raw(`(${rule.where ?? 'true'}) and ?? < ?`, [rule.ageColumn, clock.storedCutoff(rule.keepMs).toISOString()])
      .toQuery(),
  }));
  const shortest = Math.min(...own.map((rule) => rule.keepMs));
  return dropExpiredPartitions(knex, partitioned, clock.storedCutoff(shortest), removable);
}

/** PGlite runs no autovacuum: without this, removed rows would keep their space and slow scans. */
async function vacuumShrunk(
  knex: Knex,
  policy: RetentionPolicy,
  runs: RuleRun[],
  batchSize: number,
  unvacuumed: Map<string, number>,
): Promise<void> {
  for (const rule of policy.rules) {
    const removed = runs.find((run) => run.rule === rule.name)?.removed ?? 0;
    for (const table of [rule.table, ...(rule.dependents ?? []).map(({ table: dependent }) => dependent)])
      unvacuumed.set(table, (unvacuumed.get(table) ?? 0) + removed);
  }
  for (const [table, removed] of unvacuumed) {
    if (removed < batchSize) continue;
    await knex.raw('vacuum (analyze) ??', [table]);
    unvacuumed.set(table, 0);
  }
}

/** The internal actions every service with a database answers; the gateway finds them by name. */
export const STORAGE_ACTION = 'storageFigures';
export const RETENTION_ACTION = 'runRetention';

/** Above this many rows (by the planner's estimate) a table's count is the estimate, not a scan. */
const EXACT_COUNT_LIMIT = 100_000;

export interface TableFigures {
  table: string;
  rows: number;
  /** Whether `rows` is the planner's estimate (large tables) rather than a count. */
  rowsEstimated: boolean;
  /** Table, indexes and TOAST together. */
  bytes: number;
  /** For a table partitioned by time (partitions.ts): its partitions, the default one included. */
  partitions?: number;
  /** When the oldest row kept was written, for tables that age; null when empty. */
  oldestRowAt?: string | null;
  /** Its age in hub time, in seconds. */
  oldestRowAgeSeconds?: number | null;
}

export interface RuleFigures {
  rule: string;
  table: string;
  keepSeconds: number;
  lastRunAt: string | null;
  lastRemoved: number | null;
  removedTotal: number | null;
}

export interface StorageFigures {
  service: string;
  schema: string;
  retention: { enabled: boolean; intervalSeconds: number; rules: RuleFigures[] };
  tables: TableFigures[];
}

/** Rows, bytes and oldest row of each table of the schema, and each retention rule's last run. */
export async function storageFigures(
  knex: Knex,
  schema: string,
  policy: RetentionPolicy,
  clock: HubClock,
): Promise<Pick<StorageFigures, 'tables'> & { rules: RuleFigures[] }> {
  const tables = (
    await knex.raw(
      `select c.relname as name,
              coalesce((select sum(greatest(leaf.reltuples, 0)) from pg_partition_tree(c.oid) tree
                          join pg_class leaf on leaf.oid = tree.relid where tree.isleaf), c.reltuples)::float8 as estimate,
              coalesce((select sum(pg_total_relation_size(tree.relid)) from pg_partition_tree(c.oid) tree),
                       pg_total_relation_size(c.oid))::float8 as bytes,
              case when c.relkind = 'p' then (select count(*)::int - 1 from pg_partition_tree(c.oid)) end as partitions
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ? and c.relkind in ('r', 'p') and not c.relispartition and c.relname not like 'knex\\_%'
        order by c.relname`,
      [schema],
    )
  ).rows as Array<{ name: string; estimate: number; bytes: number; partitions: number | null }>;
  const figures: TableFigures[] = [];
  for (const { name, estimate, bytes, partitions } of tables) {
    const table = `${schema}.${name}`;
    const estimated = estimate >= EXACT_COUNT_LIMIT;
    const rows = estimated ? estimate : Number((await knex(table).count({ count: '*' }))[0].count);
    const figure: TableFigures = { table, rows: Math.round(rows), rowsEstimated: estimated, bytes };
    if (partitions !== null) figure.partitions = partitions;
    const aged = policy.aged.find((candidate) => candidate.table === table);
    if (aged) {
      const oldest = await knex(table).orderBy(aged.orderBy).first({ at: aged.column });
      figure.oldestRowAt = oldest?.at ? new Date(oldest.at).toISOString() : null;
      figure.oldestRowAgeSeconds = oldest?.at ? Math.round(clock.ageOf(new Date(oldest.at)) / 1000) : null;
    }
    figures.push(figure);
  }
  const runs = policy.rules.length
    ? ((await knex(`${schema}.retention_runs`).select()) as Array<{
        rule: string;
        ran_at: Date;
        removed: number;
        removed_total: number;
      }>)
    : [];
  const rules = policy.rules.map((rule) => {
    const run = runs.find((candidate) => candidate.rule === rule.name);
    return {
      rule: rule.name,
      table: rule.table,
      keepSeconds: rule.keepMs / 1000,
      lastRunAt: run ? run.ran_at.toISOString() : null,
      lastRemoved: run ? run.removed : null,
      removedTotal: run ? run.removed_total : null,
    };
  });
  return { tables: figures, rules };
}

type RetentionService = Service &
  DbService & {
    retention: {
      policy: RetentionPolicy;
      settings: RetentionSettings;
      clock: HubClock;
      timer?: NodeJS.Timeout;
      partitionsTimer?: NodeJS.Timeout;
      running?: Promise<RuleRun[]>;
      stopping: boolean;
      unvacuumed: Map<string, number>;
    };
    applyRetention(): Promise<RuleRun[]>;
    /** Creates the partitions of the coming spans (partitions.ts). */
    keepPartitionsAhead(): Promise<void>;
  };

/**
 * The retention of a service whose only aged rows are its outbox's relayed events and its
 * expired Idempotency-Keys.
 */
export function outboxAndKeysPolicy(schema: string): (config: HubConfig) => RetentionPolicy {
  return ({ retention, idempotencyKeyTtlMs }) => {
    const outbox = relayedEventsRetention(schema, retention.relayedEventsMs);
    const keys = idempotencyKeysRetention(schema, idempotencyKeyTtlMs);
    return { rules: [outbox.rule, keys.rule], aged: [outbox.aged, keys.aged] };
  };
}

/**
 * Gives a service its retention job and the internal actions `storageFigures` (for the admin
 * API, the console and /metrics) and `runRetention` (runs the job now; tests and benchmarks).
 * `policyOf` builds the service's rules from the configuration; a service without rules still reports
 * its storage. Needs the DbMixin's `this.db`; rules need the schema's `retention_runs` table.
 */
export function RetentionMixin(
  schema: string,
  policyOf: (config: HubConfig) => RetentionPolicy = () => ({ rules: [], aged: [] }),
): Partial<ServiceSchema> {
  const mixin: Partial<ServiceSchema<ServiceSettingSchema, RetentionService>> = {
    actions: {
      [STORAGE_ACTION]: {
        visibility: 'public',
        async handler(this: RetentionService): Promise<StorageFigures> {
          const { policy, settings, clock } = this.retention;
          const { tables, rules } = await storageFigures(this.db.knex, schema, policy, clock);
          return {
            service: this.name,
            schema,
            retention: { enabled: settings.enabled, intervalSeconds: settings.intervalMs / 1000, rules },
            tables,
          };
        },
      },

      [RETENTION_ACTION]: {
        visibility: 'public',
        async handler(this: RetentionService) {
          return { service: this.name, runs: await this.applyRetention() };
        },
      },
    },

    methods: {
      /** One run at a time per instance: a call during a run waits for that run, then runs again. */
      async applyRetention(this: RetentionService): Promise<RuleRun[]> {
        const state = this.retention;
        while (state.running) await state.running.catch(() => undefined);
        state.running = runRetention({
          database: this.db,
          schema,
          policy: state.policy,
          clock: state.clock,
          batchSize: state.settings.batchSize,
          stopping: () => state.stopping,
          unvacuumed: state.unvacuumed,
        });
        try {
          return await state.running;
        } finally {
          state.running = undefined;
        }
      },

      async keepPartitionsAhead(this: RetentionService): Promise<void> {
        const partitionedTables = this.retention.policy.partitioned ?? [];
        if (partitionedTables.length > 0 && !this.db)
          throw new Error('A service with partitioned tables starts its DbMixin before its RetentionMixin');
        for (const partitioned of partitionedTables)
          await createPartitionsAhead(this.db.knex, partitioned, this.retention.clock);
      },
    },

    created(this: RetentionService) {
      const config = configOf(this.broker);
      this.retention = {
        policy: policyOf(config),
        settings: config.retention,
        clock: clockOf(this.broker),
        stopping: false,
        unvacuumed: new Map(),
      };
    },

    async started(this: RetentionService) {
      const state = this.retention;
      if (!state.settings.enabled) return;
      await this.keepPartitionsAhead();
      if (state.policy.partitioned?.length) {
        // Partitions only serve retention: without it every row stays in the default partition.
        const spanMs = Math.min(...state.policy.partitioned.map(({ spanMs }) => spanMs)) / state.clock.rate;
        state.partitionsTimer = setInterval(
          () => {
            this.keepPartitionsAhead().catch((err: Error) =>
              this.logger.warn(`Creating partitions ahead failed (${err.message}); the next round tries again`),
            );
          },
          Math.min(state.settings.intervalMs, spanMs / 2),
        );
        state.partitionsTimer.unref();
      }
      if (state.policy.rules.length === 0) return;
      state.timer = setInterval(() => {
        if (state.running || !this.db) return;
        this.applyRetention().catch((err: Error) =>
          this.logger.warn(`Retention run failed (${err.message}); the next run tries again`),
        );
      }, state.settings.intervalMs);
      state.timer.unref();
    },

    async stopped(this: RetentionService) {
      this.retention.stopping = true;
      clearInterval(this.retention.timer);
      clearInterval(this.retention.partitionsTimer);
      await this.retention.running?.catch(() => undefined);
    },
  };
  return mixin as Partial<ServiceSchema>;
}
