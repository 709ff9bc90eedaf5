/**
 * The outbox on a real embedded database: an event is written with its change, relayed to the
 * sink only after commit, never written by a rolled-back change, and kept until the sink
 * acknowledges it; a relay backing off from a missing sink tries again as soon as the sink joins.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Context, ServiceBroker, ServiceSchema } from 'moleculer';
import {
  createHubBroker,
  DbMixin,
  type DbService,
  type DomainEvent,
  type OutboxDbService,
  inTransaction,
  loadConfig,
  OUTBOX_SETTINGS,
  OutboxMixin,
  pendingEventCount,
  writeEvent,
} from '../src';
import { waitFor } from '../../test/support/hub';

const received: DomainEvent[] = [];
let sinkFails = false;
/** How long the sink takes to answer a call, at most (each call between half of it and all of it). */
let sinkDelayMs = 0;
const sinkCalls = { open: 0, maxOpen: 0, sizes: [] as number[] };

let broker: ServiceBroker;

const SINK: ServiceSchema = {
  name: 'webhooks',
  actions: {
    async ingest(ctx: Context<{ events: DomainEvent[] }>) {
      if (sinkFails) throw new Error('sink down');
      sinkCalls.open += 1;
      sinkCalls.maxOpen = Math.max(sinkCalls.maxOpen, sinkCalls.open);
      sinkCalls.sizes.push(ctx.params.events.length);
      await new Promise((resolve) => setTimeout(resolve, ((1 + Math.random()) / 2) * sinkDelayMs));
      sinkCalls.open -= 1;
      received.push(...ctx.params.events);
      return { stored: ctx.params.events.length };
    },
  },
};

beforeAll(async () => {
  OUTBOX_SETTINGS.maxBackoffMs = 500;
  broker = createHubBroker(loadConfig({ LOG_LEVEL: 'fatal' }), {}, { logger: false });
  broker.createService({
    name: 'probe',
    mixins: [DbMixin('probe', path.join(__dirname, 'outbox-probe', 'migrations')), OutboxMixin('probe')],
    actions: {
      async write(this: OutboxDbService, ctx: Context<{ text: string; fail?: boolean }>) {
        await inTransaction(this.db.knex, async (trx) => {
          await trx('probe.notes').insert({ text: ctx.params.text });
          await writeEvent(trx, 'probe', {
            type: 'note.written',
            caseGuid: null,
            audience: { partnerId: 1 },
            payload: { text: ctx.params.text },
          });
          if (ctx.params.fail) throw new Error('rolled back');
        });
        this.relayOutbox();
      },
    },
  });
  broker.createService(SINK);
  await broker.start();
});
afterAll(() => broker.stop());

function relayState() {
  return (
    broker.getLocalService('probe') as unknown as {
      outboxRelay: { failures: number; nextAttemptAt: number; running?: Promise<void> };
    }
  ).outboxRelay;
}

function pending() {
  return pendingEventCount((broker.getLocalService('probe') as unknown as DbService).db.knex, 'probe');
}

it('relays a committed event with its id, type, audience and payload', async () => {
  await broker.call('probe.write', { text: 'first' });
  await waitFor(() => received.length === 1, 'the event at the sink');
  expect(received[0]).toMatchObject({
    type: 'note.written',
    source: 'probe',
    audience: { partnerId: 1 },
    payload: { text: 'first' },
    caseGuid: null,
  });
  expect(received[0].id).toMatch(/^[0-9a-f-]{36}$/);
  await waitFor(async () => (await pending()) === 0, 'the event marked published');
});

it('writes no event when the change rolls back', async () => {
  await expect(broker.call('probe.write', { text: 'never', fail: true })).rejects.toThrow('rolled back');
  expect(await pending()).toBe(0);
});

it('keeps events while the sink fails and delivers them, in order, once it answers', async () => {
  received.length = 0;
  sinkFails = true;
  await broker.call('probe.write', { text: 'a' });
  await broker.call('probe.write', { text: 'b' });
  await waitFor(async () => (await pending()) === 2, 'two pending events');
  expect(received).toHaveLength(0);
  sinkFails = false;
  await waitFor(() => received.length === 2, 'both events after recovery');
  expect(received.map((event) => event.payload.text)).toEqual(['a', 'b']);
  expect(await pending()).toBe(0);
});

it('leaves a backing-off relay alone when writes nudge it', async () => {
  received.length = 0;
  await broker.destroyService(broker.getLocalService('webhooks'));
  OUTBOX_SETTINGS.maxBackoffMs = 600_000;
  const relay = relayState();
  // Failed often enough that the next failure backs off for half a minute, longer than this test.
  relay.failures = 6;
  await broker.call('probe.write', { text: 'first while away' });
  await waitFor(() => relay.failures === 7, 'the failed attempt');
  for (let written = 0; written < 5; written += 1) {
    await broker.call('probe.write', { text: `while away ${written}` });
    // Each write after the attempt under way (which takes in the writes made meanwhile) has ended.
    await waitFor(() => relay.running === undefined, 'no attempt under way');
  }
  await waitFor(async () => (await pending()) === 6, 'the events kept');
  expect(relay.failures).toBe(7);
});

