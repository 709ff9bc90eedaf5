/**
 * `npm run cluster` (bin/cluster.js) as an operator runs it: on a database that does not exist
 * yet, with ports and a namespace of its own, it starts every process, loads the demo world and
 * serves lookups and bookings through its gateway; each process answers on its own health port,
 * and SIGINT (Ctrl-C) stops every process it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import knexFactory from 'knex';
import { DEMO_TOKENS, httpRequest, INFRA, waitFor } from '../support/hub';
import { freePort } from '../support/processes';

const CLUSTER = path.resolve(__dirname, '../../bin/cluster.js');
const DEMO_CASE = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../world/demo-case.json'), 'utf8')) as unknown;
const PROCESSES = 5;

const databaseName = `hub_cluster_${randomBytes(6).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: INFRA.postgres, pool: { min: 0, max: 1 } });
let cluster: ChildProcess;
let output = '';
let exited: Promise<number | null>;
let baseUrl: string;
/** Each process's name, pid and readiness URL, as the cluster prints them once ready. */
let processes: Array<{ name: string; pid: number; ready: string }>;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive ports that are free now (the cluster numbers its health ports from it). */
async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    const run = await Promise.all(Array.from({ length: count }, (_, i) => portFree(first + i)));
    if (first + count <= 65535 && run.every(Boolean)) return first;
  }
}

async function databaseExists(): Promise<boolean> {
  const found = await admin.raw('select 1 from pg_database where datname = ?', [databaseName]);
  return (found as { rowCount: number }).rowCount === 1;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  const port = await freePort();
  const healthPort = await freePortRun(PROCESSES - 1);
  baseUrl = `http://127.0.0.1:${port}`;
  const databaseUrl = new URL(INFRA.postgres);
  databaseUrl.pathname = `/${databaseName}`;
  cluster = spawn(process.execPath, [CLUSTER], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl.toString(),
      TRANSPORTER: INFRA.nats,
      CACHER: INFRA.redis,
      NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cluster.stdout!.on('data', (chunk) => (output += chunk));
  cluster.stderr!.on('data', (chunk) => (output += chunk));
  exited = new Promise((resolve) => cluster.once('exit', (code) => resolve(code)));
  await waitFor(
    () => output.includes('Ctrl-C stops every process') || cluster.exitCode !== null,
    'the cluster to be ready',
    280_000,
  );
  if (cluster.exitCode !== null) throw new Error(`the cluster stopped while starting:\n${output}`);
  processes = [...output.matchAll(/\[cluster\] +(\w+) +pid (\d+) +(http\S+)/g)].map(([, name, pid, ready]) => ({
    name,
    pid: Number(pid),
    ready,
  }));
}, 300_000);

afterAll(async () => {
  if (cluster && cluster.exitCode === null) {
    cluster.kill('SIGINT');
    await exited;
  }
  await admin.raw(`drop database if exists ${databaseName} with (force)`);
  await admin.destroy();
});

describe('npm run cluster', () => {
  it('created the database it was given', async () => {
    expect(await databaseExists()).toBe(true);
    expect(output).toContain(`created database ${databaseName}`);
  });

  it('runs each group of services in its own process, each ready on its own port', async () => {
    expect(processes.map((found) => found.name)).toEqual(['catalog', 'routing', 'cases', 'sandbox', 'gateway']);
    expect(new Set(processes.map((found) => found.pid)).size).toBe(PROCESSES);
    expect(new Set(processes.map((found) => new URL(found.ready).port)).size).toBe(PROCESSES);
    for (const { ready } of processes) {
      const answer = await fetch(ready);
      expect({ ready, status: answer.status }).toEqual({ ready, status: 200 });
      expect(((await answer.json()) as { status: string }).status).toBe('ok');
    }
  });

  it('serves a lookup and a booking of the demo world through its gateway', async () => {
    const lookup = await httpRequest(
      baseUrl,
      'GET',
      '/api/v3/manufacturers?originatorType=private&bookingType=companyToPrivate',
      { token: DEMO_TOKENS.elkjop },
    );
    expect(lookup.status).toBe(200);
    expect((lookup.body as Array<{ name: string }>).map((manufacturer) => manufacturer.name)).toContain('Apple');
    const booking = await httpRequest(baseUrl, 'POST', '/api/v3/case/create', {
      token: DEMO_TOKENS.elkjop,
      body: DEMO_CASE,
    });
    expect(booking.status).toBe(200);
    expect(booking.body.guid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stops every process it started on SIGINT', async () => {
    cluster.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const { name, pid } of processes) expect({ name, running: isRunning(pid) }).toEqual({ name, running: false });
    for (const { ready } of processes) await expect(fetch(ready)).rejects.toThrow();
  });
});
