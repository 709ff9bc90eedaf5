/**
 * search-cases over a million cases of three partners and three providers: the common searches
 * (no filter sorted and paged, page 1,000 by offset and after a cursor, the current status, a
 * createdAt week, commonSearch text, a tag, an orderData key), each through the gateway beside
 * the very SQL statements the action issued, run raw through knex in the same run.
 *
 * Cases are grown with SQL from one booked case per partner (generate_series, not row by row),
 * with a customer contact, a first status and tags, then analysed and vacuumed as a settled table
 * would be. The search indexes (SEARCH_INDEXES) are dropped while the rows go in, as a bulk
 * import would; the searches run without them (`before`), then they are built again as the
 * booking schema defines them (CREATE INDEX CONCURRENTLY on the grown table, timed) and the
 * searches run again (`after`). The kept count of each scope, the scopes the case tags keep and
 * the kept orderData values stay: the search reads them. `commonSearch` also runs raw in its first
 * form (one OR with the contacts in an EXISTS) both times.
 *
 * Run after `npm run build`: `BENCH_POSTGRES_URL=postgres://... node bench/search-cases.js`
 * (a fresh database is created there and dropped afterwards; without it the embedded database
 * is used, in a temporary directory). CASES (default 1000000), ROUNDS (default 100) and
 * ROUNDS_BEFORE (default 10) tune it; `--quick` makes them 3000, 5 and 2. Ends with one JSON line
 * (bench/lib/benchmark.js): each ratio is the raw SQL's p50 over the gateway's, after the indexes.
 */
'use strict';
const { AsyncLocalStorage } = require('node:async_hooks');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadConfig, readWorld, DEMO_WORLD_FILE, databaseOf, buildExpressionStatistics } = require('../shared/dist');
const { startHub } = require('../cli/dist');
/** The indexes the searches read their matches through, in the booking schema. */
const SEARCH_INDEXES = [
  'cases_partner_id',
  'cases_provider_id',
  'cases_partner_status',
  'cases_provider_status',
  'case_tags_tag',
  'cases_order_data',
  'cases_product_data',
  'cases_guid_trgm',
  'cases_order_data_trgm',
  'cases_product_data_trgm',
  'case_contacts_data_trgm',
  'cases_partner_created',
  'cases_provider_created',
  'case_tags_partner',
  'case_tags_provider',
  'cases_partner_order_data',
  'cases_provider_order_data',
  'case_order_values_partner',
  'case_order_values_provider',
];

/** Drops the search indexes and answers the statements that build them again without stopping writes. */
async function dropSearchIndexes(knex) {
  const { rows } = await knex.raw(
    `select indexname, indexdef from pg_indexes where schemaname = 'booking' and indexname = any(?)`,
    [SEARCH_INDEXES],
  );
  if (rows.length !== SEARCH_INDEXES.length) throw new Error('the booking schema lacks a search index');
  for (const { indexname } of rows) await knex.raw(`drop index concurrently booking.${indexname}`);
  return rows.map(({ indexdef }) => indexdef.replace(/^CREATE INDEX /, 'CREATE INDEX CONCURRENTLY '));
}

const { quick, percentile, ratio, runBenchmark } = require('./lib/benchmark');
const { requestJson, requestStatus } = require('./lib/http-client');
const { scratchDatabase, flushToDisk } = require('./lib/databases');

const CASES = quick ? 3000 : Number(process.env.CASES ?? 1_000_000);
const ROUNDS = quick ? 5 : Number(process.env.ROUNDS ?? 100);
// Without the indexes a search reads every case of the scope: a few rounds show it.
const ROUNDS_BEFORE = quick ? 2 : Number(process.env.ROUNDS_BEFORE ?? 10);
const TOKENS = {
  1: 'demo-partner-elkjop-000000000001',
  2: 'demo-partner-power-0000000000001',
  3: 'demo-partner-trygg-0000000000001',
};
const STATUSES = ['registered', 'arrived', 'diagnosed', 'awaiting_parts', 'repaired', 'shipped', 'final', 'cancelled'];

