/**
 * Benchmark: a simulated year of a busy hub with retention on, beside the same traffic with
 * retention off (RETENTION=off) in the same run. Each hub is a whole embedded hub (PGlite in
 * memory) whose clock runs CLOCK_RATE times faster than wall time, so a year of hub time passes
 * in the run's length; its retention jobs run about once a simulated day.
 *
 * Traffic, the same for both hubs: every tick the partner Sandbox Shop books a case through the
 * gateway (with a trackingId, so it is in the request log, and an Idempotency-Key) and writes a
 * message on the case before. Its cases go to the simulated Sandbox Workshop, which works each
 * through the provider's own actions: accepts it, posts its statuses and messages, a cost
 * proposal, then the repair or the return, an invoice and the shipment (docs/world.md). The
 * partner answers each cost proposal when its webhook arrives (every third one rejected). Every
 * event the partner hears goes as a webhook to four receivers: two healthy, one that fails each
 * webhook's first attempt and takes the retry, one that answers 500 to everything (its deliveries
 * end as dead letters).
 *
 * The hub with retention runs every service's retention job once a simulated day, as the
 * service's timer does, but started by the benchmark (RETENTION_INTERVAL is set beyond the run),
 * so that the monthly measurements never wait for a job: what the jobs themselves cost is
 * reported apart, as their share of the real time (at this compression a job runs every second or
 * so; in production every 10 minutes).
 *
 * Once a simulated month each hub is measured: rows and bytes of the tables the retention policy
 * governs (as the admin storage API reports them), the median of search-cases and invoices/find
 * through the gateway, of the claim of due deliveries (the worker's own statement, rolled back),
 * of the admin deliveries listing, and of that month's event-to-receiver latency (from the change
 * written to its webhook read by a healthy receiver).
 *
 * At the end, nothing not yet due for removal is lost: every webhook a healthy receiver got in
 * the last 20 simulated days still has its four deliveries on the hub with retention, and every
 * case brought each receiver that takes them the same webhooks on both hubs.
 *
 * Reduced volume: a busy hub makes millions of rows a day; this makes a few thousand per
 * simulated day, so it shows whether sizes level off and speed holds, not production sizes.
 *
 * Run after `npm run build`: node bench/retention-year.js [real seconds for the year, default 600]
 * `--quick`: 24 s. Ends with one JSON line (bench/lib/benchmark.js).
 */
const http = require('node:http');
const { fork } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { loadConfig, readWorld, DEMO_WORLD_FILE, databaseOf, clockOf } = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { quick, args, loadAverage, ratio, runBenchmark } = require('./lib/benchmark');

const DAY = 86_400_000;
const YEAR = 365 * DAY;
const REAL_SECONDS = quick ? 24 : Number(args[0] ?? 600);
const RATE = YEAR / (REAL_SECONDS * 1000);
const TICK_MS = 1000;
const ADMIN = 'demo-admin-token-0000000000000001';
const PARTNER = 'demo-partner-sandbox-00000000001';
const PARTNER_ACCOUNT = 9;
const EVENT_TYPES = ['status.new', 'costProposal.created', 'message.created', 'case.updated', 'invoice.saved'];
const HEALTHY = ['/ok-1', '/ok-2'];
const FLAKY = '/flaky';
const DOWN = '/down';
const RECEIVERS = [...HEALTHY, FLAKY, DOWN];
const COMPARED = [...HEALTHY, FLAKY];
/** How long a hub is left to catch up after a retention pass before it is measured. */
const SETTLE_MS = 250;
const SAMPLES = quick ? 3 : 9;
const SAMPLE_GAP_MS = 50;
const CASE_BODY = require('../world/demo-case.json');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? null;
const round = (value) => (value === null ? null : +value.toFixed(1));

/**
 * One receiver per hub for the four targets: records when each webhook reached each target, and
 * hands every cost proposal the first healthy target hears to `onProposal`.
 */
