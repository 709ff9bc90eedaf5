/**
 * The event feed through the HTTP API (`GET /api/v3/events`): a partner whose receiver was down
 * while its cases were booked and worked on finds every webhook it missed in its feed, once, with
 * the bodies, webhook-ids and case numbers the webhooks carry; a party without a subscription has
 * a feed too; each case's numbers rise by one per event the party sees; cursors are checked.
 */
import { bookCase } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { documentedAnswer } from '../support/openapi';
import { DEMO_WORLD_FILE, readWorld, type World } from '../../shared/src';
import { type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';

const ALL_TYPES = [
  'status.new',
  'status.transition',
  'costProposal.created',
  'costProposal.reacted',
  'message.created',
  'message.confirmed',
  'case.filesUploaded',
  'case.updated',
  'invoice.saved',
];
const PRODUCERS = ['booking', 'cost-proposals', 'messaging', 'invoicing'];
/** Demo accounts 3 (Power, partner 2) and 5 (Nordic Repair Center, provider 10); Elkjøp (partner 1) subscribes to nothing. */
const POWER_SUBSCRIPTION = 901;
const NRC_SUBSCRIPTION = 902;
/** A provider account of Nordic Repair Center (10) with "Allow all service providers". */
const MEDIATOR = { id: 90, token: 'feed-mediator-token-000000000001' };

interface Entry {
  webhookId: string;
  eventId: string;
  eventType: string;
  caseGuid: string | null;
  caseSequence: number | null;
  occurredAt: string;
  payload: Record<string, any>;
}

let receiver: Receiver;
let hub: TestHub;

beforeAll(async () => {
  receiver = await startReceiver();
  const demo = readWorld(DEMO_WORLD_FILE);
  const world: World = {
    ...demo,
    accounts: [
      ...(demo.accounts ?? []),
      {
        id: MEDIATOR.id,
        name: 'Mediator',
        role: 'provider',
        providerId: 10,
        token: MEDIATOR.token,
        allowAllProviders: true,
      },
    ],
    webhooks: {
      ...demo.webhooks,
      subscriptions: [
        { id: POWER_SUBSCRIPTION, accountId: 3, path: '/power' },
        { id: NRC_SUBSCRIPTION, accountId: 5, path: '/nrc' },
      ].map(({ id, accountId, path }) => ({
        id,
        accountId,
        eventTypes: ALL_TYPES,
        target: { kind: 'http', url: `${receiver.url}${path}` },
      })),
    },
  };
  hub = await startTestHub({
    services: ['catalog', 'routing', 'booking', 'cost-proposals', 'messaging', 'invoicing', 'webhooks', 'gateway'],
    world,
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Two quick attempts: a delivery to a receiver that is down is a dead letter within moments.
      WEBHOOK_RETRY_SCHEDULE: '0,50ms',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    },
  });
});
afterAll(async () => {
  await hub?.stop();
  await receiver?.close();
});

async function post(token: string, path: string, body: unknown) {
  const res = await hub.request('POST', `/api/v3${path}`, { token, body });
  expect([path, res.status, res.body]).toEqual([path, 200, expect.anything()]);
  return res.body;
}

function feedPage(token: string, query: Record<string, string>) {
  return hub.request('GET', `/api/v3/events?${new URLSearchParams(query).toString()}`, { token });
}

/** Reads a feed page by page from `after` to its end; answers the entries and the cursor to poll with. */
async function readFeed(token: string, after?: string, limit = 3): Promise<{ entries: Entry[]; next: string }> {
  const entries: Entry[] = [];
  let cursor = after;
  for (;;) {
    const res = await feedPage(token, { limit: String(limit), ...(cursor ? { after: cursor } : {}) });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    entries.push(...(res.body.data as Entry[]));
    expect(typeof res.body.next).toBe('string');
    cursor = res.body.next as string;
    if (!res.body.hasMore) return { entries, next: cursor };
  }
}

/** Every producer has handed its events on, and no delivery of the subscription waits for another attempt. */
async function settled(subscriptionId: number) {
  await waitFor(
    async () => {
      for (const service of PRODUCERS) {
        if ((await hub.broker.call<{ pending: number }>(`${service}.outboxBacklog`)).pending > 0) return false;
      }
      const pending = await hub.request(
        'GET',
        `/api/admin/webhooks/deliveries?subscriptionId=${subscriptionId}&state=pending`,
        { token: DEMO_TOKENS.admin },
      );
      return pending.status === 200 && pending.body.data.length === 0;
    },
    'every event relayed and every delivery settled',
    30_000,
  );
}

