/**
 * Benchmark: webhook deliveries per second from the webhooks service to a local HTTP receiver,
 * and event-to-receiver latency (from the ingest call that stores the event to the receiver
 * reading the request), beside a raw loop of the same signed POSTs over keep-alive connections
 * at the same concurrency, in the same run, on the embedded database.
 *
 * SUBSCRIPTIONS subscriptions of one partner each get every event, so at most
 * SUBSCRIPTIONS x 4 (the default per-subscription limit) attempts are in flight; the raw loop
 * runs that many workers. Events are ingested in batches as a producer's outbox relay would.
 *
 * Run after `npm run build`: node bench/webhooks.js [events, default 2000]
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { Webhook } = require('standardwebhooks');
const { loadConfig, startHub, readWorld, DEMO_WORLD_FILE } = require('../shared/dist');

const EVENTS = Number(process.argv[2] ?? 2000);
const SUBSCRIPTIONS = 4;
const CONCURRENCY = SUBSCRIPTIONS * 4;
const BATCH = 100;
const SECRET = 'whsec_' + Buffer.alloc(32, 5).toString('base64');

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function summary(count, startedAt, latencies) {
  const elapsed = (Math.max(...latencies.map((l) => l.at)) - startedAt) / 1000;
  const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b);
  return { deliveries: count, perSecond: Math.round(count / elapsed), latencyP50ms: +percentile(sorted, 50).toFixed(1), latencyP99ms: +percentile(sorted, 99).toFixed(1) };
}

/** A keep-alive receiver answering 204; `onRequest` sees each webhook-id as it is read. */
async function startReceiver(onRequest) {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      onRequest(req.headers['webhook-id'], req.url);
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

function payloadOf(i, guid) {
  return { id: i + 1, guid, externalId: null, name: 'Screen replacement', priceNet: 1490, currency: 'NOK', isActive: true, reaction: null, serviceProviderId: 10 };
}

async function viaService(receiverUrl, arrivals) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
  const demo = readWorld(DEMO_WORLD_FILE);
  const world = {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      subscriptions: Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({
        id: i + 1,
        accountId: 3, // Power, partner 2
        eventTypes: ['costProposal.created'],
        target: { kind: 'http', url: `${receiverUrl}/s${i + 1}` },
        secret: SECRET,
      })),
    },
  };
  const config = {
    ...loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', LOAD_DEMO_WORLD: 'false', METRICS: 'false', DATA_DIR: dataDir }),
    services: ['catalog', 'webhooks'],
  };
  const broker = await startHub(config, { initialWorld: world });
  try {
    const ingestedAt = new Map();
    const events = Array.from({ length: EVENTS }, (_, i) => {
      const guid = randomUUID();
      return { id: randomUUID(), type: 'costProposal.created', source: 'bench', occurredAt: new Date().toISOString(), caseGuid: guid, audience: { partnerId: 2 }, payload: payloadOf(i, guid) };
    });
    const startedAt = Date.now();
    for (let i = 0; i < events.length; i += BATCH) {
      const batch = events.slice(i, i + BATCH);
      const at = Date.now();
      for (const event of batch) ingestedAt.set(event.id, at);
      await broker.call('webhooks.ingest', { events: batch });
    }
    const expected = EVENTS * SUBSCRIPTIONS;
    while (arrivals.length < expected) await new Promise((resolve) => setTimeout(resolve, 20));
    const latencies = arrivals.map(({ id, at }) => ({ at, ms: at - ingestedAt.get(id) }));
    return summary(expected, startedAt, latencies);
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The same number of signed POSTs of the same bodies, CONCURRENCY workers over keep-alive sockets. */
async function rawLoop(receiverUrl, arrivals) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const webhook = new Webhook(SECRET);
  const total = EVENTS * SUBSCRIPTIONS;
  const sentAt = new Map();
  let next = 0;
  const post = (id, body, target) =>
    new Promise((resolve, reject) => {
      const now = new Date();
      const req = http.request(`${receiverUrl}/${target}`, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': webhook.sign(id, now, body),
          'webhook-event-type': 'costProposal.created',
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  const startedAt = Date.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const id = randomUUID();
      const guid = randomUUID();
      sentAt.set(id, Date.now());
      await post(id, JSON.stringify(payloadOf(i, guid)), `s${(i % SUBSCRIPTIONS) + 1}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  const latencies = arrivals.map(({ id, at }) => ({ at, ms: at - sentAt.get(id) }));
  return summary(total, startedAt, latencies);
}

async function main() {
  let arrivals = [];
  const receiver = await startReceiver((id) => arrivals.push({ id, at: Date.now() }));
  try {
    const service = await viaService(receiver.url, arrivals);
    arrivals = [];
    const raw = await rawLoop(receiver.url, arrivals);
    console.log(JSON.stringify({ node: process.version, cpus: os.cpus().length, events: EVENTS, subscriptions: SUBSCRIPTIONS, concurrency: CONCURRENCY, webhooksService: service, rawSignedPosts: raw }, null, 2));
  } finally {
    receiver.server.closeAllConnections();
    receiver.server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
