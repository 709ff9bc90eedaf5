/**
 * Webhooks end to end: real producers (booking, cost proposals, messaging, invoicing) write their
 * outbox events through the HTTP API, their relays hand them to the webhooks service, and a real
 * HTTP receiver gets signed V3 payloads, each only at the party the spec addresses; the statuses a
 * provider posts reach the partner in the partner's keys, never a blacklisted one.
 */
import { Webhook } from 'standardwebhooks';
import { DEMO_WORLD_FILE, readWorld, type World } from '../../shared/src';
import { bookCase, caseBody } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { type Received, type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';

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

const secretOf = (seed: number) => 'whsec_' + Buffer.alloc(32, seed).toString('base64');

/** Demo accounts: 2 Elkjøp (partner 1), 3 Power (partner 2), 5 Nordic Repair Center (provider 10), 6 Svea (provider 20). */
const SUBSCRIBERS = [
  // Power hears of status transitions away from registered and to repaired.
  {
    id: 901,
    accountId: 3,
    path: '/power',
    secret: secretOf(1),
    statusTransitions: [{ from: 'registered' }, { to: 'repaired' }],
  },
  { id: 902, accountId: 5, path: '/nrc', secret: secretOf(2) },
  { id: 903, accountId: 2, path: '/elkjop', secret: secretOf(3) },
  { id: 904, accountId: 6, path: '/svea', secret: secretOf(4) },
];

/**
 * Beside the demo rules (Elkjøp: awaiting_parts is its 'repairing'; Power: diagnosed is
 * blacklisted), Elkjøp also calls diagnosed 'repairing', so diagnosed -> awaiting_parts is no
 * change of key for it.
 */
const ELKJOP_DIAGNOSED = { partnerId: 1, providerKey: 'diagnosed', partnerKey: 'repairing' };

let receiver: Receiver;
let hub: TestHub;

beforeAll(async () => {
  receiver = await startReceiver();
  const demo = readWorld(DEMO_WORLD_FILE);
  const world: World = {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      statusMappings: [...(demo.webhooks?.statusMappings ?? []), ELKJOP_DIAGNOSED],
      subscriptions: SUBSCRIBERS.map(({ id, accountId, path, secret, statusTransitions }) => ({
        id,
        accountId,
        eventTypes: ALL_TYPES,
        target: { kind: 'http', url: `${receiver.url}${path}` },
        secret,
        statusTransitions,
      })),
    },
  };
  hub = await startTestHub({
    services: ['catalog', 'routing', 'booking', 'cost-proposals', 'messaging', 'invoicing', 'webhooks', 'gateway'],
    world,
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms,50ms',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    },
  });
});
afterAll(async () => {
  await hub?.stop();
  await receiver?.close();
});

/** A record as a webhook body: with the receiver's number for the event in its case. */
function numbered(record: Record<string, unknown>) {
  return { ...record, caseSequence: expect.any(Number) };
}

/** The numbers of a case's webhooks at a receiver, each as the body and the header say it. */
function caseNumbers(path: string, guid: string): number[] {
  const requests = at(path).filter((request) => request.json.guid === guid);
  for (const request of requests) expect(request.headers['hub-case-sequence']).toBe(String(request.json.caseSequence));
  return requests.map((request) => request.json.caseSequence as number).sort((a, b) => a - b);
}

function at(path: string): Received[] {
  return receiver.received.filter((request) => request.path === path);
}

function ofType(path: string, type: string): Received[] {
  return at(path).filter((request) => request.headers['webhook-event-type'] === type);
}

async function post(token: string, path: string, body: unknown) {
  const res = await hub.request('POST', `/api/v3${path}`, { token, body });
  expect(res.status).toBe(200);
  return res.body;
}