async function deliveriesOf(subscriptionId: number, state: string) {
  const res = await hub.request(
    'GET',
    `/api/admin/webhooks/deliveries?subscriptionId=${subscriptionId}&state=${state}&limit=100`,
    { token: DEMO_TOKENS.admin },
  );
  expect(res.status).toBe(200);
  return res.body.data as Array<{ webhookId: string; caseSequence: number | null; payload: unknown }>;
}

/** Each case's numbers in feed order: 1, 2, 3, ... with the two webhooks of one status change sharing one. */
function expectNumberedInOrder(entries: Entry[]) {
  const byCase = new Map<string, Entry[]>();
  for (const entry of entries) byCase.set(entry.caseGuid!, [...(byCase.get(entry.caseGuid!) ?? []), entry]);
  for (const caseEntries of byCase.values()) {
    const numbers = [...new Set(caseEntries.map((entry) => entry.caseSequence))];
    expect(numbers).toEqual(numbers.map((_, index) => numbers[0]! + index));
    for (const entry of caseEntries) {
      expect(entry.payload.caseSequence).toBe(entry.caseSequence);
      const sameEvent = caseEntries.filter((other) => other.eventId === entry.eventId);
      expect(new Set(sameEvent.map((other) => other.caseSequence)).size).toBe(1);
    }
  }
}