function startReceiver(onProposal) {
  const arrivals = new Map();
  const failedOnce = new Set();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const webhookId = req.headers['webhook-id'];
      if (req.url === DOWN) {
        res.writeHead(500).end();
        return;
      }
      if (req.url === FLAKY && !failedOnce.has(webhookId)) {
        failedOnce.add(webhookId);
        res.writeHead(503).end();
        return;
      }
      res.writeHead(204).end();
      const key = `${req.url} ${webhookId}`;
      if (arrivals.has(key)) return;
      const payload = JSON.parse(body);
      const type = req.headers['webhook-event-type'];
      const guid = payload.guid ?? payload.case?.guid;
      // Most bodies carry when their change was written: the latency runs from there.
      const writtenAt = payload.createdAt ? Date.parse(payload.createdAt) : null;
      arrivals.set(key, { at: Date.now(), hubAt: receiver.clock?.now().getTime(), type, guid, writtenAt });
      if (req.url === HEALTHY[0] && type === 'costProposal.created') onProposal(payload);
    });
  });
  const receiver = { arrivals, clock: undefined, close: () => server.close() };
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ ...receiver, url: `http://127.0.0.1:${server.address().port}` })),
  ).then((started) => Object.assign(receiver, started));
}

async function request(base, method, path, token, body, headers = {}) {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-Hub-Api-Token': token, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return { answer, ms: performance.now() - started };
}

async function startSimulatedHub(retention) {
  const hub = { retention, cases: new Map(), ticks: [], months: [], answering: new Set(), retentionRuns: [] };
  hub.receiver = await startReceiver((proposal) => {
    const answer = answerProposal(hub, proposal).catch((err) => console.error(`Answering a proposal: ${err.message}`));
    hub.answering.add(answer);
    answer.finally(() => hub.answering.delete(answer));
  });
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    METRICS: 'false',
    LOAD_DEMO_WORLD: 'false',
    RATE_LIMIT_PER_MINUTE: '10000000',
    CLOCK_RATE: String(RATE),
    RETENTION: retention ? 'on' : 'off',
    // The benchmark runs the jobs (runRetentionDaily); partitions are still made ahead by the service.
    RETENTION_INTERVAL: '24h',
    SANDBOX_POLL_INTERVAL: '100ms',
    WEBHOOK_RETRY_SCHEDULE: '0,20ms,20ms',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  };
  hub.broker = await startHub(loadConfig(env), { embedded: {}, initialWorld: readWorld(DEMO_WORLD_FILE) });
  hub.base = `http://127.0.0.1:${hub.broker.getLocalService('gateway').server.address().port}`;
  hub.clock = clockOf(hub.broker);
  hub.receiver.clock = hub.clock;
  hub.knex = (await databaseOf(hub.broker)).knex;
  for (const path of RECEIVERS) {
    await request(hub.base, 'POST', '/api/admin/webhooks/subscriptions', ADMIN, {
      accountId: PARTNER_ACCOUNT,
      eventTypes: EVENT_TYPES,
      target: { kind: 'http', url: `${hub.receiver.url}${path}` },
    });
  }
  return hub;
}

/**
 * Runs every service's retention job once a simulated day until `done()`, one after another as
 * one pass, and keeps each pass's real time; `hub.quiet` holds the next pass while the hub is
 * measured, after `hub.passing`, the pass under way.
 */
async function runRetentionDaily(hub, done) {
  const actions = hub.broker.registry
    .getActionList({ skipInternal: true })
    .map(({ name }) => name)
    .filter((name) => name.endsWith('.runRetention'));
  while (!done()) {
    const passStart = Date.now();
    await hub.quiet;
    hub.passing = (async () => {
      const started = performance.now();
      for (const action of actions) await hub.broker.call(action);
      hub.retentionRuns.push({ at: Date.now(), ms: performance.now() - started });
    })();
    await hub.passing;
    await sleep(Math.max(0, DAY / RATE - (Date.now() - passStart)));
  }
}

/** The partner's answer to a cost proposal, the same on both hubs: every third case's is rejected. */
async function answerProposal(hub, proposal) {
  // The proposal can come before the booking's answer has been read.
  while (!hub.cases.has(proposal.guid)) await sleep(20);
  const reaction = hub.cases.get(proposal.guid) % 3 === 0 ? 'rejected' : 'approved';
  await request(hub.base, 'POST', '/api/v3/cost-proposals/feedback', PARTNER, {
    id: proposal.id,
    name: 'Kari Nordmann',
    reaction,
  });
}

