/**
 * The per-token rate limit on the embedded (in-process) store with its headers (moleculer-web's
 * X-Rate-Limit-* and the IETF RateLimit-Policy and RateLimit fields), and the limit on invalid
 * tokens per address.
 */
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'gateway'], env: { RATE_LIMIT_PER_MINUTE: '3' } });
});
afterAll(() => hub.stop());

/** The seconds until the window starts again in a `RateLimit` field, after checking the rest of it. */
function resetSecondsOf(field: string | null, remaining: number): number {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(field ?? '');
  expect(match && Number(match[1])).toBe(remaining);
  return Number(match![2]);
}

it('answers 429 with Retry-After once a token used its budget, and counts tokens apart', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-rate-limit-remaining')).toBe(String(2 - i));
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
    expect(resetSecondsOf(res.headers.get('ratelimit'), 2 - i)).toBeLessThanOrEqual(60);
  }
  const limited = await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
  expect(limited.status).toBe(429);
  expect(limited.body).toEqual({ error: { message: 'Too many requests' } });
  const retryAfter = Number(limited.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
  // The same moment of reset as Retry-After, which says at least 1.
  expect(Math.max(1, resetSecondsOf(limited.headers.get('ratelimit'), 0))).toBe(retryAfter);
  expect((await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.power })).status).toBe(200);
});

it('counts errors too, and sends the fields on them', async () => {
  const refused = await hub.request('GET', '/api/v3/provider?id=abc', { token: DEMO_TOKENS.trygg });
  expect(refused.status).toBe(400);
  expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
  resetSecondsOf(refused.headers.get('ratelimit'), 2);
});

it('leaves the fields off what the limiter does not count: pages outside the API', async () => {
  const document = await hub.request('GET', '/api/openapi.json');
  expect(document.status).toBe(200);
  expect(document.headers.get('ratelimit')).toBeNull();
  expect(document.headers.get('ratelimit-policy')).toBeNull();
});

it('gives an address the per-token budget of invalid tokens, however many it makes up, and keeps known valid ones working', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await hub.request('GET', '/api/v3/providers', { token: `made-up-token-${i}` })).status);
  expect(statuses).toEqual([401, 401, 401, 429, 429]);
  const refused = await hub.request('GET', '/api/v3/providers', { token: 'x'.repeat(600) });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Power's token was used above, so the gateway knows it without a lookup.
  expect((await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.power })).status).toBe(200);
});
