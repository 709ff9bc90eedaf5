/**
 * Two-flight transactions on the Postgres server, whose connections pipeline: each flight leaves
 * in one packet. That rests on pg's client exposing its socket as `connection.stream`, which the
 * last test pins.
 */
import type { Socket } from 'node:net';
import type pg from 'pg';
import { loadConfig, openDatabase, transactionInTwoFlights } from '../src';
import { createServerDatabase } from '../../test/support/hub';
import { twoFlightsSuite } from './two-flights.suite';

let server: { url: string; drop(): Promise<void> };
const database = twoFlightsSuite(async () => {
  server = await createServerDatabase();
  return openDatabase(loadConfig({ DATABASE_URL: server.url, DATABASE_POOL_SIZE: '1' }));
});
afterAll(() => server?.drop());

it('sends BEGIN with the first statements and COMMIT with the last, each flight in one packet', async () => {
  const { knex } = database();
  const connection = (await knex.client.acquireConnection()) as pg.Client;
  const socket = (connection as unknown as { connection: { stream: Socket } }).connection.stream;
  await knex.client.releaseConnection(connection);
  const packets: number[] = [];
  const { _write: write, _writev: writev } = socket as unknown as Record<string, (...args: unknown[]) => unknown>;
  Object.assign(socket, {
    _write(this: Socket, ...args: unknown[]) {
      packets.push(1);
      return write.apply(this, args);
    },
    _writev(this: Socket, chunks: unknown[], ...rest: unknown[]) {
      packets.push(chunks.length);
      return writev!.apply(this, [chunks, ...rest]);
    },
  });
  try {
    await transactionInTwoFlights(knex, [knex.raw('select 1'), knex.raw('select 2')], () => ({
      statements: [knex.raw('select 3')],
      result: null,
    }));
  } finally {
    Object.assign(socket, { _write: write, _writev: writev });
  }
  expect(connection.pipeline).toBe(true);
  // Two packets, each holding its flight's messages (a statement is several protocol messages).
  expect(packets).toHaveLength(2);
  expect(packets).toEqual([expect.any(Number), expect.any(Number)]);
});
