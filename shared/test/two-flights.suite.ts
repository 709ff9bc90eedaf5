/**
 * A write sent as one transaction in two flights (transactionInTwoFlights): what it keeps when it
 * succeeds and when any part of it fails, on the database each test file opens.
 */
import type { Knex } from 'knex';
import { type Database, PG_ERRORS, prepared, transactionInTwoFlights } from '../src';

const NOTES = 'flights.notes';

export function twoFlightsSuite(open: () => Promise<Database>): () => Database {
  let database: Database;
  beforeAll(async () => {
    database = await open();
    await database.knex.raw('create schema if not exists flights');
    await database.knex.raw(`create table if not exists ${NOTES} (id serial primary key, label text unique not null)`);
  });
  afterAll(() => database?.close());
  beforeEach(() => database.knex(NOTES).delete());

  const labels = async () => (await database.knex(NOTES).orderBy('id').pluck('label')) as string[];
  const insert = (knex: Knex, label: string) => knex(NOTES).insert({ label }).returning('id');

  it('keeps the statements of both flights, the second built from what the first answered', async () => {
    const { knex } = database;
    const answer = await transactionInTwoFlights(knex, [insert(knex, 'first'), insert(knex, 'second')], (answers) => {
      const [first, second] = answers.map((result) => result.rows[0].id as number);
      return { statements: [insert(knex, `after ${first} and ${second}`)], result: { first, second } };
    });
    expect(answer.second).toBe(answer.first + 1);
    expect(await labels()).toEqual(['first', 'second', `after ${answer.first} and ${answer.second}`]);
  });

  it('keeps nothing when a statement of the second flight fails, and throws its error', async () => {
    const { knex } = database;
    await knex(NOTES).insert({ label: 'taken' });
    const write = transactionInTwoFlights(knex, [insert(knex, 'opening')], () => ({
      statements: [insert(knex, 'closing'), insert(knex, 'taken'), insert(knex, 'after the failure')],
      result: null,
    }));
    await expect(write).rejects.toMatchObject({ code: PG_ERRORS.UNIQUE_VIOLATION });
    expect(await labels()).toEqual(['taken']);
  });

  it('keeps nothing when the second flight cannot be built', async () => {
    const { knex } = database;
    const write = transactionInTwoFlights(knex, [insert(knex, 'opening')], () => {
      throw new Error('refused after the opening flight');
    });
    await expect(write).rejects.toThrow('refused after the opening flight');
    expect(await labels()).toEqual([]);
  });

  it('keeps nothing when a statement of the first flight fails, and leaves its connection usable', async () => {
    const { knex } = database;
    await knex(NOTES).insert({ label: 'taken' });
    const close = jest.fn(() => ({ statements: [], result: null }));
    const write = transactionInTwoFlights(knex, [insert(knex, 'opening'), insert(knex, 'taken')], close);
    await expect(write).rejects.toMatchObject({ code: PG_ERRORS.UNIQUE_VIOLATION });
    expect(close).not.toHaveBeenCalled();
    expect(await labels()).toEqual(['taken']);
    // The pool's one connection came back outside any transaction: a write on it outlives a rollback.
    await knex(NOTES).insert({ label: 'later' });
    await knex.raw('rollback');
    expect(await labels()).toEqual(['taken', 'later']);
  });

  it('prepares a marked statement once on its connection and runs it again by name', async () => {
    const { knex } = database;
    const write = (label: string) =>
      transactionInTwoFlights(knex, [prepared(insert(knex, label))], () => ({
        statements: [prepared(insert(knex, `${label}, closing`))],
        result: null,
      }));
    await write('first');
    await write('second');
    expect(await labels()).toEqual(['first', 'first, closing', 'second', 'second, closing']);
    // The pool's one connection holds the statement once, however often it ran.
    const kept = await knex.raw(
      "select statement from pg_prepared_statements where name like 'flight\\_%' and statement like 'insert into %notes%'",
    );
    expect(kept.rows).toHaveLength(1);
  });

  return () => database;
}
