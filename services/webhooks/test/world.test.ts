/**
 * Subscriptions, status mappings and blacklists from the world file (the catalog holds the
 * status rules status webhooks are sent with), target safety on a hub that allows no loopback, and
 * a target named by its host.
 */
import { Webhook } from 'standardwebhooks';
import { DEMO_WORLD_FILE, readWorld, type DomainEvent, type World } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../../../test/support/hub';
import { statusAdded } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

function worldWith(webhooks: World['webhooks']): World {
  return { ...readWorld(DEMO_WORLD_FILE), webhooks: { ...readWorld(DEMO_WORLD_FILE).webhooks, ...webhooks } };
}

const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');

describe('from the world file', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({
      services: ['catalog', 'gateway', 'webhooks'],
      env: { WEBHOOK_RETRY_SCHEDULE: '0,50ms' },
    });
  });
  afterAll(() => hub.stop());

  const ingest = (events: DomainEvent[]) => hub.broker.call('webhooks.ingest', { events });

  it('delivers status webhooks with the partner mapping and transition rules of a world subscription', async () => {
    const world = worldWith({
      subscriptions: [
        {
          id: 50,
          accountId: 2,
          eventTypes: ['status.new', 'status.transition'],
          target: { kind: 'http', url: `${receiver.url}/elkjop` },
          secret: SECRET,
          statusTransitions: [{ from: 'repairing' }],
        },
      ],
    });
    expect(
      (await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world, skipUnowned: true } }))
        .status,
    ).toBe(200);
    const caseGuid = 'a4f0c1de-8b7e-4d2a-9c3b-1e2f3a4b5c6d';
    await ingest([
      statusAdded(1, 'in_repair', 'arrived', caseGuid),
      statusAdded(1, 'awaiting_parts', 'in_repair', caseGuid),
      statusAdded(1, 'repaired', 'awaiting_parts', caseGuid),
    ]);
    await waitFor(
      () => receiver.received.filter((request) => request.path === '/elkjop').length === 3,
      'three webhooks',
    );
    const received = receiver.received.filter((request) => request.path === '/elkjop');
    expect(
      received.map((request) => [request.headers['webhook-event-type'], request.json.key, request.json.prevKey]),
    ).toEqual([
      ['status.new', 'repairing', undefined],
      ['status.new', 'repaired', undefined],
      ['status.transition', 'repaired', 'repairing'],
    ]);
    for (const request of received)
      expect(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)).toBeTruthy();
  });

  it('keeps status rules per partner in the catalog and follows a later world', async () => {
    const rulesOf = async (partnerId: number) =>
      (await hub.broker.call<Record<number, unknown>, object>('catalog.statusRules', { partnerIds: [partnerId] }))[
        partnerId
      ];
    expect(await rulesOf(1)).toEqual({
      mappings: { awaiting_parts: 'repairing', in_repair: 'repairing' },
      blacklist: [],
    });
    expect(await rulesOf(2)).toEqual({
      mappings: {},
      blacklist: ['diagnosed'],
    });
    const world = worldWith({
      subscriptions: [],
      statusMappings: [{ partnerId: 2, providerKey: 'final', partnerKey: 'done' }],
      blacklists: [],
    });
    expect(
      (await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world, skipUnowned: true } }))
        .status,
    ).toBe(200);
    expect(await rulesOf(1)).toEqual({ mappings: {}, blacklist: [] });
    expect(await rulesOf(2)).toEqual({
      mappings: { final: 'done' },
      blacklist: [],
    });
    const subscriptions = await hub.request('GET', '/api/admin/webhooks/subscriptions', { token: DEMO_TOKENS.admin });
    expect(subscriptions.body.data.find((subscription: { id: number }) => subscription.id === 50)).toMatchObject({
      state: 'removed',
      partnerId: 1,
    });
  });
});

