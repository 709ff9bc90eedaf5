/**
 * Benchmark: the model registry. Loads 100,000 models through `POST /api/v3/models` (batches of
 * 500, which the 512 KiB answer of saved models holds: creates, then the same batches changed,
 * which are updates) and measures search latency
 * through the gateway beside the same search as raw SQL on the same database in the same run, and
 * a `select 1` after each: the round trip's own floor, which a loaded machine raises.
 * Broad searches (a word many models hold) also run, a few times, as the ranking that ranks every
 * match before the limit, to show what the tiered search saves.
 * Then it grows the table to a million rows with SQL (the GIN indexes rebuilt, as a bulk import
 * would) and measures the searches again.
 *
 * Run after `npm run build`: node bench/models.js [models, default 100000] [grown rows, default 1000000; 0 skips]
 * Embedded PGlite by default; DATABASE_URL runs it on a Postgres server. `--quick`: 2,000 models,
 * 40 searches, grown to 10,000. Ends with one JSON line (bench/lib/benchmark.js).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadConfig, readWorld, DEMO_WORLD_FILE, databaseOf } = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { searchSql } = require('../services/models/dist/models.store');
const { quick, args, percentile, ratio, runBenchmark } = require('./lib/benchmark');
const { requestJson } = require('./lib/http-client');
const { flushToDisk } = require('./lib/databases');

const MODELS = quick ? 2000 : Number(args[0] ?? 100_000);
const GROWN = quick ? 10_000 : Number(args[1] ?? 1_000_000);
const BATCH = 500;
const SEARCHES = quick ? 40 : 2000;
const BROAD_SEARCHES = quick ? 8 : 200;
const BASELINE_SEARCHES = 8;
const TOKEN = 'demo-partner-elkjop-000000000001';

const SERIES = {
  1: ['iPhone', 'iPad', 'MacBook Air', 'MacBook Pro', 'Watch Series'],
  2: ['Galaxy S', 'Galaxy A', 'Galaxy Tab', 'Galaxy Z Fold', 'QLED'],
  3: ['ThinkPad X', 'ThinkPad T', 'IdeaPad', 'Legion', 'Yoga'],
  4: ['EliteBook', 'ProBook', 'Pavilion', 'Envy', 'OMEN'],
  5: ['PerfectCare', 'UltimateCare', 'KitchenPro', 'Pure', 'AirDry'],
  6: ['Bravia', 'Xperia', 'WH-1000XM', 'PlayStation', 'Alpha'],
};
const PREFIX = { 1: 'M', 2: 'SM', 3: 'LN', 4: 'HP', 5: 'EW', 6: 'KD' };

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(42);
const code = (length) =>
  Array.from({ length }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789'[Math.floor(next() * 34)]).join('');

function modelAt(i) {
  const manufacturer = 1 + (i % 6);
  const series = SERIES[manufacturer][Math.floor(i / 6) % 5];
  const variant = `${code(2)}${i.toString(36).toUpperCase()}`;
  return {
    manufacturer,
    productType: 1 + (i % 5),
    name: `${series} ${variant}`,
    mpn: `${PREFIX[manufacturer]}-${code(5)}${i.toString(36).toUpperCase()}`,
    aliases: [`${series.replace(/\s+/g, '')}${variant}`],
    tags: ['bench'],
    countryOfOrigin: 'China',
    value: `${100 + (i % 900)}.${String(i % 100).padStart(2, '0')}`,
    weight: `${(i % 30) / 10 + 0.1}`.slice(0, 4),
  };
}

const stats = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50ms: +percentile(sorted, 50).toFixed(2),
    p99ms: +percentile(sorted, 99).toFixed(2),
    meanMs: +(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(2),
  };
};

let connectionResets = 0;

async function post(url, models) {
  const request = () =>
    fetch(`${url}/api/v3/models`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Hub-Api-Token': TOKEN },
      body: JSON.stringify(models),
    });
  // A batch names its models by name and manufacturer, so sending it again changes nothing more.
  // A reset connection is counted in the figures, not hidden.
  const res = await request().catch((err) => {
    if (err.cause?.code !== 'ECONNRESET') throw err;
    connectionResets += 1;
    return request();
  });
  if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

async function upsertAll(url, models) {
  const start = process.hrtime.bigint();
  const resetsBefore = connectionResets;
  for (let i = 0; i < models.length; i += BATCH) await post(url, models.slice(i, i + BATCH));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return {
    models: models.length,
    batch: BATCH,
    seconds: +seconds.toFixed(1),
    modelsPerSecond: Math.round(models.length / seconds),
    connectionResets: connectionResets - resetsBefore,
  };
}

/** The searches an integrator makes: partial words of a name, a piece of an mpn, an exact alias, within a manufacturer. */
function searches(models) {
  const list = [];
  for (let i = 0; i < SEARCHES; i += 1) {
    const model = models[Math.floor(next() * models.length)];
    const words = model.name.toLowerCase().split(' ');
    switch (i % 4) {
      case 0:
        list.push({
          kind: 'partial words',
          filter: { model: `${words[0].slice(0, 5)} ${words[words.length - 1].slice(0, 4)}` },
        });
        break;
      case 1:
        list.push({ kind: 'mpn piece', filter: { model: model.mpn.slice(3, 9) } });
        break;
      case 2:
        list.push({ kind: 'exact alias', filter: { model: model.aliases[0] } });
        break;
      default:
        list.push({
          kind: 'manufacturer + words',
          filter: { manufacturer: model.manufacturer, model: words[words.length - 1].slice(1, 5) },
        });
    }
  }
  list.push(
    ...Array.from({ length: BROAD_SEARCHES }, (_, i) => ({
      kind: 'broad: a series, names start with it',
      filter: { model: ['galaxy', 'thinkpad', 'iphone', 'bravia'][i % 4] },
    })),
  );
  list.push(
    ...Array.from({ length: BROAD_SEARCHES }, (_, i) => ({
      kind: 'broad: a word inside names',
      filter: { model: ['book', 'pad', 'phone', 'care'][i % 4] },
    })),
  );
  // Thousands of the manufacturer's models hold the word; then none of them does (no generated
  // code holds an O, so neither word occurs in an mpn or a variant).
  list.push(
    ...Array.from({ length: BROAD_SEARCHES }, (_, i) => ({
      kind: 'broad: a word inside names, with a manufacturer holding many',
      filter: [
        { manufacturer: 4, model: 'book' },
        { manufacturer: 1, model: 'phone' },
        { manufacturer: 1, model: 'book' },
        { manufacturer: 3, model: 'pad' },
      ][i % 4],
    })),
  );
  list.push(
    ...Array.from({ length: BROAD_SEARCHES }, (_, i) => ({
      kind: 'broad: a word inside names, with a manufacturer holding none',
      filter: [
        { manufacturer: 6, model: 'book' },
        { manufacturer: 4, model: 'phone' },
        { manufacturer: 3, model: 'book' },
        { manufacturer: 2, model: 'phone' },
      ][i % 4],
    })),
  );
  return list;
}

