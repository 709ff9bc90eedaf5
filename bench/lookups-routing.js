/**
 * Benchmark: a cached reference lookup through the hub as a user runs it, against a bare Node
 * http server returning the same JSON, in the same run, each server a process of its own and the
 * load generator (autocannon, 50 connections) a third, the server measured on one CPU and the
 * generator on another (bench/lib/cpus.js), the bare server and the hub alternated over two
 * rounds: the hub as `npm start` starts it, with
 * its default settings (the access log written to a file, metrics, the rate limiter counting;
 * only its limit raised so that no request is refused), and distributed (gateway, catalog and
 * routing each a process, over NATS with the Redis cacher, on a new database on the Postgres
 * server); and a routing decision on a partner with 10,000 competences, as a pure function and
 * as the routing action.
 *
 * Run after `npm run build`: node bench/lookups-routing.js [seconds per HTTP run, default 10]
 * (`--quick`: 1 s per run, 1,000 competences). The distributed hub uses BENCH_POSTGRES_URL,
 * BENCH_NATS_URL and BENCH_REDIS_URL (defaults: the local servers' standard ports). Ends with
 * one JSON line (bench/lib/benchmark.js).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { loadConfig, readWorld, DEMO_WORLD_FILE } = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { choose } = require('../services/routing/dist/choice');
const { competenceOf } = require('../services/routing/dist/competences.store');
const { quick, args, ratio, runBenchmark } = require('./lib/benchmark');
const { scratchDatabase } = require('./lib/databases');
const { freePort, spawnHub, startDistributedHub, waitForAnswer } = require('./lib/hub-process');
const { loadFromProcess } = require('./lib/load-generator');
const { SERVER_CPU, onCpu } = require('./lib/cpus');

const SECONDS = quick ? 1 : Number(args[0] ?? 10);
const WARMUP_SECONDS = quick ? 1 : 5;
/** Rounds of the bare server then the hub, alternated, so that both meet the machine's drifts alike. */
const ROUNDS = quick ? 1 : 2;
const CONNECTIONS = 50;
const COMPETENCES = quick ? 1000 : 10_000;
const TOKEN = 'demo-partner-elkjop-000000000001';
const LOOKUP = '/api/v3/manufacturers?originatorType=private&bookingType=companyToPrivate';
/** The distributed hub's processes, by node id, with the services each runs. */
const DISTRIBUTED_NODES = { 'bench-gateway': 'gateway', 'bench-catalog': 'catalog', 'bench-routing': 'routing' };

const cannon = (url, headers = {}) =>
  loadFromProcess(url, { headers, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });

const summary = (result) => ({
  requestsPerSecond: Math.round(result.requests.average),
  latencyP50ms: result.latency.p50,
  latencyP99ms: result.latency.p99,
  non2xx: result.non2xx,
});

/** A world whose partner 1 has COMPETENCES rules spread over postal-code bands and manufacturers. */
function bigWorld() {
  const world = readWorld(DEMO_WORLD_FILE);
  const competences = [];
  for (let id = 1; id <= COMPETENCES; id += 1) {
    const band = id % 1000;
    competences.push({
      id,
      partnerId: 1,
      providerId: [10, 20, 30][id % 3],
      departmentId: [101, 201, 301][id % 3],
      originatorTypes: ['private', 'helpdesk'],
      bookingTypes: ['companyToPrivate'],
      serviceTypes: [1 + (id % 3)],
      manufacturers: [1 + (id % 6)],
      productTypes: [1 + (id % 5)],
      serviceLocations: [1, 2],
      shippingMethods: [2, 3],
      postalCodes: [{ from: String(band * 10).padStart(4, '0'), to: String(band * 10 + 9).padStart(4, '0') }],
      priority: id % 7,
      primary: id % 11 !== 0,
      sesam: `S-${id}`,
    });
  }
  return { ...world, competences };
}

/**
 * The lookup through a distributed hub on a database of its own, answering `body` as the hub in
 * one process did (anything else would not be the same work).
 */
async function distributedLookup(body) {
  const database = await scratchDatabase('hub_bench');
  try {
    const hub = await startDistributedHub({
      nodes: DISTRIBUTED_NODES,
      services: ['gateway', 'catalog', 'routing'],
      databaseUrl: database.url,
    });
    try {
      const url = `${hub.baseUrl}${LOOKUP}`;
      const first = await fetch(url, { headers: { 'X-Hub-Api-Token': TOKEN } });
      const answer = await first.text();
      if (answer !== body) throw new Error(`The distributed lookup answered otherwise: ${first.status} ${answer}`);
      return summary(await cannon(url, { 'X-Hub-Api-Token': TOKEN }));
    } finally {
      await hub.stop();
    }
  } finally {
    await database.drop();
  }
}

/** Rounds' requests a second averaged, each round's figures kept beside. */
const meanOfRounds = (rounds) => ({
  requestsPerSecond: Math.round(rounds.reduce((sum, round) => sum + round.requestsPerSecond, 0) / rounds.length),
  rounds,
});

