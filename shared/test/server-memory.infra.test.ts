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

/** The backend's page faults a run of `statement` takes, on average over 20 runs after a first. */
async function faultsPerRun(statement: string): Promise<number> {
  const { knex } = database;
  const connection = (await knex.client.acquireConnection()) as pg.Client;
  try {
    const { pid } = (await connection.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0];
    await connection.query(statement);
    const before = minorFaultsOf(pid);
    for (let i = 0; i < 20; i += 1) await connection.query(statement);
    return (minorFaultsOf(pid) - before) / 20;
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

const matchedAgainst = (count: number) =>
  `select 1 where 0 in (${Array.from({ length: count }, (_, i) => i + 1).join(', ')})`;

it('keeps what a statement frees for the next one on a new connection', async () => {
  // Its parse tree is some hundreds of KiB in small blocks, freed when the statement ends: on a
  // backend that gives such memory back, about 140 page faults a statement.
  expect(await faultsPerRun(matchedAgainst(3000))).toBeLessThan(20);
});

it('keeps it for a statement whose memory grows in blocks of several MiB', async () => {
  // About 450 page faults a statement when the first statement's block is 1 MiB: the contexts'
  // 2 and 4 MiB blocks then go back to the system and are faulted in again each time.
  expect(await faultsPerRun(matchedAgainst(20000))).toBeLessThan(20);
});
