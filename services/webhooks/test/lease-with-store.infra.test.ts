/**
 * A store leases the deliveries it makes to its worker in the insert that makes them
 * (store_and_lease.sql), as far as a claim could take them at that moment: they go out without a claim,
 * the webhooks still wait for the log before the ingest answers, a case's next delivery waits for
 * its earlier one, a worker never holds more than its room, and a worker that dies gives them up
 * when their leases end. The webhooks service runs in this process on the Postgres server.
 */
import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { type DomainEvent, loadConfig } from '../../../shared/src';
import { startHub } from '../../../cli/src';
import { createServerDatabase, waitFor } from '../../../test/support/hub';
import { DELIVERY_SETTINGS } from '../src/settings';
import type { WebhooksThis } from '../src/types';
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
  // No poll wakes the worker from here on, so it is idle once its own work is done.
  clearInterval(service.worker.timer);
}, 60_000);

afterAll(async () => {
  await broker?.stop();
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

const ingest = (events: DomainEvent[]) => broker.call('webhooks.ingest', { events });
const costProposal = (id: number, caseGuid?: string) =>
  domainEvent('costProposal.created', { partnerId: 2 }, { id }, caseGuid);
const ingestOne = (id: number) => ingest([costProposal(id)]);
const arrived = (id: number) => receiver.received.some(({ json }) => json?.id === id);
const positionOf = (id: number) => receiver.received.findIndex(({ json }) => json?.id === id);

/** The webhooks functions the service called, as far as their first words tell them apart. */
const functionsCalled = () =>
  statements.filter((text) => text.startsWith('select webhooks.')).map((text) => text.split('(')[0]);

/** The delivery of the webhook whose payload has `id`. */
const deliveryOf = async (id: number) =>
  (await sql('webhooks.deliveries')
    .whereRaw("payload->>'id' = ?", [String(id)])
    .first()) as {
    state: string;
    lease_until: Date | null;
  };

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

/** Answers every request (to `path` alone, if given) only once `release` is called. */
function holdAnswers(path?: string): () => void {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  receiver.answer = (request) => (path === undefined || request.path === path ? { hold: held } : {});
  return () => {
    receiver.answer = () => ({});
    release();
  };
}

/** A webhook as the store takes it: an event of no case to partner 2's subscription 1, with `fields` over that. */
const webhookToStore = (
  fields: { webhook_id: string; payload: Record<string, unknown> } & Record<string, unknown>,
) => ({
  party_kind: 'partner',
  party_id: 2,
  event_id: randomUUID(),
  event_type: 'costProposal.created',
  case_guid: null,
  occurred_at: new Date().toISOString(),
  subscriptions: [1],
  ...fields,
});

/** Stores and leases `webhooks` for `worker` in a transaction that `check` reads, then rolls back. */
async function storedAndLeased(
  webhooks: Array<ReturnType<typeof webhookToStore>>,
  worker: string,
  check: (answered: Array<Record<string, unknown>>, trx: Knex.Transaction) => Promise<void>,
) {
  const trx = await sql.transaction();
  try {
    const { version } = await trx('webhooks.subscription_changes').first('version');
    const { rows } = await trx.raw(
      `select webhooks.store_and_lease(?::jsonb, 0, ?::bigint, ?::uuid, '[]', 10, 60000, 1) as row`,
      [JSON.stringify(webhooks), version, worker],
    );
    await check(
      (rows as Array<{ row: Record<string, unknown> }>).map(({ row }) => row),
      trx,
    );
  } finally {
    await trx.rollback();
  }
}

it('sends a lone event leased in its store, with no claim before its attempt is recorded', async () => {
  await idleWorker();
  await ingestOne(1);
  await waitFor(() => arrived(1), 'the delivery at the receiver', 10_000);
  await waitFor(async () => (await deliveryOf(1)).state === 'succeeded', 'the attempt recorded', 10_000);
  expect(functionsCalled().slice(0, 2)).toEqual(['select webhooks.store_and_lease', 'select webhooks.record_attempts']);
});

it('commits the webhooks it stores with their leases only once they are in the log', async () => {
  const worker = randomUUID();
  const webhook = webhookToStore({ webhook_id: 'msg_leased_with_its_store', payload: { id: 31 } });
  await storedAndLeased([webhook], worker, async (answered, trx) => {
    expect(answered).toContainEqual({ stored: 1 });
    expect(answered.find((row) => row.webhook_id === webhook.webhook_id)).toMatchObject({
      payload: webhook.payload,
      lease_until: expect.any(String),
      deliveries: [[expect.any(Number), 1]],
    });
    expect(answered).toContainEqual({ subscription: expect.objectContaining({ id: 1 }), cap: 4 });
    expect(await trx('webhooks.held_leases').where({ worker_id: worker })).toMatchObject([
      { subscription_id: 1, leases: 1 },
    ]);
    const { rows: commitMode } = await trx.raw('show synchronous_commit');
    expect(commitMode[0].synchronous_commit).toBe('on');
  });
});

it("answers each party's payload with its own deliveries when one webhook id reaches two parties", async () => {
  // One event reaches a partner and a provider under the same webhook id, each with its own
  // payload; the answer groups deliveries by webhook, and deliveries name no party.
  const event_id = randomUUID();
  const ofParty = (party_kind: string, party_id: number) =>
    webhookToStore({
      party_kind,
      party_id,
      event_id,
      webhook_id: 'msg_to_two_parties',
      payload: { id: 41, seenBy: party_kind },
    });
  await storedAndLeased([ofParty('partner', 2), ofParty('provider', 10)], randomUUID(), async (rows, trx) => {
    const answered = (rows as Array<{ payload?: { seenBy: string }; deliveries?: Array<[number, number]> }>).filter(
      (row) => row.deliveries !== undefined,
    );
    const stored = await trx('webhooks.deliveries').where({ event_id }).select('id', 'payload');
    expect(stored).toHaveLength(2);
    expect(answered).toHaveLength(2);
    for (const { id, payload } of stored)
      expect(answered.find(({ deliveries }) => deliveries![0][0] === Number(id))).toMatchObject({
        payload,
        deliveries: [[Number(id), 1]],
      });
    expect(new Set(answered.map(({ payload }) => payload!.seenBy))).toEqual(new Set(['partner', 'provider']));
  });
});

it("leases a case's first delivery alone, and sends its next once the first is recorded", async () => {
  await idleWorker();
  const release = holdAnswers();
  const caseGuid = randomUUID();
  try {
    await ingest([costProposal(101, caseGuid), costProposal(102, caseGuid)]);
    await waitFor(() => arrived(101), 'the first delivery', 10_000);
    expect((await deliveryOf(101)).lease_until).not.toBeNull();
    expect((await deliveryOf(102)).lease_until).toBeNull();
    // A later store of the same case finds the first still pending.
    await ingest([costProposal(103, caseGuid)]);
    expect((await deliveryOf(103)).lease_until).toBeNull();
    expect(arrived(102)).toBe(false);
  } finally {
    release();
  }
  await waitFor(() => arrived(103), 'the case delivered', 10_000);
  expect([positionOf(101), positionOf(102), positionOf(103)]).toEqual(
    [positionOf(101), positionOf(102), positionOf(103)].sort((a, b) => a - b),
  );
});

it.each([
  ['of a subscription', DELIVERY_SETTINGS.defaultMaxInFlight, 0, 1000],
  ['in all', 16, DELIVERY_SETTINGS.maxHeld, 10_000],
])('leases no more than the worker has room for %s, and claims the rest', async (_, limit, most, firstId) => {
  await idleWorker();
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: limit });
  const room = most || DELIVERY_SETTINGS.storeAhead * limit;
  expect(room).toBeLessThanOrEqual(DELIVERY_SETTINGS.storeAhead * limit);
  const count = room + 10;
  const release = holdAnswers();
  try {
    const events = Array.from({ length: count }, (_, i) => costProposal(firstId + i));
    await expect(ingest(events)).resolves.toEqual({ events: count, deliveries: count });
    await waitFor(() => receiver.open.get('/hooks') === limit, 'the limit in flight');
    expect(await sql('webhooks.deliveries').where('state', 'pending').whereNotNull('lease_until')).toHaveLength(room);
    expect(await sql('webhooks.held_leases').where({ worker_id: service.worker.id })).toMatchObject([
      { subscription_id: 1, leases: room },
    ]);
  } finally {
    release();
  }
  await waitFor(
    () => receiver.received.filter(({ json }) => json?.id >= firstId && json?.id < firstId + count).length === count,
    'every delivery',
    30_000,
  );
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: DELIVERY_SETTINGS.defaultMaxInFlight });
  expect(functionsCalled()[0]).toBe('select webhooks.store_and_lease');
  expect(functionsCalled()).toContain('select webhooks.claim_due');
});