describe('a partner whose receiver was down', () => {
  let port: number;
  let before: string;
  let missed: Entry[];
  let cases: { earlier: string; booked: string };

  beforeAll(async () => {
    port = Number(new URL(receiver.url).port);
    const earlier = await bookCase(hub, DEMO_TOKENS.power);
    await waitFor(() => receiver.received.some((request) => request.path === '/power'), 'the first webhook');
    await settled(POWER_SUBSCRIPTION);
    ({ next: before } = await readFeed(DEMO_TOKENS.power));

    await receiver.close();
    // Power's demo cases go to Nordic Repair Center; Power never sees 'diagnosed' (blacklisted).
    const booked = await bookCase(hub, DEMO_TOKENS.power);
    cases = { earlier, booked };
    for (const key of ['diagnosed', 'awaiting_parts', 'repaired']) {
      await post(DEMO_TOKENS.nrc, '/case/status', { guid: earlier, key });
      await post(DEMO_TOKENS.nrc, '/case/status', { guid: booked, key: key === 'repaired' ? 'arrived' : key });
    }
    await post(DEMO_TOKENS.nrc, '/cost-proposals', [{ guid: booked, name: 'Screen', priceNet: 990, currency: 'NOK' }]);
    await post(DEMO_TOKENS.nrc, '/case-messages/create', { guid: earlier, type: 'serviceComment', content: 'Done' });
    await post(DEMO_TOKENS.nrc, '/case/append', { guid: booked, orderData: { refNo: 'FEED-2' } });
    await post(DEMO_TOKENS.nrc, '/invoices', [
      { guid: earlier, externalId: 'INV-FEED-1', priceNet: 990, currency: 'NOK', status: 'ready' },
    ]);
    await settled(POWER_SUBSCRIPTION);
    receiver = await startReceiver(port);
    ({ entries: missed } = await readFeed(DEMO_TOKENS.power, before));
  });

  it('missed every webhook of the outage: each is a dead letter at the hub', async () => {
    const dead = await deliveriesOf(POWER_SUBSCRIPTION, 'dead');
    expect(dead.length).toBeGreaterThanOrEqual(10);
    expect(receiver.received).toEqual([]);
    expect(missed.map((entry) => entry.webhookId).sort()).toEqual(dead.map((delivery) => delivery.webhookId).sort());
  });

  it('finds each of them once in its feed, after the cursor it had, with the body and number it was sent', async () => {
    expect(new Set(missed.map((entry) => entry.webhookId)).size).toBe(missed.length);
    const dead = new Map(
      (await deliveriesOf(POWER_SUBSCRIPTION, 'dead')).map((delivery) => [delivery.webhookId, delivery]),
    );
    for (const entry of missed) {
      expect(entry.payload).toEqual(dead.get(entry.webhookId)!.payload);
      expect(entry.caseSequence).toBe(dead.get(entry.webhookId)!.caseSequence);
    }
    // Five status changes Power sees (the booking's first and four of six posted), each a New status and a transition.
    expect(missed.map((entry) => entry.eventType).sort()).toEqual(
      [
        ...Array<string>(5).fill('status.new'),
        ...Array<string>(5).fill('status.transition'),
        'costProposal.created',
        'message.created',
        'case.updated',
        'invoice.saved',
      ].sort(),
    );
  });

  it('sees the numbers of each case rise by one per event it can see, a hidden status taking none', () => {
    expectNumberedInOrder(missed);
    const of = (guid: string) =>
      missed.filter((entry) => entry.caseGuid === guid && entry.eventType !== 'status.transition');
    // The earlier case's 1 was its booking, before the outage; 'diagnosed' is hidden from Power.
    expect(of(cases.earlier).map((entry) => entry.caseSequence)).toEqual([2, 3, 4, 5]);
    expect(of(cases.booked).map((entry) => entry.caseSequence)).toEqual([1, 2, 3, 4, 5]);
    // Each producer's events in the order they happened (producers hand theirs on independently).
    for (const [guid, keys] of [
      [cases.earlier, ['awaiting_parts', 'repaired']],
      [cases.booked, ['registered', 'awaiting_parts', 'arrived']],
    ] as const) {
      expect(
        of(guid)
          .filter((entry) => entry.eventType === 'status.new')
          .map((entry) => entry.payload.key),
      ).toEqual(keys);
    }
  });

  it('gets what happens next by webhook and in its feed after the last cursor, with the same numbers', async () => {
    const { next: polled } = await readFeed(DEMO_TOKENS.power, before, 100);
    expect((await feedPage(DEMO_TOKENS.power, { after: polled })).body).toEqual({
      data: [],
      next: polled,
      hasMore: false,
    });
    await post(DEMO_TOKENS.nrc, '/case/status', { guid: cases.booked, key: 'repaired' });
    await waitFor(() => receiver.received.length === 2, 'the new status and its transition');
    const { entries } = await readFeed(DEMO_TOKENS.power, polled);
    expect(entries.map((entry) => entry.webhookId)).toEqual(
      receiver.received.map((request) => request.headers['webhook-id']),
    );
    for (const [index, request] of receiver.received.entries()) {
      expect(request.json).toEqual(entries[index].payload);
      expect(request.headers['hub-case-sequence']).toBe(String(entries[index].caseSequence));
    }
    // The booked case's registration, two statuses, the proposal and the update came before.
    expect(entries.map((entry) => [entry.eventType, entry.caseSequence])).toEqual([
      ['status.new', 6],
      ['status.transition', 6],
    ]);
  });
});