describe('a booked case, worked on through the HTTP API', () => {
  let guid: string;
  let proposal: Record<string, unknown>;
  let reacted: Record<string, unknown>;
  let fromPartner: Record<string, unknown>;
  let fromProvider: Record<string, unknown>;
  let invoice: Record<string, unknown>;

  beforeAll(async () => {
    // Power's demo case goes to Nordic Repair Center.
    guid = await bookCase(hub, DEMO_TOKENS.power);
    [proposal] = (
      await post(DEMO_TOKENS.nrc, '/cost-proposals', [
        { guid, name: 'Screen replacement', priceNet: 1490, currency: 'NOK' },
      ])
    ).data;
    reacted = await post(DEMO_TOKENS.power, '/cost-proposals/feedback', {
      id: proposal.id,
      name: 'Kari Nordmann',
      reaction: 'approved',
    });
    fromPartner = await post(DEMO_TOKENS.power, '/case-messages/create', {
      guid,
      type: 'statusRequest',
      content: 'Any news?',
    });
    await post(DEMO_TOKENS.nrc, '/case-messages/create', {
      guid,
      type: 'serviceComment',
      content: 'Only for the workshop',
      isInternal: true,
    });
    fromProvider = await post(DEMO_TOKENS.nrc, '/case-messages/create', {
      guid,
      type: 'serviceComment',
      content: 'Parts ordered',
    });
    // The receiving party confirms; only the creator hears of it.
    await post(DEMO_TOKENS.power, '/case-messages/confirm', [fromProvider.id]);
    // A draft is not a 'Send to client' status for this provider; 'ready' is.
    await post(DEMO_TOKENS.nrc, '/invoices', [
      { guid, externalId: 'INV-E2E-1', priceNet: 1490, currency: 'NOK', status: 'draft' },
    ]);
    [invoice] = await post(DEMO_TOKENS.nrc, '/invoices', [
      { guid, externalId: 'INV-E2E-2', priceNet: 1490, currency: 'NOK', status: 'ready' },
    ]);
    await waitFor(
      () => at('/power').length >= 4 && at('/nrc').length >= 3,
      'four webhooks at the partner and three at the provider',
    );
  });

  it('tells the partner of the first status, the new cost proposal, the provider message and the invoice sent to the client', () => {
    expect(
      at('/power')
        .map((request) => request.headers['webhook-event-type'])
        .sort(),
    ).toEqual(['costProposal.created', 'invoice.saved', 'message.created', 'status.new']);
    expect(ofType('/power', 'status.new')[0].json).toMatchObject({ guid, key: 'registered' });
    expect(ofType('/power', 'costProposal.created')[0].json).toEqual(numbered(proposal));
    expect(ofType('/power', 'message.created')[0].json).toEqual(numbered(fromProvider));
    expect(ofType('/power', 'invoice.saved')[0].json).toEqual(numbered(invoice));
    // One number per event of the case that Power is told of (producers hand theirs on independently, in any order).
    expect(caseNumbers('/power', guid)).toEqual([1, 2, 3, 4]);
    expect(ofType('/power', 'invoice.saved')[0].json).toMatchObject({
      guid,
      externalId: 'INV-E2E-2',
      status: 'ready',
      case: { guid },
    });
  });

  it('tells the provider of the approval, the partner message and the confirmation of its own message', async () => {
    expect(
      at('/nrc')
        .map((request) => request.headers['webhook-event-type'])
        .sort(),
    ).toEqual(['costProposal.reacted', 'message.confirmed', 'message.created']);
    expect(ofType('/nrc', 'costProposal.reacted')[0].json).toEqual(numbered(reacted));
    expect(ofType('/nrc', 'message.created')[0].json).toEqual(numbered(fromPartner));
    const messages = await hub.request('GET', `/api/v3/case-messages?guid=${guid}`, { token: DEMO_TOKENS.nrc });
    expect(messages.status).toBe(200);
    const confirmed = messages.body.find((message: { id: number }) => message.id === fromProvider.id);
    expect(confirmed.confirmedAt).not.toBeNull();
    expect(ofType('/nrc', 'message.confirmed')[0].json).toEqual(numbered(confirmed));
    // The provider counts the events of the case it is told of on its own.
    expect(caseNumbers('/nrc', guid)).toEqual([1, 2, 3]);
  });

  it('tells nobody else, and nobody of an internal note, a draft invoice or its own message', async () => {
    expect(at('/elkjop')).toEqual([]);
    expect(at('/svea')).toEqual([]);
    const bodies = [...at('/power'), ...at('/nrc')].map((request) => request.json);
    expect(
      bodies.filter((body) => body.content === 'Only for the workshop' || body.externalId === 'INV-E2E-1'),
    ).toEqual([]);
    for (const { id } of SUBSCRIBERS) {
      const stored = await hub.request('GET', `/api/admin/webhooks/deliveries?subscriptionId=${id}`, {
        token: DEMO_TOKENS.admin,
      });
      expect(stored.status).toBe(200);
      expect(stored.body.data).toHaveLength(id === 901 ? 4 : id === 902 ? 3 : 0);
    }
  });

  it('signs every delivery per Standard Webhooks with the secret of its own subscription only', () => {
    const deliveries = [...at('/power'), ...at('/nrc')];
    expect(new Set(deliveries.map((request) => request.headers['webhook-id'])).size).toBe(deliveries.length);
    for (const { path, secret } of SUBSCRIBERS.slice(0, 2)) {
      const other = SUBSCRIBERS.find((subscriber) => subscriber.path !== path)!.secret;
      for (const request of at(path)) {
        const headers = request.headers as Record<string, string>;
        expect(request.method).toBe('POST');
        expect(headers['content-type']).toMatch(/^application\/json/);
        expect(new Webhook(secret).verify(request.body, headers)).toEqual(request.json);
        expect(() => new Webhook(other).verify(request.body, headers)).toThrow();
      }
    }
  });
});

