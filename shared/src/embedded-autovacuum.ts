/**
 * PGlite runs no autovacuum, so on the embedded database nothing analyzed a growing table: its
 * plans stayed those of an empty one (searches slowed as the tables grew, and the one session
 * queued every other request behind them), and nothing merged GIN
 * pending lists or reclaimed dead rows. This does what autovacuum does on a server, at its default
 * thresholds, on a timer in the process that holds the database. The retention job still vacuums
 * what it shrank at once (retention.ts); this catches everything else.
 *
 * Statistics objects on expressions (the trigrams of a case's texts, for commonSearch) are the
 * exception: ANALYZE evaluates their expression on every sampled row, which on PGlite is slow
 * enough that at the default sample of 30,000 rows one table's ANALYZE holds the session long
 * after its requests, and the slowest request grows with the tables. Here such an object is skipped by
 * ANALYZE (its statistics target is 0, which keeps what it holds) and rebuilt on its own from a
 * sample of 3,000 rows whenever its table has doubled since: what they tell (which trigrams
 * nearly every row holds) changes with the kind of rows, not with their number. The table's size
 * at each build is kept in the object's comment, so the count goes on across restarts.
 */
import type { Knex } from 'knex';
import { PG_ERRORS } from './pg-errors';

/** Postgres's defaults for autovacuum_(vacuum|analyze|vacuum_insert)_(threshold|scale_factor). */
const THRESHOLDS = {
  vacuum: { rows: 50, share: 0.2 },
  analyze: { rows: 50, share: 0.1 },
  insertVacuum: { rows: 1000, share: 0.2 },
};

export interface TableActivity {
  schemaname: string;
  relname: string;
  n_live_tup: number;
  n_dead_tup: number;
  n_mod_since_analyze: number;
  n_ins_since_vacuum: number;
}

/** The sample an expression statistics object is rebuilt from: 300 rows per point of target. */
const EXPRESSION_STATISTICS_TARGET = 10;

/** A statistics object on expressions, with its table's live rows. */
export interface ExpressionStatistics {
  schema: string;
  name: string;
  table_schema: string;
  table_name: string;
  /** The table's columns its expressions read. */
  columns: string[];
  /** Whether ANALYZE skips it (target 0). */
  skipped: boolean;
  /** The table's rows when this maintenance last built it (its comment), or null. */
  rows_at_build: number | null;
  n_live_tup: number;
}

const BUILT_NOTE = 'Built apart from ANALYZE on the embedded database, from a table of';

/** What autovacuum would do to a table now: vacuum it (analyzing it too), only analyze it, or nothing. */
export function maintenanceOf(table: TableActivity): 'vacuum' | 'analyze' | undefined {
  const over = (count: number, { rows, share }: { rows: number; share: number }) =>
    count > rows + share * table.n_live_tup;
  if (over(table.n_dead_tup, THRESHOLDS.vacuum) || over(table.n_ins_since_vacuum, THRESHOLDS.insertVacuum))
    return 'vacuum';
  if (over(table.n_mod_since_analyze, THRESHOLDS.analyze)) return 'analyze';
  return undefined;
}

/**
 * Whether to rebuild an expression statistics object: one this maintenance never built once its
 * table has rows beyond autovacuum's base threshold, and one it built once the table has doubled.
 */
export function rebuildsStatistics(statistics: Pick<ExpressionStatistics, 'rows_at_build' | 'n_live_tup'>): boolean {
  return statistics.n_live_tup > THRESHOLDS.analyze.rows + 2 * (statistics.rows_at_build ?? 0);
}

/**
 * Every `intervalMs`, vacuums or analyzes the tables that need it, one at a time, then rebuilds
 * one of the expression statistics whose tables doubled; a pass that fails is reported to
 * `onError` and the next one tries again. Returns the stop function, which waits for a pass under way.
 */