/**
 * The search as it ranked before tiers: every model holding the words, ranked by similarity
 * before the limit applies. Run beside the broad searches only, to show what the tiers save.
 */
function everyMatchRankedSql({ manufacturer, model }) {
  const words = [...new Set(model.toLowerCase().split(/\s+/).filter(Boolean))];
  const scope = manufacturer === undefined ? [] : [manufacturer];
  return {
    sql: `select id from models.models where ${[...scope.map(() => 'manufacturer_id = ?'), ...words.map(() => 'search_text like ?')].join(' and ')}
          order by case when lower(name) = ? or lower(mpn) = ? or exists (select 1 from unnest(aliases) alias where lower(alias) = ?) then 0
                        when lower(name) like ? or lower(mpn) like ? then 1 else 2 end,
                   similarity(search_text, ?) desc, lower(name), id limit 10`,
    bindings: [...scope, ...words.map((word) => `%${word}%`), model, model, model, `${model}%`, `${model}%`, model],
  };
}

async function timeSql(knex, { sql, bindings }) {
  const start = process.hrtime.bigint();
  await knex.raw(sql, bindings);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function measureSearches(url, knex, list) {
  const byKind = {};
  const gateway = [];
  const raw = [];
  const floor = [];
  let found = 0;
  for (const { kind, filter } of list) {
    const query = new URLSearchParams(Object.entries(filter).map(([key, value]) => [key, String(value)])).toString();
    let start = process.hrtime.bigint();
    const res = await requestJson(`${url}/api/v3/models?${query}`, { headers: { 'X-Hub-Api-Token': TOKEN } });
    const { body } = res;
    const viaGateway = Number(process.hrtime.bigint() - start) / 1e6;
    if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
    if (body.length) found += 1;

    const viaSql = await timeSql(
      knex,
      searchSql({ manufacturerId: filter.manufacturer, model: filter.model, limit: 10 }),
    );

    gateway.push(viaGateway);
    raw.push(viaSql);
    // The same round trip doing no work: how much of a p99 is the machine's, not the query's.
    floor.push(await timeSql(knex, { sql: 'select 1', bindings: [] }));
    (byKind[kind] ??= { gateway: [], raw: [], everyMatchRanked: [] }).gateway.push(viaGateway);
    byKind[kind].raw.push(viaSql);
  }
  // After the timed rounds: each of these reads most of the table, and the search timed right
  // after one would find the shared buffers filled with its pages.
  for (const { kind, filter } of list) {
    const { everyMatchRanked } = byKind[kind];
    if (kind.startsWith('broad') && everyMatchRanked.length < BASELINE_SEARCHES)
      everyMatchRanked.push(await timeSql(knex, everyMatchRankedSql(filter)));
  }
  return {
    searchesWithResults: `${found}/${list.length}`,
    gateway: stats(gateway),
    rawSql: stats(raw),
    selectOne: stats(floor),
    byKind: Object.fromEntries(
      Object.entries(byKind).map(([kind, times]) => [
        kind,
        {
          gateway: stats(times.gateway),
          rawSql: stats(times.raw),
          ...(times.everyMatchRanked.length ? { everyMatchRankedSql: stats(times.everyMatchRanked) } : {}),
        },
      ]),
    ),
  };
}

/** The scans the search's plan makes, and which parts never ran. */
async function explain(knex, filter) {
  const { sql, bindings } = searchSql({ ...filter, limit: 10 });
  const result = await knex.raw(`explain (analyze, costs off, timing off) ${sql}`, bindings);
  const lines = result.rows.map((row) => row['QUERY PLAN']);
  return lines
    .filter((line) => /Scan|One-Time Filter|Execution Time/.test(line))
    .map((line) => line.trim().replace(/^-> +/, ''));
}

async function plans(knex) {
  return {
    'mpn piece': await explain(knex, { model: 'sm-k3' }),
    'broad, names start with it': await explain(knex, { model: 'galaxy' }),
    'broad, inside names': await explain(knex, { model: 'book' }),
    'broad, inside names, a manufacturer holding many': await explain(knex, { manufacturerId: 4, model: 'book' }),
    'broad, inside names, a manufacturer holding none': await explain(knex, { manufacturerId: 6, model: 'book' }),
  };
}

/**
 * Statistics and the visibility map as autovacuum leaves the registry's tables at rest (as the
 * search-cases and invoices benchmarks do): a server without autovacuum, or the embedded
 * database's own timer firing in the timed rounds, would otherwise leave the suffixes' index walk
 * checking the table for every entry it reads.
 */
async function settle(knex) {
  await knex.raw('vacuum analyze models.models');
  await knex.raw('vacuum analyze models.search_suffixes');
  await flushToDisk(knex);
}

/**
 * Fills the table to `rows` with SQL, as a bulk import would: the GIN indexes dropped and rebuilt,
 * and the new models' suffixes written in one statement, their indexes built after it.
 */
async function grow(knex, rows) {
  const start = Date.now();
  const { count } = (await knex.raw('select count(*)::int as count from models.models')).rows[0];
  const { last } = (await knex.raw('select max(id) as last from models.models')).rows[0];
  await knex.raw('drop index models.models_search_trgm');
  await knex.raw('drop index models.models_aliases_lowered');
  await knex.raw('alter table models.models disable trigger search_suffixes_insert');
  await knex.raw('alter table models.search_suffixes drop constraint search_suffixes_pkey');
  await knex.raw('drop index models.search_suffixes_manufacturer');
  await knex.raw(
    `insert into models.models (name, mpn, manufacturer_id, product_type_id, aliases, tags, value, weight, search_text)
     select name, mpn, manufacturer, 1 + n % 5, array[alias], '["bench"]', 100 + n % 900, (n % 30) / 10.0, lower(name || ' ' || mpn || ' ' || alias)
     from (select n, 1 + n % 6 as manufacturer,
                  (array['Galaxy S','ThinkPad X','iPhone','Bravia','EliteBook','PerfectCare'])[1 + n % 6] || ' G' || upper(to_hex(n)) as name,
                  'G-' || upper(substr(md5(n::text), 1, 6)) || upper(to_hex(n)) as mpn,
                  'grown' || upper(to_hex(n)) as alias
           from generate_series(?::int, ?::int) as n) as generated`,
    [count + 1, rows],
  );
  await knex.raw(
    'create index models_search_trgm on models.models using gin (search_text gin_trgm_ops) with (gin_pending_list_limit = 256)',
  );
  await knex.raw('create index models_aliases_lowered on models.models using gin (models.lowered(aliases))');
  await knex.raw(
    `insert into models.search_suffixes (suffix, model_id, manufacturer_id)
     select x.suffix, m.id, m.manufacturer_id from models.models m, models.suffixes_of(m.search_text) as x(suffix) where m.id > ?`,
    [last],
  );
  await knex.raw('alter table models.search_suffixes add primary key (suffix, model_id)');
  await knex.raw(
    'create index search_suffixes_manufacturer on models.search_suffixes (manufacturer_id, suffix, model_id)',
  );
  await knex.raw('alter table models.models enable trigger search_suffixes_insert');
  await settle(knex);
  const suffixes = (await knex.raw('select count(*)::int as count from models.search_suffixes')).rows[0].count;
  return { rows, suffixes, seconds: +((Date.now() - start) / 1000).toFixed(1) };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
  const config = {
    ...loadConfig({
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LOAD_DEMO_WORLD: 'false',
      METRICS: 'false',
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '10000000',
    }),
    services: ['catalog', 'models', 'gateway'],
  };
  const broker = await startHub(config, { initialWorld: readWorld(DEMO_WORLD_FILE) });
  try {
    const url = `http://127.0.0.1:${broker.getLocalService('gateway').server.address().port}`;
    const knex = (await databaseOf(broker)).knex;
    const models = Array.from({ length: MODELS }, (_, i) => modelAt(i));
    const creates = await upsertAll(url, models);
    const updates = await upsertAll(
      url,
      models.map((model) => ({ ...model, value: '1.00', countryOfOrigin: 'Vietnam' })),
    );
    await settle(knex);
    const list = searches(models);
    const report = {
      database: config.databaseUrl ? 'postgres server' : 'embedded PGlite',
      upsert: { creates, updates },
      search: { rows: MODELS, plans: await plans(knex), ...(await measureSearches(url, knex, list)) },
    };
    if (GROWN > MODELS) {
      report.grown = await grow(knex, GROWN);
      report.searchGrown = { rows: GROWN, plans: await plans(knex), ...(await measureSearches(url, knex, list)) };
    }
    const ratios = { 'search.p50': ratio(report.search.rawSql.p50ms, report.search.gateway.p50ms) };
    if (report.searchGrown)
      ratios['searchGrown.p50'] = ratio(report.searchGrown.rawSql.p50ms, report.searchGrown.gateway.p50ms);
    return { ratios, figures: report };
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBenchmark('models', main);