describe('statuses a provider posts', () => {
  let powerCase: string;
  let elkjopCase: string;
  const STATUS_TYPES = ['status.new', 'status.transition'];
  const statusesAt = (path: string, guid: string) =>
    at(path).filter(
      (request) => STATUS_TYPES.includes(String(request.headers['webhook-event-type'])) && request.json.guid === guid,
    );
  const summary = (path: string, guid: string) =>
    statusesAt(path, guid).map((request) => [
      request.headers['webhook-event-type'],
      request.json.prevKey ?? null,
      request.json.key,
    ]);

  beforeAll(async () => {
    // Both demo cases go to Nordic Repair Center, which posts the same statuses on each.
    powerCase = await bookCase(hub, DEMO_TOKENS.power);
    elkjopCase = await bookCase(hub, DEMO_TOKENS.elkjop);
    for (const key of ['diagnosed', 'awaiting_parts', 'arrived', 'repaired']) {
      for (const guid of [powerCase, elkjopCase]) await post(DEMO_TOKENS.nrc, '/case/status', { guid, key });
    }
    // One case reaches a receiver in event order, a status's transition after its New status: the
    // transition to the last status comes last.
    const lastArrived = (path: string, guid: string) =>
      statusesAt(path, guid).some(
        (request) => request.headers['webhook-event-type'] === 'status.transition' && request.json.key === 'repaired',
      );
    await waitFor(() => lastArrived('/power', powerCase), "Power's transition to the last status", 20_000);
    await waitFor(() => lastArrived('/elkjop', elkjopCase), "Elkjøp's transition to the last status", 20_000);
  });

  it('leaves a blacklisted status out of the webhooks, the prevKey and the case, and applies the transition rules', async () => {
    // registered -> (diagnosed, hidden) -> awaiting_parts -> arrived -> repaired, as Power sees it.
    expect(summary('/power', powerCase)).toEqual([
      ['status.new', null, 'registered'],
      ['status.new', null, 'awaiting_parts'],
      ['status.transition', 'registered', 'awaiting_parts'],
      ['status.new', null, 'arrived'],
      ['status.new', null, 'repaired'],
      ['status.transition', 'arrived', 'repaired'],
    ]);
    // The hidden status takes no number of Power's; a transition carries the number of its status.
    expect(
      statusesAt('/power', powerCase).map((request) => [
        request.headers['webhook-event-type'],
        request.json.caseSequence,
      ]),
    ).toEqual([
      ['status.new', 1],
      ['status.new', 2],
      ['status.transition', 2],
      ['status.new', 3],
      ['status.new', 4],
      ['status.transition', 4],
    ]);
    const [first] = statusesAt('/power', powerCase).filter(
      (request) => request.headers['webhook-event-type'] === 'status.transition',
    );
    expect(first.json.case.caseStatuses.map((status: { key: string }) => status.key)).toEqual([
      'registered',
      'awaiting_parts',
    ]);
    expect(first.json.case.currentStatus).toBe('awaiting_parts');
    const read = await hub.request('GET', `/api/v3/case?guid=${powerCase}`, { token: DEMO_TOKENS.power });
    expect(read.status).toBe(200);
    expect(read.body.caseStatuses.map((status: { key: string }) => status.key)).toEqual([
      'registered',
      'awaiting_parts',
      'arrived',
      'repaired',
    ]);
  });

  it("sends the partner's mapped keys, and nothing when the partner's key does not change", () => {
    // registered -> diagnosed (repairing) -> awaiting_parts (repairing) -> arrived -> repaired, as Elkjøp sees it;
    // with no transition rules it hears every change of key, the first status's too.
    expect(summary('/elkjop', elkjopCase)).toEqual([
      ['status.new', null, 'registered'],
      ['status.transition', null, 'registered'],
      ['status.new', null, 'repairing'],
      ['status.transition', 'registered', 'repairing'],
      ['status.new', null, 'arrived'],
      ['status.transition', 'repairing', 'arrived'],
      ['status.new', null, 'repaired'],
      ['status.transition', 'arrived', 'repaired'],
    ]);
    const last = statusesAt('/elkjop', elkjopCase).at(-1)!.json;
    expect(last).toMatchObject({
      guid: elkjopCase,
      key: 'repaired',
      prevKey: 'arrived',
      case: { guid: elkjopCase, currentStatus: 'repaired' },
    });
    expect(last.case.caseStatuses.map((status: { key: string }) => status.key)).toEqual([
      'registered',
      'repairing',
      'repairing',
      'arrived',
      'repaired',
    ]);
    for (const request of statusesAt('/elkjop', elkjopCase)) {
      expect(request.json).toEqual(
        expect.objectContaining({
          id: expect.any(Number),
          caseId: expect.any(Number),
          name: expect.any(String),
          createdAt: expect.any(String),
          declaredAt: expect.any(String),
        }),
      );
      expect(new Webhook(secretOf(3)).verify(request.body, request.headers as Record<string, string>)).toEqual(
        request.json,
      );
    }
  });

  it('tells the provider nothing of its own statuses', () => {
    expect(statusesAt('/nrc', powerCase)).toEqual([]);
    expect(statusesAt('/nrc', elkjopCase)).toEqual([]);
  });

  it("embeds the case of an invoice as the partner sees it, in the webhook and in the partner's reads", async () => {
    await post(DEMO_TOKENS.nrc, '/invoices', [
      { guid: powerCase, externalId: 'INV-VIEW-POWER', priceNet: 100, currency: 'NOK', status: 'ready' },
      { guid: elkjopCase, externalId: 'INV-VIEW-ELKJOP', priceNet: 100, currency: 'NOK', status: 'ready' },
    ]);
    const invoiceAt = (path: string, externalId: string) =>
      ofType(path, 'invoice.saved').find((request) => request.json.externalId === externalId);
    await waitFor(
      () => Boolean(invoiceAt('/power', 'INV-VIEW-POWER') && invoiceAt('/elkjop', 'INV-VIEW-ELKJOP')),
      'both invoices at their partners',
    );
    const keys = (found: { caseStatuses: Array<{ key: string }> }) => found.caseStatuses.map((status) => status.key);
    // Power never sees the blacklisted diagnosed; Elkjøp sees its own keys.
    expect(keys(invoiceAt('/power', 'INV-VIEW-POWER')!.json.case)).toEqual([
      'registered',
      'awaiting_parts',
      'arrived',
      'repaired',
    ]);
    expect(keys(invoiceAt('/elkjop', 'INV-VIEW-ELKJOP')!.json.case)).toEqual([
      'registered',
      'repairing',
      'repairing',
      'arrived',
      'repaired',
    ]);
    const read = await hub.request('GET', `/api/v3/invoices?guid=${powerCase}`, { token: DEMO_TOKENS.power });
    expect(read.status).toBe(200);
    expect(keys(read.body[0].case)).toEqual(['registered', 'awaiting_parts', 'arrived', 'repaired']);
    const providerRead = await hub.request('GET', `/api/v3/invoices?guid=${powerCase}`, { token: DEMO_TOKENS.nrc });
    expect(keys(providerRead.body[0].case)).toEqual([
      'registered',
      'diagnosed',
      'awaiting_parts',
      'arrived',
      'repaired',
    ]);
  });
});

