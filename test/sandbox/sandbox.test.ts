/**
 * The sandbox provider through the HTTP API: a partner books a case that routes to the demo
 * world's simulated Sandbox Workshop and, with nobody acting as the provider, receives at its
 * real HTTP receiver the statuses, messages and the cost proposal; its answer decides the repair
 * or the return, then the invoice and the shipment follow, each exactly once, and every record
 * reads back through the API as the provider's own. The sandbox goes on where it stopped after a
 * restart, and a step taken again after a crash repeats nothing.
 */
import type { Knex } from 'knex';
import { databaseOf, DEMO_WORLD_FILE, readWorld, SIMULATION_DELAY_STEPS, type World } from '../../shared/src';
import { serviceSchemaOf } from '../../cli/src';
import { type Received, type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';
import { bookCase, UNKNOWN_GUID } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { documentedAnswer } from '../support/openapi';

/** The demo world's simulated provider, its account, and the partner whose cases it gets. */
const WORKSHOP = { providerId: 40, accountId: 8, name: 'Sandbox Workshop API' };
const SHOP_SUBSCRIPTION = 951;
const EVENT_TYPES = ['status.new', 'costProposal.created', 'message.created', 'case.updated', 'invoice.saved'];
const PRODUCERS = ['booking', 'cost-proposals', 'messaging', 'invoicing'];

let receiver: Receiver;
let hub: TestHub;
let knex: Knex;

beforeAll(async () => {
  receiver = await startReceiver();
  const demo = readWorld(DEMO_WORLD_FILE);
  // Every step at once: the schedule is the world's, and a test has no time to wait.
  const delays = Object.fromEntries(SIMULATION_DELAY_STEPS.map((step) => [step, '0']));
  const world: World = {
    ...demo,
    providers: demo.providers!.map((provider) =>
      provider.simulated ? { ...provider, simulated: { ...provider.simulated, delays } } : provider,
    ),
    webhooks: {
      ...demo.webhooks,
      subscriptions: [
        {
          id: SHOP_SUBSCRIPTION,
          accountId: 9,
          eventTypes: EVENT_TYPES,
          target: { kind: 'http', url: `${receiver.url}/shop` },
        },
      ],
    },
  };
  hub = await startTestHub({
    services: [
      'catalog',
      'routing',
      'booking',
      'cost-proposals',
      'messaging',
      'invoicing',
      'webhooks',
      'sandbox',
      'gateway',
    ],
    world,
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      SANDBOX_POLL_INTERVAL: '50ms',
      WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    },
  });
  knex = (await databaseOf(hub.broker)).knex;
});
afterAll(async () => {
  await hub?.stop();
  await receiver?.close();
});

/** The webhooks of a case at the shop's receiver, in the order they came. */
function webhooksOf(guid: string, type?: string): Received[] {
  return receiver.received.filter(
    (request) =>
      request.path === '/shop' &&
      request.json?.guid === guid &&
      (type === undefined || request.headers['webhook-event-type'] === type),
  );
}

const statusKeysOf = (guid: string) => webhooksOf(guid, 'status.new').map((request) => request.json.key as string);
const messagesOf = (guid: string) =>
  webhooksOf(guid, 'message.created').map((request) => [request.json.type, request.json.senderAccountId]);

async function get(token: string, path: string) {
  const res = await hub.request('GET', path, { token });
  expect([path, res.status]).toEqual([path, 200]);
  return res.body;
}

async function post(token: string, path: string, body: unknown) {
  const res = await hub.request('POST', path, { token, body });
  expect([path, res.status, res.body]).toEqual([path, 200, expect.anything()]);
  return res.body;
}

const simulationOf = async (guid: string) =>
  (await get(DEMO_TOKENS.sandboxShop, `/api/v3/sandbox/simulation?guid=${guid}`)).data;

