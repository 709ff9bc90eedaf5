/**
 * Metrics at /metrics on the gateway's port, structured JSON logs carrying the request id, and
 * a request's trace spanning the services it crosses.
 */
import { randomUUID } from 'node:crypto';
import { databaseOf, writeEvent } from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { sample } from '../support/prometheus';

const ROUTING_QUERY = '/api/v3/routing?serviceType=2&manufacturer=Apple&productType=1&clientPostalCode=0150';

describe('metrics', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ services: ['catalog', 'booking', 'gateway'], env: { METRICS: 'true' } });
  });
  afterAll(() => hub.stop());

  it('counts requests, errors and latencies per action in the Prometheus format', async () => {
    // Three different requests: the gateway answers a repeated lookup itself (kept-answers.test.ts).
    for (const id of [10, 20, 30])
      expect((await hub.request('GET', `/api/v3/provider?id=${id}`, { token: DEMO_TOKENS.elkjop })).status).toBe(200);
    expect((await hub.request('GET', '/api/v3/provider?id=nope', { token: DEMO_TOKENS.elkjop })).status).toBe(400);
    const res = await hub.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body as string;
    expect(sample(text, 'moleculer_request_total', { action: 'catalog.provider' })).toBe(4);
    expect(
      sample(text, 'moleculer_request_error_total', { action: 'catalog.provider', errorType: 'FIELDS_VALIDATION' }),
    ).toBe(1);
    expect(sample(text, 'moleculer_request_time_count', { action: 'catalog.provider' })).toBe(4);
    expect(text).toMatch(/^moleculer_request_time\{.*action="catalog\.provider".*quantile="0\.99".*\} \S+$/m);
  });

  it('reports each outbox backlog as a gauge, read from the owning service', async () => {
    const before = (await hub.request('GET', '/metrics')).body as string;
    expect(sample(before, 'hub_outbox_backlog', { service: 'booking' })).toBe(0);
    // No webhooks service runs here, so the event waits in the outbox.
    const { knex } = await databaseOf(hub.broker);
    await knex.transaction((trx) =>
      writeEvent(trx, 'booking', { type: 'case.created', audience: { partnerId: 1 }, payload: {} }),
    );
    const after = (await hub.request('GET', '/metrics')).body as string;
    expect(sample(after, 'hub_outbox_backlog', { service: 'booking' })).toBe(1);
    expect(sample(after, 'hub_outbox_backlog', { service: 'catalog' })).toBeUndefined();
  });

  it('needs no token and no second port', () => {
    const gateway = hub.broker.getLocalService('gateway') as unknown as { prometheus?: unknown };
    expect(gateway.prometheus).toBeDefined();
    expect((hub.broker.metrics as unknown as { reporter: unknown[] }).reporter).toEqual([]);
  });
});

it('answers 404 on /metrics when metrics are off', async () => {
  const hub = await startTestHub({ services: ['catalog', 'gateway'], env: { METRICS: 'false' } });
  try {
    const res = await hub.request('GET', '/metrics');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'Metrics are disabled (METRICS=false)' } });
  } finally {
    await hub.stop();
  }
});

it('logs each request as one JSON line with its request id', async () => {
  const hub = await startTestHub({
    services: ['catalog', 'gateway'],
    env: { LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
    hubLogger: true,
  });
  try {
    const requestId = randomUUID();
    const res = await hub.request('GET', '/api/v3/provider?id=10', {
      token: DEMO_TOKENS.elkjop,
      headers: { 'X-Request-Id': requestId },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const entryFor = () => hub.logLines.map((line) => JSON.parse(line)).find((entry) => entry.requestId === requestId);
    // The line is written when the response has finished, which may be just after the client has it.
    await waitFor(() => entryFor() !== undefined, 'the request log line');
    expect(entryFor()).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/v3/provider',
      status: 200,
      svc: 'gateway',
    });
  } finally {
    await hub.stop();
  }
});

it('writes an error with its stack and a message made of every other argument', async () => {
  const hub = await startTestHub({ services: [], env: { LOG_FORMAT: 'json', LOG_LEVEL: 'info' }, hubLogger: true });
  try {
    hub.broker.getLogger('booking').error('Action', "'booking.create'", 'failed:', new Error('boom'), { attempt: 2 });
    await waitFor(() => hub.logLines.some((line) => line.includes('boom')), 'the error line');
    const entry = JSON.parse(hub.logLines.find((line) => line.includes('boom'))!);
    expect(entry).toMatchObject({
      level: 'error',
      mod: 'booking',
      msg: "Action 'booking.create' failed: { attempt: 2 }",
    });
    expect(entry.err).toMatchObject({
      type: 'Error',
      message: 'boom',
      stack: expect.stringMatching(/^Error: boom\n\s+at /),
    });
  } finally {
    await hub.stop();
  }
});

it('writes each request as one line of text in the short format', async () => {
  const hub = await startTestHub({
    services: ['catalog', 'gateway'],
    env: { LOG_FORMAT: 'short', LOG_LEVEL: 'info' },
    hubLogger: true,
  });
  try {
    const requestId = randomUUID();
    await hub.request('GET', '/api/v3/provider?id=10', {
      token: DEMO_TOKENS.elkjop,
      headers: { 'X-Request-Id': requestId },
    });
    const looped: Record<string, unknown> = { name: 'loop' };
    looped.self = looped;
    hub.broker.getLogger('gateway').info({ looped }, 'a field JSON cannot hold');
    expect(hub.logLines.find((line) => line.includes('a field JSON cannot hold'))).toMatch(/\{ looped: .*'loop'/);
    const lineFor = () => hub.logLines.find((line) => line.includes(requestId));
    await waitFor(() => lineFor() !== undefined, 'the request log line');
    expect(lineFor()).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}Z\] INFO: GATEWAY: request \{.*"path":"\/api\/v3\/provider".*"status":200/,
    );
  } finally {
    await hub.stop();
  }
});

it("traces a request across services, its spans sharing the request's id as trace id", async () => {
  const hub = await startTestHub({ services: ['catalog', 'routing', 'gateway'], env: { TRACING: 'console' } });
  type Span = { traceID: string; name: string; service?: { name: string } };
  const finished: Span[] = [];
  const tracer = hub.broker.tracer as unknown as {
    spanFinished(span: Span): void;
    exporter: Array<{ spanFinished(span: Span): void }>;
  };
  // Keep the console exporter quiet; record what it would print.
  for (const exporter of tracer.exporter) exporter.spanFinished = (span) => void finished.push(span);
  try {
    const res = await hub.request('GET', ROUTING_QUERY, { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const spans = finished.filter((span) => span.traceID === requestId);
    const services = new Set(spans.map((span) => span.service?.name).filter(Boolean));
    expect([...services].sort()).toEqual(expect.arrayContaining(['catalog', 'gateway', 'routing']));
    expect(spans.map((span) => span.name)).toContain("action 'routing.route'");
  } finally {
    await hub.stop();
  }
});