describe('case data in webhooks', () => {
  it('sends consents and accessories as lists, each changed as one value in case.updated', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.power, {
      orderData: { consents: { gdpr: true, marketing: false } },
      productData: { accessory: { '1': true, '6': true } },
    });
    const booked = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: DEMO_TOKENS.power });
    await post(DEMO_TOKENS.power, '/case/update', {
      guid,
      productData: { ...booked.body.productData, accessory: { '1': true, '6': false } },
    });
    await post(DEMO_TOKENS.nrc, '/case/append', { guid, orderData: { consents: { gdpr: true, marketing: true } } });
    const updates = (path: string) => ofType(path, 'case.updated').filter((request) => request.json.guid === guid);
    await waitFor(
      () => updates('/nrc').length === 1 && updates('/power').length === 1,
      'one case.updated at each party',
    );
    expect(updates('/nrc')[0].json).toEqual(numbered({ guid, productData: { accessory: ['1'] } }));
    expect(updates('/power')[0].json).toEqual(numbered({ guid, orderData: { consents: ['gdpr', 'marketing'] } }));
    // The API reads keep the shape they take.
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: DEMO_TOKENS.power });
    // Reads answer the same form as webhooks.
    expect(read.body.orderData.consents).toEqual(['gdpr', 'marketing']);
  });

  it('refuses an accessory the product type does not have', async () => {
    const res = await hub.request('POST', '/api/v3/case/validate', {
      token: DEMO_TOKENS.power,
      body: caseBody(DEMO_TOKENS.power, { productData: { accessory: { '1': true, '3': true, '99': false } } }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      'productData.accessory.3': ['Value is not present in possible options'],
      'productData.accessory.99': ['Value is not present in possible options'],
    });
  });
});
