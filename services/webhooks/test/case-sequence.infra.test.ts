/**
 * Case numbers under concurrency, on the Postgres server: two webhooks instances take the events
 * of one case from two producers at once (statuses as booking's relay hands them on, messages as
 * messaging's), each batch handed on twice, to both instances at the same moment, as a relay does
 * when an answer is lost. Each party still numbers the events of the case it sees 1, 2, 3, ...
 * once each, in each producer's order, its feed has no gap, and its receiver gets the case's
 * webhooks in number order.
 */
import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { type DomainEvent, loadConfig, type ServiceName } from '../../../shared/src';
import { startHub } from '../../../cli/src';
import { createServerDatabase, INFRA, waitFor } from '../../../test/support/hub';
import { domainEvent, statusAdded } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

/** Power (partner 2, account 3) hides 'diagnosed'; its case goes to provider 10. */
const PARTNER = 2;
const PROVIDER = 10;
const CASE = randomUUID();

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
const brokers: ServiceBroker[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const env = serverHubEnv(database.url, { TRANSPORTER: INFRA.nats, CACHER: INFRA.redis });
  const world = worldWithOneSubscription(`${receiver.url}/power`, [
    'status.new',
    'status.transition',
    'message.created',
  ]);
  const start = (nodeId: string, services: ServiceName[], initialWorld?: typeof world) =>
    startHub({ ...loadConfig({ ...env, NODE_ID: nodeId }), services }, { initialWorld });
  brokers.push(await start('webhooks-1', ['catalog', 'webhooks'], world));
  brokers.push(await start('webhooks-2', ['webhooks']));
  await waitFor(
    () =>
      (brokers[0].registry.getActionList({ onlyAvailable: true }) as Array<{ name: string; count: number }>).some(
        (action) => action.name === 'webhooks.ingest' && action.count === 2,
      ),
    'both instances known to the first',
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(brokers.map((broker) => broker.stop()));
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

/** A producer's relay: batch after batch, each handed to both instances at once. */
async function relay(events: DomainEvent[], batchSize: number) {
  for (let start = 0; start < events.length; start += batchSize) {
    const batch = events.slice(start, start + batchSize);
    await Promise.all(
      ['webhooks-1', 'webhooks-2'].map((nodeID) => brokers[0].call('webhooks.ingest', { events: batch }, { nodeID })),
    );
  }
}

interface FeedRow {
  position: number;
  event_id: string;
  event_type: string;
  case_sequence: number;
}

function feedOf(kind: 'partner' | 'provider', id: number): Promise<FeedRow[]> {
  return sql('webhooks.feed').where({ party_kind: kind, party_id: id }).orderBy('position');
}

/** The number of each event, in feed order. */
function numbersOf(feed: FeedRow[]): Map<string, number> {
  return new Map(feed.map((row) => [row.event_id, row.case_sequence]));
}

const counting = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

it('numbers the events of one case from two producers at two instances once each, without a gap', async () => {
  // Statuses: every fifth is 'diagnosed', which Power does not see.
  let previous: string | null = null;
  const statuses = Array.from({ length: 40 }, (_, index) => {
    const key = index % 5 === 4 ? 'diagnosed' : `step_${index}`;
    const event = statusAdded(PARTNER, key, previous, CASE);
    previous = key;
    return event;
  });
  // Messages: the partner is told of the provider's, the provider of the partner's.
  const messages = Array.from({ length: 50 }, (_, index) =>
    domainEvent(
      'message.created',
      index % 5 < 3 ? { partnerId: PARTNER } : { providerId: PROVIDER },
      { id: index + 1, guid: CASE, content: `message ${index}` },
      CASE,
    ),
  );
  await Promise.all([relay(statuses, 4), relay(messages, 5)]);

  const partnerFeed = await feedOf('partner', PARTNER);
  const visibleStatuses = statuses.filter((event) => (event.payload.status as { key: string }).key !== 'diagnosed');
  const partnerMessages = messages.filter((event) => event.audience.partnerId === PARTNER);
  // Two webhooks per status change (status.new and status.transition), one per message, each once.
  expect(partnerFeed.map((row) => row.position)).toEqual(counting(2 * visibleStatuses.length + partnerMessages.length));
  const numbers = numbersOf(partnerFeed);
  expect([...numbers.values()]).toEqual(counting(visibleStatuses.length + partnerMessages.length));
  for (const row of partnerFeed) expect(row.case_sequence).toBe(numbers.get(row.event_id));
  // Each producer's events in the order it handed them on; a hidden status takes no number.
  const rising = (events: DomainEvent[]) => {
    const seen = events.map((event) => numbers.get(event.id)!);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  };
  rising(visibleStatuses);
  rising(partnerMessages);
  expect(statuses.filter((event) => !visibleStatuses.includes(event)).some((event) => numbers.has(event.id))).toBe(
    false,
  );

  // The provider counts the events of the case it is told of on its own.
  const providerFeed = await feedOf('provider', PROVIDER);
  expect(providerFeed.map((row) => row.case_sequence)).toEqual(counting(messages.length - partnerMessages.length));

  // The receiver gets the case's webhooks one at a time, in number order, each once.
  await waitFor(() => receiver.received.length === partnerFeed.length, 'every webhook of the case', 60_000);
  const received = receiver.received.map((request) => ({
    id: String(request.headers['webhook-id']),
    number: Number(request.headers['hub-case-sequence']),
    body: request.json as { caseSequence: number },
  }));
  expect(new Set(received.map((request) => request.id)).size).toBe(partnerFeed.length);
  expect(received.map((request) => request.number)).toEqual(partnerFeed.map((row) => row.case_sequence));
  for (const request of received) expect(request.body.caseSequence).toBe(request.number);
}, 120_000);