it("claims another subscription's deliveries while one holds every lease its stores may give", async () => {
  await idleWorker();
  const limit = Math.ceil(DELIVERY_SETTINGS.maxHeld / DELIVERY_SETTINGS.storeAhead);
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: limit });
  const first = await sql('webhooks.subscriptions').where({ id: 1 }).first();
  await sql('webhooks.subscriptions').insert({
    ...first,
    id: 2,
    partner_id: 3,
    url: `${receiver.url}/other`,
    event_types: JSON.stringify(first.event_types),
    headers: JSON.stringify(first.headers),
    status_transitions: JSON.stringify(first.status_transitions),
  });
  const release = holdAnswers('/hooks');
  try {
    const events = Array.from({ length: DELIVERY_SETTINGS.maxHeld }, (_, i) => costProposal(20_000 + i));
    await ingest(events);
    await waitFor(() => receiver.open.get('/hooks') === limit, 'the first subscription at its limit');
    statements.length = 0;
    await ingest([domainEvent('costProposal.created', { partnerId: 3 }, { id: 401 })]);
    // The worker holds all that stores may lease it, so this one is stored alone and claimed.
    expect(functionsCalled()[0]).toBe('select webhooks.store_addressed_webhooks');
    await waitFor(() => arrived(401), "the other subscription's delivery, claimed", 10_000);
  } finally {
    release();
    await sql('webhooks.subscriptions').where({ id: 2 }).delete();
    await sql('webhooks.subscriptions')
      .where({ id: 1 })
      .update({ max_in_flight: DELIVERY_SETTINGS.defaultMaxInFlight });
  }
  await waitFor(
    () => receiver.received.filter(({ json }) => json?.id >= 20_000).length === DELIVERY_SETTINGS.maxHeld,
    'every delivery',
    30_000,
  );
});