/** One tick of the partner's traffic: a booking, and a message on the case booked the tick before. */
async function drive(hub, tick) {
  const booked = await request(
    hub.base,
    'POST',
    '/api/v3/case/create',
    PARTNER,
    { ...CASE_BODY, orderData: { ...CASE_BODY.orderData, refNo: `YEAR-${tick}` }, trackingId: `year-${tick}` },
    { 'Idempotency-Key': randomUUID() },
  );
  hub.cases.set(booked.answer.guid, tick);
  hub.ticks.push(booked.answer.guid);
  const before = hub.ticks.at(-2);
  if (before)
    await request(hub.base, 'POST', '/api/v3/case-messages/create', PARTNER, {
      guid: before,
      type: 'statusRequest',
      content: `Any news on YEAR-${tick - 1}?`,
    });
}

/** Rows and bytes of the tables that retention governs (those whose oldest row the storage API reports). */
async function governedStorage(hub) {
  const { answer } = await request(hub.base, 'GET', '/api/admin/storage', ADMIN);
  const tables = {};
  for (const service of answer.services)
    for (const table of service.tables)
      if (table.oldestRowAt !== undefined) tables[table.table] = { rows: table.rows, bytes: table.bytes };
  return tables;
}

/** The worker's claim of due deliveries, as it runs it, rolled back so nothing is leased. */
async function claimDue(hub) {
  const started = performance.now();
  await hub.knex
    .transaction(async (trx) => {
      await trx.raw(`select webhooks.claim_due('[]'::jsonb, 16, 60000, 1)`);
      await trx.rollback();
    })
    .catch(() => undefined);
  return { ms: performance.now() - started };
}

/**
 * The speeds of the month, each the median of SAMPLES rounds spaced SAMPLE_GAP_MS apart (one of
 * each query a round), so that a moment's queue behind the hub's own work does not stand for the
 * month; then the storage, whose counting holds the database for a while.
 */
async function measure(hub, month, since) {
  const lastMonth = hub.clock.storedCutoff(30 * DAY).toISOString();
  const queries = {
    searchCasesMs: () =>
      request(hub.base, 'POST', '/api/v3/search-cases', PARTNER, {
        filters: { 'orderData.refNo': `YEAR-${Math.floor(Math.random() * hub.ticks.length)}` },
        pagination: { offset: 0, limit: 20 },
      }),
    invoicesFindMs: () =>
      request(hub.base, 'POST', '/api/v3/invoices/find', PARTNER, {
        filters: { createdAt: { $gt: lastMonth } },
        pagination: { offset: 0, limit: 10 },
      }),
    claimDueMs: () => claimDue(hub),
    deliveriesListMs: () => request(hub.base, 'GET', '/api/admin/webhooks/deliveries?limit=50', ADMIN),
  };
  const samples = Object.fromEntries(Object.keys(queries).map((name) => [name, []]));
  for (let round = 0; round < SAMPLES; round++) {
    for (const [name, query] of Object.entries(queries)) samples[name].push((await query()).ms);
    await sleep(SAMPLE_GAP_MS);
  }
  const speeds = Object.fromEntries(Object.entries(samples).map(([name, ms]) => [name, round(median(ms))]));
  const latencies = [...hub.receiver.arrivals]
    .filter(([key, arrival]) => key.startsWith(`${HEALTHY[0]} `) && arrival.at >= since && arrival.writtenAt)
    .map(([, arrival]) => arrival.at - arrival.writtenAt);
  const passes = hub.retentionRuns.filter((run) => run.at >= since);
  const tables = await governedStorage(hub);
  const pending = await hub.knex('webhooks.deliveries').where({ state: 'pending' }).count({ count: '*' });
  hub.months.push({
    month,
    rows: Object.values(tables).reduce((sum, table) => sum + table.rows, 0),
    bytes: Object.values(tables).reduce((sum, table) => sum + table.bytes, 0),
    tables,
    cases: hub.ticks.length,
    pendingDeliveries: Number(pending[0].count),
    ...speeds,
    deliveryLatencyMs: round(median(latencies)),
    retentionPasses: passes.length,
    retentionPassMs: round(median(passes.map(({ ms }) => ms))),
    retentionShareOfTime: +(passes.reduce((sum, { ms }) => sum + ms, 0) / (Date.now() - since)).toFixed(3),
  });
}