it('relays at once when the missing sink joins, not after its backoff', async () => {
  const relay = relayState();
  // The failure count a long outage leaves: its backoff runs for minutes.
  relay.failures = 10;
  relay.nextAttemptAt = Date.now() + 600_000;
  const kept = await pending();
  broker.createService(SINK);
  await waitFor(() => received.length === kept, 'every kept event at the joined sink');
  expect(await pending()).toBe(0);
  OUTBOX_SETTINGS.maxBackoffMs = 500;
});

it("keeps several batches under way and still hands each case's events on once, in order", async () => {
  received.length = 0;
  // Longer than a claim takes on a loaded machine, so the next batch is claimed while one is still open.
  sinkDelayMs = 200;
  // More cases than a batch holds, so that batches of other cases can go while one is under way.
  const cases = Array.from({ length: 3 * OUTBOX_SETTINGS.batchSize }, () => randomUUID());
  const perCase = 4;
  const { knex } = (broker.getLocalService('probe') as unknown as DbService).db;
  await inTransaction(knex, async (trx) => {
    for (let round = 0; round < perCase; round++)
      for (const [index, caseGuid] of cases.entries())
        await writeEvent(trx, 'probe', {
          type: 'note.written',
          caseGuid,
          audience: { partnerId: 1 },
          payload: { text: `${index}:${round}` },
        });
  });
  (broker.getLocalService('probe') as unknown as OutboxDbService).relayOutbox();
  await waitFor(() => received.length === cases.length * perCase, 'every event at the sink', 30_000);
  sinkDelayMs = 0;

  expect(new Set(received.map((event) => event.id)).size).toBe(cases.length * perCase);
  cases.forEach((caseGuid, index) => {
    const rounds = received
      .filter((event) => event.caseGuid === caseGuid)
      .map((event) => Number(String(event.payload.text).split(':')[1]));
    expect(rounds).toEqual(Array.from({ length: perCase }, (_, round) => round));
    expect(received.find((event) => event.caseGuid === caseGuid)?.payload.text).toBe(`${index}:0`);
  });
  // Batches went to the sink side by side, never more at once than a relay may have.
  expect(sinkCalls.maxOpen).toBeGreaterThan(1);
  expect(sinkCalls.maxOpen).toBeLessThanOrEqual(OUTBOX_SETTINGS.handOversAtOnce);
  await waitFor(async () => (await pending()) === 0, 'every event marked published');
}, 60_000);

it('hands a stream of writes on one batch at a time, gathering what was written meanwhile', async () => {
  received.length = 0;
  sinkCalls.sizes.length = 0;
  sinkCalls.maxOpen = 0;
  sinkDelayMs = 20;
  // Eight writers at once, each nudging the relay after its commit, as bookings do: no claim
  // fills a batch, so the relay waits for the batch under way before it claims the next.
  const texts = Array.from({ length: 48 }, (_, index) => `stream:${index}`);
  const writers = Array.from({ length: 8 }, async (_, writer) => {
    for (let index = writer; index < texts.length; index += 8) await broker.call('probe.write', { text: texts[index] });
  });
  await Promise.all(writers);
  await waitFor(() => received.length === texts.length, 'every event at the sink');
  sinkDelayMs = 0;
  expect(sinkCalls.maxOpen).toBe(1);
  expect(sinkCalls.sizes.length).toBeLessThan(texts.length);
  expect(new Set(received.map((event) => event.payload.text))).toEqual(new Set(texts));
  await waitFor(async () => (await pending()) === 0, 'every event marked published');
});

it('gathers the events of a stream for the claim interval, and relays a quiet relay’s first at once', async () => {
  received.length = 0;
  sinkCalls.sizes.length = 0;
  sinkDelayMs = 0;
  const interval = OUTBOX_SETTINGS.shortClaimIntervalMs;
  // Longer than the writes take, so that everything after the first claim is one batch.
  OUTBOX_SETTINGS.shortClaimIntervalMs = 3_000;
  try {
    const texts = Array.from({ length: 48 }, (_, index) => `gathered:${index}`);
    await broker.call('probe.write', { text: texts[0] });
    // The sink answers at once: without the interval, each claim took what the last call left.
    await waitFor(() => received.length === 1, 'the first event, with no wait');
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let index = 1 + writer; index < texts.length; index += 8)
        await broker.call('probe.write', { text: texts[index] });
    });
    await Promise.all(writers);
    await waitFor(() => received.length === texts.length, 'every event at the sink');
    expect(sinkCalls.sizes).toEqual([1, texts.length - 1]);
    expect(new Set(received.map((event) => event.payload.text))).toEqual(new Set(texts));
  } finally {
    OUTBOX_SETTINGS.shortClaimIntervalMs = interval;
  }
});
