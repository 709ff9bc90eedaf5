/**
 * Distributed mode for real: the gateway, the catalog and routing each in their own OS process, talking
 * over NATS, on a fresh database on the Postgres server, with the Redis cacher and rate limiter.
 * The world is loaded with the CLI from a third process. Each process serves its own metrics,
 * logs with the request id of the call it serves and sends its spans to a Zipkin receiver here.
 * The REPL joins the running cluster as one more node.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import knexFactory from 'knex';
import { createServerDatabase, DEMO_TOKENS, httpRequest, waitFor } from '../support/hub';
import {
  clusterEnv,
  demoWorldFor,
  freePort,
  openRepl,
  runHub,
  spawnHub,
  waitForOk,
  writeWorldFile,
  type HubProcess,
} from '../support/processes';
import { sample } from '../support/prometheus';

let database: { url: string; drop(): Promise<void> };
let env: Record<string, string>;
let gateway: HubProcess;
let catalog: HubProcess;
let routing: HubProcess;
let baseUrl: string;
/** Where the catalog process serves its health and metrics endpoints (HEALTH_PORT). */
let catalogOps: string;

type ZipkinSpan = {
  traceId: string;
  id: string;
  parentId: string | null;
  name: string;
  localEndpoint: { serviceName: string | null };
};
/** Spans the processes sent, as a Zipkin collector receives them. */
const spans: ZipkinSpan[] = [];
const zipkin = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/api/v2/spans') spans.push(...(JSON.parse(body) as ZipkinSpan[]));
    res.writeHead(202).end();
  });
});

beforeAll(async () => {
  database = await createServerDatabase();
  await new Promise<void>((resolve) => zipkin.listen(0, '127.0.0.1', resolve));
  const tracing = { TRACING: `zipkin:http://127.0.0.1:${(zipkin.address() as { port: number }).port}` };
  const catalogOpsPort = await freePort();
  catalogOps = `http://127.0.0.1:${catalogOpsPort}`;
  ({ env, baseUrl } = await clusterEnv(database.url, { RATE_LIMIT_PER_MINUTE: '40' }));
  catalog = spawnHub(['start'], {
    ...env,
    ...tracing,
    SERVICES: 'catalog',
    NODE_ID: 'catalog-1',
    HEALTH_PORT: String(catalogOpsPort),
  });
  routing = spawnHub(['start'], { ...env, ...tracing, SERVICES: 'routing', NODE_ID: 'routing-1' });
  // At info level for the request log lines.
  gateway = spawnHub(['start'], { ...env, ...tracing, SERVICES: 'gateway', NODE_ID: 'gateway-1', LOG_LEVEL: 'info' });
  const loaded = await runHub(['world', 'load', writeWorldFile(demoWorldFor(['catalog', 'routing']))], env);
  expect(loaded.output).toContain('Loaded');
  expect(loaded.code).toBe(0);
  // What compose's world container runs on every `up`: a hub with a world keeps it.
  const again = await runHub(
    ['world', 'load', writeWorldFile(demoWorldFor(['catalog', 'routing'])), '--if-empty'],
    env,
  );
  expect(again.output).toContain('holds a world already');
  expect(again.code).toBe(0);
  await waitForOk(baseUrl, '/api/v3/provider?id=10', 'the gateway to reach the catalog', {
    token: DEMO_TOKENS.nrc,
    timeoutMs: 30_000,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await catalog?.stop();
  await routing?.stop();
  await database?.drop();
  zipkin.close();
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
  const res = await httpRequest(
    baseUrl,
    'GET',
    '/api/v3/routing?originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=Apple&productType=1&serviceLocation=1&clientPostalCode=0150',
    { token: DEMO_TOKENS.elkjop },
  );
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    servicePartner: { id: 1 },
    serviceProvider: { id: 10, name: 'Nordic Repair Center' },
  });
});

it('reports ready with the transporter connected', async () => {
  const ready = await httpRequest(baseUrl, 'GET', '/health/ready');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: 'ok', checks: { services: 'ok', transporter: 'ok' } });
});

