/**
 * The sandbox in distributed mode: its own OS process over NATS beside a process with the rest of
 * the hub, on the Postgres server. Killed (SIGKILL) in the middle of a case's life and again while
 * the case waits for the partner's answer, then started anew, it takes up each case where it was:
 * the partner's receiver gets every status, message, the cost proposal and the invoice, each once.
 */
import { DEMO_WORLD_FILE, readWorld, SIMULATION_DELAY_STEPS, type World } from '../../shared/src';
import { type Received, type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';
import { caseBody } from '../support/cases';
import { createServerDatabase, DEMO_TOKENS, httpRequest, waitFor } from '../support/hub';
import { clusterEnv, runHub, spawnHub, waitForOk, writeWorldFile, type HubProcess } from '../support/processes';

const HUB_SERVICES = 'catalog,routing,models,booking,cost-proposals,messaging,invoicing,webhooks,gateway';
const EVENT_TYPES = ['status.new', 'costProposal.created', 'message.created', 'invoice.saved'];
const shop = DEMO_TOKENS.sandboxShop;

let database: { url: string; drop(): Promise<void> };
let env: Record<string, string>;
let baseUrl: string;
let receiver: Receiver;
let hub: HubProcess;
let sandbox: HubProcess;

const startSandbox = () => spawnHub(['start'], { ...env, SERVICES: 'sandbox', NODE_ID: 'sandbox-1' });

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  ({ env, baseUrl } = await clusterEnv(database.url, {
    RATE_LIMIT_PER_MINUTE: '1000000',
    SANDBOX_POLL_INTERVAL: '100ms',
    WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms',
    // The receiver is on this machine, which distributed mode's target safety refuses by default.
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  }));
  hub = spawnHub(['start'], { ...env, SERVICES: HUB_SERVICES, NODE_ID: 'hub-1' });
  sandbox = startSandbox();
  const demo = readWorld(DEMO_WORLD_FILE);
  // Every step at once. The world loads only once the sandbox runs: it owns a part of it.
  const delays = Object.fromEntries(SIMULATION_DELAY_STEPS.map((step) => [step, '0']));
  const world: World = {
    ...demo,
    providers: demo.providers!.map((provider) =>
      provider.simulated ? { ...provider, simulated: { ...provider.simulated, delays } } : provider,
    ),
    webhooks: {
      ...demo.webhooks,
      subscriptions: [
        { id: 951, accountId: 9, eventTypes: EVENT_TYPES, target: { kind: 'http', url: `${receiver.url}/shop` } },
      ],
    },
  };
  const loaded = await runHub(['world', 'load', writeWorldFile(world)], env);
  expect({ code: loaded.code, output: loaded.output }).toEqual({ code: 0, output: expect.stringContaining('Loaded') });
  await waitForOk(baseUrl, '/api/v3/provider?id=40', 'the gateway', { token: shop, timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await sandbox?.stop();
  await hub?.stop();
  await database?.drop();
  await receiver?.close();
});

function webhooksOf(guid: string, type?: string): Received[] {
  return receiver.received.filter(
    (request) => request.json?.guid === guid && (type === undefined || request.headers['webhook-event-type'] === type),
  );
}

/** Every outbox handed on and every delivery settled, as the operators' overview counts them. */
async function settled(): Promise<boolean> {
  const res = await httpRequest(baseUrl, 'GET', '/api/admin/overview?hours=1', { token: DEMO_TOKENS.admin });
  const { outbox, webhooks } = res.body as {
    outbox: Array<{ pending: number | null }>;
    webhooks: { totals: { pending: number } } | null;
  };
  return res.status === 200 && outbox.every((entry) => entry.pending === 0) && webhooks?.totals.pending === 0;
}

async function simulationOf(guid: string) {
  const res = await httpRequest(baseUrl, 'GET', `/api/v3/sandbox/simulation?guid=${guid}`, { token: shop });
  return res.status === 200 ? res.body.data : null;
}

it('takes a case up where a killed sandbox left it, and tells the partner everything once', async () => {
  const booked = await httpRequest(baseUrl, 'POST', '/api/v3/case/create', { token: shop, body: caseBody(shop) });
  expect(booked.status).toBe(200);
  const guid: string = booked.body.guid;

  // Killed as soon as the case is under way, wherever in its steps the sandbox then is.
  await waitFor(() => webhooksOf(guid, 'message.created').length > 0, 'the first message', 30_000);
  await sandbox.stop('SIGKILL');
  sandbox = startSandbox();
  await waitFor(() => webhooksOf(guid, 'costProposal.created').length > 0, 'the cost proposal', 60_000);
  // With no delays, the killed sandbox may have sent the proposal before it recorded the step: the
  // restarted one records it once the killed one's lease on the case (30 s) has run out.
  await waitFor(
    async () => (await simulationOf(guid))?.step === 'answer',
    'the simulation to wait for the answer',
    60_000,
  );

  // Killed again while it waits; the partner answers meanwhile.
  await sandbox.stop('SIGKILL');
  const proposal = webhooksOf(guid, 'costProposal.created')[0].json;
  const answered = await httpRequest(baseUrl, 'POST', '/api/v3/cost-proposals/feedback', {
    token: shop,
    body: { id: proposal.id, name: 'Integration test', reaction: 'approved' },
  });
  expect(answered.status).toBe(200);
  sandbox = startSandbox();

  await waitFor(async () => (await simulationOf(guid))?.state === 'finished', 'the simulation to finish', 60_000);
  await waitFor(settled, 'every event handed on and delivered', 30_000);
  expect(webhooksOf(guid, 'status.new').map((request) => request.json.key)).toEqual([
    'registered',
    'received',
    'diagnosing',
    'awaiting_approval',
    'in_repair',
    'repaired',
    'shipped',
  ]);
  expect(webhooksOf(guid, 'message.created').map((request) => request.json.type)).toEqual([
    'serviceComment',
    'costProposal',
    'serviceComment',
    'shipment',
  ]);
  expect(webhooksOf(guid, 'costProposal.created')).toHaveLength(1);
  expect(webhooksOf(guid, 'invoice.saved').map((request) => request.json.priceNet)).toEqual([1490]);
}, 240_000);
