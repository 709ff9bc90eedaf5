/**
 * The hub as processes of its own, started from the built code as `hub start` is: for benchmarks
 * that measure a process's memory, or distributed mode with each service in its own process.
 */
const net = require('node:net');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { spawn } = require('node:child_process');
const { onCpu } = require('./cpus');
const { createHubBroker, loadConfig, readWorld, DEMO_WORLD_FILE } = require('../../shared/dist');

const HUB = path.resolve(__dirname, '../../bin/hub.js');

/** A TCP port nobody listens on right now. */
function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `hub start` with `env` over this process's environment, on `cpu` if given (cpus.js);
 * its standard output goes to `stdout` (a file descriptor; by default nowhere), its errors to
 * this process's stderr. `stop` ends it with SIGTERM and resolves when it has exited.
 */
function spawnHub(env, { stdout = 'ignore', cpu } = {}) {
  const child = spawn(...onCpu(cpu, process.execPath, [HUB, 'start']), {
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Resolves once a GET of `url` answers 200; fails as soon as one of `processes` exits, or after
 * `timeoutMs`. A process still starting refuses connections or answers 503 meanwhile.
 */
async function waitForAnswer(url, headers, processes, what, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await fetch(url, { headers })
      .then((res) => res.status === 200)
      .catch(() => false);
    if (ready) return;
    if (processes.some(({ child }) => child.exitCode !== null || child.signalCode !== null))
      throw new Error(`${what}: a process exited while starting`);
    if (Date.now() > deadline) throw new Error(`${what} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The servers a distributed hub uses: BENCH_NATS_URL and BENCH_REDIS_URL, or the local ones. */
const NATS_SERVER = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const REDIS_SERVER = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A distributed hub on `databaseUrl`: one process per entry of `nodes` (node id to the services it
 * runs), over the NATS server with the Redis cacher in a namespace of its own, plus a broker in
 * this process on the same cluster (`driver`), which `prepare` may give services (a stub the
 * benchmark needs) before the demo world's parts the running services own are loaded, once all
 * of `services` run. Resolves when the gateway answers a partner, with the `processes` spawned;
 * `stop` ends every process.
 */
async function startDistributedHub({ nodes, services, databaseUrl, env = {}, prepare = async () => undefined }) {
  const port = await freePort();
  const shared = {
    DATABASE_URL: databaseUrl,
    TRANSPORTER: NATS_SERVER,
    CACHER: REDIS_SERVER,
    NAMESPACE: `bench-${randomBytes(4).toString('hex')}`,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    LOAD_DEMO_WORLD: 'false',
    RATE_LIMIT_PER_MINUTE: '10000000',
    ...env,
  };
  const driver = createHubBroker({ ...loadConfig({ ...shared, LOG_LEVEL: 'error' }), services: [] }, undefined, {
    nodeID: 'bench-driver',
  });
  const processes = [];
  const stop = async () => {
    // A process may call the driver's services while it stops, so the processes stop first.
    for (const hub of processes) await hub.stop();
    await driver.stop();
  };
  try {
    for (const [nodeId, nodeServices] of Object.entries(nodes)) {
      const ownPort = nodeServices.split(',').includes('gateway') ? port : await freePort();
      processes.push(spawnHub({ ...shared, PORT: String(ownPort), NODE_ID: nodeId, SERVICES: nodeServices }));
    }
    await driver.start();
    await prepare(driver);
    await driver.waitForServices(services, 180_000);
    await driver.call('catalog.loadWorld', { world: readWorld(DEMO_WORLD_FILE), skipUnowned: true });
    const baseUrl = `http://127.0.0.1:${port}`;
    const partner = { 'x-hub-api-token': 'demo-partner-elkjop-000000000001' };
    await waitForAnswer(`${baseUrl}/api/v3/partner?id=1`, partner, processes, 'The distributed hub');
    return { baseUrl, driver, processes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { freePort, spawnHub, waitForAnswer, startDistributedHub };
