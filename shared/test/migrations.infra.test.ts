/**
 * Instances of one service starting together on a new Postgres database migrate its schema
 * once, and leave knex's bookkeeping fit for the next start.
 */
import path from 'node:path';
import { loadConfig, migrateSchema, openDatabase, type Database } from '../src';
import { createServerDatabase } from '../../test/support/hub';

const BOOKING_MIGRATIONS = path.resolve(__dirname, '../../services/booking/src/migrations');
const INSTANCES = 4;

let server: { url: string; drop(): Promise<void> };
let instances: Database[];

beforeAll(async () => {
  server = await createServerDatabase();
  const config = loadConfig({ DATABASE_URL: server.url });
  instances = await Promise.all(Array.from({ length: INSTANCES }, () => openDatabase(config)));
});

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
  await server.drop();
});

it('migrates a schema once when several instances start at the same moment', async () => {
  const outcomes = await Promise.allSettled(
    instances.map((instance) => migrateSchema(instance, 'booking', BOOKING_MIGRATIONS)),
  );
  expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);

  const { knex } = instances[0];
  const lockRows = await knex('booking.knex_migrations_lock').select('is_locked');
  expect(lockRows).toEqual([{ is_locked: 0 }]);
  const applied = await knex('booking.knex_migrations').select('name');
  expect(new Set(applied.map((row: { name: string }) => row.name)).size).toBe(applied.length);
  expect(applied.length).toBeGreaterThan(0);

  // The next start finds nothing to do and no lock left behind.
  await expect(migrateSchema(instances[1], 'booking', BOOKING_MIGRATIONS)).resolves.toBeUndefined();
});
