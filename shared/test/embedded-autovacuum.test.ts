/**
 * The embedded database analyzes and vacuums its tables as autovacuum would on a server: a table
 * that grew is analyzed (so its plans are a full table's), one full of dead rows is vacuumed, and
 * a table that barely changed is left alone.
 */
import { type Database, loadConfig, openDatabase } from '../src';
import { maintenanceOf, type TableActivity } from '../src/embedded-autovacuum';
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
  });
  afterAll(() => database?.close());

  it('analyzes a table that grew, and leaves alone one that did not', async () => {
    await database.knex('probe.rows').insert(Array.from({ length: 500 }, (_, i) => ({ label: `row ${i}` })));
    await database.knex('probe.quiet').insert({});
    await waitFor(async () => (await analyzeCount()) > 0, 'the grown table to be analyzed', 20_000);
    const stats = await database.knex.raw(
      "select relname, reltuples::int from pg_class where relnamespace = 'probe'::regnamespace and relkind = 'r' order by relname",
    );
    // The planner now knows the grown table's size; the quiet one was never analyzed.
    expect(stats.rows).toEqual([
      { relname: 'quiet', reltuples: -1 },
      { relname: 'rows', reltuples: 500 },
    ]);
  });
});
