/**
 * Distributed mode for real: the gateway, the catalog and routing each in their own OS process, talking
 * over NATS, on a fresh database on the Postgres server, with the Redis cacher and rate limiter.
 * The world is loaded with the CLI from a third process.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { DEMO_WORLD_FILE, readWorld, WORLD_PART_OWNERS } from '../../shared/src';
import { createServerDatabase, DEMO_TOKENS, httpRequest, INFRA, waitFor } from '../support/hub';
import { runHub, spawnHub, type HubProcess } from '../support/processes';

let database: { url: string; drop(): Promise<void> };
let env: Record<string, string>;
let gateway: HubProcess;
let catalog: HubProcess;
let routing: HubProcess;
let baseUrl: string;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
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
    RATE_LIMIT_PER_MINUTE: '40',
  };
  catalog = spawnHub(['start'], { ...env, SERVICES: 'catalog', NODE_ID: 'catalog-1' });
  routing = spawnHub(['start'], { ...env, SERVICES: 'routing', NODE_ID: 'routing-1' });
  gateway = spawnHub(['start'], { ...env, SERVICES: 'gateway', NODE_ID: 'gateway-1' });
  // Only the catalog and routing run here, so the world holds only the parts they load.
  const running = ['catalog', 'routing'];
  const demo = readWorld(DEMO_WORLD_FILE) as Record<string, unknown>;
  const directory = Object.fromEntries(Object.entries(demo).filter(([key]) => running.includes(WORLD_PART_OWNERS[key])));
  directory.providers = (directory.providers as Array<Record<string, unknown>>).map((provider) =>
    Object.fromEntries(Object.entries(provider).filter(([key]) => !WORLD_PART_OWNERS[`providers.${key}`] || running.includes(WORLD_PART_OWNERS[`providers.${key}`]))),
  );
  const worldFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-world-')), 'directory.json');
  fs.writeFileSync(worldFile, JSON.stringify(directory));
  const loaded = await runHub(['world', 'load', worldFile], env);
  expect(loaded.output).toContain('Loaded');
  expect(loaded.code).toBe(0);
  await waitFor(async () => {
    try {
      return (await httpRequest(baseUrl, 'GET', '/api/v3/provider?id=10', { token: DEMO_TOKENS.nrc })).status === 200;
    } catch {
      return false;
    }
  }, 'the gateway to reach the catalog', 30_000);
});

afterAll(async () => {
  await gateway?.stop();
  await catalog?.stop();
  await routing?.stop();
  await database?.drop();
});

it('serves a call through the gateway process from the catalog process, with access enforced across NATS', async () => {
  const provider = await httpRequest(baseUrl, 'GET', '/api/v3/provider?id=20', { token: DEMO_TOKENS.elkjop });
  expect(provider.status).toBe(200);
  expect(provider.body).toMatchObject({ id: 20, name: 'Svea Service Verkstad' });
  const forbidden = await httpRequest(baseUrl, 'GET', '/api/admin/accounts', { token: DEMO_TOKENS.elkjop });
  expect(forbidden.status).toBe(403);
  const allowed = await httpRequest(baseUrl, 'GET', '/api/admin/accounts', { token: DEMO_TOKENS.admin });
  expect(allowed.status).toBe(200);
});

it('routes a case across three processes: gateway, routing and the catalog it asks', async () => {
  const res = await httpRequest(baseUrl, 'GET', '/api/v3/routing?originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=Apple&productType=1&serviceLocation=1&clientPostalCode=0150', { token: DEMO_TOKENS.elkjop });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ servicePartner: { id: 1 }, serviceProvider: { id: 10, name: 'Nordic Repair Center' } });
});

it('reports ready with the transporter connected', async () => {
  const ready = await httpRequest(baseUrl, 'GET', '/health/ready');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: 'ok', checks: { services: 'ok', transporter: 'ok' } });
});

it('creates an account with the CLI, whose token works at once through the gateway', async () => {
  const created = await runHub(['account', 'create', '--name', 'CLI partner key', '--role', 'partner', '--partner-id', '3'], env);
  expect(created.code).toBe(0);
  const token = created.output.trim().split('\n').pop()!;
  expect(token).toMatch(/^hub_[\w-]{43}$/);
  const res = await httpRequest(baseUrl, 'GET', '/api/v3/partner?id=3', { token });
  expect(res.status).toBe(200);
});

it('limits requests per token in Redis and answers 429 with Retry-After', async () => {
  // Windows are fixed minutes: three budgets' worth of calls exceed the limit within one window
  // even if a window boundary falls among them.
  let limited: Awaited<ReturnType<typeof httpRequest>> | undefined;
  for (let i = 0; i < 120 && !limited; i++) {
    const res = await httpRequest(baseUrl, 'GET', '/api/v3/providers', { token: DEMO_TOKENS.fixit });
    if (res.status === 429) limited = res;
    else expect(res.status).toBe(200);
  }
  expect(limited).toBeDefined();
  expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(limited!.body).toEqual({ error: { message: 'Too many requests' } });
  // Another token has its own budget.
  expect((await httpRequest(baseUrl, 'GET', '/api/v3/providers', { token: DEMO_TOKENS.svea })).status).toBe(200);
});