/** Books the shop's demo case and waits for the sandbox's cost proposal to reach the shop. */
async function bookUntilProposal(): Promise<{ guid: string; proposal: Record<string, any> }> {
  const guid = await bookCase(hub, DEMO_TOKENS.sandboxShop);
  await waitFor(() => webhooksOf(guid, 'costProposal.created').length > 0, 'the cost proposal webhook');
  return { guid, proposal: webhooksOf(guid, 'costProposal.created')[0].json };
}

/** Answers the proposal as the shop does, through the API. */
const answer = (proposal: Record<string, any>, reaction: 'approved' | 'rejected') =>
  post(DEMO_TOKENS.sandboxShop, '/api/v3/cost-proposals/feedback', {
    id: proposal.id,
    name: 'Integration test',
    reaction,
  });

/** The simulation has finished, every event is handed on and every delivery to the shop settled. */
async function finished(guid: string) {
  await waitFor(async () => (await simulationOf(guid)).state === 'finished', 'the simulation to finish');
  await waitFor(async () => {
    for (const service of PRODUCERS) {
      if ((await hub.broker.call<{ pending: number }>(`${service}.outboxBacklog`)).pending > 0) return false;
    }
    const pending = await hub.request(
      'GET',
      `/api/admin/webhooks/deliveries?subscriptionId=${SHOP_SUBSCRIPTION}&state=pending`,
      { token: DEMO_TOKENS.admin },
    );
    return pending.status === 200 && pending.body.data.length === 0;
  }, 'every event relayed and delivered');
}

describe('a case the partner approves', () => {
  let guid: string;
  let proposal: Record<string, any>;

  beforeAll(async () => {
    ({ guid, proposal } = await bookUntilProposal());
  });

  it('is accepted, received and diagnosed, and its cost proposal waits for the answer', async () => {
    expect(proposal).toMatchObject({ guid, name: 'Repair', priceNet: 1490, currency: 'NOK', reaction: null });
    await waitFor(() => statusKeysOf(guid).includes('awaiting_approval'), 'the status awaiting approval');
    expect(statusKeysOf(guid)).toEqual(['registered', 'received', 'diagnosing', 'awaiting_approval']);
    // The acceptance reaches the partner as the change of the case it is.
    expect(webhooksOf(guid, 'case.updated')[0].json).toMatchObject({
      guid,
      orderData: { serviceProviderExportStatus: true },
    });
    // The proposal's webhook can arrive before the simulation records that it waits for the answer.
    await waitFor(async () => (await simulationOf(guid)).step === 'answer', 'the simulation to wait for the answer');
    const waiting = await simulationOf(guid);
    expect(waiting).toMatchObject({ guid, providerId: WORKSHOP.providerId, state: 'running', step: 'answer' });
    // It looks for the answer again and again, and waits.
    await waitFor(
      async () => (await simulationOf(guid)).updatedAt !== waiting.updatedAt,
      'the sandbox to look for the answer',
    );
    expect(await simulationOf(guid)).toMatchObject({ state: 'running', step: 'answer', outcome: null });
  });

  it('is repaired, invoiced and shipped once the partner approves, each thing told once', async () => {
    await answer(proposal, 'approved');
    await finished(guid);
    expect(statusKeysOf(guid)).toEqual([
      'registered',
      'received',
      'diagnosing',
      'awaiting_approval',
      'in_repair',
      'repaired',
      'shipped',
    ]);
    const account = WORKSHOP.accountId;
    expect(messagesOf(guid)).toEqual([
      ['serviceComment', account],
      ['costProposal', account],
      ['serviceComment', account],
      ['shipment', account],
    ]);
    const invoices = webhooksOf(guid, 'invoice.saved');
    expect(invoices).toHaveLength(1);
    expect(invoices[0].json).toMatchObject({ guid, priceNet: 1490, currency: 'NOK', status: 'sent', isSent: true });
    expect(webhooksOf(guid, 'costProposal.created')).toHaveLength(1);
    expect(await simulationOf(guid)).toMatchObject({ state: 'finished', step: 'ship', outcome: 'approved' });
  });

  it('reads back through the API as the records of the provider', async () => {
    const shop = DEMO_TOKENS.sandboxShop;
    const found = await get(shop, `/api/v3/case?guid=${guid}`);
    expect(found).toMatchObject({ serviceProviderId: WORKSHOP.providerId, currentStatus: 'shipped' });
    const messages = await get(shop, `/api/v3/case-messages?guid=${guid}`);
    expect(messages.map((message: { type: string }) => message.type)).toEqual([
      'serviceComment',
      'costProposal',
      'serviceComment',
      'shipment',
    ]);
    const [invoice, ...others] = await get(shop, `/api/v3/invoices?guid=${guid}`);
    expect(others).toEqual([]);
    expect(invoice).toMatchObject({ externalId: `sandbox-${guid}`, priceNet: 1490 });
    const proposals = await get(shop, `/api/v3/cost-proposals?guid=${guid}`);
    expect(proposals).toEqual([expect.objectContaining({ id: proposal.id, reaction: 'approved' })]);
    // The history names the provider's account as the one that acted.
    const history = (await get(shop, `/api/v3/case/history?guid=${guid}`)).data as Array<{
      action: string;
      account: { id: number; name: string };
    }>;
    const workshopActions = history.filter((entry) => entry.account.id === WORKSHOP.accountId);
    expect(workshopActions.map((entry) => entry.action)).toEqual([
      'accepted',
      'statusAdded',
      'statusAdded',
      'statusAdded',
      'statusAdded',
      'statusAdded',
      'statusAdded',
    ]);
    expect(workshopActions[0].account.name).toBe(WORKSHOP.name);
  });
});

