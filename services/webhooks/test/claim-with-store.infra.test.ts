/**
 * An ingest of at most one claim's deliveries reaching an idle worker claims in its store's
 * statement (migration 20261209100000): its deliveries go out without a claim of their own, the
 * webhooks it stores still wait for the log before the ingest answers, and a claim that fails
 * never takes the store down with it. A larger store, or one reaching a worker with deliveries to
 * send, is stored alone, so the worker's claims do not wait for it. The webhooks service runs in
 * this process on the Postgres server.
 */
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { type DomainEvent, loadConfig, startHub } from '../../../shared/src';
import { createServerDatabase, waitFor } from '../../../test/support/hub';
import { DELIVERY_SETTINGS } from '../src/settings';
import type { WebhooksThis } from '../src/webhooks.service';
import { domainEvent } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
let broker: ServiceBroker;
let service: WebhooksThis;
/** The statements the webhooks service sent, by their first words. */
const statements: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  broker = await startHub(
    { ...loadConfig(serverHubEnv(database.url)), services: ['catalog', 'webhooks'] },
    { initialWorld: worldWithOneSubscription(`${receiver.url}/hooks`, ['costProposal.created']) },
  );
  service = broker.getLocalService('webhooks') as unknown as WebhooksThis;
  service.db.knex.on('query', ({ sql: text }: { sql: string }) => statements.push(text.slice(0, 40)));
}, 60_000);

afterAll(async () => {
  await broker?.stop();
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

const ingest = (events: DomainEvent[]) => broker.call('webhooks.ingest', { events });
const costProposal = (id: number) => domainEvent('costProposal.created', { partnerId: 2 }, { id });
const ingestOne = (id: number) => ingest([costProposal(id)]);

/** The webhooks functions the service called, as far as their first words tell them apart. */
const functionsCalled = () =>
  statements.filter((text) => text.startsWith('select webhooks.')).map((text) => text.split('(')[0]);

/**
 * Waits until the worker has nothing to send, record or claim, then forgets the statements so far.
 * A record that ends wakes a claim, so the worker is idle only once its records are done too.
 */
async function idleWorker() {
  const { worker } = service;
  await waitFor(
    () =>
      !worker.claiming &&
      !worker.recording &&
      worker.finished.length === 0 &&
      worker.inFlight.size === 0 &&
      worker.lanes.size === 0,
    'the worker idle',
    10_000,
  );
  statements.length = 0;
}

it('sends a lone event claimed with its store, and claims again only once its attempt is recorded', async () => {
  // No poll wakes the worker from here on, so it is idle once the world's claims are done.
  clearInterval(service.worker.timer);
  await waitFor(() => service.worker.claiming === undefined, 'the worker idle', 5_000);
  statements.length = 0;
  await ingestOne(1);
  await waitFor(() => receiver.received.length === 1, 'the delivery at the receiver', 10_000);
  expect(receiver.received[0].json).toMatchObject({ id: 1 });
  await waitFor(
    async () => (await sql('webhooks.deliveries').where({ state: 'succeeded' })).length === 1,
    'the attempt recorded',
    10_000,
  );
  await waitFor(() => service.worker.claiming === undefined, 'the worker idle again', 5_000);
  // The attempt ending wakes no claim: its case's next delivery is due only once it is recorded.
  expect(statements.filter((text) => text.startsWith('select webhooks.'))).toEqual([
    'select webhooks.store_and_claim($1::json',
    'select webhooks.record_attempts($1::uuid',
    'select webhooks.claim_due($1::uuid, $2::',
  ]);
});

it('commits the webhooks it stores beside a claim only once they are in the log', async () => {
  const webhook = {
    party_kind: 'partner',
    party_id: 2,
    event_id: '00000000-0000-4000-8000-000000000031',
    webhook_id: 'msg_claimed_with_its_store',
    event_type: 'costProposal.created',
    case_guid: null,
    payload: { id: 31 },
    occurred_at: new Date().toISOString(),
    subscriptions: [1],
  };
  const trx = await sql.transaction();
  try {
    const { version } = await trx('webhooks.subscription_changes').first('version');
    const { rows } = await trx.raw(
      `select webhooks.store_and_claim(?::jsonb, 0, ?::bigint, '00000000-0000-4000-8000-000000000032', '[]', 10, 60000, 1) as row`,
      [JSON.stringify([webhook]), version],
    );
    const [stored, ...claimed] = (rows as Array<{ row: { stored?: number; webhook_id?: string } }>).map(
      ({ row }) => row,
    );
    expect(stored).toEqual({ stored: 1 });
    expect(claimed.map((row) => row.webhook_id)).toContain(webhook.webhook_id);
    // The claim's own commits need not wait for the log; the store's do.
    const { rows: commitMode } = await trx.raw('show synchronous_commit');
    expect(commitMode[0].synchronous_commit).toBe('on');
  } finally {
    await trx.rollback();
  }
});

it('stores the webhooks alone when the claim beside them fails, and sends them once claims work again', async () => {
  await sql.raw('alter table webhooks.held_leases rename to held_leases_away');
  try {
    await expect(ingestOne(2)).resolves.toEqual({ events: 1, deliveries: 1 });
    expect(await sql('webhooks.feed').whereRaw("payload->>'id' = '2'")).toHaveLength(1);
  } finally {
    await sql.raw('alter table webhooks.held_leases_away rename to held_leases');
  }
  // As the next poll would.
  service.pump();
  await waitFor(() => receiver.received.some(({ json }) => json?.id === 2), 'the delivery once claims work', 10_000);
});

it('stores more than one claim takes alone, then claims them', async () => {
  await idleWorker();
  const count = DELIVERY_SETTINGS.claimBatch + 1;
  const events = Array.from({ length: count }, (_, i) => costProposal(1000 + i));
  await expect(ingest(events)).resolves.toEqual({ events: count, deliveries: count });
  await waitFor(
    () => receiver.received.filter(({ json }) => (json?.id as number) >= 1000).length === count,
    'every delivery',
    20_000,
  );
  expect(functionsCalled().slice(0, 2)).toEqual([
    'select webhooks.store_addressed_webhooks',
    'select webhooks.claim_due',
  ]);
});

it('stores alone while the worker has a delivery in flight, and sends both', async () => {
  await idleWorker();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  receiver.answer = ({ json }) => (json?.id === 2001 ? { hold: held } : {});
  try {
    await ingestOne(2001);
    await waitFor(() => receiver.received.some(({ json }) => json?.id === 2001), 'the held attempt', 10_000);
    await ingestOne(2002);
    await waitFor(() => receiver.received.some(({ json }) => json?.id === 2002), 'the second delivery', 10_000);
    expect(functionsCalled().slice(0, 2)).toEqual([
      'select webhooks.store_and_claim',
      'select webhooks.store_addressed_webhooks',
    ]);
  } finally {
    release();
    receiver.answer = () => ({});
  }
});