/** A bare `node:http` server answering `body`, in a process of its own; resolves once it listens. */
async function startBareServer(body) {
  const port = await freePort();
  const child = spawn(
    ...onCpu(SERVER_CPU, process.execPath, [path.join(__dirname, 'lib/bare-server.js'), String(port)]),
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  child.stdin.end(body);
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}${LOOKUP}`,
    stop: () => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM')),
  };
}

/**
 * The lookup through the hub as `npm start` runs it (its own process, its defaults, the demo
 * world; its log to a file, as a service manager keeps it) beside the bare server answering the
 * same body. Resolves to both results, the body, and the access log's lines counted after.
 */
async function lookupAsRun() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
  const logFile = path.join(dataDir, 'hub.log');
  const log = fs.openSync(logFile, 'w');
  const port = await freePort();
  const hub = spawnHub(
    { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '10000000' },
    { stdout: log, cpu: SERVER_CPU },
  );
  try {
    const url = `http://127.0.0.1:${port}${LOOKUP}`;
    const headers = { 'X-Hub-Api-Token': TOKEN };
    await waitForAnswer(url, headers, [hub], 'The hub');
    const body = await (await fetch(url, { headers })).text();
    const bare = await startBareServer(body);
    try {
      const rounds = { raw: [], hub: [] };
      for (let round = 0; round < ROUNDS; round += 1) {
        rounds.raw.push(summary(await cannon(bare.url)));
        rounds.hub.push(summary(await cannon(url, headers)));
      }
      await hub.stop();
      const rawResult = meanOfRounds(rounds.raw);
      const gatewayResult = meanOfRounds(rounds.hub);
      const accessLogLines = fs
        .readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes('request')).length;
      return { body, rawResult, gatewayResult: { ...gatewayResult, accessLogLines } };
    } finally {
      await bare.stop();
    }
  } finally {
    await hub.stop();
    fs.closeSync(log);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function timeLoop(label, iterations, fn) {
  for (let i = 0; i < Math.min(iterations, 200); i += 1) fn(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) fn(i);
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  return {
    label,
    iterations,
    perDecisionMs: +(elapsedMs / iterations).toFixed(4),
    decisionsPerSecond: Math.round((iterations / elapsedMs) * 1000),
  };
}

async function main() {
  const { body, rawResult, gatewayResult } = await lookupAsRun();
  const distributedResult = await distributedLookup(body);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-'));
  const config = {
    ...loadConfig({ LOG_LEVEL: 'warn', LOAD_DEMO_WORLD: 'false', DATA_DIR: dataDir }),
    services: ['catalog', 'routing'],
  };
  const broker = await startHub(config, { initialWorld: readWorld(DEMO_WORLD_FILE) });
  try {
    const world = bigWorld();
    const loadStart = Date.now();
    // Only the parts this process's services own: the others' owners are not running here.
    await broker.call('catalog.loadWorld', { world, skipUnowned: true });
    const loadMs = Date.now() - loadStart;

    const competences = world.competences.map(competenceOf);
    // Cases drawn from the rules themselves, so most find a rule, as real bookings do.
    const inputs = Array.from({ length: 1000 }, (_, i) => {
      const rule = world.competences[(i * 7919) % COMPETENCES];
      return {
        originatorType: 'private',
        bookingType: 'companyToPrivate',
        serviceType: rule.serviceTypes[0],
        manufacturer: rule.manufacturers[0],
        productType: rule.productTypes[0],
        serviceLocation: 1,
        clientPostalCode: rule.postalCodes[0].from,
      };
    });
    const outcomes = { chosen: 0, notEnoughData: 0, none: 0 };
    for (const input of inputs) outcomes[choose(competences, input).kind] += 1;
    const pure = timeLoop(`choose() on ${COMPETENCES} competences`, quick ? 200 : 2000, (i) =>
      choose(competences, inputs[i % inputs.length]),
    );
    const underspecified = timeLoop('choose() with only manufacturer given (paramsNeeded)', quick ? 50 : 500, (i) =>
      choose(competences, { manufacturer: 1 + (i % 6) }),
    );

    const actionIterations = quick ? 50 : 500;
    for (let i = 0; i < 50; i += 1)
      await broker.call('routing.route', { partnerId: 1, ...inputs[i] }).catch(() => undefined);
    const actionStart = process.hrtime.bigint();
    for (let i = 0; i < actionIterations; i += 1)
      await broker.call('routing.route', { partnerId: 1, ...inputs[i % inputs.length] }).catch(() => undefined);
    const actionMs = Number(process.hrtime.bigint() - actionStart) / 1e6;

    const actionPerDecisionMs = +(actionMs / actionIterations).toFixed(3);
    const gatewayShareOfRaw = ratio(gatewayResult.requestsPerSecond, rawResult.requestsPerSecond);
    const distributedShareOfRaw = ratio(distributedResult.requestsPerSecond, rawResult.requestsPerSecond);
    const figures = {
      httpSecondsPerRun: SECONDS,
      connections: CONNECTIONS,
      lookup: {
        rawNodeHttp: rawResult,
        hubAsRun: gatewayResult,
        gatewayShareOfRaw,
        distributedGatewayCached: distributedResult,
        distributedShareOfRaw,
      },
      routing: {
        competences: COMPETENCES,
        worldLoadMs: loadMs,
        outcomesOf1000Inputs: outcomes,
        pure,
        underspecified,
        action: {
          label: 'routing.route action (cached competences, catalog calls)',
          iterations: actionIterations,
          perDecisionMs: actionPerDecisionMs,
        },
      },
    };
    return {
      ratios: {
        'lookup.requestsPerSecond': gatewayShareOfRaw,
        'lookup.distributed.requestsPerSecond': distributedShareOfRaw,
        'routing.actionAgainstPureChoice': ratio(pure.perDecisionMs, actionPerDecisionMs),
      },
      figures,
    };
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBenchmark('lookups-routing', main);