describe('every party', () => {
  it('has a feed without a subscription, and hears only of what it is told', async () => {
    const { next } = await readFeed(DEMO_TOKENS.elkjop);
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    await post(DEMO_TOKENS.nrc, '/case/status', { guid, key: 'awaiting_parts' });
    await post(DEMO_TOKENS.elkjop, '/case-messages/create', { guid, type: 'statusRequest', content: 'News?' });
    await waitFor(
      async () => (await readFeed(DEMO_TOKENS.elkjop, next)).entries.length === 4,
      "Elkjøp's two status changes",
    );
    const { entries } = await readFeed(DEMO_TOKENS.elkjop, next);
    // Elkjøp sees awaiting_parts as its own 'repairing'; it is never told of its own message.
    expect(
      entries.map((entry) => [entry.eventType, entry.payload.key, entry.payload.prevKey, entry.caseSequence]),
    ).toEqual([
      ['status.new', 'registered', undefined, 1],
      ['status.transition', 'registered', null, 1],
      ['status.new', 'repairing', undefined, 2],
      ['status.transition', 'repairing', 'registered', 2],
    ]);
    // The provider hears of the partner's message, numbered in its own count of the case.
    await waitFor(
      async () =>
        (await readFeed(DEMO_TOKENS.nrc)).entries.some(
          (entry) => entry.caseGuid === guid && entry.eventType === 'message.created',
        ),
      "the message in the provider's feed",
    );
    const provider = (await readFeed(DEMO_TOKENS.nrc)).entries.filter((entry) => entry.caseGuid === guid);
    expect(provider.map((entry) => [entry.eventType, entry.caseSequence])).toEqual([['message.created', 1]]);
  });

  it("is read by an account acting for a provider as that provider's", async () => {
    // Trygg's demo case goes to Svea (20).
    const guid = await bookCase(hub, DEMO_TOKENS.trygg);
    await post(DEMO_TOKENS.trygg, '/case-messages/create', { guid, type: 'statusRequest', content: 'Any news?' });
    const ofCase = async (token: string, headers: Record<string, string> = {}) => {
      const res = await hub.request('GET', '/api/v3/events?limit=500', { token, headers });
      expect(res.status).toBe(200);
      return (res.body.data as Entry[]).filter((entry) => entry.caseGuid === guid).map((entry) => entry.webhookId);
    };
    await waitFor(async () => (await ofCase(DEMO_TOKENS.svea)).length === 1, "the message in Svea's feed");
    expect(await ofCase(MEDIATOR.token, { 'X-Service-Provider': '20' })).toEqual(await ofCase(DEMO_TOKENS.svea));
    expect(await ofCase(MEDIATOR.token)).toEqual([]);
  });

  it('reads no other party’s feed, and only with a partner or provider token', async () => {
    const power = await readFeed(DEMO_TOKENS.power);
    const elkjop = await readFeed(DEMO_TOKENS.elkjop);
    const powerIds = new Set(power.entries.map((entry) => entry.webhookId));
    expect(elkjop.entries.filter((entry) => powerIds.has(entry.webhookId))).toEqual([]);
    expect((await hub.request('GET', '/api/v3/events')).status).toBe(401);
    expect((await feedPage(DEMO_TOKENS.admin, {})).status).toBe(403);
  });
});

describe('cursors and limits', () => {
  it('refuses a malformed cursor, another party’s, one ahead of the feed, and a bad limit, naming the field', async () => {
    const { next } = await readFeed(DEMO_TOKENS.power);
    const [kind, id, position] = JSON.parse(Buffer.from(next, 'base64url').toString()) as [string, number, number];
    const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
    const refusals: Array<[Record<string, string>, Record<string, string[]>]> = [
      [{ after: 'not-a-cursor' }, { after: ['Wrong format'] }],
      [{ after: cursor([kind, id]) }, { after: ['Wrong format'] }],
      [{ after: cursor([kind, id, -1]) }, { after: ['Wrong format'] }],
      [{ after: cursor(['partner', 1, 1]) }, { after: ["The cursor is of another party's feed"] }],
      [{ after: cursor([kind, id, position + 1]) }, { after: ['The cursor is ahead of the feed'] }],
      [{ after: '' }, { after: expect.any(Array) }],
      [{ limit: '0' }, { limit: expect.any(Array) }],
      [{ limit: '501' }, { limit: expect.any(Array) }],
      [{ limit: 'ten' }, { limit: expect.any(Array) }],
      [{ since: '1' }, { since: ['Field is not accepted'] }],
    ];
    for (const [query, details] of refusals) {
      const res = await feedPage(DEMO_TOKENS.power, query);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.error).toEqual({ message: 'Fields validation failed', details });
    }
    expect(kind).toBe('partner');
    expect((await feedPage(DEMO_TOKENS.power, { after: next, limit: '500' })).status).toBe(200);
  });
});

describe('the API reference', () => {
  it('has the feed with its summary and answer schema, which real answers keep', async () => {
    const { operation, example, validate } = await documentedAnswer(hub, 'GET', '/v3/events');
    expect(operation.summary).toBe("The caller's webhooks, oldest first, after a cursor");
    expect(operation['x-access']).toBe('partner+provider');
    for (const token of [DEMO_TOKENS.power, DEMO_TOKENS.nrc]) {
      const body = (await feedPage(token, {})).body;
      expect(body.data.length).toBeGreaterThan(0);
      expect({ valid: validate(body), errors: validate.errors }).toEqual({ valid: true, errors: null });
    }
    expect(validate(example)).toBe(true);
    expect(validate({ data: [{ webhookId: 'x' }], next: 'y', hasMore: false })).toBe(false);
  });
});
