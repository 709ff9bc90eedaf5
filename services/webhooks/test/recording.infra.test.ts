/**
 * A worker records its attempts after it has moved on to the next ones, so a worker can die
 * between an attempt that reached the receiver and its record. Here the webhooks service runs in
 * a process of its own on the Postgres server; its records are held up by a lock on the attempt
 * log while the receiver gets every delivery, and the process is killed with SIGKILL before any
 * is recorded. A new process sends each delivery again, with the same webhook-id, once its lease
 * runs out, and records it once.
 */
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { loadConfig } from '../../../shared/src';
import { startHub } from '../../../cli/src';
import { createServerDatabase, INFRA, waitFor } from '../../../test/support/hub';
import { spawnHub, type HubProcess } from '../../../test/support/processes';
import { domainEvent } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

const DELIVERIES = 3;

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
let catalog: ServiceBroker;
let webhooks: HubProcess;
let env: Record<string, string>;

const startWebhooks = () =>
  spawnHub(['start'], { ...env, SERVICES: 'webhooks', NODE_ID: `webhooks-${randomBytes(3).toString('hex')}` });

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 3 } });
  env = serverHubEnv(database.url, {
    TRANSPORTER: INFRA.nats,
    CACHER: INFRA.redis,
    // The lease is two attempt timeouts and a fixed margin of 15 s (claimLeaseMs): the wait before a resend.
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000',
  });
  webhooks = startWebhooks();
  catalog = await startHub({ ...loadConfig({ ...env, NODE_ID: 'catalog-1' }), services: ['catalog'] });
  await catalog.waitForServices(['webhooks'], 60_000);
  const world = worldWithOneSubscription(`${receiver.url}/hooks`, ['costProposal.created']);
  await catalog.call('catalog.loadWorld', { world, skipUnowned: true });
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: 1 });
}, 90_000);

afterAll(async () => {
  await webhooks?.stop();
  await catalog?.stop();
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

/** Statements of the webhooks process waiting for a lock on the attempt log. */
async function recordsWaiting(): Promise<number[]> {
  const { rows } = await sql.raw(
    `select pid from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%webhooks.record_attempts%'`,
  );
  return rows.map((row: { pid: number }) => row.pid);
}

it('sends again, under the same webhook-id, what a killed worker sent but never recorded, and records it once', async () => {
  const events = Array.from({ length: DELIVERIES }, (_, index) =>
    domainEvent('costProposal.created', { partnerId: 2 }, { id: index + 1 }),
  );
  const holdRecords = await sql.transaction();
  await holdRecords.raw('lock table webhooks.attempts in share mode');
  expect(await catalog.call('webhooks.ingest', { events })).toEqual({ events: DELIVERIES, deliveries: DELIVERIES });

  // A finished attempt gives up its place before it is recorded: all go out one at a time
  // while not one is recorded.
  await waitFor(() => receiver.received.length === DELIVERIES, 'every delivery sent before any is recorded', 30_000);
  expect(receiver.maxOpen.get('/hooks')).toBe(1);
  await waitFor(async () => (await recordsWaiting()).length > 0, 'the record waiting for the attempt log');

  expect(await webhooks.stop('SIGKILL')).toBeNull();
  // The statement the dead worker left waiting would still run once the lock goes; a worker
  // killed a moment earlier would not have sent it at all, which is the case tried here.
  for (const pid of await recordsWaiting()) await sql.raw('select pg_terminate_backend(?)', [pid]);
  await holdRecords.rollback();
  const unrecorded = await sql('webhooks.deliveries').select('state', 'attempts', 'lease_until');
  expect(unrecorded).toHaveLength(DELIVERIES);
  for (const delivery of unrecorded) {
    expect(delivery).toMatchObject({ state: 'pending', attempts: 0 });
    expect(delivery.lease_until.getTime()).toBeGreaterThan(Date.now());
  }
  expect(await sql('webhooks.attempts').count('* as count')).toEqual([{ count: 0 }]);

  webhooks = startWebhooks();
  await waitFor(
    async () => (await sql('webhooks.deliveries').where({ state: 'succeeded', attempts: 1 })).length === DELIVERIES,
    'every delivery sent again and recorded',
    60_000,
  );
  const ids = receiver.received.map((request) => request.headers['webhook-id']);
  expect(ids).toHaveLength(2 * DELIVERIES);
  for (const event of events) expect(ids.filter((id) => id === event.id)).toHaveLength(2);
  expect(await sql('webhooks.attempts').count('* as count')).toEqual([{ count: DELIVERIES }]);
  expect(receiver.maxOpen.get('/hooks')).toBe(1);
}, 120_000);