describe('a case the partner rejects', () => {
  it('goes back unrepaired, with the diagnosis invoiced', async () => {
    const { guid, proposal } = await bookUntilProposal();
    await answer(proposal, 'rejected');
    await finished(guid);
    expect(statusKeysOf(guid)).toEqual([
      'registered',
      'received',
      'diagnosing',
      'awaiting_approval',
      'not_repaired',
      'shipped',
    ]);
    expect(messagesOf(guid).map(([type]) => type)).toEqual([
      'serviceComment',
      'costProposal',
      'costProposalRejectRur',
      'shipment',
    ]);
    const invoices = webhooksOf(guid, 'invoice.saved');
    expect(invoices.map((request) => request.json.priceNet)).toEqual([390]);
    expect(await simulationOf(guid)).toMatchObject({ state: 'finished', outcome: 'rejected' });
  });
});

describe('the sandbox restarted', () => {
  it('goes on where it stopped: the answer given meanwhile is taken, and nothing is lost or repeated', async () => {
    const { guid, proposal } = await bookUntilProposal();
    await waitFor(async () => (await simulationOf(guid)).step === 'answer', 'the simulation to wait for the answer');
    await hub.broker.destroyService('sandbox');
    await answer(proposal, 'approved');
    hub.broker.createService(serviceSchemaOf('sandbox')!);
    await hub.broker.waitForServices(['sandbox']);
    await finished(guid);
    expect(statusKeysOf(guid)).toEqual([
      'registered',
      'received',
      'diagnosing',
      'awaiting_approval',
      'in_repair',
      'repaired',
      'shipped',
    ]);
    expect(messagesOf(guid)).toHaveLength(4);
    expect(webhooksOf(guid, 'invoice.saved')).toHaveLength(1);
  });

  it('repeats no request of a step taken again after a crash before it was recorded', async () => {
    const { guid, proposal } = await bookUntilProposal();
    await answer(proposal, 'approved');
    await finished(guid);
    const before = webhooksOf(guid).map((request) => request.headers['webhook-id']);
    // As a crash would leave it: the requests of the last three steps sent, none of the steps recorded.
    await knex('sandbox.simulations')
      .where({ case_guid: guid })
      .update({ state: 'running', step: 'repaired', due_at: new Date(), lease_until: null });
    await finished(guid);
    expect(webhooksOf(guid).map((request) => request.headers['webhook-id'])).toEqual(before);
    const found = await get(DEMO_TOKENS.sandboxShop, `/api/v3/case?guid=${guid}`);
    expect(found.caseStatuses.map((status: { key: string }) => status.key)).toEqual([
      'registered',
      'received',
      'diagnosing',
      'awaiting_approval',
      'in_repair',
      'repaired',
      'shipped',
    ]);
    expect(await get(DEMO_TOKENS.sandboxShop, `/api/v3/case-messages?guid=${guid}`)).toHaveLength(4);
  });
});

