/**
 * Benchmark: webhook deliveries per second from the webhooks service to a local HTTP receiver
 * and to a local RabbitMQ queue, each beside a raw loop of the same signed POSTs (keep-alive) or
 * publishes (confirm channel, persistent, mandatory) at the same concurrency, in the same run,
 * on the embedded database and on the Postgres server.
 *
 * SUBSCRIPTIONS subscriptions of one partner each get every event, so at most
 * SUBSCRIPTIONS x 4 (the default per-subscription limit) attempts are in flight; the raw loops
 * run that many workers. A burst of events is ingested in batches as a producer's outbox relay
 * hands them over (its batch size, as many calls under way at once as it keeps), then a paced
 * trickle that never queues. Latency runs from the ingest call (the event stored) to the receiver
 * reading the request or consuming the message; for the raw loops, from the start of the POST or
 * publish.
 *
 * Both sides are measured warm, as a hub that has been running delivers: the hub first delivers
 * a burst of the same size that is not measured (its rate is reported as `coldPerSecond`), and
 * the raw loop makes its sends once before the measured pass: a process's first burst spends much
 * of its CPU compiling the code it runs.
 *
 * Every run counts what each receiver got by (subscription, webhook-id): a delivery that never
 * arrives fails the run, and one that arrives twice is counted as a duplicate.
 *
 * `fairness` (Postgres server, HTTP): the burst three times, with every receiver answering at once,
 * with the fourth answering in 200 ms, and with the fourth answering 500 to everything; the rate
 * of the other three in each, and its share of the first.
 *
 * Run after `npm run build`: node bench/webhooks.js [events, default 2000] [embedded|postgres|both|fairness]
 * The Postgres server is taken from BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * RabbitMQ from BENCH_AMQP_URL (default amqp://guest:guest@127.0.0.1:5672). The HTTP receivers are
 * addressed by BENCH_TARGET_HOST (default 127.0.0.1; `localhost` measures targets named by a host,
 * which the hub looks up and checks). `--quick`: 50 events
 * and 10 paced. Ends with one JSON line (bench/lib/benchmark.js).
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomUUID, randomBytes } = require('node:crypto');
const amqp = require('amqplib');
const { Webhook } = require('standardwebhooks');
const { loadConfig, readWorld, DEMO_WORLD_FILE, OUTBOX_SETTINGS } = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { quick, args, loadAverage, percentile, ratio, runBenchmark } = require('./lib/benchmark');
const { scratchDatabase } = require('./lib/databases');

const EVENTS = quick ? 50 : Number(args[0] ?? 2000);
const WHICH = args[1] ?? 'both';
const AMQP = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const TARGET_HOST = process.env.BENCH_TARGET_HOST ?? '127.0.0.1';
const SUBSCRIPTIONS = 4;
const CONCURRENCY = SUBSCRIPTIONS * 4;
const PACED_EVENTS = quick ? 10 : 100;
const PACED_PER_SECOND = 20;
const ARRIVAL_DEADLINE_MS = 600_000;
const SECRET = 'whsec_' + Buffer.alloc(32, 5).toString('base64');
const EVENT_TYPE = 'costProposal.created';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(ms, 0)));

/**
 * Where every receiver reports what it read: the webhook-id, the subscription's target (each
 * event reaches every subscription under the same webhook-id) and when. Only the first arrival
 * of each (target, webhook-id) counts; later ones are duplicates.
 */
const arrivals = {
  list: [],
  seen: new Set(),
  /** First arrivals by target, so that waiting for them costs nothing in the process measured. */
  perTarget: new Map(),
  duplicates: 0,
  take() {
    const taken = { received: this.list, duplicates: this.duplicates };
    this.list = [];
    this.seen = new Set();
    this.perTarget = new Map();
    this.duplicates = 0;
    return taken;
  },
};
const arrive = (id, target) => {
  const key = `${target} ${id}`;
  if (arrivals.seen.has(key)) arrivals.duplicates++;
  else {
    arrivals.seen.add(key);
    arrivals.list.push({ id, target, at: Date.now() });
    arrivals.perTarget.set(target, (arrivals.perTarget.get(target) ?? 0) + 1);
  }
};

