#!/usr/bin/env node
/**
 * `npm run cluster`: distributed mode on this machine's own servers, without Docker. Each group of
 * services runs as its own `hub start` process over NATS, with Postgres, Redis and RabbitMQ at
 * their usual local addresses (any of them moved by the same variables `hub start` reads). It
 * creates the database when it is missing, gives every process without the gateway a health port,
 * loads the demo world into an empty hub, and on Ctrl-C (or SIGTERM) stops every process it
 * started before it exits.
 */
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { Client } = require('pg');

const HUB = path.resolve(__dirname, 'hub.js');
const ROOT = path.resolve(__dirname, '..');
const DEMO_WORLD = path.join(ROOT, 'world/demo.json');

/** The processes and the services each runs, as a small deployment would split them. */
const PROCESSES = [
  { name: 'catalog', services: 'catalog' },
  { name: 'routing', services: 'routing,models' },
  { name: 'cases', services: 'booking,cost-proposals,messaging,invoicing,webhooks' },
  { name: 'sandbox', services: 'sandbox' },
  { name: 'gateway', services: 'gateway' },
];

/** How long the processes may take to become ready on a first start (migrations included). */
const READY_TIMEOUT_MS = 300_000;
/** How long a process may take to finish its calls and leave before it is killed. */
const STOP_TIMEOUT_MS = 20_000;

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/hub',
  TRANSPORTER: 'nats://127.0.0.1:4222',
  CACHER: 'redis://127.0.0.1:6379',
  // Every receiver of a local try-out is on this machine; a deployment lists its own networks.
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
  LOG_FORMAT: 'short',
  ...process.env,
};
const port = Number(env.PORT || 3000);
const firstHealthPort = Number(env.HEALTH_PORT || port + 1);
const host = env.HOST && env.HOST !== '0.0.0.0' ? env.HOST : 'localhost';
const children = [];
let stopping = false;

function say(line) {
  console.log(`[cluster] ${line}`);
}

/** Creates the database DATABASE_URL names when the server does not hold it yet. */
async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`create database "${name.replace(/"/g, '""')}"`);
      say(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

/** Each line a process writes, prefixed with its name so five logs read as one. */
function prefixLines(stream, out, name) {
  let rest = '';
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
  stream.on('end', () => rest && out.write(`[${name}] ${rest}\n`));
}

function startProcess({ name, services }, extra) {
  // A process group of its own: Ctrl-C reaches only this script, which stops each child once.
  const child = spawn(process.execPath, [HUB, 'start'], {
    env: { ...env, SERVICES: services, NODE_ID: `${name}-${process.pid}`, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  prefixLines(child.stdout, process.stdout, name);
  prefixLines(child.stderr, process.stderr, name);
  const entry = { name, child, exited: new Promise((resolve) => child.once('exit', resolve)) };
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} stopped (${signal ?? `exit code ${code}`}); stopping the others`);
    void stop(1);
  });
  children.push(entry);
  return entry;
}

async function waitReady(url, deadline) {
  for (;;) {
    if (stopping) throw new Error('stopped while starting');
    const ok = await fetch(url).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function stop(code) {
  if (stopping) return;
  stopping = true;
  say('stopping every process');
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const { name, child } of children) {
      if (child.exitCode === null && child.signalCode === null) {
        say(`${name} did not stop in ${STOP_TIMEOUT_MS / 1000} s: killing it`);
        child.kill('SIGKILL');
      }
    }
  }, STOP_TIMEOUT_MS);
  await Promise.all(children.map((entry) => entry.exited));
  clearTimeout(timer);
  say('stopped');
  process.exit(code);
}

async function main() {
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  // A crash of this script must not leave the detached processes behind.
  process.once('exit', () => {
    for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  await ensureDatabase(env.DATABASE_URL);
  const ready = [];
  let healthPort = firstHealthPort;
  for (const group of PROCESSES) {
    const ownPort = group.services === 'gateway' ? port : healthPort++;
    const { child } = startProcess(
      group,
      group.services === 'gateway' ? { PORT: String(port) } : { HEALTH_PORT: String(ownPort) },
    );
    ready.push({ name: group.name, pid: child.pid, url: `http://127.0.0.1:${ownPort}/health/ready` });
  }
  const deadline = Date.now() + READY_TIMEOUT_MS;
  await Promise.all(ready.map(({ url }) => waitReady(url, deadline)));

  const load = spawnSync(process.execPath, [HUB, 'world', 'load', path.relative(ROOT, DEMO_WORLD), '--if-empty'], {
    cwd: ROOT,
    env: { ...env, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (load.status !== 0) throw new Error(`loading the demo world failed:\n${load.stderr}${load.stdout}`);
  say(load.stdout.trim().split('\n').pop());

  const base = `http://${host}:${port}`;
  const { accounts = [] } = require(DEMO_WORLD);
  const tokenOf = (role) => accounts.find((account) => account.role === role && account.token)?.token;
  say(`ready: ${PROCESSES.length} processes on ${env.DATABASE_URL}, ${env.TRANSPORTER}, ${env.CACHER}`);
  for (const { name, pid, url } of ready) say(`  ${name.padEnd(8)} pid ${String(pid).padEnd(8)} ${url}`);
  say(`API explorer  ${base}/api/docs?accessToken=${tokenOf('partner')}`);
  say(`Console       ${base}/console?accessToken=${tokenOf('admin')}`);
  say('Ctrl-C stops every process.');
}

main().catch((err) => {
  console.error(`[cluster] ${err.message}`);
  void stop(1);
});