it('leases nothing to a paused subscription', async () => {
  await idleWorker();
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ state: 'paused' });
  try {
    await ingestOne(201);
    expect(await deliveryOf(201)).toMatchObject({ state: 'pending', lease_until: null });
  } finally {
    await sql('webhooks.subscriptions').where({ id: 1 }).update({ state: 'active' });
  }
  service.worker.pump();
  await waitFor(() => arrived(201), 'the delivery once active', 10_000);
});

it('gives up what a dead worker leased in its store once the leases end, and sends each once', async () => {
  await idleWorker();
  const webhook = webhookToStore({
    webhook_id: 'msg_leased_by_a_dead_worker',
    case_guid: randomUUID(),
    payload: { id: 301 },
  });
  const { version } = await sql('webhooks.subscription_changes').first('version');
  // A worker of another instance stores and leases it for 1.5 s, then dies before sending it.
  await sql.raw(`select webhooks.store_and_lease(?::jsonb, 0, ?::bigint, ?::uuid, '[]', 10, 1500, 8)`, [
    JSON.stringify([webhook]),
    version,
    randomUUID(),
  ]);
  service.worker.pump();
  await waitFor(() => service.worker.claiming === undefined, 'the claim while the lease lasts');
  expect(arrived(301)).toBe(false);
  await waitFor(
    () => {
      service.worker.pump();
      return arrived(301);
    },
    'the delivery once the lease ended',
    10_000,
  );
  await idleWorker();
  expect(receiver.received.filter(({ json }) => json?.id === 301)).toHaveLength(1);
});

it('stores the webhooks alone when the lease beside them fails, and sends them once claims work again', async () => {
  await idleWorker();
  await sql.raw('alter table webhooks.held_leases rename to held_leases_away');
  try {
    await expect(ingestOne(2)).resolves.toEqual({ events: 1, deliveries: 1 });
    expect(await sql('webhooks.feed').whereRaw("payload->>'id' = '2'")).toHaveLength(1);
  } finally {
    await sql.raw('alter table webhooks.held_leases_away rename to held_leases');
  }
  // As the next poll would.
  service.worker.pump();
  await waitFor(() => arrived(2), 'the delivery once claims work', 10_000);
});