/** Waits until `count` distinct deliveries to the targets `counted` picks have arrived. */
async function allArrived(count, counted = () => true) {
  const deadline = Date.now() + ARRIVAL_DEADLINE_MS;
  const arrived = () => {
    let sum = 0;
    for (const [target, first] of arrivals.perTarget) if (counted(target)) sum += first;
    return sum;
  };
  while (arrived() < count) {
    if (Date.now() > deadline) throw new Error(`Only ${arrived()} of ${count} deliveries arrived: lost`);
    await sleep(20);
  }
  const { received, duplicates } = arrivals.take();
  return { received: received.filter((r) => counted(r.target)), duplicates };
}

/** Deliveries per second over the whole run and latency from each id's start. */
function summary(startedAt, { received, duplicates }, startOf) {
  const elapsedS = (Math.max(...received.map((r) => r.at)) - startedAt) / 1000;
  const sorted = received.map((r) => r.at - startOf.get(r.id)).sort((a, b) => a - b);
  return {
    deliveries: received.length,
    lost: 0,
    duplicates,
    perSecond: Math.round(received.length / elapsedS),
    latencyP50ms: percentile(sorted, 50),
    latencyP99ms: percentile(sorted, 99),
  };
}

function payloadOf(i, guid) {
  return {
    id: i + 1,
    guid,
    externalId: null,
    name: 'Screen replacement',
    priceNet: 1490,
    currency: 'NOK',
    isActive: true,
    reaction: null,
    serviceProviderId: 10,
  };
}

function signedHeaders(webhook, id, body) {
  const now = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': webhook.sign(id, now, body),
    'webhook-event-type': EVENT_TYPE,
  };
}

/**
 * A keep-alive receiver answering 204, or as `answerOf(path)` says: `{ delayMs }` answers 204
 * that much later, `{ status }` answers that status at once (a delivery only when 2xx).
 */
async function startHttpReceiver(answerOf = () => ({})) {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const { delayMs = 0, status = 204 } = answerOf(req.url);
      const answer = () => {
        if (status < 300) arrive(req.headers['webhook-id'], req.url);
        res.writeHead(status).end();
      };
      // A timer of 0 ms still waits a millisecond or more: an answer at once is given at once.
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    targets: Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({
      kind: 'http',
      url: `http://${TARGET_HOST}:${server.address().port}/s${i + 1}`,
    })),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** One durable queue per subscription, consumed on its own connection. */
async function startAmqpReceiver() {
  const connection = await amqp.connect(AMQP);
  const channel = await connection.createChannel();
  await channel.prefetch(1000);
  const queues = Array.from(
    { length: SUBSCRIPTIONS },
    (_, i) => `hub-bench-${randomBytes(4).toString('hex')}-s${i + 1}`,
  );
  for (const queue of queues) {
    await channel.assertQueue(queue, { durable: true });
    // A null message is the cancel that deleting the queue sends.
    await channel.consume(queue, (message) => message && arrive(message.properties.messageId, queue), {
      noAck: true,
    });
  }
  return {
    targets: queues.map((queue) => ({ kind: 'amqp', url: AMQP, queue })),
    close: async () => {
      for (const queue of queues) await channel.deleteQueue(queue);
      await connection.close();
    },
  };
}

/**
 * Ingests a burst of events, then a paced trickle, through a hub whose subscriptions point at
 * `targets`. With `counted`, only the burst's deliveries to the targets it picks are waited for
 * and measured, and no trickle follows. `beforeMeasuring` runs between the warm-up burst and the
 * measured one.
 */
