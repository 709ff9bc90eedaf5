/**
 * The edges of the gateway's HTTP server, spoken to over raw sockets where a client library
 * would refuse: a URL or headers over Node's limit, a client that never sends the body it
 * announced, the headers that keep answers out of caches and sniffers, and how client mistakes
 * and faults are logged.
 */
import net from 'node:net';
import type { Service } from 'moleculer';
import { ACCESS } from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';

let hub: TestHub;
let gateway: Service;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'gateway'], env: { HTTP_REQUEST_TIMEOUT_MS: '1000' } });
  gateway = hub.broker.getLocalService('gateway') as Service;
});
afterAll(() => hub.stop());
afterEach(() => jest.restoreAllMocks());

interface RawAnswer {
  status: number;
  head: string;
  body: any;
}

/** Writes `request` as is on a new connection and reads the answer until the server closes it. */
function exchange(request: string, body = ''): Promise<RawAnswer> {
  const { port } = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request + body));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = received.split('\r\n\r\n');
      const text = rest.join('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: text ? JSON.parse(text) : undefined });
    });
  });
}

/**
 * Writes `first` on a new connection kept alive, reads its answer whole, then writes `second` on
 * the same connection and reads that answer until the server closes it.
 */
function exchangeKeptAlive(first: string, second: string): Promise<RawAnswer> {
  const { port } = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(first));
    let received = '';
    let firstDone = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (firstDone) return;
      const headEnd = received.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(received.slice(0, headEnd))?.[1];
      if (headEnd === -1 || length === undefined || received.length < headEnd + 4 + Number(length)) return;
      firstDone = true;
      received = received.slice(headEnd + 4 + Number(length));
      socket.write(second);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = received.split('\r\n\r\n');
      const text = rest.join('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: text ? JSON.parse(text) : undefined });
    });
  });
}

const get = (target: string, headers = '') =>
  exchange(`GET ${target} HTTP/1.1\r\nHost: hub\r\nConnection: close\r\n${headers}\r\n`);

it('answers a URL over the limit with 414 and headers over it with 431, in the error envelope', async () => {
  const longUrl = await get(`/api/v3/partner?id=1&note=${'a'.repeat(20_000)}`);
  expect(longUrl.status).toBe(414);
  expect(longUrl.body).toEqual({ error: { message: 'Request URL is too long' } });
  const largeHeaders = await get('/api/v3/partner?id=1', `X-Note: ${'a'.repeat(20_000)}\r\n`);
  expect(largeHeaders.status).toBe(431);
  expect(largeHeaders.body).toEqual({ error: { message: 'Request headers are too large' } });
  // A long (unknown) token fills the URL: the request is read and answered as any other.
  const withinLimits = await get(
    `/api/v3/partner?id=1&accessToken=${'a'.repeat(2_000)}`,
    `X-Note: ${'a'.repeat(2_000)}\r\n`,
  );
  expect(withinLimits.status).toBe(401);
  expect(withinLimits.body).toEqual({ error: { message: 'Access token is invalid' } });
});

it('answers a URL over the limit with 414 on a connection kept alive after an answer', async () => {
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      exchangeKeptAlive(
        'GET /api/v3/partner?id=1 HTTP/1.1\r\nHost: hub\r\n\r\n',
        `GET /api/v3/partner?id=1&note=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: hub\r\n\r\n`,
      ),
    ),
  );
  for (const answer of answers) {
    expect(answer.status).toBe(414);
    expect(answer.body).toEqual({ error: { message: 'Request URL is too long' } });
  }
});

it('answers a URL over the limit after the answer of the request sent before it on the connection', async () => {
  const { port } = new URL(hub.url);
  const received = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () =>
      socket.write(
        'GET /api/v3/partner?id=1 HTTP/1.1\r\nHost: hub\r\n\r\n' +
          `GET /api/v3/partner?id=1&note=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: hub\r\n\r\n`,
      ),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
  const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
  expect(statuses).toEqual([401, 414]);
});

it('reads the rest of a refused request before closing, so the client reads its 414 and no reset', async () => {
  const { port } = new URL(hub.url);
  const chunk = 'x'.repeat(64 * 1024);
  const outcome = await new Promise<{ answer: string; error?: string }>((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /api/v3/case-messages/confirm?note=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: hub\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${64 * chunk.length}\r\n\r\n`,
      );
    });
    // The body keeps coming after the answer, as from a client that writes it whole before reading.
    let chunksSent = 0;
    const sendMore = () => {
      if (chunksSent === 64 || socket.destroyed) return;
      chunksSent += 1;
      socket.write(chunk, () => setImmediate(sendMore));
    };
    socket.once('connect', sendMore);
    socket.on('data', (data: Buffer) => (answer += data.toString()));
    socket.on('error', (err) => resolve({ answer, error: (err as NodeJS.ErrnoException).code }));
    socket.on('close', () => resolve({ answer }));
  });
  expect(outcome.error).toBeUndefined();
  expect(outcome.answer).toMatch(/^HTTP\/1\.1 414 /);
});

it('cuts off a client that does not send the body it announced, with 408 in the envelope', async () => {
  const lying = await exchange(
    'POST /api/admin/world HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
    '{"a":1',
  );
  expect(lying.status).toBe(408);
  expect(lying.body).toEqual({ error: { message: 'Request was not received in time' } });
  const whole = await exchange(
    'POST /api/admin/world HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n',
    '{"a":1}',
  );
  expect(whole.status).toBe(401);
});

it('keeps authenticated answers out of caches and content sniffing; explorer assets may be cached', async () => {
  for (const res of [
    await hub.request('GET', '/api/v3/partner?id=1', { token: DEMO_TOKENS.elkjop }),
    await hub.request('GET', '/api/v3/partner?id=1'),
  ]) {
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  }
  const asset = await hub.request('GET', '/api/docs/docs.js');
  expect(asset.status).toBe(200);
  expect(asset.headers.get('cache-control')).toBe('public, max-age=300');
});

it('logs a client mistake as a warning without a stack, and a fault as an error with one', async () => {
  hub.broker.createService({
    name: 'fault-probe',
    settings: { rest: '' },
    actions: {
      fail: {
        rest: 'GET /v3/fault-probe',
        access: ACCESS.ANY,
        handler() {
          throw new Error('an unexpected fault');
        },
      },
    },
  });
  await waitFor(async () => (await hub.request('GET', '/api/v3/fault-probe')).status === 401, 'the probe route');
  const warn = jest.spyOn(gateway.logger, 'warn');
  const error = jest.spyOn(gateway.logger, 'error');

  const undecodable = await hub.request('POST', '/api/admin/world', {
    token: DEMO_TOKENS.admin,
    rawBody: 'not gzip',
    headers: { 'Content-Encoding': 'gzip' },
  });
  expect(undecodable.status).toBe(400);
  expect(error).not.toHaveBeenCalled();
  expect(warn).toHaveBeenCalledTimes(1);
  expect(warn.mock.calls[0].some((part) => part instanceof Error || String(part).includes('    at '))).toBe(false);

  const fault = await hub.request('GET', '/api/v3/fault-probe', { token: DEMO_TOKENS.elkjop });
  expect(fault.status).toBe(500);
  expect(error).toHaveBeenCalledTimes(1);
  expect((error.mock.calls[0].at(-1) as Error).stack).toContain('an unexpected fault');
});
