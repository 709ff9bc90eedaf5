/**
 * Benchmark: POST /api/v3/case/create through the whole gateway (token, access check, body
 * validation, lookups, routing, one transaction with the case, contacts, status and outbox rows)
 * at a fixed concurrency, beside a raw SQL loop inserting the same rows at the same concurrency,
 * in the same run: the hub in one process on the embedded database and on the Postgres server,
 * and distributed (gateway, catalog, routing with models, and booking each a process of its own,
 * over NATS with the Redis cacher) on the Postgres server.
 *
 * Run after `npm run build`:
 *   node bench/booking.js [seconds per run, default 10] [embedded|postgres|distributed|all]
 * (`--quick`: 30 bookings and 2 s of the raw loop). Ends with one JSON line (bench/lib/benchmark.js).
 * The servers are taken from BENCH_POSTGRES_URL, BENCH_NATS_URL and BENCH_REDIS_URL (defaults:
 * the local servers' standard ports).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const autocannon = require('autocannon');
const knexFactory = require('knex');
const { loadConfig, readWorld, databaseOf, DEMO_WORLD_FILE } = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { quick, args, percentile, ratio, runBenchmark } = require('./lib/benchmark');
const { scratchDatabase } = require('./lib/databases');
const { startDistributedHub } = require('./lib/hub-process');

const SECONDS = quick ? 2 : Number(args[0] ?? 10);
/** Turns the gateway and the raw loop take in a run (see measure). */
const ROUNDS = quick ? 1 : 5;
const WHICH = args[1] ?? 'all';
/** The distributed hub's processes, by node id, with the services each runs. */
const DISTRIBUTED_NODES = {
  'bench-gateway': 'gateway',
  'bench-catalog': 'catalog',
  'bench-routing': 'routing,models',
  'bench-booking': 'booking',
};
const CONNECTIONS = 10;
const TOKEN = 'demo-partner-elkjop-000000000001';

const BODY = JSON.stringify({ ...require('../world/demo-case.json'), orderData: { refNo: 'BENCH' } });

/**
 * Bookings through the gateway at CONNECTIONS at once for `seconds` (a quick run: a fixed number,
 * so that even a loaded machine finishes some); each one's latency goes into `latencies`.
 */
function cannon(url, seconds, latencies) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        body: BODY,
        headers: { 'content-type': 'application/json', 'x-hub-api-token': TOKEN },
        connections: CONNECTIONS,
        ...(quick ? { amount: CONNECTIONS * 3 } : { duration: seconds }),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

/**
 * The same rows a booking writes (case, customer/sender/receiver contacts, first status, its
 * outbox events: case.created and the first status's, its history entry), copied from a booked
 * case, inserted by CONNECTIONS workers, one statement per table: answers a function that runs the
 * loop for `seconds`, each insert's latency going into `latencies`.
 */
async function rawLoop(knex) {
  const template = await knex('booking.cases').orderBy('id', 'desc').first();
  const contacts = await knex('booking.case_contacts').where({ case_id: template.id });
  const events = await knex('booking.outbox').where({ case_guid: template.guid }).orderBy('id');
  const history = await knex('booking.case_history').where({ case_id: template.id }).orderBy('id');
  const { id: _id, created_at: _c, updated_at: _u, ...caseRow } = template;
  for (const key of Object.keys(caseRow))
    if (caseRow[key] !== null && typeof caseRow[key] === 'object') caseRow[key] = JSON.stringify(caseRow[key]);
  return async (seconds, latencies) => {
    const deadline = Date.now() + seconds * 1000;
    const worker = async () => {
      while (Date.now() < deadline) {
        const started = process.hrtime.bigint();
        const guid = randomUUID();
        await knex.transaction(async (trx) => {
          const [{ id }] = await trx('booking.cases')
            .insert({ ...caseRow, guid })
            .returning('id');
          await trx('booking.case_contacts').insert(
            contacts.map((c) => ({ case_id: id, role: c.role, type: c.type, data: JSON.stringify(c.data) })),
          );
          await trx('booking.case_statuses').insert({ case_id: id, key: 'registered', name: 'Registered' });
          await trx('booking.outbox').insert(
            events.map((event) => ({
              event_id: randomUUID(),
              type: event.type,
              case_guid: guid,
              audience: JSON.stringify(event.audience),
              payload: JSON.stringify(event.payload),
            })),
          );
          await trx('booking.case_history').insert(
            history.map(({ id: _entry, case_id: _case, at: _at, ...entry }) => ({
              ...entry,
              case_id: id,
              changes: JSON.stringify(entry.changes),
            })),
          );
        });
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  };
}

async function run(database, env, extra = {}) {
  const config = {
    ...loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      LOAD_DEMO_WORLD: 'false',
      RATE_LIMIT_PER_MINUTE: '10000000',
      ...env,
    }),
    services: ['catalog', 'routing', 'booking', 'gateway'],
  };
  const broker = await startHub(config, { initialWorld: readWorld(DEMO_WORLD_FILE), ...extra });
  try {
    await startWebhooksSink(broker);
    const port = broker.getLocalService('gateway').server.address().port;
    return await measure(database, `http://127.0.0.1:${port}`, (await databaseOf(broker)).knex);
  } finally {
    await broker.stop();
  }
}

