/** The per-token rate limit on the embedded (in-process) store. */
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