async function viaService(env, targets, counted, beforeMeasuring = () => undefined) {
  const demo = readWorld(DEMO_WORLD_FILE);
  const world = {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      subscriptions: targets.map((target, i) => ({
        id: i + 1,
        accountId: 3 /* Power, partner 2 */,
        eventTypes: [EVENT_TYPE],
        target,
        secret: SECRET,
      })),
    },
  };
  const config = {
    // Receivers are on loopback, which target safety denies unless the allow list names it.
    ...loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      LOAD_DEMO_WORLD: 'false',
      METRICS: 'false',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      ...env,
    }),
    services: ['catalog', 'webhooks'],
  };
  const broker = await startHub(config, { initialWorld: world });
  const events = (count) =>
    Array.from({ length: count }, (_, i) => {
      const guid = randomUUID();
      return {
        id: randomUUID(),
        type: EVENT_TYPE,
        source: 'bench',
        occurredAt: new Date().toISOString(),
        caseGuid: guid,
        audience: { partnerId: 2 },
        payload: payloadOf(i, guid),
      };
    });
  const ingest = async (batch, ingestedAt) => {
    const at = Date.now();
    for (const event of batch) ingestedAt.set(event.id, at);
    await broker.call('webhooks.ingest', { events: batch });
  };
  /** A burst, and the arrivals of its deliveries to the targets `to` picks. */
  const deliverBurst = async (to = () => true) => {
    const burstAt = new Map();
    const burst = events(EVENTS);
    const startedAt = Date.now();
    let next = 0;
    const handOver = async () => {
      while (next < burst.length) {
        const batch = burst.slice(next, (next += OUTBOX_SETTINGS.batchSize));
        await ingest(batch, burstAt);
      }
    };
    await Promise.all(Array.from({ length: OUTBOX_SETTINGS.handOversAtOnce }, handOver));
    const toTargets = targets.filter((target) => to(target.url)).length;
    return summary(startedAt, await allArrived(EVENTS * toTargets, to), burstAt);
  };
  try {
    // Every delivery of the warm-up arrives before the measured burst starts.
    const cold = await deliverBurst();
    beforeMeasuring();
    const burstResult = {
      ...(await deliverBurst(counted)),
      coldPerSecond: cold.perSecond,
      coldDuplicates: cold.duplicates,
    };
    if (counted) return burstResult;

    const pacedAt = new Map();
    const pacedStart = Date.now();
    for (const [i, event] of events(PACED_EVENTS).entries()) {
      await sleep(pacedStart + (i * 1000) / PACED_PER_SECOND - Date.now());
      await ingest([event], pacedAt);
    }
    const { latencyP50ms, latencyP99ms } = summary(pacedStart, await allArrived(PACED_EVENTS * SUBSCRIPTIONS), pacedAt);
    return {
      ...burstResult,
      paced: {
        eventsPerSecond: PACED_PER_SECOND,
        deliveries: PACED_EVENTS * SUBSCRIPTIONS,
        latencyP50ms,
        latencyP99ms,
      },
    };
  } finally {
    await broker.stop();
  }
}

/**
 * The same number of sends of the same bodies, CONCURRENCY workers, spread over the targets:
 * once to warm up, then measured.
 */
