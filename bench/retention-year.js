/**
 * Benchmark: a simulated year of a busy hub with retention on, beside the same traffic with
 * retention off (RETENTION=off) in the same run. Each hub is a whole embedded hub (PGlite in
 * memory) whose clock runs CLOCK_RATE times faster than wall time, so a year of hub time passes
 * in the run's length; its retention jobs run about once a simulated day.
 *
 * Traffic, the same for both hubs, every tick: a booking through the gateway (with a trackingId,
 * so it is in the request log, and an Idempotency-Key) and a batch of webhook events ingested as
 * outbox relays hand them on, each to three receivers of one partner, one of which answers 500
 * to everything (its deliveries end as dead letters). Once a simulated month each hub is
 * measured: rows and bytes of the tables the policy governs, the median of search-cases through
 * the gateway, of the admin deliveries listing, and the event-to-receiver latency of that
 * month's deliveries (which includes the claim of due deliveries).
 *
 * At the end, on the hub with retention: every event of the last 20 simulated days still has its
 * deliveries, and both hubs' receivers got every event (nothing not yet due for removal is lost).
 *
 * Reduced volume: a busy hub makes millions of rows a day; this makes a few hundred per
 * simulated day, so it shows whether sizes level off and speed holds, not production sizes.
 * invoices/find is not driven (no invoices are made).
 *
 * Run after `npm run build`: node bench/retention-year.js [real seconds for the year, default 600]
 * `--quick`: 24 s. Ends with one JSON line (bench/lib/benchmark.js).
 */
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { loadConfig, startHub, readWorld, DEMO_WORLD_FILE, databaseOf, clockOf } = require('../shared/dist');
const { quick, args, loadAverage, ratio, runBenchmark } = require('./lib/benchmark');

const DAY = 86_400_000;
const YEAR = 365 * DAY;
const REAL_SECONDS = quick ? 24 : Number(args[0] ?? 600);
const RATE = YEAR / (REAL_SECONDS * 1000);
const TICK_MS = 250;
const EVENTS_PER_TICK = 10;
const TABLES = [
  'booking.outbox',
  'booking.external_requests',
  'booking.idempotency_keys',
  'webhooks.deliveries',
  'webhooks.attempts',
  'webhooks.feed',
];
const ADMIN = 'demo-admin-token-0000000000000001';
const POWER = 'demo-partner-power-0000000000001';
const POWER_ACCOUNT = 3;
const CASE_BODY = require('../world/demo-case.json');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? null;

/** One receiver per hub: `/ok-*` answer 204, `/down` 500; records when each webhook-id arrived. */
function startReceiver() {
  const arrivals = new Map();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/down') {
        res.writeHead(500).end();
        return;
      }
      const key = `${req.url} ${req.headers['webhook-id']}`;
      if (!arrivals.has(key)) arrivals.set(key, Date.now());
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, arrivals, close: () => server.close() }),
    ),
  );
}

async function request(base, method, path, token, body) {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-Hub-Api-Token': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return { answer, ms: performance.now() - started };
}

async function startSimulatedHub(retention) {
  const receiver = await startReceiver();
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    METRICS: 'false',
    LOAD_DEMO_WORLD: 'false',
    RATE_LIMIT_PER_MINUTE: '10000000',
    CLOCK_RATE: String(RATE),
    RETENTION: retention ? 'on' : 'off',
    RETENTION_INTERVAL: `${Math.max(500, Math.round(DAY / RATE))}ms`,
    WEBHOOK_RETRY_SCHEDULE: '0,20ms,20ms',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
  };
  const broker = await startHub(loadConfig(env), { embedded: {}, initialWorld: readWorld(DEMO_WORLD_FILE) });
  const base = `http://127.0.0.1:${broker.getLocalService('gateway').server.address().port}`;
  for (const path of ['/ok-1', '/ok-2', '/down']) {
    await request(base, 'POST', '/api/admin/webhooks/subscriptions', ADMIN, {
      accountId: POWER_ACCOUNT,
      eventTypes: ['costProposal.created'],
      target: { kind: 'http', url: `${receiver.url}${path}` },
    });
  }
  const { knex } = await databaseOf(broker);
  return { retention, broker, base, receiver, knex, clock: clockOf(broker), events: [], months: [] };
}

/** One tick of traffic: a booking and a batch of webhook events. */
async function drive(hub, tick) {
  await request(hub.base, 'POST', '/api/v3/case/create', POWER, {
    ...CASE_BODY,
    orderData: { ...CASE_BODY.orderData, refNo: `YEAR-${tick}` },
    trackingId: `year-${tick}`,
  });
  const events = Array.from({ length: EVENTS_PER_TICK }, () => ({
    id: randomUUID(),
    type: 'costProposal.created',
    source: 'bench',
    occurredAt: new Date().toISOString(),
    caseGuid: randomUUID(),
    audience: { partnerId: 2 },
    payload: { costProposal: { id: tick, name: 'Repair', priceNet: 100 } },
  }));
  const at = Date.now();
  await hub.broker.call('webhooks.ingest', { events });
  for (const event of events) hub.events.push({ id: event.id, at, hubAt: hub.clock.now().getTime() });
}

