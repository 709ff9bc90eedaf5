/**
 * The lookup answers the gateway keeps (services/gateway/src/answer-cache.ts): a repeated request
 * is answered as the action answered it, without calling the action, and with everything every
 * request has (request id, rate limit, access log, Deprecation on older paths). A world load,
 * another token, a request that carries more than its URL, tracing and a service gone all go to
 * the action.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { readWorld, DEMO_WORLD_FILE } from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type HttpResult, type TestHub, waitFor } from '../support/hub';
import { sample } from '../support/prometheus';

const LOOKUP = '/api/v3/manufacturers?originatorType=private&bookingType=companyToPrivate';
const OLDER_LOOKUP = '/api/v2/manufacturers?originatorType=private&bookingType=companyToPrivate';
/** Headers that differ from one answer to the next whoever answers. */
const PER_REQUEST_HEADERS = ['date', 'x-request-id', 'x-rate-limit-remaining', 'ratelimit'];

const headersOf = (res: HttpResult) =>
  Object.fromEntries([...res.headers].filter(([name]) => !PER_REQUEST_HEADERS.includes(name)));

async function metricsOf(hub: TestHub) {
  const text = (await hub.request('GET', '/metrics')).body as string;
  const kept = text
    .split('\n')
    .filter((line) => line.startsWith('hub_gateway_kept_answers_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  return {
    kept,
    calls: (action: string) => sample(text, 'moleculer_request_total', { action }) ?? 0,
  };
}

/** A GET with a JSON body, which fetch does not send. */
function getWithBody(hub: TestHub, path: string, body: unknown): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = {
      'X-Hub-Api-Token': DEMO_TOKENS.elkjop,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
    };
    const request = http.request(`${hub.url}${path}`, { method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    request.on('error', reject);
    request.end(text);
  });
}

describe('with metrics on', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ services: ['catalog', 'routing', 'gateway'], env: { METRICS: 'true' } });
  });
  afterAll(() => hub.stop());

  it('answers a repeated lookup as the action did, without calling the action again', async () => {
    const first = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    expect(first.status).toBe(200);
    const before = await metricsOf(hub);
    const second = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(headersOf(second)).toEqual(headersOf(first));
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    const remaining = Number(first.headers.get('x-rate-limit-remaining')) - 1;
    expect(Number(second.headers.get('x-rate-limit-remaining'))).toBe(remaining);
    expect(second.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${remaining};t=\\d+$`));
    const after = await metricsOf(hub);
    expect(after.calls('catalog.manufacturers')).toBe(before.calls('catalog.manufacturers'));
    expect(after.kept).toBe(before.kept + 1);
  });

  it("keeps an older path's answer with its Deprecation and Sunset", async () => {
    const first = await hub.request('GET', OLDER_LOOKUP, { token: DEMO_TOKENS.elkjop });
    const before = await metricsOf(hub);
    const second = await hub.request('GET', OLDER_LOOKUP, { token: DEMO_TOKENS.elkjop });
    expect(second.headers.get('deprecation')).toBeTruthy();
    expect(headersOf(second)).toEqual(headersOf(first));
    expect(second.body).toEqual(first.body);
    expect((await metricsOf(hub)).kept).toBe(before.kept + 1);
  });

  it("asks the action for another token's answer", async () => {
    await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    const before = await metricsOf(hub);
    expect((await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.power })).status).toBe(200);
    const after = await metricsOf(hub);
    expect(after.kept).toBe(before.kept);
    expect(after.calls('catalog.manufacturers')).toBe(before.calls('catalog.manufacturers') + 1);
  });

  it('asks the action when the request carries more than its URL: a body, an Idempotency-Key', async () => {
    await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    const before = await metricsOf(hub);
    expect(await getWithBody(hub, LOOKUP, { bookingType: 'companyToPrivate' })).toBe(200);
    const keyed = await hub.request('GET', LOOKUP, {
      token: DEMO_TOKENS.elkjop,
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(keyed.status).toBe(200);
    const refused = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop, headers: { 'Idempotency-Key': '' } });
    expect(refused.status).toBe(400);
    const after = await metricsOf(hub);
    expect(after.kept).toBe(before.kept);
    expect(after.calls('catalog.manufacturers')).toBe(before.calls('catalog.manufacturers') + 2);
  });

  it('answers anew once a world is loaded', async () => {
    const first = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    expect(first.body).toContainEqual(expect.objectContaining({ id: 1, name: 'Apple' }));
    const world = readWorld(DEMO_WORLD_FILE);
    const manufacturers = world.manufacturers!.map((entry) =>
      entry.id === 1 ? { ...entry, name: 'Apple Inc.' } : entry,
    );
    await hub.broker.call('catalog.loadWorld', { world: { ...world, manufacturers }, skipUnowned: true });
    const after = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    expect(after.body).toContainEqual(expect.objectContaining({ id: 1, name: 'Apple Inc.' }));
  });

  // Last: it stops the catalog.
  it('answers 503 once the service is gone, as without a kept answer', async () => {
    expect((await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop })).status).toBe(200);
    await hub.broker.destroyService(hub.broker.getLocalService('catalog'));
    expect((await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop })).status).toBe(503);
  });
});

it('counts kept answers in the rate limit and refuses them over it', async () => {
  const hub = await startTestHub({ services: ['catalog', 'routing', 'gateway'], env: { RATE_LIMIT_PER_MINUTE: '2' } });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { message: 'Too many requests' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    expect(limited.headers.get('x-rate-limit-limit')).toBe('2');
    expect(limited.headers.get('x-rate-limit-remaining')).toBe('0');
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(limited.headers.get('x-content-type-options')).toBe('nosniff');
  } finally {
    await hub.stop();
  }
});

it("logs a kept answer as any request, with the caller's account", async () => {
  const hub = await startTestHub({
    services: ['catalog', 'routing', 'gateway'],
    env: { LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
    hubLogger: true,
  });
  try {
    await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    const requestId = randomUUID();
    const res = await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop, headers: { 'X-Request-Id': requestId } });
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const entryFor = () =>
      hub.logLines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.requestId === requestId && entry.msg === 'request');
    await waitFor(() => entryFor() !== undefined, 'the request log line');
    const account = (await hub.broker.call('catalog.resolveToken', { token: DEMO_TOKENS.elkjop })) as {
      accountId: number;
    };
    expect(entryFor()).toMatchObject({
      method: 'GET',
      path: '/api/v3/manufacturers',
      status: 200,
      accountId: account.accountId,
    });
  } finally {
    await hub.stop();
  }
});

it('keeps no answers while tracing, so every request has its spans', async () => {
  const hub = await startTestHub({
    services: ['catalog', 'routing', 'gateway'],
    env: { METRICS: 'true', TRACING: 'console' },
  });
  const tracer = hub.broker.tracer as unknown as { exporter: Array<{ spanFinished(span: unknown): void }> };
  for (const exporter of tracer.exporter) exporter.spanFinished = () => undefined;
  try {
    await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    const before = await metricsOf(hub);
    await hub.request('GET', LOOKUP, { token: DEMO_TOKENS.elkjop });
    const after = await metricsOf(hub);
    expect(after.kept).toBe(0);
    expect(after.calls('catalog.manufacturers')).toBe(before.calls('catalog.manufacturers') + 1);
  } finally {
    await hub.stop();
  }
});