it('creates an account with the CLI, whose token works at once through the gateway', async () => {
  const created = await runHub(
    ['account', 'create', '--name', 'CLI partner key', '--role', 'partner', '--partner-id', '3'],
    env,
  );
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

it('counts the calls a service serves in its own process, on its HEALTH_PORT /metrics', async () => {
  const catalogMetrics = async () => (await httpRequest(catalogOps, 'GET', '/metrics')).body as string;
  const served = async () =>
    sample(await catalogMetrics(), 'moleculer_request_total', { action: 'catalog.provider', nodeID: 'catalog-1' }) ?? 0;
  const before = await served();
  // Three different requests: the gateway answers a repeated lookup itself (kept-answers.test.ts).
  for (const id of [10, 20, 30])
    expect((await httpRequest(baseUrl, 'GET', `/api/v3/provider?id=${id}`, { token: DEMO_TOKENS.nrc })).status).toBe(
      200,
    );
  expect(await served()).toBe(before + 3);
  expect(
    sample(await catalogMetrics(), 'moleculer_request_time_count', { action: 'catalog.provider', nodeID: 'catalog-1' }),
  ).toBe(before + 3);
  // The gateway's own /metrics counts the calls it makes, under its own node id.
  const gatewayMetrics = (await httpRequest(baseUrl, 'GET', '/metrics')).body as string;
  expect(
    sample(gatewayMetrics, 'moleculer_request_total', { action: 'catalog.provider', nodeID: 'catalog-1' }),
  ).toBeUndefined();
  expect(
    sample(gatewayMetrics, 'moleculer_request_total', { action: 'catalog.provider', nodeID: 'gateway-1' }),
  ).toBeGreaterThanOrEqual(3);
});

it("logs a service's failure in that service's process, with the request id of the call", async () => {
  type LogLine = { level: string; requestId?: string; svc?: string; msg?: string; err?: { message: string } };
  const linesOf = (child: HubProcess) =>
    child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  // The admin token is resolved (and kept by the gateway) before the accounts table goes away.
  expect((await httpRequest(baseUrl, 'GET', '/api/admin/accounts', { token: DEMO_TOKENS.admin })).status).toBe(200);
  const knex = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
  await knex.raw('alter table catalog.accounts rename to accounts_away');
  try {
    const failed = await httpRequest(baseUrl, 'GET', '/api/admin/accounts', { token: DEMO_TOKENS.admin });
    expect(failed.status).toBe(500);
    const requestId = failed.headers.get('x-request-id')!;
    expect(failed.body).toEqual({ error: { message: expect.any(String), requestId } });
    await waitFor(() => linesOf(catalog).some((line) => line.requestId === requestId), "the catalog's log line");
    expect(linesOf(catalog).find((line) => line.requestId === requestId)).toMatchObject({
      level: 'error',
      svc: 'catalog',
      msg: "Action 'catalog.listAccounts' failed:",
      err: expect.objectContaining({ message: expect.stringMatching(/accounts/), stack: expect.any(String) }),
    });
    await waitFor(
      () => linesOf(gateway).some((line) => line.requestId === requestId && line.msg === 'request'),
      "the gateway's request line",
    );
  } finally {
    await knex.raw('alter table catalog.accounts_away rename to accounts');
    await knex.destroy();
  }
});

it("traces a request over three processes: each span carries the request id as trace id, each child its caller's span id", async () => {
  const requestId = randomUUID();
  const res = await httpRequest(
    baseUrl,
    'GET',
    '/api/v3/routing?originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=Apple&productType=1&serviceLocation=1&clientPostalCode=0150',
    {
      token: DEMO_TOKENS.elkjop,
      headers: { 'X-Request-Id': requestId },
    },
  );
  expect(res.status).toBe(200);
  const traceId = requestId.replace(/-/g, '');
  const traced = () => spans.filter((span) => span.traceId === traceId);
  const servicesTraced = () => new Set(traced().map((span) => span.localEndpoint.serviceName));
  // Each process sends its spans every few seconds.
  await waitFor(
    () => ['gateway', 'routing', 'catalog'].every((name) => servicesTraced().has(name)),
    'spans from all three processes',
    30_000,
  );
  const ids = new Map(traced().map((span) => [span.id, span]));
  const route = traced().find((span) => span.name === "action 'routing.route'")!;
  const bookingReference = traced().find((span) => span.name === "action 'catalog.bookingReference'")!;
  expect(ids.get(bookingReference.parentId!)?.localEndpoint.serviceName).toBe('routing');
  // Token lookups are part of their request's trace, and no span carries a token.
  const gatewayTraces = new Set(
    spans.filter((span) => span.localEndpoint.serviceName === 'gateway').map((span) => span.traceId),
  );
  expect(spans.some((span) => span.name === "action 'catalog.resolveToken'" && gatewayTraces.has(span.traceId))).toBe(
    true,
  );
  expect(JSON.stringify(spans)).not.toMatch(/demo-(admin|partner|provider)-/);
  // The gateway's span is an ancestor of routing's.
  let ancestor = ids.get(route.parentId!);
  while (ancestor && ancestor.localEndpoint.serviceName !== 'gateway')
    ancestor = ancestor.parentId ? ids.get(ancestor.parentId) : undefined;
  expect(ancestor).toBeDefined();
});

it('opens the REPL on the running cluster: its nodes and services, and a call served by the catalog process', async () => {
  const repl = await openRepl(env);
  try {
    const nodes = await repl.run('nodes', /gateway-1/);
    for (const node of ['catalog-1', 'routing-1', 'gateway-1'])
      expect(nodes).toMatch(new RegExp(`${node}[^\\n]*ONLINE`));
    const services = await repl.run('services', /routing[^\n]*OK/);
    expect(services).toMatch(/║ catalog +│[^\n]*OK/);
    // The REPL's own node runs no hub service: the call crosses NATS to catalog-1.
    expect(services).not.toMatch(/║ booking /);
    const answer = await repl.run('call catalog.provider --id 10', /Nordic Repair Center/);
    expect(answer).toMatch(/id: 10\b/);
    expect(await repl.quit()).toBe(0);
  } finally {
    await repl.process.stop();
  }
}, 120_000);