function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const round = (n) => +n.toFixed(2);
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}
async function timed(run) {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function postJson(url, pathname, token, body) {
  return requestJson(`${url}${pathname}`, { method: 'POST', headers: { 'X-Hub-Api-Token': token }, body });
}

/** Grows booking.cases to CASES rows from the booked templates, in a few set-based statements. */
async function grow(knex) {
  const start = Date.now();
  const { max: booked } = (await knex.raw('select max(id) as max from booking.cases')).rows[0];
  const columns = (
    await knex.raw(
      `select column_name from information_schema.columns where table_schema = 'booking' and table_name = 'cases' and column_name <> 'id' order by ordinal_position`,
    )
  ).rows.map((row) => row.column_name);
  const generated = {
    guid: `md5('case' || n)::uuid`,
    partner_id: 't.partner_id',
    service_provider_id: `(array[10, 20, 30])[1 + (n / 3) % 3]`,
    current_status: `(array[${STATUSES.map((s) => `'${s}'`).join(', ')}])[1 + (n * 7 + n / 11) % ${STATUSES.length}]`,
    order_data: `jsonb_build_object('refNo', 'REF-' || n, 'storeId', 'S-' || lpad((n % 200)::text, 3, '0'))`,
    product_data: `t.product_data || jsonb_build_object('serial', 'SN' || upper(substr(md5(n::text), 1, 10)))`,
    created_at: `timestamptz '2024-11-23' + n * interval '63 seconds'`,
    updated_at: `timestamptz '2024-11-23' + n * interval '63 seconds'`,
  };
  const select = columns.map((column) => generated[column] ?? `t.${column}`).join(', ');
  await knex.raw(
    `insert into booking.cases (${columns.join(', ')})
     select ${select} from generate_series(1, ?) as n
     join (select * from booking.cases where id in (select min(id) from booking.cases group by partner_id)) t
       on t.partner_id = 1 + n % 3`,
    [CASES],
  );
  await knex.raw(
    `insert into booking.case_contacts (case_id, role, type, data)
     select c.id, 'customer', 1, jsonb_build_object('firstName', (array['Kari','Ola','Nils','Anna','Per'])[1 + c.id % 5],
            'lastName', 'Hansen' || (c.id % 5000), 'email', 'c' || c.id || '@example.com', 'phone', '+47' || (40000000 + c.id))
     from booking.cases c where c.id > ?`,
    [booked],
  );
  await knex.raw(
    `insert into booking.case_statuses (case_id, key, name, declared_at, created_at, updated_at)
     select id, current_status, current_status, created_at, created_at, created_at from booking.cases where id > ?`,
    [booked],
  );
  await knex.raw(`insert into booking.tags (name) values ('warranty'), ('express'), ('vip') on conflict do nothing`);
  await knex.raw(
    `insert into booking.case_tags (case_id, tag_id)
     select c.id, t.id from booking.cases c join booking.tags t
       on (t.name = 'warranty' and c.id % 10 = 0) or (t.name = 'vip' and c.id % 97 = 0)
     where c.id > ?`,
    [booked],
  );
  await settle(knex);
  return +((Date.now() - start) / 1000).toFixed(1);
}

/**
 * Statistics and the visibility map as autovacuum leaves them on a settled table; on the embedded
 * database, the trigram statistics too, which it builds apart from ANALYZE once a table doubles
 * (otherwise in the middle of the timed rounds).
 */
async function settle(knex) {
  for (const table of ['cases', 'case_contacts', 'case_statuses', 'case_tags', 'case_order_values'])
    await knex.raw(`vacuum analyze booking.${table}`);
  await buildExpressionStatistics(knex);
  await flushToDisk(knex);
}

/** The searches, as Elkjøp (partner 1, about a third of the cases). */
function searches(deepCursor, deepOffset) {
  return [
    { kind: 'sorted and paged, page 1', body: { pagination: { limit: 10 } } },
    { kind: 'page 1,000 by offset', body: { pagination: { offset: deepOffset, limit: 10 } } },
    { kind: 'page 1,000 after a cursor', body: { pagination: { after: deepCursor, limit: 10 } } },
    // Elkjøp reads the provider's `awaiting_parts` (and `in_repair`) as `repairing` (world/demo.json).
    { kind: 'currentStatus', body: { filters: { currentStatus: 'repairing' } } },
    {
      kind: 'createdAt week',
      body: { filters: { createdAt: { $gt: '2025-06-01T00:00:00Z', $lt: '2025-06-08T00:00:00Z' } } },
    },
    { kind: 'commonSearch surname', body: { filters: { commonSearch: 'hansen4242' } } },
    { kind: 'commonSearch order number', body: { filters: { commonSearch: 'REF-777777' } } },
    { kind: 'tags', body: { filters: { tags: ['vip'] } } },
    { kind: 'orderData key', body: { filters: { 'orderData.storeId': 'S-042' } } },
  ];
}

/** The statements one action call issues, captured from knex, to run raw. */
async function statementsOf(broker, knex, body) {
  const statements = [];
  // Only the search's own: other work on the same pool (the outbox relay, the embedded
  // maintenance) runs meanwhile from timers, outside this call's async context.
  const search = new AsyncLocalStorage();
  // The pg dialect reports numbered placeholders, in binding order; knex.raw takes `?`.
  const listener = (query) => {
    if (search.getStore()) statements.push({ sql: query.sql.replace(/\$\d+/g, '?'), bindings: query.bindings ?? [] });
  };
  knex.on('query', listener);
  const caller = {
    accountId: 2,
    role: 'partner',
    name: 'bench',
    partnerId: 1,
    providerId: null,
    canForceProvider: false,
  };
  await search.run(true, () => broker.call('booking.search', body, { meta: { caller } }));
  knex.removeListener('query', listener);
  return statements;
}

async function measure(url, broker, knex, list, rounds) {
  const results = {};
  for (const { kind, body } of list) {
    const check = await postJson(url, '/api/v3/search-cases', TOKENS[1], body);
    if (check.status !== 200) throw new Error(`${kind}: ${check.status} ${JSON.stringify(check.body)}`);
    const statements = await statementsOf(broker, knex, body);
    const gateway = [];
    const raw = [];
    for (let i = 0; i < rounds + 2; i++) {
      const viaGateway = await timed(async () => {
        const res = await requestStatus(`${url}/api/v3/search-cases`, {
          method: 'POST',
          headers: { 'X-Hub-Api-Token': TOKENS[1] },
          body,
        });
        if (res.status !== 200) throw new Error(`${kind}: answered ${res.status}`);
      });
      const viaSql = await timed(async () => {
        for (const statement of statements) await knex.raw(statement.sql, statement.bindings);
      });
      if (i < 2) continue;
      gateway.push(viaGateway);
      raw.push(viaSql);
    }
    const plans = [];
    // The search's own statements: those before the page's cases are loaded whole.
    const loading = statements.findIndex((statement) => /loaded_contacts/.test(statement.sql));
    for (const statement of loading < 0 ? statements : statements.slice(0, loading)) {
      const plan = await knex.raw(`explain (analyze, costs off) ${statement.sql}`, statement.bindings);
      plans.push(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    results[kind] = {
      count: check.body.pagination.count,
      gateway: stats(gateway),
      rawSql: stats(raw),
      plans,
    };
  }
  return results;
}

/** commonSearch as it was first written, raw: one OR over the case's texts and an EXISTS on its contacts. */
async function firstCommonSearch(knex, text) {
  const pattern = `%${text}%`;
  const where = `c.partner_id = 1 and (c.guid::text ilike ? or c.order_data::text ilike ? or c.product_data::text ilike ?
    or exists (select 1 from booking.case_contacts cc where cc.case_id = c.id and cc.data::text ilike ?))`;
  const bindings = [pattern, pattern, pattern, pattern];
  const times = [];
  for (let i = 0; i < 3; i++) {
    times.push(
      await timed(async () => {
        await knex.raw(`select count(*) from booking.cases c where ${where}`, bindings);
        await knex.raw(`select c.id, c.guid from booking.cases c where ${where} order by c.id limit 11`, bindings);
      }),
    );
  }
  return stats(times);
}

async function main() {
  const server = process.env.BENCH_POSTGRES_URL
    ? await scratchDatabase('bench_cases', process.env.BENCH_POSTGRES_URL)
    : undefined;
  const dataDir = server ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-cases-'));
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    LOAD_DEMO_WORLD: 'false',
    METRICS: 'false',
    RATE_LIMIT_PER_MINUTE: '10000000',
    // A search without its indexes reads every case of the scope, which takes longer than a call may.
    REQUEST_TIMEOUT_MS: '600000',
    ...(server ? { DATABASE_URL: server.url } : { DATA_DIR: dataDir }),
  };
  const config = { ...loadConfig(env), services: ['catalog', 'routing', 'booking', 'gateway'] };
  const broker = await startHub(config, { initialWorld: readWorld(DEMO_WORLD_FILE) });
  const load = () =>
    os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' / ');
  try {
    const url = `http://127.0.0.1:${broker.getLocalService('gateway').server.address().port}`;
    const knex = (await databaseOf(broker)).knex;
    const demoCase = JSON.parse(fs.readFileSync(path.join(__dirname, '../world/demo-case.json'), 'utf8'));
    for (const partner of [1, 2, 3]) {
      const body =
        partner === 3
          ? {
              ...demoCase,
              serviceType: 3,
              productData: { ...demoCase.productData, insuranceNumber: 'POL-1', insuranceCompany: 'Trygg' },
            }
          : demoCase;
      const booked = await postJson(url, '/api/v3/case/create', TOKENS[partner], body);
      if (booked.status !== 200) throw new Error(`booking failed: ${JSON.stringify(booked.body)}`);
    }
    const loadAtStart = load();
    // As a bulk import would: the search indexes dropped while the rows go in, then built.
    const buildSearchIndexes = await dropSearchIndexes(knex);
    const seedSeconds = await grow(knex);
    // Page 1,000, or in a quick run the last full page of Elkjøp's third of the cases.
    const deepOffset = Math.min(9990, Math.floor(CASES / 3) - 10);
    const deep = await postJson(url, '/api/v3/search-cases', TOKENS[1], {
      pagination: { offset: deepOffset - 10, limit: 10 },
    });
    const list = searches(deep.body.pagination.next, deepOffset);
    const before = await measure(url, broker, knex, list, ROUNDS_BEFORE);
    const firstFormBefore = await firstCommonSearch(knex, 'hansen4242');
    const indexStart = Date.now();
    for (const statement of buildSearchIndexes) await knex.raw(statement);
    const indexSeconds = +((Date.now() - indexStart) / 1000).toFixed(1);
    await settle(knex);
    const after = await measure(url, broker, knex, list, ROUNDS);
    const firstFormAfter = await firstCommonSearch(knex, 'hansen4242');
    const figures = {
      database: server ? 'Postgres server' : 'embedded PGlite',
      cases: CASES,
      rounds: { after: ROUNDS, before: ROUNDS_BEFORE },
      seedSeconds,
      indexSeconds,
      loadAverage: { start: loadAtStart, end: load() },
      commonSearchFirstForm: { withIndexes: firstFormAfter, withoutIndexes: firstFormBefore },
      after,
      before,
    };
    // For people: the figures with every plan; the closing line repeats them without the plans.
    console.log(JSON.stringify(figures, null, 2));
    const withoutPlans = (results) =>
      Object.fromEntries(
        Object.entries(results).map(([kind, { count, gateway, rawSql }]) => [kind, { count, gateway, rawSql }]),
      );
    return {
      ratios: Object.fromEntries(
        Object.entries(after).map(([kind, measured]) => [kind, ratio(measured.rawSql.p50, measured.gateway.p50)]),
      ),
      figures: { ...figures, after: withoutPlans(after), before: withoutPlans(before) },
    };
  } finally {
    await broker.stop();
    await server?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBenchmark('search-cases', main);