/** What a receiver got per case (by the tick that booked it), as a sorted list of event types. */
function webhooksPerCase(hub, path) {
  const perCase = {};
  for (const [key, arrival] of hub.receiver.arrivals) {
    if (!key.startsWith(`${path} `)) continue;
    const tick = hub.cases.get(arrival.guid);
    (perCase[tick] ??= []).push(arrival.type);
  }
  for (const types of Object.values(perCase)) types.sort();
  return perCase;
}

/** Every webhook of the last 20 simulated days still has its deliveries, one per receiver. */
async function recentDeliveriesKept(hub) {
  const now = hub.clock.now().getTime();
  const recent = [...hub.receiver.arrivals]
    .filter(([key, arrival]) => key.startsWith(`${HEALTHY[0]} `) && now - arrival.hubAt < 20 * DAY)
    .map(([key]) => key.slice(HEALTHY[0].length + 1));
  let kept = 0;
  for (let start = 0; start < recent.length; start += 500) {
    const [row] = await hub
      .knex('webhooks.deliveries')
      .whereIn('webhook_id', recent.slice(start, start + 500))
      .count({ count: '*' });
    kept += Number(row.count);
  }
  return { recentWebhooks: recent.length, deliveriesKept: kept, deliveriesExpected: recent.length * RECEIVERS.length };
}

/**
 * A hub's own process (`--hub=on|off`), so that each hub has a core of its own and the jobs of
 * one do not slow the other: it answers the commands of the run's process one at a time.
 */
async function serveHub(retention) {
  const hub = await startSimulatedHub(retention);
  const retentionDone = retention ? runRetentionDaily(hub, () => hub.yearOver) : Promise.resolve();
  let monthStart = Date.now();
  const commands = {
    tick: ({ tick }) => drive(hub, tick),
    async measure({ month }) {
      let measured;
      hub.quiet = new Promise((resolve) => (measured = resolve));
      await hub.passing;
      // What a pass held back (claims, the sandbox's steps) runs first, as it would between
      // passes 10 minutes apart.
      await sleep(SETTLE_MS);
      await measure(hub, month, monthStart);
      measured();
      monthStart = Date.now();
      return hub.months.at(-1);
    },
    async endYear() {
      hub.yearOver = true;
      await retentionDone;
    },
    webhooks: () => ({
      perReceiver: Object.fromEntries(COMPARED.map((path) => [path, webhooksPerCase(hub, path)])),
      answering: hub.answering.size,
    }),
    recentDeliveriesKept: () => recentDeliveriesKept(hub),
    async stop() {
      await hub.broker.stop();
      hub.receiver.close();
    },
  };
  process.on('message', ({ command, ...params }) => {
    Promise.resolve()
      .then(() => commands[command](params))
      .then(
        (reply) => process.send({ reply }),
        (err) => process.send({ error: err.stack }),
      );
  });
  process.send({ reply: 'ready' });
}

