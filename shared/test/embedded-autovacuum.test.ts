/**
 * The embedded database analyzes and vacuums its tables as autovacuum would on a server: a table
 * that grew is analyzed (so its plans are a full table's), one full of dead rows is vacuumed, and
 * a table that barely changed is left alone. Statistics on expressions are built apart, when
 * their table has doubled.
 */
import { type Database, loadConfig, openDatabase } from '../src';
import {
  buildExpressionStatistics,
  maintenanceOf,
  rebuildsStatistics,
  type TableActivity,
} from '../src/embedded-autovacuum';
import { waitFor } from '../../test/support/hub';

const table = (activity: Partial<TableActivity>): TableActivity => ({
  schemaname: 'probe',
  relname: 'rows',
  n_live_tup: 1000,
  n_dead_tup: 0,
  n_mod_since_analyze: 0,
  n_ins_since_vacuum: 0,
  ...activity,
});

describe('what autovacuum would do', () => {
  it('analyzes a table once 50 rows and a tenth of it changed', () => {
    expect(maintenanceOf(table({ n_mod_since_analyze: 150 }))).toBeUndefined();
    expect(maintenanceOf(table({ n_mod_since_analyze: 151 }))).toBe('analyze');
    expect(maintenanceOf(table({ n_live_tup: 0, n_mod_since_analyze: 51 }))).toBe('analyze');
  });

  it('vacuums a table once 50 rows and a fifth of it are dead, or 1,000 and a fifth were inserted', () => {
    expect(maintenanceOf(table({ n_dead_tup: 250 }))).toBeUndefined();
    expect(maintenanceOf(table({ n_dead_tup: 251 }))).toBe('vacuum');
    expect(maintenanceOf(table({ n_ins_since_vacuum: 1200 }))).toBeUndefined();
    expect(maintenanceOf(table({ n_ins_since_vacuum: 1201, n_mod_since_analyze: 1201 }))).toBe('vacuum');
  });
});

describe('when statistics on expressions are rebuilt', () => {
  it('builds them once the table has rows, then each time it has doubled since', () => {
    expect(rebuildsStatistics({ rows_at_build: null, n_live_tup: 50 })).toBe(false);
    expect(rebuildsStatistics({ rows_at_build: null, n_live_tup: 51 })).toBe(true);
    expect(rebuildsStatistics({ rows_at_build: 200, n_live_tup: 450 })).toBe(false);
    expect(rebuildsStatistics({ rows_at_build: 200, n_live_tup: 451 })).toBe(true);
  });
});

describe('on the embedded database', () => {
  let database: Database;
  const analyzeCount = async () =>
    (
      await database.knex.raw(
        "select analyze_count::int as count from pg_stat_user_tables where schemaname = 'probe' and relname = 'rows'",
      )
    ).rows[0]?.count ?? 0;

  beforeAll(async () => {
    database = await openDatabase(loadConfig({}), {});
    await database.knex.raw('create schema probe');
    await database.knex.raw('create table probe.rows (id serial primary key, label text)');
    await database.knex.raw('create table probe.quiet (id serial primary key)');
    await database.knex.raw('create extension if not exists pg_trgm');
    await database.knex.raw('create table probe.texts (id serial primary key, body text)');
    await database.knex.raw('create statistics probe.texts_trigrams on (show_trgm(body)) from probe.texts');
  });
  afterAll(() => database?.close());

  it('analyzes a table that grew, and leaves alone one that did not', async () => {
    await database.knex('probe.rows').insert(Array.from({ length: 500 }, (_, i) => ({ label: `row ${i}` })));
    await database.knex('probe.quiet').insert({});
    await waitFor(async () => (await analyzeCount()) > 0, 'the grown table to be analyzed', 20_000);
    const stats = await database.knex.raw(
      "select relname, reltuples::int from pg_class where relnamespace = 'probe'::regnamespace and relname in ('quiet', 'rows') order by relname",
    );
    // The planner now knows the grown table's size; the quiet one was never analyzed.
    expect(stats.rows).toEqual([
      { relname: 'quiet', reltuples: -1 },
      { relname: 'rows', reltuples: 500 },
    ]);
  });

  it('builds trigram statistics apart from ANALYZE, again once their table doubled', async () => {
    const texts = (word: string, count: number) =>
      database.knex('probe.texts').insert(Array.from({ length: count }, (_, i) => ({ body: `${word} ${i}` })));
    const held = async (trigram: string): Promise<boolean | undefined> =>
      (
        await database.knex.raw(
          `select ? = any(most_common_elems::text::text[]) as held from pg_stats_ext_exprs
            where statistics_schemaname = 'probe' and statistics_name = 'texts_trigrams'`,
          [trigram],
        )
      ).rows[0]?.held;
    const state = async () =>
      (
        await database.knex.raw(
          `select e.stxstattarget as target, t.analyze_count::int as analyzed, t.n_live_tup::int as live,
                  obj_description(e.oid, 'pg_statistic_ext') as note
             from pg_statistic_ext e join pg_stat_user_tables t on t.relid = e.stxrelid
            where e.stxname = 'texts_trigrams'`,
        )
      ).rows[0] as { target: number | null; analyzed: number; live: number; note: string | null };

    await texts('alpha', 200);
    await waitFor(async () => (await held('alp')) === true, 'the trigram statistics to be built', 20_000);
    // ANALYZE skips them from then on: rebuilding them costs a sample's expressions each time.
    expect((await state()).target).toBe(0);

    const { analyzed } = await state();
    await texts('omega', 100);
    await waitFor(async () => (await state()).analyzed > analyzed, 'the grown table to be analyzed', 20_000);
    expect(await held('ome')).toBe(false);

    await texts('omega', 400);
    await waitFor(async () => (await held('ome')) === true, 'the doubled table to rebuild them', 20_000);
    expect(await held('alp')).toBe(true);
    expect((await state()).target).toBe(0);
    // The size at the build is kept with the object, for the next doubling after a restart too.
    expect((await state()).note).toMatch(/ 700 rows$/);

    // A benchmark settling its tables builds them at once, whatever the growth.
    await texts('sigma', 100);
    // The table's size as its activity counters say it, which the session reports within a second.
    await waitFor(async () => (await state()).live === 800, 'the counters to count the new rows', 5_000);
    await buildExpressionStatistics(database.knex);
    expect(await held('sig')).toBe(true);
    expect((await state()).note).toMatch(/ 800 rows$/);
  }, 60_000);
});
