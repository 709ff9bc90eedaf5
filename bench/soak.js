/**
 * Soak: a hub process under a steady 30 requests a second for minutes on end (bookings, case
 * reads, searches, lookups, as partners send them), on the embedded database and on the Postgres
 * server, to see whether it stays as fast and as small as it started while its data grows. Its
 * baseline is its own first minute: the figures are each minute's latency (p50, p99, max) and the
 * hub process's resident memory, and the ratio is the first minute's p99 over the last's (1: as
 * fast at the end as at the start). The goal: the last minute's p99 at most twice the
 * first's, and no request above 500 ms.
 *
 * Run after `npm run build` (`npm run soak` builds first):
 *   npm run soak [-- --minutes 3] [-- --database embedded|postgres|both]     (10 minutes, both)
 * `--quick` (what CI runs through `npm run bench -- --quick`): two windows of 3 s per database.
 * Requests arrive at a fixed rate whatever the hub's speed (an open loop), so a slow hub is seen
 * as queueing, as a client would see it. The Postgres database is a new one on
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards.
 * Ends with one JSON line (bench/lib/benchmark.js).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { quick, percentile, ratio, runBenchmark } = require('./lib/benchmark');
const { scratchDatabase } = require('./lib/databases');
const { freePort, spawnHub, waitForAnswer } = require('./lib/hub-process');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

const MINUTES = Number(option('minutes', '10'));
const DATABASES = option('database', 'both') === 'both' ? ['embedded', 'postgres'] : [option('database')];
const WINDOW_MS = quick ? 3_000 : 60_000;
const WINDOWS = quick ? 2 : MINUTES;
const RATE_PER_SECOND = 30;
const GOAL = { p99GrowthAtMost: 2, maxMs: 500 };
const PARTNERS = ['demo-partner-elkjop-000000000001', 'demo-partner-power-0000000000001'];
const BOOKING = require('../world/demo-case.json');

if (!Number.isFinite(MINUTES) || MINUTES < 1) throw new Error('--minutes takes a whole number of minutes, 1 or more');
for (const database of DATABASES)
  if (!['embedded', 'postgres'].includes(database)) throw new Error('--database takes embedded, postgres or both');

/** The hub as its own process, so its memory is its own: the whole hub, demo world loaded. */
async function startHub(database) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-soak-'));
  let dropDatabase = async () => undefined;
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    // Its warnings (a token refused while the world loads) are not the soak's figures.
    LOG_LEVEL: 'error',
    LOAD_DEMO_WORLD: 'true',
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
  if (database === 'postgres') {
    const scratch = await scratchDatabase('hub_soak');
    env.DATABASE_URL = scratch.url;
    dropDatabase = scratch.drop;
  }
  const hub = spawnHub(env);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForAnswer(
    `${baseUrl}/api/v3/providers?ids=10`,
    { 'x-hub-api-token': PARTNERS[0] },
    [hub],
    `The ${database} hub`,
  );
  return {
    baseUrl,
    /** Resident memory of the hub process, in MB. */
    rssMb() {
      const status = fs.readFileSync(`/proc/${hub.child.pid}/status`, 'utf8');
      return +(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024).toFixed(1);
    },
    async stop() {
      await hub.stop();
      await dropDatabase();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What partners send, by share of the traffic; reads are Elkjøp's, of Elkjøp's own cases (`guids`). */
function workload(guids) {
  const pick = (list) => list[Math.floor(Math.random() * list.length)];
  return [
    {
      kind: 'book',
      share: 0.2,
      request: (n) => ({
        method: 'POST',
        path: '/api/v3/case/create',
        body: { ...BOOKING, orderData: { refNo: `SOAK-${n}` } },
      }),
    },
    { kind: 'read', share: 0.3, request: () => ({ method: 'GET', path: `/api/v3/case?guid=${pick(guids)}` }) },
    {
      kind: 'search',
      share: 0.2,
      request: (n) => ({
        method: 'POST',
        path: '/api/v3/search-cases',
        body:
          n % 2
            ? { filters: { commonSearch: `SOAK-${n % 1000}` }, pagination: { limit: 10 } }
            : { filters: { currentStatus: 'registered' }, pagination: { limit: 20 } },
      }),
    },
    {
      kind: 'lookup',
      share: 0.3,
      request: (n) => ({
        method: 'GET',
        path:
          n % 2
            ? '/api/v3/manufacturers?originatorType=private&bookingType=companyToPrivate'
            : '/api/v3/routing?serviceType=2&manufacturer=Apple&productType=1&clientPostalCode=0150',
      }),
    },
  ];
}

/** Sends requests at RATE_PER_SECOND for WINDOWS windows; answers each window's latencies and the hub's memory. */
async function soak(hub) {
  const guids = [];
  const kinds = workload(guids);
  const send = async ({ method, path: urlPath, body }, token) => {
    const res = await fetch(`${hub.baseUrl}${urlPath}`, {
      method,
      headers: { 'x-hub-api-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  // Cases to read from the first request on; the soak's own bookings by Elkjøp join them.
  for (let n = 0; n < 10; n++) {
    const { status, body } = await send(kinds[0].request(`seed-${n}`), PARTNERS[0]);
    if (status !== 200) throw new Error(`Seeding a case failed with ${status}`);
    guids.push(body.guid);
  }

  const windows = [];
  const pending = new Set();
  const started = performance.now();
  const interval = 1000 / RATE_PER_SECOND;
  for (let w = 0; w < WINDOWS; w++) {
    const window = { latencies: [], byKind: {}, errors: 0, overGoal: [] };
    const end = started + (w + 1) * WINDOW_MS;
    for (let n = Math.ceil((w * WINDOW_MS) / interval); started + n * interval < end; n++) {
      const due = started + n * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      let roll = Math.random();
      const kind = kinds.find((candidate) => (roll -= candidate.share) < 0) ?? kinds.at(-1);
      const token = kind.kind === 'read' ? PARTNERS[0] : PARTNERS[n % 2];
      const request = kind.request(n);
      const sentAt = performance.now();
      const one = send(request, token)
        .then(({ status, body }) => {
          const ms = performance.now() - sentAt;
          window.latencies.push(ms);
          (window.byKind[kind.kind] ??= []).push(ms);
          // When and what: a slow start and a slow query look alike in a percentile.
          if (ms > GOAL.maxMs)
            window.overGoal.push({
              atSeconds: +((sentAt - started) / 1000).toFixed(1),
              kind: kind.kind,
              ms: +ms.toFixed(1),
            });
          if (status >= 400) window.errors += 1;
          else if (kind.kind === 'book' && token === PARTNERS[0]) guids.push(body.guid);
        })
        .catch(() => {
          window.errors += 1;
        })
        .finally(() => pending.delete(one));
      pending.add(one);
    }
    window.rssMb = hub.rssMb();
    windows.push(window);
  }
  await Promise.all(pending);
  return windows;
}

function summary(windows) {
  const sorted = (list) => [...list].sort((a, b) => a - b);
  const round = (ms) => +ms.toFixed(1);
  const minutes = windows.map((window, index) => {
    const all = sorted(window.latencies);
    return {
      window: index + 1,
      requests: all.length,
      errors: window.errors,
      p50: round(percentile(all, 50)),
      p99: round(percentile(all, 99)),
      max: round(all.at(-1)),
      over500ms: all.filter((ms) => ms > GOAL.maxMs).length,
      over500msAt: window.overGoal,
      p99ByKind: Object.fromEntries(
        Object.entries(window.byKind).map(([kind, list]) => [kind, round(percentile(sorted(list), 99))]),
      ),
      rssMb: window.rssMb,
    };
  });
  const [first, last] = [minutes[0], minutes.at(-1)];
  const maxMs = Math.max(...minutes.map((minute) => minute.max));
  return {
    minutes,
    p99First: first.p99,
    p99Last: last.p99,
    maxMs,
    errors: minutes.reduce((sum, minute) => sum + minute.errors, 0),
    rssGrowthPct: +(((last.rssMb - first.rssMb) / first.rssMb) * 100).toFixed(1),
    goalMet: last.p99 <= GOAL.p99GrowthAtMost * first.p99 && maxMs <= GOAL.maxMs,
  };
}

runBenchmark('soak', async () => {
  const ratios = {};
  const figures = { windowMs: WINDOW_MS, windows: WINDOWS, ratePerSecond: RATE_PER_SECOND, goal: GOAL };
  for (const database of DATABASES) {
    const hub = await startHub(database);
    let result;
    try {
      result = summary(await soak(hub));
    } finally {
      await hub.stop();
    }
    figures[database] = result;
    // Every request of the soak is one the hub should serve.
    if (result.errors) throw new Error(`${result.errors} requests on ${database} were refused or failed`);
    ratios[`${database}P99FirstToLast`] = ratio(result.p99First, result.p99Last);
    console.log(`\n${database}: window, requests, errors, p50, p99, max (ms), RSS (MB)`);
    for (const m of result.minutes)
      console.log(`  ${m.window}\t${m.requests}\t${m.errors}\t${m.p50}\t${m.p99}\t${m.max}\t${m.rssMb}`);
    console.log(
      `  p99 first ${result.p99First} ms, last ${result.p99Last} ms; max ${result.maxMs} ms; RSS ${result.rssGrowthPct}%; goal ${result.goalMet ? 'met' : 'not met'}`,
    );
  }
  return { ratios, figures };
});