/** Starts a hub's process; `ask` sends it a command and resolves to its answer. */
async function hubProcess(retention) {
  let waiting;
  const answered = () => new Promise((resolve, reject) => (waiting = { resolve, reject }));
  const ready = answered();
  const child = fork(__filename, [...process.argv.slice(2), `--hub=${retention ? 'on' : 'off'}`], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', ({ reply, error }) => (error ? waiting.reject(new Error(error)) : waiting.resolve(reply)));
  child.on('exit', (code) => waiting.reject(new Error(`The hub's process ended (${code})`)));
  await ready;
  return {
    ask(command, params = {}) {
      const answer = answered();
      child.send({ command, ...params });
      return answer;
    },
  };
}

/** Ticks whose case brought different webhooks to a compared receiver of either hub than to the first healthy one without retention. */
function casesNotAlike(on, off) {
  const reference = off.perReceiver[HEALTHY[0]];
  const differing = new Set();
  for (const hub of [on, off])
    for (const perCase of Object.values(hub.perReceiver))
      for (const tick of new Set([...Object.keys(reference), ...Object.keys(perCase)]))
        if (JSON.stringify(reference[tick]) !== JSON.stringify(perCase[tick])) differing.add(tick);
  return [...differing];
}

async function simulateYear() {
  console.log(`A simulated year in ${REAL_SECONDS} s (clock rate ${Math.round(RATE)}), load ${loadAverage()}`);
  const [on, off] = await Promise.all([hubProcess(true), hubProcess(false)]);
  const hubs = [on, off];
  const months = { withRetention: [], withoutRetention: [] };
  const started = Date.now();
  const monthMs = (REAL_SECONDS * 1000) / 12;
  let tick = 0;
  let month = 0;
  while (month < 12) {
    const tickStart = Date.now();
    await Promise.all(hubs.map((hub) => hub.ask('tick', { tick })));
    tick += 1;
    if (Date.now() - started >= (month + 1) * monthMs) {
      month += 1;
      const [withIt, without] = await Promise.all(hubs.map((hub) => hub.ask('measure', { month })));
      months.withRetention.push(withIt);
      months.withoutRetention.push(without);
      const pair = (name) => `${withIt[name]} / ${without[name]}`;
      console.log(
        `month ${month}: rows ${pair('rows')}; search-cases ${pair('searchCasesMs')} ms; invoices/find ${pair('invoicesFindMs')} ms; ` +
          `claim ${pair('claimDueMs')} ms; deliveries list ${pair('deliveriesListMs')} ms; latency ${pair('deliveryLatencyMs')} ms; ` +
          `retention ${withIt.retentionPasses} passes of ${withIt.retentionPassMs} ms (${withIt.retentionShareOfTime} of the time)`,
      );
    }
    await sleep(Math.max(0, TICK_MS - (Date.now() - tickStart)));
  }
  await Promise.all(hubs.map((hub) => hub.ask('endYear')));
  // Let the last cases finish their lives and their webhooks arrive before comparing.
  const deadline = Date.now() + 120_000;
  let webhooks;
  for (;;) {
    webhooks = await Promise.all(hubs.map((hub) => hub.ask('webhooks')));
    const settled = casesNotAlike(...webhooks).length === 0 && webhooks.every(({ answering }) => answering === 0);
    if (settled || Date.now() > deadline) break;
    await sleep(500);
  }
  const differing = casesNotAlike(...webhooks);
  const lost = {
    cases: tick,
    casesWithDifferingWebhooks: differing.length,
    withRetention: await on.ask('recentDeliveriesKept'),
    withoutRetention: await off.ask('recentDeliveriesKept'),
  };
  console.log(JSON.stringify(lost));
  if (lost.withRetention.deliveriesKept !== lost.withRetention.deliveriesExpected)
    throw new Error('Retention removed deliveries not yet due');
  if (differing.length) throw new Error(`Cases ${differing.slice(0, 10).join(', ')} did not bring the same webhooks`);
  await Promise.all(hubs.map((hub) => hub.ask('stop')));
  const last = (list) => list.at(-1);
  const { withRetention, withoutRetention } = months;
  return {
    ratios: {
      searchCasesSpeedVsNoRetention: ratio(last(withoutRetention).searchCasesMs, last(withRetention).searchCasesMs),
      invoicesFindSpeedVsNoRetention: ratio(last(withoutRetention).invoicesFindMs, last(withRetention).invoicesFindMs),
      claimDueSpeedVsNoRetention: ratio(last(withoutRetention).claimDueMs, last(withRetention).claimDueMs),
      deliveriesListSpeedVsNoRetention: ratio(
        last(withoutRetention).deliveriesListMs,
        last(withRetention).deliveriesListMs,
      ),
      deliveryLatencyVsNoRetention: ratio(
        last(withoutRetention).deliveryLatencyMs,
        last(withRetention).deliveryLatencyMs,
      ),
      claimDueSpeedLastVsFirstMonth: ratio(withRetention[0].claimDueMs, last(withRetention).claimDueMs),
    },
    figures: { realSeconds: REAL_SECONDS, clockRate: Math.round(RATE), ticks: tick, ...months, lost },
  };
}

const hubRole = process.argv.find((arg) => arg.startsWith('--hub='));
if (hubRole) serveHub(hubRole === '--hub=on');
else runBenchmark('retention-year', simulateYear);