async function rawLoop(send) {
  const webhook = new Webhook(SECRET);
  const total = EVENTS * SUBSCRIPTIONS;
  const pass = async () => {
    const sentAt = new Map();
    let next = 0;
    const startedAt = Date.now();
    const worker = async () => {
      while (next < total) {
        const i = next++;
        const id = randomUUID();
        const body = JSON.stringify(payloadOf(i, randomUUID()));
        sentAt.set(id, Date.now());
        await send(i % SUBSCRIPTIONS, body, signedHeaders(webhook, id, body));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return summary(startedAt, await allArrived(total), sentAt);
  };
  await pass();
  return pass();
}

async function rawHttp(targets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    return await rawLoop(
      (target, body, headers) =>
        new Promise((resolve, reject) => {
          const req = http.request(targets[target].url, {
            method: 'POST',
            agent,
            headers: { ...headers, 'content-type': 'application/json' },
          });
          req.on('response', (res) => {
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
          req.end(body);
        }),
    );
  } finally {
    agent.destroy();
  }
}

async function rawAmqp(targets) {
  const connection = await amqp.connect(AMQP);
  const channel = await connection.createConfirmChannel();
  try {
    return await rawLoop(
      (target, body, headers) =>
        new Promise((resolve, reject) => {
          const options = {
            persistent: true,
            mandatory: true,
            contentType: 'application/json',
            messageId: headers['webhook-id'],
            type: EVENT_TYPE,
            headers,
          };
          channel.publish('', targets[target].queue, Buffer.from(body), options, (err) =>
            err ? reject(err) : resolve(),
          );
        }),
    );
  } finally {
    await connection.close();
  }
}

async function measure(database, env) {
  const results = [];
  for (const [transport, startReceiver, raw] of [
    ['HTTP', startHttpReceiver, rawHttp],
    ['AMQP', startAmqpReceiver, rawAmqp],
  ]) {
    const receiver = await startReceiver();
    try {
      const loadAtStart = loadAverage();
      const service = await viaService(await env(), receiver.targets);
      const rawResult = await raw(receiver.targets);
      results.push({ database, transport, loadAtStart, loadAtEnd: loadAverage(), service, raw: rawResult });
    } finally {
      await receiver.close();
    }
  }
  return results;
}

/**
 * The rate of the first three receivers when the fourth answers at once, in 200 ms, or 500 to
 * everything, each on a fresh database on the Postgres server.
 */
async function fairness() {
  const databases = [];
  const others = (target) => !target.endsWith(`/s${SUBSCRIPTIONS}`);
  const runs = {};
  try {
    for (const [name, fourth] of [
      ['allAtOnce', {}],
      ['fourthIn200ms', { delayMs: 200 }],
      ['fourthAnswers500', { status: 500 }],
    ]) {
      databases.push(await scratchDatabase('hub_bench'));
      // The fourth answers at once through the warm-up, so none of its retries falls in the measured burst.
      let measuring = false;
      const receiver = await startHttpReceiver((path) => (others(path) || !measuring ? {} : fourth));
      try {
        const loadAtStart = loadAverage();
        const service = await viaService({ DATABASE_URL: databases.at(-1).url }, receiver.targets, others, () => {
          measuring = true;
        });
        runs[name] = { loadAtStart, loadAtEnd: loadAverage(), othersPerSecond: service.perSecond, ...service };
      } finally {
        receiver.close();
      }
    }
  } finally {
    for (const database of databases) await database.drop();
  }
  const ratios = {
    'fairness.fourthIn200ms.othersShare': ratio(runs.fourthIn200ms.othersPerSecond, runs.allAtOnce.othersPerSecond),
    'fairness.fourthAnswers500.othersShare': ratio(
      runs.fourthAnswers500.othersPerSecond,
      runs.allAtOnce.othersPerSecond,
    ),
  };
  return { ratios, figures: { events: EVENTS, subscriptions: SUBSCRIPTIONS, runs } };
}

async function main() {
  if (WHICH === 'fairness') return fairness();
  const results = [];
  if (WHICH !== 'postgres') {
    const dataDirs = [];
    const env = async () => {
      dataDirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-')));
      return { DATA_DIR: dataDirs.at(-1) };
    };
    try {
      results.push(...(await measure('embedded (PGlite, on disk)', env)));
    } finally {
      for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (WHICH !== 'embedded') {
    const databases = [];
    const env = async () => {
      databases.push(await scratchDatabase('hub_bench'));
      return { DATABASE_URL: databases.at(-1).url };
    };
    try {
      results.push(...(await measure('Postgres server (pool 10)', env)));
    } finally {
      for (const database of databases) await database.drop();
    }
  }
  const ratios = {};
  for (const { database, transport, service, raw } of results)
    ratios[`${database.split(' ')[0]}.${transport}.perSecond`] = ratio(service.perSecond, raw.perSecond);
  return { ratios, figures: { events: EVENTS, subscriptions: SUBSCRIPTIONS, concurrency: CONCURRENCY, results } };
}

runBenchmark('webhooks', main);