export function startEmbeddedAutovacuum(
  knex: Knex,
  intervalMs: number,
  onError: (err: Error) => void,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const pass = async () => {
    const { rows } = (await knex.raw(
      `select schemaname, relname, n_live_tup::int, n_dead_tup::int, n_mod_since_analyze::int, n_ins_since_vacuum::int
         from pg_stat_user_tables`,
    )) as { rows: TableActivity[] };
    for (const table of rows) {
      const work = maintenanceOf(table);
      // A vacuum and its analyze as two statements, so the session every request waits for is free between them.
      const statements =
        work === 'vacuum' ? ['vacuum ??.??', 'analyze ??.??'] : work === 'analyze' ? ['analyze ??.??'] : [];
      for (const statement of statements)
        await knex.raw(statement, [table.schemaname, table.relname]).catch((err: Error & { code?: string }) => {
          // Dropped since the list was read (an expired partition): nothing left to maintain.
          if (err.code !== PG_ERRORS.UNDEFINED_TABLE) throw err;
        });
    }
    // One rebuild a pass: a table's objects double together, and the session is free between passes.
    const expressions = await expressionStatistics(knex);
    for (const statistics of expressions.filter(({ skipped }) => !skipped))
      await knex.raw('alter statistics ??.?? set statistics 0', [statistics.schema, statistics.name]);
    const next = expressions.find(rebuildsStatistics);
    if (next) await rebuildStatistics(knex, next);
  };
  const timer = setInterval(() => {
    if (running) return;
    running = pass()
      .catch(onError)
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The statistics objects on expressions, with whether ANALYZE skips them and when this maintenance built them. */
async function expressionStatistics(knex: Knex): Promise<ExpressionStatistics[]> {
  const { rows } = (await knex.raw(
    `select e.stxnamespace::regnamespace::text as schema, e.stxname as name,
            c.relnamespace::regnamespace::text as table_schema, c.relname as table_name,
            array(select a.attname from pg_depend d
                    join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
                   where d.classid = 'pg_statistic_ext'::regclass and d.objid = e.oid and d.refobjsubid > 0
                   order by a.attnum)::text[] as columns,
            coalesce(e.stxstattarget = 0, false) as skipped,
            substring(obj_description(e.oid, 'pg_statistic_ext') from ? || ' (\\d+) rows')::int as rows_at_build,
            greatest(coalesce(t.n_live_tup, 0), c.reltuples)::int as n_live_tup
       from pg_statistic_ext e
       join pg_class c on c.oid = e.stxrelid
       left join pg_stat_user_tables t on t.relid = c.oid
      where e.stxexprs is not null`,
    [BUILT_NOTE],
  )) as { rows: ExpressionStatistics[] };
  return rows;
}

/**
 * Builds, now, every expression statistics object the embedded maintenance keeps (those ANALYZE
 * skips), as it would once their tables doubled: for a benchmark that settles its tables before
 * measuring. On a server, where ANALYZE builds them, there are none.
 */
export async function buildExpressionStatistics(knex: Knex): Promise<void> {
  for (const statistics of await expressionStatistics(knex))
    if (statistics.skipped) await rebuildStatistics(knex, statistics);
}

/**
 * Builds one expression statistics object from a sample of 300 x EXPRESSION_STATISTICS_TARGET
 * rows: ANALYZE of the columns its expressions read, with the object counted in for this one
 * transaction. Those columns' own statistics come from the same sample until the next ANALYZE.
 * The table's size goes in the object's comment, for the next doubling.
 */
async function rebuildStatistics(knex: Knex, statistics: ExpressionStatistics): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw(`set local default_statistics_target = ${EXPRESSION_STATISTICS_TARGET}`);
    await trx.raw('alter statistics ??.?? set statistics -1', [statistics.schema, statistics.name]);
    await trx.raw(`analyze ??.?? (${statistics.columns.map(() => '??').join(', ')})`, [
      statistics.table_schema,
      statistics.table_name,
      ...statistics.columns,
    ]);
    await trx.raw('alter statistics ??.?? set statistics 0', [statistics.schema, statistics.name]);
    // A comment is a literal, never a parameter; the count is an integer.
    await trx.raw(`comment on statistics ??.?? is '${BUILT_NOTE} ${Math.round(statistics.n_live_tup)} rows'`, [
      statistics.schema,
      statistics.name,
    ]);
  });
}
