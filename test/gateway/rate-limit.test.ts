/** The per-token rate limit on the embedded (in-process) store, and the limit on invalid tokens per address. */
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'gateway'], env: { RATE_LIMIT_PER_MINUTE: '3' } });
});
afterAll(() => hub.stop());

it('answers 429 with Retry-After once a token used its budget, and counts tokens apart', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-rate-limit-remaining')).toBe(String(2 - i));
  }
  const limited = await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
  expect(limited.status).toBe(429);
  expect(limited.body).toEqual({ error: { message: 'Too many requests' } });
  const retryAfter = Number(limited.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect((await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.power })).status).toBe(200);
});

it('gives an address the per-token budget of invalid tokens, however many it makes up, and keeps known valid ones working', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await hub.request('GET', '/api/v3/providers', { token: `made-up-token-${i}` })).status);
  expect(statuses).toEqual([401, 401, 401, 429, 429]);
  const refused = await hub.request('GET', '/api/v3/providers', { token: 'x'.repeat(600) });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Power's token was used above, so the gateway knows it without a lookup.
  expect((await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.power })).status).toBe(200);
});
