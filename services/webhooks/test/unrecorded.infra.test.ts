/**
 * A worker whose records fall behind stops claiming: at most `maxUnrecorded` attempts wait to be
 * recorded, each still leased, so a database that refuses records for a while does not let a
 * worker send a whole backlog it could not record (and would send again when the leases end).
 * The webhooks service runs in this process on the Postgres server, where a lock on the attempt
 * log holds its records.
 */
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { loadConfig } from '../../../shared/src';
import { startHub } from '../../../cli/src';
import { createServerDatabase, waitFor } from '../../../test/support/hub';
import { DELIVERY_SETTINGS } from '../src/settings';
import type { WebhooksThis } from '../src/types';
import { domainEvent } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

const MAX_UNRECORDED = 2;
const DELIVERIES = 5;

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
let broker: ServiceBroker;
const maxUnrecordedBefore = DELIVERY_SETTINGS.maxUnrecorded;

beforeAll(async () => {
  DELIVERY_SETTINGS.maxUnrecorded = MAX_UNRECORDED;
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const world = worldWithOneSubscription(`${receiver.url}/hooks`, ['costProposal.created']);
  broker = await startHub(
    { ...loadConfig(serverHubEnv(database.url)), services: ['catalog', 'webhooks'] },
    { initialWorld: world },
  );
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: DELIVERIES });
}, 60_000);

afterAll(async () => {
  DELIVERY_SETTINGS.maxUnrecorded = maxUnrecordedBefore;
  await broker?.stop();
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

it('stops claiming while as many attempts as it may hold wait to be recorded, and goes on when they are', async () => {
  const worker = (broker.getLocalService('webhooks') as unknown as WebhooksThis).worker;
  const events = Array.from({ length: DELIVERIES }, (_, index) =>
    domainEvent('costProposal.created', { partnerId: 2 }, { id: index + 1 }),
  );
  const leased = async () =>
    (await sql('webhooks.deliveries').where('lease_until', '>', new Date()).count('* as count'))[0].count;
  const holdRecords = await sql.transaction();
  await holdRecords.raw('lock table webhooks.attempts in share mode');

  await broker.call('webhooks.ingest', { events: events.slice(0, MAX_UNRECORDED) });
  await waitFor(
    () => worker.finished.length + worker.beingRecorded.length === MAX_UNRECORDED,
    'the first attempts made and waiting for their record',
  );
  // The subscription's limit (five) leaves room for the rest; only the unrecorded attempts hold them back.
  await broker.call('webhooks.ingest', { events: events.slice(MAX_UNRECORDED) });
  await waitFor(() => worker.claiming === undefined, 'the claims to stop');
  expect(receiver.received).toHaveLength(MAX_UNRECORDED);
  expect(await leased()).toBe(MAX_UNRECORDED);

  await holdRecords.rollback();
  await waitFor(
    async () => (await sql('webhooks.deliveries').where({ state: 'succeeded' })).length === DELIVERIES,
    'every delivery made once the records go through',
  );
  expect(receiver.received.map((request) => request.headers['webhook-id']).sort()).toEqual(
    events.map((event) => event.id).sort(),
  );
});
