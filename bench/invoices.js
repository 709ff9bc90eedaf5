/**
 * invoices/find over 2,000,000 invoices with a createdAt $gt filter and a customData filter.
 *
 * Run after `npm run build`: `node bench/invoices.js` (embedded database), or with
 * BENCH_POSTGRES_URL=postgres://... to use a Postgres server (a fresh database is created there
 * and dropped afterwards). Four figures side by side in one run:
 * the two SQL statements the action issues run raw through knex (the baseline), the action
 * called through the broker, the HTTP endpoint through the gateway one request at a time (the
 * latency a caller sees), and the endpoint under load; beside them, the count as it was read
 * before the kept day counts (an index entry per match).
 * INVOICES (default 2000000), ROUNDS (default 200) and DURATION (seconds, default 10) tune it;
 * `--quick` makes them 2000, 20 and 1. Ends with one JSON line (bench/lib/benchmark.js).
 */
'use strict';
const autocannon = require('autocannon');
const { loadConfig, readWorld, DEMO_WORLD_FILE } = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { quick, percentile, ratio, runBenchmark } = require('./lib/benchmark');
const { requestJson, requestStatus } = require('./lib/http-client');
const { scratchDatabase, flushToDisk } = require('./lib/databases');

const INVOICES = quick ? 2000 : Number(process.env.INVOICES ?? 2_000_000);
const ROUNDS = quick ? 20 : Number(process.env.ROUNDS ?? 200);
const DURATION = quick ? 1 : Number(process.env.DURATION ?? 10);
const PARTNER_TOKEN = 'demo-partner-elkjop-000000000001';
const REGIONS = ['north', 'south', 'east', 'west', 'central', 'coast', 'inland', 'islands', 'capital', 'border'];

function postJson(url, pathname, token, body) {
  return requestJson(`${url}${pathname}`, { method: 'POST', headers: { 'X-Hub-Api-Token': token }, body });
}

function caseBody(insurance) {
  return { ...require('../world/demo-case.json'), serviceType: insurance ? 3 : 2, orderData: { refNo: 'BENCH' } };
}