describe('ownership of subscriptions', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({ services: ['catalog', 'gateway', 'webhooks'] });
  });
  afterAll(() => hub.stop());

  const admin = (method: string, path: string, body?: unknown) =>
    hub.request(method, `/api/admin/webhooks${path}`, { token: DEMO_TOKENS.admin, body });
  const loadWorld = (subscriptions: NonNullable<World['webhooks']>['subscriptions']) =>
    hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world: worldWith({ subscriptions }), skipUnowned: true },
    });
  const target = (path: string) => ({ kind: 'http' as const, url: `${receiver.url}${path}` });

  it('keeps a subscription on its account: neither the admin API nor a world file moves it, nor does a file take one the API made', async () => {
    const made = await admin('POST', '/subscriptions', {
      accountId: 2,
      eventTypes: ['status.new'],
      target: target('/made'),
    });
    expect(made.status).toBe(200);
    const moved = await admin('PUT', `/subscriptions/${made.body.data.id}`, { accountId: 3 });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details).toEqual({
      accountId: ['The account of a subscription cannot change: make a new subscription for the other account'],
    });

    const taken = await loadWorld([
      { id: made.body.data.id, accountId: 2, eventTypes: ['status.new'], target: target('/taken') },
    ]);
    expect(taken.status).toBe(400);
    expect(taken.body.error.details).toEqual({
      'webhooks.subscriptions[0].id': ['This id belongs to a subscription made through the admin API'],
    });
    expect(
      (await loadWorld([{ id: 60, accountId: 2, eventTypes: ['status.new'], target: target('/world') }])).status,
    ).toBe(200);
    const reassigned = await loadWorld([
      { id: 60, accountId: 3, eventTypes: ['status.new'], target: target('/world') },
    ]);
    expect(reassigned.status).toBe(400);
    expect(reassigned.body.error.details).toEqual({
      'webhooks.subscriptions[0].accountId': [expect.stringContaining('cannot change')],
    });

    const listed = (await admin('GET', '/subscriptions')).body.data as Array<{
      id: number;
      partnerId: number | null;
      target: { url: string };
    }>;
    expect(listed.find((subscription) => subscription.id === made.body.data.id)).toMatchObject({
      partnerId: 1,
      target: { url: `${receiver.url}/made` },
    });
    expect(listed.find((subscription) => subscription.id === 60)).toMatchObject({ partnerId: 1 });
  });

  it('refuses a secret longer than its column and takes the path id over a body id', async () => {
    const made = await admin('POST', '/subscriptions', {
      accountId: 2,
      eventTypes: ['status.new'],
      target: target('/one'),
    });
    const other = await admin('POST', '/subscriptions', {
      accountId: 2,
      eventTypes: ['status.new'],
      target: target('/two'),
    });
    const long = await admin('POST', `/subscriptions/${made.body.data.id}/rotate-secret`, {
      secret: `whsec_${'A'.repeat(200)}`,
    });
    expect(long.status).toBe(400);
    expect((await admin('DELETE', `/subscriptions/${made.body.data.id}`, { id: other.body.data.id })).status).toBe(200);
    const listed = (await admin('GET', '/subscriptions')).body.data as Array<{ id: number; state: string }>;
    expect(listed.find((subscription) => subscription.id === made.body.data.id)?.state).toBe('removed');
    expect(listed.find((subscription) => subscription.id === other.body.data.id)?.state).toBe('active');
  });
});

describe('target safety', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({
      services: ['catalog', 'gateway', 'webhooks'],
      env: { WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_ALLOWED_NETWORKS: 'none' },
    });
  });
  afterAll(() => hub.stop());

  it.each(['127.0.0.1', 'localhost'])('refuses to connect to %s when loopback is not allowed', async (host) => {
    const url = receiver.url.replace('127.0.0.1', host) + '/inside';
    const created = await hub.request('POST', '/api/admin/webhooks/subscriptions', {
      token: DEMO_TOKENS.admin,
      body: { accountId: 3, eventTypes: ['status.new'], target: { kind: 'http', url } },
    });
    expect(created.status).toBe(200);
    const before = receiver.received.length;
    await hub.broker.call('webhooks.ingest', { events: [statusAdded(2, 'arrived', 'registered')] });
    const listed = async () =>
      (
        await hub.request('GET', `/api/admin/webhooks/deliveries?subscriptionId=${created.body.data.id}&state=dead`, {
          token: DEMO_TOKENS.admin,
        })
      ).body.data;
    await waitFor(async () => (await listed()).length === 1, 'the dead delivery');
    const [delivery] = await listed();
    const attempts = await hub.request('GET', `/api/admin/webhooks/deliveries/${delivery.id}/attempts`, {
      token: DEMO_TOKENS.admin,
    });
    expect(attempts.body.data).toEqual([
      expect.objectContaining({ ok: false, errorKind: 'blocked_address', statusCode: null }),
    ]);
    expect(receiver.received.length).toBe(before);
    expect(
      (
        await hub.request('DELETE', `/api/admin/webhooks/subscriptions/${created.body.data.id}`, {
          token: DEMO_TOKENS.admin,
        })
      ).status,
    ).toBe(200);
  });
});

describe('a target named by its host', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({ services: ['catalog', 'gateway', 'webhooks'] });
  });
  afterAll(() => hub.stop());

  it('delivers every webhook to the address its name resolves to while loopback is allowed', async () => {
    const created = await hub.request('POST', '/api/admin/webhooks/subscriptions', {
      token: DEMO_TOKENS.admin,
      body: {
        accountId: 3,
        eventTypes: ['status.new'],
        target: { kind: 'http', url: receiver.url.replace('127.0.0.1', 'localhost') + '/named' },
      },
    });
    expect(created.status).toBe(200);
    await hub.broker.call('webhooks.ingest', {
      events: Array.from({ length: 6 }, () => statusAdded(2, 'arrived', 'registered')),
    });
    const named = () => receiver.received.filter((request) => request.path === '/named');
    await waitFor(() => named().length === 6, 'six webhooks at the named target');
    expect(new Set(named().map((request) => request.headers['webhook-id'])).size).toBe(6);
  });
});
