/**
 * While the process's services still start, the gateway already listens (its health answers a
 * liveness probe) but the routes of the others do not exist yet: an API request then gets 503
 * with Retry-After in the error envelope, which clients retry, and readiness says starting; on a
 * first start the same holds until the world with its accounts is loaded.
 */
import net from 'node:net';
import type { ActionSchema, Context } from 'moleculer';
import { DEMO_TOKENS, httpRequest, startTestHub, waitFor } from '../support/hub';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('answers 503 with Retry-After until every service of the process has started', async () => {
  let finishStarting!: () => void;
  const held = new Promise<void>((resolve) => (finishStarting = resolve));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // A broker middleware's `started` hook runs after the services start and before the broker
  // counts as started: holding it holds the process in that window.
  const starting = startTestHub({
    services: ['catalog', 'gateway'],
    env: { PORT: String(port) },
    middlewares: [{ started: () => held }],
  });
  try {
    await waitFor(
      () =>
        httpRequest(baseUrl, 'GET', '/health/live').then(
          (res) => res.status === 200,
          () => false,
        ),
      'the gateway listening',
    );
    const early = await httpRequest(baseUrl, 'GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(early.body).toEqual({
      error: { message: 'Service temporarily unavailable', requestId: early.headers.get('x-request-id') },
    });
    const ready = await httpRequest(baseUrl, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.services).toBe('starting');
    // Not pinged while starting: on the embedded database a ping waits behind the migrations.
    expect(ready.body.checks.database).toBe('starting');
  } finally {
    finishStarting();
  }
  const hub = await starting;
  try {
    expect((await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop })).status).toBe(200);
  } finally {
    await hub.stop();
  }
});

it('answers 503 on a first start until its world is loaded, not 401 to its tokens', async () => {
  let finishLoading!: () => void;
  const held = new Promise<void>((resolve) => (finishLoading = resolve));
  let loading!: () => void;
  const loadStarted = new Promise<void>((resolve) => (loading = resolve));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const starting = startTestHub({
    services: ['catalog', 'gateway'],
    env: { PORT: String(port) },
    middlewares: [
      {
        localAction: (handler: (ctx: Context) => Promise<unknown>, action: ActionSchema) =>
          action.name === 'catalog.loadWorld'
            ? async (ctx: Context) => {
                loading();
                await held;
                return handler(ctx);
              }
            : handler,
      },
    ],
  });
  try {
    await loadStarted;
    const early = await httpRequest(baseUrl, 'GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    const ready = await httpRequest(baseUrl, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.services).toBe('starting');
  } finally {
    finishLoading();
  }
  const hub = await starting;
  try {
    expect((await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop })).status).toBe(200);
    expect((await httpRequest(baseUrl, 'GET', '/health/ready')).status).toBe(200);
  } finally {
    await hub.stop();
  }
});
