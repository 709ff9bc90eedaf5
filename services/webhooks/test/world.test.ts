/**
 * Subscriptions, status mappings and blacklists from the world file, the statusRules lookup,
 * and target safety on a hub that allows no loopback.
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
    hub = await startTestHub({ services: ['catalog', 'gateway', 'webhooks'], env: { WEBHOOK_RETRY_SCHEDULE: '0,50ms' } });
  });
  afterAll(() => hub.stop());

  const ingest = (events: DomainEvent[]) => hub.broker.call('webhooks.ingest', { events });

  it('delivers status webhooks with the partner mapping and transition rules of a world subscription', async () => {
    const world = worldWith({
      subscriptions: [
        { id: 50, accountId: 2, eventTypes: ['status.new', 'status.transition'], target: { kind: 'http', url: `${receiver.url}/elkjop` }, secret: SECRET, statusTransitions: [{ from: 'repairing' }] },
      ],
    });
    expect((await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world, skipUnowned: true } })).status).toBe(200);
    const caseGuid = 'a4f0c1de-8b7e-4d2a-9c3b-1e2f3a4b5c6d';
    await ingest([statusAdded(1, 'in_repair', 'arrived', caseGuid), statusAdded(1, 'awaiting_parts', 'in_repair', caseGuid), statusAdded(1, 'repaired', 'awaiting_parts', caseGuid)]);
    await waitFor(() => receiver.received.filter((request) => request.path === '/elkjop').length === 3, 'three webhooks');
    const received = receiver.received.filter((request) => request.path === '/elkjop');
    expect(received.map((request) => [request.headers['webhook-event-type'], request.json.key, request.json.prevKey])).toEqual([
      ['status.new', 'repairing', undefined],
      ['status.new', 'repaired', undefined],
      ['status.transition', 'repaired', 'repairing'],
    ]);
    for (const request of received) expect(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)).toBeTruthy();
  });

  it('answers status rules per partner and follows a later world', async () => {
    expect(await hub.broker.call('webhooks.statusRules', { partnerId: 1 })).toEqual({ mappings: { awaiting_parts: 'repairing', in_repair: 'repairing' }, blacklist: [] });
    expect(await hub.broker.call('webhooks.statusRules', { partnerId: 2 })).toEqual({ mappings: {}, blacklist: ['diagnosed'] });
    const world = worldWith({ subscriptions: [], statusMappings: [{ partnerId: 2, providerKey: 'final', partnerKey: 'done' }], blacklists: [] });
    expect((await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world, skipUnowned: true } })).status).toBe(200);
    expect(await hub.broker.call('webhooks.statusRules', { partnerId: 1 })).toEqual({ mappings: {}, blacklist: [] });
    expect(await hub.broker.call('webhooks.statusRules', { partnerId: 2 })).toEqual({ mappings: { final: 'done' }, blacklist: [] });
    const subscriptions = await hub.request('GET', '/api/admin/webhooks/subscriptions', { token: DEMO_TOKENS.admin });
    expect(subscriptions.body.data.find((subscription: { id: number }) => subscription.id === 50)).toMatchObject({ state: 'removed', partnerId: 1 });
  });
});

describe('target safety', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({ services: ['catalog', 'gateway', 'webhooks'], env: { WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_ALLOWED_NETWORKS: 'none' } });
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
    const listed = async () => (await hub.request('GET', `/api/admin/webhooks/deliveries?subscriptionId=${created.body.data.id}&state=dead`, { token: DEMO_TOKENS.admin })).body.data;
    await waitFor(async () => (await listed()).length === 1, 'the dead delivery');
    const [delivery] = await listed();
    const attempts = await hub.request('GET', `/api/admin/webhooks/deliveries/${delivery.id}/attempts`, { token: DEMO_TOKENS.admin });
    expect(attempts.body.data).toEqual([expect.objectContaining({ ok: false, errorKind: 'blocked_address', statusCode: null })]);
    expect(receiver.received.length).toBe(before);
    expect((await hub.request('DELETE', `/api/admin/webhooks/subscriptions/${created.body.data.id}`, { token: DEMO_TOKENS.admin })).status).toBe(200);
  });
});