async function measure(hub, month, since) {
  const tables = {};
  for (const table of TABLES) {
    const { rows } = await hub.knex.raw(
      // A partitioned table's bytes are its partitions'.
      `select count(*)::int as rows,
              (select coalesce(sum(pg_total_relation_size(relid)), pg_total_relation_size(?::regclass))
                 from pg_partition_tree(?::regclass))::float8 as bytes
         from ${table}`,
      [table, table],
    );
    tables[table] = rows[0];
  }
  const search = [];
  const listing = [];
  for (let i = 0; i < 5; i++) {
    search.push(
      (
        await request(hub.base, 'POST', '/api/v3/search-cases', POWER, {
          filters: { 'orderData.refNo': `YEAR-${i * 37}` },
          pagination: { offset: 0, limit: 20 },
        })
      ).ms,
    );
    listing.push((await request(hub.base, 'GET', '/api/admin/webhooks/deliveries?limit=50', ADMIN)).ms);
  }
  const monthEvents = hub.events.filter((event) => event.at >= since);
  const deliveryLatency = median(
    monthEvents
      .map((event) => (hub.receiver.arrivals.get(`/ok-1 ${event.id}`) ?? NaN) - event.at)
      .filter(Number.isFinite),
  );
  hub.months.push({
    month,
    rows: Object.values(tables).reduce((sum, table) => sum + table.rows, 0),
    bytes: Object.values(tables).reduce((sum, table) => sum + table.bytes, 0),
    tables,
    searchCasesMs: +median(search).toFixed(1),
    deliveriesListMs: +median(listing).toFixed(1),
    deliveryLatencyMs: deliveryLatency === null ? null : +deliveryLatency.toFixed(1),
  });
}

/** Every event of the last 20 simulated days still has its three deliveries; every one arrived. */
async function nothingLost(hub) {
  const now = hub.clock.now().getTime();
  const recent = hub.events.filter((event) => now - event.hubAt < 20 * DAY).map((event) => event.id);
  let kept = 0;
  for (let start = 0; start < recent.length; start += 500) {
    const [row] = await hub
      .knex('webhooks.deliveries')
      .whereIn('event_id', recent.slice(start, start + 500))
      .count({ count: '*' });
    kept += Number(row.count);
  }
  const missing = hub.events.filter(
    (event) => !hub.receiver.arrivals.has(`/ok-1 ${event.id}`) || !hub.receiver.arrivals.has(`/ok-2 ${event.id}`),
  ).length;
  return {
    recentEvents: recent.length,
    recentDeliveriesKept: kept,
    recentDeliveriesExpected: recent.length * 3,
    eventsNotArrived: missing,
  };
}

runBenchmark('retention-year', async () => {
  console.log(`A simulated year in ${REAL_SECONDS} s (clock rate ${Math.round(RATE)}), load ${loadAverage()}`);
  const hubs = [await startSimulatedHub(true), await startSimulatedHub(false)];
  const started = Date.now();
  const monthMs = (REAL_SECONDS * 1000) / 12;
  let tick = 0;
  let month = 0;
  let monthStart = started;
  while (month < 12) {
    const tickStart = Date.now();
    await Promise.all(hubs.map((hub) => drive(hub, tick)));
    tick += 1;
    if (Date.now() - started >= (month + 1) * monthMs) {
      month += 1;
      for (const hub of hubs) await measure(hub, month, monthStart);
      monthStart = Date.now();
      const [on, off] = hubs.map((hub) => hub.months.at(-1));
      console.log(
        `month ${month}: rows ${on.rows} with retention / ${off.rows} without; search-cases ${on.searchCasesMs} / ${off.searchCasesMs} ms; ` +
          `deliveries list ${on.deliveriesListMs} / ${off.deliveriesListMs} ms; delivery latency ${on.deliveryLatencyMs} / ${off.deliveryLatencyMs} ms`,
      );
    }
    await sleep(Math.max(0, TICK_MS - (Date.now() - tickStart)));
  }
  // Let the last deliveries arrive before checking that none is missing.
  const deadline = Date.now() + 60_000;
  const [on, off] = hubs;
  while (
    Date.now() < deadline &&
    (await nothingLost(on)).eventsNotArrived + (await nothingLost(off)).eventsNotArrived > 0
  )
    await sleep(250);
  const lost = { withRetention: await nothingLost(on), withoutRetention: await nothingLost(off) };
  console.log(JSON.stringify(lost));
  if (lost.withRetention.recentDeliveriesKept !== lost.withRetention.recentDeliveriesExpected)
    throw new Error('Retention removed deliveries not yet due');
  if (lost.withRetention.eventsNotArrived || lost.withoutRetention.eventsNotArrived)
    throw new Error('Events did not arrive');
  for (const hub of hubs) {
    await hub.broker.stop();
    hub.receiver.close();
  }
  const last = (hub) => hub.months.at(-1);
  return {
    ratios: {
      searchCasesSpeedVsNoRetention: ratio(last(off).searchCasesMs, last(on).searchCasesMs),
      deliveriesListSpeedVsNoRetention: ratio(last(off).deliveriesListMs, last(on).deliveriesListMs),
      deliveryLatencyVsNoRetention: ratio(last(off).deliveryLatencyMs, last(on).deliveryLatencyMs),
    },
    figures: {
      realSeconds: REAL_SECONDS,
      clockRate: Math.round(RATE),
      ticks: tick,
      eventsPerTick: EVENTS_PER_TICK,
      withRetention: on.months,
      withoutRetention: off.months,
      lost,
    },
  };
});
