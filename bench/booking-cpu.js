/**
 * Benchmark: the CPU a booking costs, summed over every hub process: the hub in one process on
 * the Postgres server, beside the same services distributed (gateway; catalog; routing with
 * models; booking; cost-proposals, messaging, invoicing, webhooks and sandbox: each a process
 * over NATS with the Redis cacher), each on a new database, each with its default settings (the
 * rate limit raised so that nothing is refused). Each takes the demo booking at a steady 30 a
 * second after a warm-up; the CPU time (user and system) of every hub process is read from /proc
 * before and after. Postgres, NATS and Redis are not counted. The ratio is one process's CPU per
 * booking over the distributed hub's: what the hops between processes add to the same work.
 *
 * Run after `npm run build`: node bench/booking-cpu.js [bookings, default 300] (`--quick`: 30).
 * Linux only (it reads /proc). The servers are taken from BENCH_POSTGRES_URL, BENCH_NATS_URL and
 * BENCH_REDIS_URL (defaults: the local servers' standard ports). Ends with one JSON line
 * (bench/lib/benchmark.js).
 */
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const { ALL_SERVICES } = require('../shared/dist');
const { quick, args, ratio, runBenchmark } = require('./lib/benchmark');
const { scratchDatabase } = require('./lib/databases');
const { freePort, spawnHub, startDistributedHub, waitForAnswer } = require('./lib/hub-process');

const BOOKINGS = quick ? 30 : Number(args[0] ?? 300);
const WARMUP_BOOKINGS = quick ? 10 : 100;
const PER_SECOND = 30;
const TOKEN = 'demo-partner-elkjop-000000000001';
const BODY = JSON.stringify({ ...require('../world/demo-case.json'), orderData: { refNo: 'BENCH' } });
const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

const DISTRIBUTED_NODES = {
  'bench-gateway': 'gateway',
  'bench-catalog': 'catalog',
  'bench-routing': 'routing,models',
  'bench-booking': 'booking',
  'bench-rest': 'cost-proposals,messaging,invoicing,webhooks,sandbox',
};

/** Every service in one `hub start` on `databaseUrl`, loading the demo world itself. */
async function startOneProcessHub(databaseUrl) {
  const port = await freePort();
  const hub = spawnHub({
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOAD_DEMO_WORLD: 'true',
    RATE_LIMIT_PER_MINUTE: '10000000',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(`${baseUrl}/api/v3/partner?id=1`, { 'x-hub-api-token': TOKEN }, [hub], 'The hub');
  } catch (err) {
    await hub.stop();
    throw err;
  }
  return { baseUrl, processes: [hub], stop: () => hub.stop() };
}

const startDistributed = (databaseUrl) =>
  startDistributedHub({ nodes: DISTRIBUTED_NODES, services: ALL_SERVICES, databaseUrl, env: { LOG_LEVEL: 'info' } });

/** The CPU time a process has used so far, user and system, in milliseconds. */
function cpuMsOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

const cpuMsOfAll = (processes) => processes.reduce((sum, { child }) => sum + cpuMsOf(child.pid), 0);

async function book(baseUrl) {
  const res = await fetch(`${baseUrl}/api/v3/case/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-api-token': TOKEN },
    body: BODY,
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`a booking answered ${res.status}`);
}

/** `count` bookings, one sent every 1/PER_SECOND s whether the last has answered or not. */
async function paced(baseUrl, count) {
  const started = Date.now();
  const answers = [];
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / PER_SECOND;
    await new Promise((resolve) => setTimeout(resolve, Math.max(due - Date.now(), 0)));
    answers.push(book(baseUrl));
  }
  await Promise.all(answers);
}

/** CPU per booking over every process of the hub `start` starts on a new database. */
async function cpuPerBooking(start) {
  const database = await scratchDatabase('hub_bench');
  try {
    const hub = await start(database.url);
    try {
      for (let i = 0; i < WARMUP_BOOKINGS; i += 4) await Promise.all([0, 1, 2, 3].map(() => book(hub.baseUrl)));
      // Let the warm-up's events reach their webhooks before counting.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = cpuMsOfAll(hub.processes);
      const started = Date.now();
      await paced(hub.baseUrl, BOOKINGS);
      // The outbox relay and the webhook worker finish the last bookings' events just after.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const cpuMs = cpuMsOfAll(hub.processes) - before;
      return {
        processes: hub.processes.length,
        bookings: BOOKINGS,
        seconds: +((Date.now() - started) / 1000).toFixed(1),
        cpuMs: Math.round(cpuMs),
        cpuMsPerBooking: +(cpuMs / BOOKINGS).toFixed(2),
      };
    } finally {
      await hub.stop();
    }
  } finally {
    await database.drop();
  }
}

async function main() {
  const oneProcess = await cpuPerBooking(startOneProcessHub);
  const distributed = await cpuPerBooking(startDistributed);
  return {
    ratios: {
      'cpuPerBooking.oneProcessOverDistributed': ratio(oneProcess.cpuMsPerBooking, distributed.cpuMsPerBooking),
    },
    figures: { perSecond: PER_SECOND, warmupBookings: WARMUP_BOOKINGS, oneProcess, distributed },
  };
}

runBenchmark('booking-cpu', main);
