/**
 * Two webhooks instances on one database on the Postgres server share each subscription's
 * in-flight limit: when both claim at the same moment, a slow receiver still never has more
 * requests open at once than the limit.
 */
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { loadConfig, type ServiceName } from '../../../shared/src';
import { startHub } from '../../../cli/src';
import { createServerDatabase, INFRA, waitFor } from '../../../test/support/hub';
import { domainEvent } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

const LIMIT = 2;
/** More due deliveries than one claim looks at, so a second claimer finds some of its own. */
const DELIVERIES = 250;
/** The first answers are slow, so the requests of both instances' first claims would overlap. */
const SLOW_ANSWERS = 20;

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
const brokers: ServiceBroker[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const env = serverHubEnv(database.url, {
    TRANSPORTER: INFRA.nats,
    CACHER: INFRA.redis,
    WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms',
  });
  const world = worldWithOneSubscription(`${receiver.url}/slow`, ['costProposal.created']);
  const start = (nodeId: string, services: ServiceName[], initialWorld?: typeof world) =>
    startHub({ ...loadConfig({ ...env, NODE_ID: nodeId }), services }, { initialWorld });
  brokers.push(await start('webhooks-1', ['catalog', 'webhooks'], world));
  brokers.push(await start('webhooks-2', ['webhooks']));
}, 60_000);

afterAll(async () => {
  await Promise.all(brokers.map((broker) => broker.stop()));
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

/** Claims of the webhooks instances waiting for a lock right now. */
async function claimsWaiting(): Promise<number> {
  const { rows } = await sql.raw(
    `select count(*)::int as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'
        and query like '%webhooks.claim_due%'`,
  );
  return rows[0].waiting;
}

it('never has more requests open at a slow receiver than the limit while two instances claim at once', async () => {
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: LIMIT, state: 'paused' });
  // Each its own case, so order does not hold any back: only the limit does.
  const events = Array.from({ length: DELIVERIES }, (_, index) =>
    domainEvent('costProposal.created', { partnerId: 2 }, { id: index + 1 }),
  );
  expect(await brokers[0].call('webhooks.ingest', { events })).toEqual({ events: DELIVERIES, deliveries: DELIVERIES });
  receiver.answer = () => (receiver.received.length <= SLOW_ANSWERS ? { delayMs: 300 } : {});

  // Both instances' claims queue up behind a lock on the subscriptions and go at once when it goes.
  await sql.transaction(async (trx) => {
    await trx('webhooks.subscriptions').where({ id: 1 }).update({ state: 'active' });
    await trx.raw('lock table webhooks.subscriptions in access exclusive mode');
    await waitFor(async () => (await claimsWaiting()) === 2, 'a claim of each instance waiting', 10_000);
  });

  await waitFor(
    async () =>
      Number((await sql('webhooks.deliveries').where({ state: 'succeeded' }).count('* as count'))[0].count) ===
      DELIVERIES,
    'every delivery made',
    60_000,
  );
  expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(DELIVERIES);
  expect(receiver.maxOpen.get('/slow')).toBe(LIMIT);
}, 90_000);
