/**
 * A pooled connection's server process keeps the memory one statement frees for the next, rather
 * than giving it back to the system and faulting it in again page by page (openPostgres's first
 * statement on a connection). Counted as the minor page faults of the connection's own backend,
 * read from /proc: the infrastructure's Postgres runs on this machine.
 */
import fs from 'node:fs';
import type pg from 'pg';
import { loadConfig, openDatabase, type Database } from '../src';
import { createServerDatabase } from '../../test/support/hub';

let server: { url: string; drop(): Promise<void> };
let database: Database;

beforeAll(async () => {
  server = await createServerDatabase();
  database = await openDatabase(loadConfig({ DATABASE_URL: server.url, DATABASE_POOL_SIZE: '1' }));
});
afterAll(async () => {
  await database?.close();
  await server?.drop();
});

function minorFaultsOf(pid: number): number {
  // The fields after the command's closing parenthesis; minflt is the tenth field of the line.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[7]);
}

it('keeps what a statement frees for the next one on a new connection', async () => {
  const { knex } = database;
  const connection = (await knex.client.acquireConnection()) as pg.Client;
  try {
    const { pid } = (await connection.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0];
    // Its parse tree is some hundreds of KiB in small blocks, freed when the statement ends: on a
    // backend that gives such memory back, about 140 page faults a statement.
    const statement = `select 1 where 0 in (${Array.from({ length: 3000 }, (_, i) => i + 1).join(', ')})`;
    await connection.query(statement);
    const before = minorFaultsOf(pid);
    for (let i = 0; i < 20; i += 1) await connection.query(statement);
    expect((minorFaultsOf(pid) - before) / 20).toBeLessThan(20);
  } finally {
    await knex.client.releaseConnection(connection);
  }
});
