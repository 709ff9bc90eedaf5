/**
 * An outbox relay over a NATS server of the test's own, with NATS's default largest message
 * (1 MB): a batch whose events add up to more than a message goes to the sink in several calls,
 * each within the message, in the order written, and none is lost; an event larger than a call's
 * share goes alone; a refused call gives its events and the later ones back, and only those go
 * again.
 */
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { type Context, ServiceBroker } from 'moleculer';
import {
  brokerOptions,
  createHubBroker,
  DbMixin,
  type DbService,
  type DomainEvent,
  inTransaction,
  loadConfig,
  OUTBOX_SETTINGS,
  OutboxMixin,
  type OutboxDbService,
  pendingEventCount,
  writeEvents,
} from '../src';
import { waitFor } from '../../test/support/hub';
import { privateNatsServer, type NatsServer } from '../../test/support/processes';

/** What the NATS server takes in one message unless configured otherwise. */
const NATS_DEFAULT_MAX_PAYLOAD = 1024 * 1024;

let nats: NatsServer;
let producer: ServiceBroker;
let sink: ServiceBroker;
const received: DomainEvent[] = [];
/** Each call's events, by their index in the write, and the size of its parameters as JSON. */
const calls: Array<{ indexes: number[]; bytes: number }> = [];
/** Which call of a test (counted from 1) the sink refuses, if any. */
let refusedCall: number | undefined;
let callsMade = 0;

beforeAll(async () => {
  nats = await privateNatsServer();
  await nats.start();
  const config = loadConfig({
    TRANSPORTER: nats.url,
    NAMESPACE: `outbox-size-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'fatal',
  });
  producer = createHubBroker(config, {}, { nodeID: 'producer', logger: false });
  producer.createService({
    name: 'probe',
    mixins: [DbMixin('probe', path.join(__dirname, 'outbox-probe', 'migrations')), OutboxMixin('probe')],
    actions: {
      /** Writes one event a size, each for a case of its own, in one transaction. */
      async write(this: OutboxDbService, ctx: Context<{ sizes: number[] }>) {
        await inTransaction(this.db.knex, (trx) =>
          writeEvents(
            trx,
            'probe',
            ctx.params.sizes.map((size, index) => ({
              type: 'note.written',
              caseGuid: randomUUID(),
              audience: { partnerId: 1 },
              payload: { index, text: 'x'.repeat(size) },
            })),
          ),
        );
        this.relayOutbox();
      },
    },
  });
  sink = new ServiceBroker({ ...brokerOptions(config), nodeID: 'sink', logger: false });
  sink.createService({
    name: 'webhooks',
    actions: {
      ingest(ctx: Context<{ events: DomainEvent[] }>) {
        callsMade += 1;
        if (callsMade === refusedCall) throw new Error('The sink refused this call');
        calls.push({
          indexes: ctx.params.events.map((event) => Number(event.payload.index)),
          bytes: Buffer.byteLength(JSON.stringify(ctx.params)),
        });
        received.push(...ctx.params.events);
        return { stored: ctx.params.events.length };
      },
    },
  });
  await Promise.all([producer.start(), sink.start()]);
  await producer.waitForServices('webhooks', 20_000);
}, 60_000);

afterAll(async () => {
  await Promise.all([producer?.stop(), sink?.stop()]);
  await nats?.kill();
});

beforeEach(() => {
  received.length = 0;
  calls.length = 0;
  refusedCall = undefined;
  callsMade = 0;
});

function pending() {
  return pendingEventCount((producer.getLocalService('probe') as unknown as DbService).db.knex, 'probe');
}

async function relayed(sizes: number[]) {
  await producer.call('probe.write', { sizes });
  await waitFor(() => received.length >= sizes.length, `${sizes.length} events at the sink`, 30_000);
  await waitFor(async () => (await pending()) === 0, 'every event marked handed over');
}

it('hands a batch of more than a message over in calls that each fit, in order, none lost', async () => {
  // 100 events of 20 kB: one claim, 2 MB of events.
  const sizes = Array.from({ length: 100 }, () => 20_000);
  expect(sizes.length).toBeLessThanOrEqual(OUTBOX_SETTINGS.batchSize);
  await relayed(sizes);
  expect(received.map((event) => event.payload.index)).toEqual(sizes.map((_, index) => index));
  expect(calls.length).toBeGreaterThan(2);
  for (const call of calls) expect(call.bytes).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD);
  expect(calls.flatMap((call) => call.indexes)).toEqual(sizes.map((_, index) => index));
});

it('hands an event larger than a call’s share over alone, between the calls of the events around it', async () => {
  const large = OUTBOX_SETTINGS.handOverMaxBytes + 100_000;
  expect(large).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD - 10_000);
  await relayed([100, 100, large, 100, 100]);
  expect(calls.map((call) => call.indexes)).toEqual([[0, 1], [2], [3, 4]]);
});

it('hands a refused call’s events and the later ones over again, each event once and in order', async () => {
  refusedCall = 2;
  const sizes = Array.from({ length: 100 }, () => 20_000);
  await relayed(sizes);
  expect(received.map((event) => event.payload.index)).toEqual(sizes.map((_, index) => index));
  expect(callsMade).toBeGreaterThan(calls.length);
});
