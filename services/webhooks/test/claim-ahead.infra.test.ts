/**
 * A worker claims more of a subscription's deliveries than it may send at once and queues them
 * in its memory (webhooks.store.ts, `claimDue`). Those queued deliveries are a new way to lose or
 * repeat one: this proves that a worker stopping with a queue gives it back at once, so another
 * instance sends each of them exactly once, and that a queued delivery whose lease has run short
 * is not sent; and that the claim checks each candidate's case order with a lookup of its own,
 * which keeps its cost from growing with the backlog. The webhooks service runs in this process
 * on the Postgres server.
 */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { ServiceBroker } from 'moleculer';
import { loadConfig, startHub } from '../../../shared/src';
import { createServerDatabase, waitFor } from '../../../test/support/hub';
import { DELIVERY_SETTINGS } from '../src/settings';
import type { WebhooksThis } from '../src/webhooks.service';
import { domainEvent } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

/** More than a lane takes, so some wait unclaimed in the database too. */
const DELIVERIES = DELIVERY_SETTINGS.claimAhead + 2;

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
const brokers: ServiceBroker[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
}, 60_000);

afterAll(async () => {
  await Promise.all(brokers.map((broker) => broker.stop()));
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

/** A hub of catalog and webhooks on the test's database; the first one loads the subscription. */
async function startInstance(): Promise<ServiceBroker> {
  const world = worldWithOneSubscription(`${receiver.url}/hooks`, ['costProposal.created']);
  const broker = await startHub(
    { ...loadConfig(serverHubEnv(database.url)), services: ['catalog', 'webhooks'] },
    { initialWorld: brokers.length === 0 ? world : undefined },
  );
  brokers.push(broker);
  return broker;
}

const workerOf = (broker: ServiceBroker) => (broker.getLocalService('webhooks') as unknown as WebhooksThis).worker;

const leasedPending = async () =>
  Number(
    (
      await sql('webhooks.deliveries')
        .where({ state: 'pending' })
        .where('lease_until', '>', new Date())
        .count('* as count')
    )[0].count,
  );

it('gives back what it queued when it stops, so another instance sends each delivery once', async () => {
  const first = await startInstance();
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: 1 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  receiver.answer = () => ({ hold: held });
  const events = Array.from({ length: DELIVERIES }, (_, index) =>
    domainEvent('costProposal.created', { partnerId: 2 }, { id: index + 1 }),
  );
  await first.call('webhooks.ingest', { events });

  // One attempt open at the receiver, the rest of the claim waiting in the worker's lane.
  await waitFor(() => receiver.received.length === 1, 'the first attempt at the receiver', 10_000);
  const lane = workerOf(first).lanes.get(1);
  expect(lane?.running).toBe(1);
  expect(lane?.queue.length).toBe(DELIVERY_SETTINGS.claimAhead - 1);

  const stopping = first.stop();
  release();
  await stopping;
  receiver.answer = () => ({});
  // The attempt in flight was recorded and the queue given back: nothing stays leased.
  expect(await leasedPending()).toBe(0);

  await startInstance();
  await waitFor(
    async () =>
      Number((await sql('webhooks.deliveries').where({ state: 'succeeded' }).count('* as count'))[0].count) ===
      DELIVERIES,
    'every delivery made by the second instance',
    20_000,
  );
  const webhookIds = receiver.received.map((request) => request.headers['webhook-id']);
  expect(webhookIds).toHaveLength(DELIVERIES);
  expect(new Set(webhookIds).size).toBe(DELIVERIES);
}, 60_000);

it('does not send a queued delivery whose lease no longer outlasts its attempt and record', async () => {
  const broker = brokers.at(-1)!;
  const service = broker.getLocalService('webhooks') as unknown as WebhooksThis;
  const [row] = await sql('webhooks.deliveries').select('*').limit(1);
  const subscription = await sql('webhooks.subscriptions').where({ id: 1 }).first();
  const leasedFor = (ms: number) => ({
    delivery: { ...row, lease_until: new Date(Date.now() + ms) },
    subscription,
    cap: 1,
  });
  const timeoutMs = loadConfig({}).webhookAttemptTimeoutMs;
  expect(service.attemptable(leasedFor(timeoutMs + DELIVERY_SETTINGS.recordReserveMs + 1_000))).toBe(true);
  expect(service.attemptable(leasedFor(timeoutMs + DELIVERY_SETTINGS.recordReserveMs - 1_000))).toBe(false);

  // Such a delivery queued in a lane is dropped, not sent, and no longer counted as this worker's lease.
  const lane = { queue: [leasedFor(1_000)], running: 0, cap: 1 };
  service.worker.lanes.set(999, lane);
  const before = receiver.received.length;
  service.dispatch(lane);
  expect(lane.running).toBe(0);
  service.dropUnattemptable();
  expect(service.worker.lanes.has(999)).toBe(false);
  expect(service.heldLeases().some((lease) => lease.id === row.id)).toBe(false);
  expect(receiver.received.length).toBe(before);
});

it('checks each candidate for an earlier pending delivery of its case with a lookup of its own', async () => {
  // auto_explain hands this session the plans of the claim function's statements. As an anti join,
  // the check read every pending delivery of the subscription for each claim (issue 15's burst).
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const plans: string[] = [];
  client.on('notice', (notice) => plans.push(notice.message ?? ''));
  try {
    await client.query("load 'auto_explain'");
    await client.query('set auto_explain.log_min_duration = 0');
    await client.query('set auto_explain.log_nested_statements = on');
    await client.query('set client_min_messages = log');
    await client.query('begin');
    await client.query("select webhooks.claim_due('[]'::jsonb, 10, 60000, 8)");
    await client.query('rollback');
  } finally {
    await client.end();
  }
  const claim = plans.find((plan) => plan.includes('Update on deliveries'));
  expect(claim).toMatch(/SubPlan/);
  expect(claim).not.toMatch(/Anti Join/);
});
