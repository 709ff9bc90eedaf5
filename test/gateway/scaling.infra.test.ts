/**
 * One service scaled out: two booking processes beside a catalog and a gateway process, over
 * NATS on the Postgres server. Calls through the gateway are balanced across both booking nodes,
 * and a booking process told to stop (SIGTERM) finishes the call it is serving before it exits.
 */
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { createHubBroker, loadConfig } from '../../shared/src';
import { createServerDatabase, DEMO_TOKENS, httpRequest, waitFor } from '../support/hub';
import {
  clusterEnv,
  demoWorldFor,
  requestCount,
  runHub,
  spawnHub,
  waitForOk,
  writeWorldFile,
  type HubProcess,
} from '../support/processes';
import { sample } from '../support/prometheus';

const FIND = '/api/v3/requests/find?trackingId=scaling-test';

let database: { url: string; drop(): Promise<void> };
let env: Record<string, string>;
let baseUrl: string;
const processes: Record<string, HubProcess> = {};
/** A node of the test's own on the cluster, to ask each booking node what it served. */
let observer: ServiceBroker;

/** How many calls of an action a node has served. */
const servedBy = (nodeID: string, action: string) => requestCount(observer, nodeID, action);

beforeAll(async () => {
  database = await createServerDatabase();
  ({ env, baseUrl } = await clusterEnv(database.url));
  processes.catalog = spawnHub(['start'], { ...env, SERVICES: 'catalog', NODE_ID: 'catalog-1' });
  processes.booking1 = spawnHub(['start'], { ...env, SERVICES: 'booking', NODE_ID: 'booking-1' });
  processes.booking2 = spawnHub(['start'], { ...env, SERVICES: 'booking', NODE_ID: 'booking-2' });
  processes.gateway = spawnHub(['start'], { ...env, SERVICES: 'gateway', NODE_ID: 'gateway-1' });

  const loaded = await runHub(['world', 'load', writeWorldFile(demoWorldFor(['catalog', 'booking']))], env);
  expect(loaded.code).toBe(0);

  observer = createHubBroker({ ...loadConfig({ ...env, LOG_LEVEL: 'warn' }), services: [] }, undefined, {
    nodeID: `observer-${randomBytes(3).toString('hex')}`,
  });
  await observer.start();
  await waitFor(
    () => ['booking-1', 'booking-2'].every((id) => observer.registry.nodes.get(id)?.available),
    'both booking nodes',
    60_000,
  );
  await waitForOk(baseUrl, FIND, 'the gateway to reach booking', { token: DEMO_TOKENS.elkjop, timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await observer?.stop();
  for (const child of Object.values(processes)) await child.stop();
  await database?.drop();
});

it('balances calls through the gateway over both booking processes', async () => {
  const before = {
    one: await servedBy('booking-1', 'booking.findRequests'),
    two: await servedBy('booking-2', 'booking.findRequests'),
  };
  const calls = 20;
  for (let i = 0; i < calls; i++) {
    const res = await httpRequest(baseUrl, 'GET', FIND, { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next: null });
  }
  const one = (await servedBy('booking-1', 'booking.findRequests')) - before.one;
  const two = (await servedBy('booking-2', 'booking.findRequests')) - before.two;
  expect(one + two).toBe(calls);
  expect(one).toBeGreaterThan(0);
  expect(two).toBeGreaterThan(0);
});

it("reports the booking outbox's backlog on the gateway's /metrics, asked of a booking process over NATS", async () => {
  const metrics = await httpRequest(baseUrl, 'GET', '/metrics');
  expect(metrics.status).toBe(200);
  expect(sample(metrics.body as string, 'hub_outbox_backlog', { service: 'booking', nodeID: 'gateway-1' })).toBe(0);
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
      const { rows } = await locker.raw(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%external_requests%'",
      );
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
    expect(res.body).toEqual({ data: [], next: null });
    expect(await exited).toBe(0);
    await waitFor(() => !observer.registry.nodes.get('booking-1')?.available, 'booking-1 to leave', 20_000);
  } finally {
    if (!trx.isCompleted()) await trx.rollback();
    await locker.destroy();
  }
});