async function timeRounds(run) {
  for (let i = 0; i < Math.min(20, ROUNDS); i++) await run();
  const times = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  return { mean, p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function main() {
  const server = process.env.BENCH_POSTGRES_URL
    ? await scratchDatabase('bench_invoices', process.env.BENCH_POSTGRES_URL)
    : undefined;
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    LOAD_DEMO_WORLD: 'false',
    METRICS: 'false',
    RATE_LIMIT_PER_MINUTE: '10000000',
  };
  if (server) env.DATABASE_URL = server.url;
  const config = { ...loadConfig(env), services: ['catalog', 'routing', 'booking', 'invoicing', 'gateway'] };
  const broker = await startHub(config, { embedded: {}, initialWorld: readWorld(DEMO_WORLD_FILE) });
  const url = `http://127.0.0.1:${broker.getLocalService('gateway').server.address().port}`;
  const knex = broker.getLocalService('invoicing').db.knex;
  try {
    const guids = [];
    for (const token of [
      PARTNER_TOKEN,
      PARTNER_TOKEN,
      'demo-partner-power-0000000000001',
      'demo-partner-power-0000000000001',
    ]) {
      const res = await postJson(url, '/api/v3/case/create', token, caseBody(false));
      if (res.status !== 200) throw new Error(`booking failed: ${JSON.stringify(res.body)}`);
      guids.push(res.body.guid);
    }
    const parties = await broker.call('booking.caseParties', { guids });

    const seedStart = Date.now();
    await knex.raw('truncate invoicing.invoices restart identity cascade');
    // Spread over the last year; a tenth of each region; the four cases take turns.
    const cases = parties.map((p) => `(${p.id}, '${p.guid}'::uuid, ${p.partnerId}, ${p.serviceProviderId})`).join(', ');
    await knex.raw(
      `insert into invoicing.invoices (case_id, guid, partner_id, provider_id, external_id, status, price_net, currency, custom_data, details, created_at, updated_at)
       select c.case_id, c.guid, c.partner_id, c.provider_id, 'BENCH-' || n,
              (array['draft', 'ready', 'sent', 'paid'])[1 + n % 4], (n % 5000) + 0.5, 'NOK',
              jsonb_build_object('region', (?::text[])[1 + n % 10], 'batch', n % 100),
              '[]'::jsonb,
              now() - ((n % 525600) * interval '1 minute'), now()
         from generate_series(1, ?) as n
         join (select *, row_number() over () - 1 as slot from (values ${cases}) as v(case_id, guid, partner_id, provider_id)) c on c.slot = n % 4`,
      [REGIONS, INVOICES],
    );
    const seedMs = Date.now() - seedStart;
    // As autovacuum leaves a table at rest (the embedded database's own timer would otherwise
    // vacuum it in the middle of the timed rounds).
    const vacuumStart = Date.now();
    await knex.raw('vacuum analyze');
    const vacuumMs = Date.now() - vacuumStart;
    await flushToDisk(knex);

    const since = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString();
    const body = {
      filters: { createdAt: { $gt: since }, customData: { region: 'north' } },
      pagination: { offset: 0, limit: 10 },
    };
    const caller = {
      accountId: 2,
      role: 'partner',
      name: 'bench',
      partnerId: 1,
      providerId: null,
      canForceProvider: false,
    };

    const check = await postJson(url, '/api/v3/invoices/find', PARTNER_TOKEN, body);
    if (check.status !== 200) throw new Error(`find failed: ${JSON.stringify(check.body)}`);
    const matches = check.body.pagination.count;

    // The count sums the kept values' day counts for the whole days after `since` and reads the
    // kept values of the first, partial day (services/invoicing/src/invoice-pages.ts).
    const DAY_MS = 86_400_000;
    const firstWholeDay = new Date((Math.floor(Date.parse(since) / DAY_MS) + 1) * DAY_MS).toISOString().slice(0, 10);
    const keptValue = ['region', JSON.stringify('north')];
    const statements = [
      {
        sql: `select (select count(*) from invoicing.invoice_custom_values v
                       where v.partner_id = ? and v.key = ? and v.value = ?::jsonb and v.created_at > ?
                         and v.created_at < (?::date at time zone 'UTC'))
                   + (select coalesce(sum(d.invoices), 0) from invoicing.custom_value_days d
                       where d.partner_id = ? and d.key = ? and d.value = ?::jsonb and d.day >= ?::date) as count`,
        bindings: [1, ...keptValue, since, firstWholeDay, 1, ...keptValue, firstWholeDay],
      },
      {
        sql: `select i.*, case when l.id is null then null else to_jsonb(l) end as linked from invoicing.invoices i
                left join invoicing.invoices l on l.id = i.linked_invoice_id
               where i.partner_id = ? and i.created_at > ? and i.custom_data @> ?::jsonb order by i.created_at, i.id limit 10`,
        bindings: [1, since, JSON.stringify({ region: 'north' })],
      },
    ];
    // The count as it was before the day counts: an index entry per match.
    const countByEntries = {
      sql: `select count(*) from invoicing.invoice_custom_values v
             where v.partner_id = ? and v.key = ? and v.value = ?::jsonb and v.created_at > ?`,
      bindings: [1, ...keptValue, since],
    };
    const [counted] = (await knex.raw(statements[0].sql, statements[0].bindings)).rows;
    const [countedByEntries] = (await knex.raw(countByEntries.sql, countByEntries.bindings)).rows;
    if (Number(counted.count) !== matches || Number(countedByEntries.count) !== matches)
      throw new Error(`counts ${counted.count} and ${countedByEntries.count}, find answered ${matches}`);
    const entryCount = await timeRounds(() => knex.raw(countByEntries.sql, countByEntries.bindings));
    const raw = await timeRounds(async () => {
      for (const { sql, bindings } of statements) await knex.raw(sql, bindings);
    });
    const action = await timeRounds(() => broker.call('invoicing.find', body, { meta: { caller } }));
    const gateway = await timeRounds(async () => {
      const res = await requestStatus(`${url}/api/v3/invoices/find`, {
        method: 'POST',
        headers: { 'X-Hub-Api-Token': PARTNER_TOKEN },
        body,
      });
      if (res.status !== 200) throw new Error(`find answered ${res.status}`);
    });
    const http = await autocannon({
      url: `${url}/api/v3/invoices/find`,
      method: 'POST',
      connections: 4,
      duration: DURATION,
      headers: { 'Content-Type': 'application/json', 'X-Hub-Api-Token': PARTNER_TOKEN },
      body: JSON.stringify(body),
    });
    if (http.non2xx > 0) throw new Error(`${http.non2xx} requests failed`);

    const plans = [];
    for (const { sql, bindings } of [...statements, countByEntries]) {
      const plan = await knex.raw(`explain (analyze, buffers, costs off) ${sql}`, bindings);
      plans.push(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    const database = server ? 'Postgres server' : 'embedded (PGlite)';
    const fmt = (n) => n.toFixed(2);
    console.log(
      `invoices: ${INVOICES}, seeded in ${seedMs} ms, vacuumed in ${vacuumMs} ms, database: ${database}, matches for the partner: ${matches}`,
    );
    for (const plan of plans) console.log(`plan:\n${plan}`);
    console.log('| what | mean ms | p50 ms | p99 ms | req/s |');
    console.log('|---|---|---|---|---|');
    console.log(
      `| baseline: the two SQL statements raw through knex | ${fmt(raw.mean)} | ${fmt(raw.p50)} | ${fmt(raw.p99)} | ${fmt(1000 / raw.mean)} |`,
    );
    console.log(
      `| before: the count read an index entry per match, raw | ${fmt(entryCount.mean)} | ${fmt(entryCount.p50)} | ${fmt(entryCount.p99)} | ${fmt(1000 / entryCount.mean)} |`,
    );
    console.log(
      `| invoicing.find through the broker (with caseCores) | ${fmt(action.mean)} | ${fmt(action.p50)} | ${fmt(action.p99)} | ${fmt(1000 / action.mean)} |`,
    );
    console.log(
      `| POST /api/v3/invoices/find through the gateway, one at a time | ${fmt(gateway.mean)} | ${fmt(gateway.p50)} | ${fmt(gateway.p99)} | ${fmt(1000 / gateway.mean)} |`,
    );
    console.log(
      `| POST /api/v3/invoices/find over HTTP, 4 connections, ${DURATION} s | ${fmt(http.latency.average)} | ${fmt(http.latency.p50)} | ${fmt(http.latency.p99)} | ${fmt(http.requests.average)} |`,
    );
    const httpFigures = { mean: http.latency.average, p50: http.latency.p50, p99: http.latency.p99 };
    return {
      ratios: {
        'action.meanLatency': ratio(raw.mean, action.mean),
        'gateway.meanLatency': ratio(raw.mean, gateway.mean),
        'http.requestsPerSecond': ratio(http.requests.average, 1000 / raw.mean),
      },
      figures: {
        invoices: INVOICES,
        database,
        seedMs,
        vacuumMs,
        matches,
        rawSqlMs: raw,
        entryCountMs: entryCount,
        actionMs: action,
        gatewayMs: gateway,
        httpMs: httpFigures,
        httpRequestsPerSecond: http.requests.average,
      },
    };
  } finally {
    await broker.stop();
    await server?.drop();
  }
}

runBenchmark('invoices', main);
