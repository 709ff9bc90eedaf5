/**
 * One service scaled out: two booking processes beside a catalog and a gateway process, over
 * NATS on the Postgres server. Calls through the gateway are balanced across both booking nodes,
 * and a booking process told to stop (SIGTERM) finishes the call it is serving before it exits.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { createHubBroker, DEMO_WORLD_FILE, loadConfig, readWorld } from '../../shared/src';
import { createServerDatabase, DEMO_TOKENS, httpRequest, INFRA, waitFor } from '../support/hub';
import { runHub, spawnHub, type HubProcess } from '../support/processes';

const FIND = '/api/v3/requests/find?trackingId=scaling-test';

let database: { url: string; drop(): Promise<void> };
let env: Record<string, string>;
let baseUrl: string;
const processes: Record<string, HubProcess> = {};
/** A node of the test's own on the cluster, to ask each booking node what it served. */
let observer: ServiceBroker;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** How many calls of an action a node has served, from its own metrics. */
async function servedBy(nodeID: string, action: string): Promise<number> {
  const metrics = (await observer.call('$node.metrics', { includes: ['moleculer.request.total'] }, { nodeID })) as Array<{
    values: Array<{ labels: { action?: string }; value: number }>;
  }>;
  return metrics.flatMap((metric) => metric.values).filter((value) => value.labels.action === action).reduce((sum, value) => sum + value.value, 0);
}

beforeAll(async () => {
  database = await createServerDatabase();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    DATABASE_URL: database.url,
    TRANSPORTER: INFRA.nats,
    CACHER: INFRA.redis,
    NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  processes.catalog = spawnHub(['start'], { ...env, SERVICES: 'catalog', NODE_ID: 'catalog-1' });
  processes.booking1 = spawnHub(['start'], { ...env, SERVICES: 'booking', NODE_ID: 'booking-1' });
  processes.booking2 = spawnHub(['start'], { ...env, SERVICES: 'booking', NODE_ID: 'booking-2' });
  processes.gateway = spawnHub(['start'], { ...env, SERVICES: 'gateway', NODE_ID: 'gateway-1' });

  const demo = readWorld(DEMO_WORLD_FILE);
  const directory = {
    partners: demo.partners,
    providers: demo.providers!.map(({ statusKeys: _statusKeys, invoiceStatuses: _invoiceStatuses, ...provider }) => provider),
    accounts: demo.accounts,
  };
  const worldFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-world-')), 'directory.json');
  fs.writeFileSync(worldFile, JSON.stringify(directory));
  const loaded = await runHub(['world', 'load', worldFile], env);
  expect(loaded.code).toBe(0);

  observer = createHubBroker({ ...loadConfig({ ...env, LOG_LEVEL: 'warn' }), services: [] }, undefined, { nodeID: `observer-${randomBytes(3).toString('hex')}` });
  await observer.start();
  await waitFor(() => ['booking-1', 'booking-2'].every((id) => observer.registry.nodes.get(id)?.available), 'both booking nodes', 60_000);
  await waitFor(async () => {
    try {
      return (await httpRequest(baseUrl, 'GET', FIND, { token: DEMO_TOKENS.elkjop })).status === 200;
    } catch {
      return false;
    }
  }, 'the gateway to reach booking', 60_000);
}, 180_000);

afterAll(async () => {
  await observer?.stop();
  for (const child of Object.values(processes)) await child.stop();
  await database?.drop();
});

it('balances calls through the gateway over both booking processes', async () => {
  const before = { one: await servedBy('booking-1', 'booking.findRequests'), two: await servedBy('booking-2', 'booking.findRequests') };
  const calls = 20;
  for (let i = 0; i < calls; i++) {
    const res = await httpRequest(baseUrl, 'GET', FIND, { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  }
  const one = (await servedBy('booking-1', 'booking.findRequests')) - before.one;
  const two = (await servedBy('booking-2', 'booking.findRequests')) - before.two;
  expect(one + two).toBe(calls);
  expect(one).toBeGreaterThan(0);
  expect(two).toBeGreaterThan(0);
});

it('finishes an in-flight call when a booking process gets SIGTERM, then leaves the cluster', async () => {
  // One booking node left, so the slow call surely lands on the one told to stop.
  expect(await processes.booking2.stop('SIGTERM')).toBe(0);
  await waitFor(() => !observer.registry.nodes.get('booking-2')?.available, 'booking-2 to leave', 20_000);

  // The call is held up by a lock on the table it reads, taken from outside the cluster.
  const locker: Knex = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  const trx = await locker.transaction();
  try {
    await trx.raw('lock table booking.external_requests in access exclusive mode');
    const answer = httpRequest(baseUrl, 'GET', FIND, { token: DEMO_TOKENS.elkjop });
    await waitFor(async () => {
      const { rows } = await locker.raw("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%external_requests%'");
      return rows[0].n > 0;
    }, 'the call to wait on the lock');

    const exited = processes.booking1.stop('SIGTERM');
    let hasExited = false;
    void exited.then(() => (hasExited = true));
    // The process has the signal and waits for its call instead of stopping under it.
    await waitFor(() => processes.booking1.output().includes('Waiting for 1 running context'), 'booking-1 to drain');
    expect(hasExited).toBe(false);
    await trx.commit();

    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
    expect(await exited).toBe(0);
    await waitFor(() => !observer.registry.nodes.get('booking-1')?.available, 'booking-1 to leave', 20_000);
  } finally {
    if (!trx.isCompleted()) await trx.rollback();
    await locker.destroy();
  }
});