it("reports the sandbox's storage with every other service's", async () => {
  const answer = await hub.request('GET', '/api/admin/storage', { token: DEMO_TOKENS.admin });
  expect(answer.status).toBe(200);
  const sandbox = (
    answer.body.services as Array<{ service: string; tables: Array<{ table: string; rows: number }> }>
  ).find((figures) => figures.service === 'sandbox');
  expect(sandbox?.tables.find((table) => table.table === 'sandbox.simulations')).toMatchObject({
    rows: Number((await knex('sandbox.simulations').count({ count: '*' }))[0].count),
  });
});

describe('GET /api/v3/sandbox/simulation', () => {
  let guid: string;
  beforeAll(async () => {
    ({ guid } = await bookUntilProposal());
    // The proposal's webhook can arrive before the simulation records that it waits for the answer.
    await waitFor(async () => (await simulationOf(guid)).step === 'answer', 'the simulation to wait for the answer');
  });

  it('answers the partner and the provider of the case, as the API reference documents it', async () => {
    const res = await hub.request('GET', `/api/v3/sandbox/simulation?guid=${guid}`, {
      token: DEMO_TOKENS.sandboxWorkshop,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ guid, state: 'running', step: 'answer', stoppedReason: null });
    expect(Number.isNaN(Date.parse(res.body.data.dueAt))).toBe(false);
    const { operation, example, validate } = await documentedAnswer(hub, 'GET', '/v3/sandbox/simulation');
    expect(operation['x-access']).toBe('partner+provider');
    expect({ valid: validate(res.body), errors: validate.errors }).toEqual({ valid: true, errors: null });
    expect(validate(example)).toBe(true);
  });

  it("is a 404 for another partner's case and for a case no simulated provider has", async () => {
    const other = await hub.request('GET', `/api/v3/sandbox/simulation?guid=${guid}`, { token: DEMO_TOKENS.power });
    expect(other.status).toBe(404);
    const elkjopCase = await bookCase(hub, DEMO_TOKENS.elkjop);
    const real = await hub.request('GET', `/api/v3/sandbox/simulation?guid=${elkjopCase}`, {
      token: DEMO_TOKENS.elkjop,
    });
    expect(real.status).toBe(404);
    expect(real.body.error.message).toBe(
      'The case is not at a simulated provider, or the sandbox has not taken it up yet (it looks for new cases every SANDBOX_POLL_INTERVAL)',
    );
    const unknown = await hub.request('GET', `/api/v3/sandbox/simulation?guid=${UNKNOWN_GUID}`, {
      token: DEMO_TOKENS.sandboxShop,
    });
    expect(unknown.status).toBe(404);
  });

  it('names a malformed guid, and refuses an admin and a missing token', async () => {
    const bad = await hub.request('GET', '/api/v3/sandbox/simulation?guid=nope', { token: DEMO_TOKENS.sandboxShop });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details)).toEqual(['guid']);
    const admin = await hub.request('GET', `/api/v3/sandbox/simulation?guid=${guid}`, { token: DEMO_TOKENS.admin });
    expect(admin.status).toBe(403);
    expect((await hub.request('GET', `/api/v3/sandbox/simulation?guid=${guid}`)).status).toBe(401);
  });
});