/**
 * The outbox relay hands every event to the webhooks service; this sink acknowledges at once, so
 * the relay's own queries count but no delivery work does.
 */
async function startWebhooksSink(broker) {
  await broker.createService({ name: 'webhooks', actions: { ingest: () => true } });
  await broker.waitForServices(['webhooks']);
}

/**
 * Bookings through the gateway at `baseUrl` (after a warm-up) and the raw loop on `knex`, taking
 * turns in ROUNDS slices of SECONDS / ROUNDS each: a machine whose speed drifts during a run (other
 * work on its host) slows both sides alike instead of one.
 */
async function measure(database, baseUrl, knex) {
  const url = `${baseUrl}/api/v3/case/create`;
  const first = await fetch(url, {
    method: 'POST',
    body: BODY,
    headers: { 'content-type': 'application/json', 'x-hub-api-token': TOKEN },
  });
  if (first.status !== 200) throw new Error(`${database}: a booking answered ${first.status}: ${await first.text()}`);
  await cannon(url, SECONDS / ROUNDS, []); // warm-up: caches, JIT, connection pool
  const runRawLoop = await rawLoop(knex);
  const sides = { gateway: { latencies: [], seconds: 0 }, rawInsert: { latencies: [], seconds: 0 } };
  let refused = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const result = await cannon(url, SECONDS / ROUNDS, sides.gateway.latencies);
    sides.gateway.seconds += result.duration;
    refused += result.non2xx;
    const started = Date.now();
    await runRawLoop(SECONDS / ROUNDS, sides.rawInsert.latencies);
    sides.rawInsert.seconds += (Date.now() - started) / 1000;
  }
  if (refused > 0) throw new Error(`${database}: ${refused} bookings were refused`);
  const figures = ({ latencies, seconds }) => {
    latencies.sort((a, b) => a - b);
    return {
      requestsPerSecond: Math.round(latencies.length / seconds),
      latencyP50ms: +percentile(latencies, 50).toFixed(1),
      latencyP99ms: +percentile(latencies, 99).toFixed(1),
      count: latencies.length,
    };
  };
  return { database, gateway: figures(sides.gateway), rawInsert: figures(sides.rawInsert) };
}

/**
 * The distributed hub on a database of its own, each group of services a process, with the
 * webhooks sink in this process.
 */
async function runDistributed(database) {
  const hub = await startDistributedHub({
    nodes: DISTRIBUTED_NODES,
    services: ['gateway', 'catalog', 'routing', 'models', 'booking', 'webhooks'],
    databaseUrl: database.url,
    env: { DATABASE_POOL_SIZE: String(CONNECTIONS) },
    prepare: startWebhooksSink,
  });
  const knex = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: CONNECTIONS } });
  try {
    return await measure('distributed', hub.baseUrl, knex);
  } finally {
    await knex.destroy();
    await hub.stop();
  }
}

async function main() {
  const results = [];
  if (!['embedded', 'postgres', 'distributed', 'all'].includes(WHICH))
    throw new Error(`Which hub to measure: embedded, postgres, distributed or all, not ${WHICH}`);
  if (WHICH === 'all' || WHICH === 'embedded') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
    results.push(await run('embedded', { DATA_DIR: dataDir }));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (WHICH === 'all' || WHICH === 'postgres') {
    const database = await scratchDatabase('hub_bench');
    try {
      results.push(await run('postgres', { DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(CONNECTIONS) }));
    } finally {
      await database.drop();
    }
  }
  if (WHICH === 'all' || WHICH === 'distributed') {
    const database = await scratchDatabase('hub_bench');
    try {
      results.push(await runDistributed(database));
    } finally {
      await database.drop();
    }
  }
  const ratios = {};
  for (const { database, gateway, rawInsert } of results) {
    ratios[`${database}.requestsPerSecond`] = ratio(gateway.requestsPerSecond, rawInsert.requestsPerSecond);
    ratios[`${database}.latencyP99`] = ratio(rawInsert.latencyP99ms, gateway.latencyP99ms);
  }
  return { ratios, figures: { concurrency: CONNECTIONS, secondsPerRun: SECONDS, results } };
}

runBenchmark('booking', main);
