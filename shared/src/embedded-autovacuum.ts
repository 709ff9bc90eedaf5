/**
 * PGlite runs no autovacuum, so on the embedded database nothing analyzed a growing table: its
 * plans stayed those of an empty one (in a soak, searches slowed from the ninth second on and the
 * one session queued every other request behind them, up to 560 ms), and nothing merged GIN
 * pending lists or reclaimed dead rows. This does what autovacuum does on a server, at its default
 * thresholds, on a timer in the process that holds the database. The retention job still vacuums
 * what it shrank at once (retention.ts); this catches everything else.
 */
import type { Knex } from 'knex';
import { PG_ERRORS } from './db';

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
 * Every `intervalMs`, vacuums or analyzes the tables that need it, one at a time; a pass that
 * fails is reported to `onError` and the next one tries again. Returns the stop function, which
 * waits for a pass under way.
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
      const statement = work === 'vacuum' ? 'vacuum (analyze) ??.??' : work === 'analyze' ? 'analyze ??.??' : undefined;
      if (!statement) continue;
      await knex.raw(statement, [table.schemaname, table.relname]).catch((err: Error & { code?: string }) => {
        // Dropped since the list was read (an expired partition): nothing left to maintain.
        if (err.code !== PG_ERRORS.UNDEFINED_TABLE) throw err;
      });
    }
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
