/**
 * The gateway through real HTTP: token transports, access levels, the error envelopes, request
 * ids, health, rate limiting, and the directory lookups every account may use.
 */
import type { ActionParams } from 'moleculer';
import { ACCESS, OLDER_VERSIONS_DEPRECATION, UnavailableError } from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({
    services: ['catalog', 'gateway'],
    env: { RATE_LIMIT_PER_MINUTE: '100000', BODY_LIMIT: '2kb' },
  });
});
afterAll(() => hub.stop());

describe('authentication', () => {
  it('accepts the token as accessToken query parameter', async () => {
    const res = await hub.request('GET', `/api/v3/partner?id=1&accessToken=${DEMO_TOKENS.power}`);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Elkjøp Nordic');
  });

  it('accepts the X-Hub-Api-Token header and a Bearer token', async () => {
    expect(
      (await hub.request('GET', '/api/v3/partner?id=1', { headers: { 'X-Hub-Api-Token': DEMO_TOKENS.nrc } })).status,
    ).toBe(200);
    expect(
      (await hub.request('GET', '/api/v3/partner?id=1', { headers: { Authorization: `Bearer ${DEMO_TOKENS.nrc}` } }))
        .status,
    ).toBe(200);
  });

  it('answers 401 with the error envelope for a missing or unknown token', async () => {
    const missing = await hub.request('GET', '/api/v3/partner?id=1');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: { message: 'Access token is missing' } });
    const unknown = await hub.request('GET', '/api/v3/partner?id=1', { token: 'not-a-token' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: { message: 'Access token is invalid' } });
  });

  it('answers 403 when the access level does not allow the caller', async () => {
    const res = await hub.request('GET', '/api/admin/accounts', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/access level/);
  });
});

describe('errors', () => {
  it('answers 404 for an unknown route', async () => {
    const res = await hub.request('GET', '/api/v3/nothing-here', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'Not found' } });
  });

  it('answers 400 with the validation envelope for a wrong type', async () => {
    const res = await hub.request('GET', '/api/v3/partner?id=abc', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { message: 'Fields validation failed', details: { id: ['Wrong format'] } } });
  });

  it('answers 400 for a missing required parameter', async () => {
    const res = await hub.request('GET', '/api/v3/department', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ id: ['Field is required'] });
  });

  it('answers 400 for malformed JSON and 413 for a body over the limit', async () => {
    const malformed = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      rawBody: '{"world": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      error: { message: 'Fields validation failed', details: { body: ['Malformed JSON'] } },
    });
    const large = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world: { padding: 'x'.repeat(4096) } },
    });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ error: { message: 'Request body is too large' } });
  });

  it('retries a passing fault, then answers 503 with Retry-After and no internals', async () => {
    let attempts = 0;
    hub.broker.createService({
      name: 'flaky-probe',
      settings: { rest: '' },
      actions: {
        busy: {
          rest: 'GET /v3/flaky-probe',
          access: ACCESS.ANY,
          handler() {
            attempts += 1;
            throw new UnavailableError('database busy at 10.0.0.5');
          },
        },
      },
    });
    await waitFor(async () => (await hub.request('GET', '/api/v3/flaky-probe')).status === 401, 'the probe route');
    const res = await hub.request('GET', '/api/v3/flaky-probe', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error.message).toBe('Service temporarily unavailable');
    expect(JSON.stringify(res.body)).not.toContain('10.0.0.5');
    expect(attempts).toBe(4);
  });

  it('puts a request id on every response, keeping a sane one the client sent', async () => {
    const plain = await hub.request('GET', '/api/v3/nothing-here');
    expect(plain.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await hub.request('GET', '/api/v3/partner?id=1', {
      token: DEMO_TOKENS.elkjop,
      headers: { 'X-Request-Id': 'client-req-12345' },
    });
    expect(echoed.headers.get('x-request-id')).toBe('client-req-12345');
  });
});

describe('parameters', () => {
  /** What the action was called with, echoed back. */
  let seen: Record<string, unknown>;

  beforeAll(async () => {
    const echo = (rest: string, params: ActionParams, deprecated = false) => ({
      rest,
      access: ACCESS.ANY,
      // An echo writes nothing, so a POST to it takes no Idempotency-Key.
      readOnly: true,
      deprecated,
      params,
      handler(ctx: { params: Record<string, unknown> }) {
        seen = ctx.params;
        return { data: ctx.params };
      },
    });
    hub.broker.createService({
      name: 'params-probe',
      settings: { rest: '' },
      actions: {
        typed: echo('POST /v3/params-probe/typed', {
          id: 'number|integer|positive',
          active: 'boolean|optional',
          name: 'string|optional',
          key: { type: 'multi', rules: ['number|integer', 'string'], optional: true },
        }),
        list: echo('POST /v3/params-probe/list', { items: { type: 'array', items: 'number|integer' } }),
        old: echo('POST /v1/params-probe/old', { id: 'number|integer|positive' }, true),
      },
    });
    await waitFor(
      async () => (await hub.request('POST', '/api/v3/params-probe/typed', { body: {} })).status === 401,
      'the probe routes',
    );
  });

  it('types query-string values as the action declares them, and keeps the text where it spells no number', async () => {
    const res = await hub.request(
      'POST',
      `/api/v3/params-probe/typed?id=7&active=false&name=42&key=9&accessToken=${DEMO_TOKENS.elkjop}`,
      { body: {} },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: 7, active: false, name: '42', key: 9 });
    const text = await hub.request('POST', '/api/v3/params-probe/typed?id=seven', {
      token: DEMO_TOKENS.elkjop,
      body: {},
    });
    expect(text.status).toBe(400);
    expect(text.body.error.details).toEqual({ id: ['Wrong format'] });
  });

  it('never hands the token to the action, and a query value never replaces a body field', async () => {
    const res = await hub.request(
      'POST',
      `/api/v3/params-probe/typed?id=8&name=from-query&accessToken=${DEMO_TOKENS.elkjop}`,
      { body: { id: 3 } },
    );
    expect(res.status).toBe(200);
    expect(seen).toEqual({ id: 3, name: 'from-query' });
  });

  it('reads an integer sent as its digits, as the product documents ("serviceType": "2")', async () => {
    const res = await hub.request('POST', '/api/v3/params-probe/typed', {
      token: DEMO_TOKENS.elkjop,
      body: { id: '3' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: 3 });
  });

  it('refuses any other JSON value of the wrong type instead of converting it', async () => {
    for (const id of ['3.5', ' ', true, [3]]) {
      const res = await hub.request('POST', '/api/v3/params-probe/typed', { token: DEMO_TOKENS.elkjop, body: { id } });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ id: ['Wrong format'] });
    }
    const flag = await hub.request('POST', '/api/v3/params-probe/typed', {
      token: DEMO_TOKENS.elkjop,
      body: { id: 1, active: 'true' },
    });
    expect(flag.status).toBe(400);
    expect(flag.body.error.details).toEqual({ active: ['Wrong format'] });
  });

  it("refuses an integer beyond the id columns' range as a validation error, not a database error", async () => {
    const res = await hub.request('POST', '/api/v3/params-probe/typed', {
      token: DEMO_TOKENS.elkjop,
      body: { id: 2147483648 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ id: ['Must be at most 2147483647'] });
    expect(
      (await hub.request('POST', '/api/v3/params-probe/typed', { token: DEMO_TOKENS.elkjop, body: { id: 2147483647 } }))
        .status,
    ).toBe(200);
    const lookup = await hub.request('GET', '/api/v3/partner?id=2147483648', { token: DEMO_TOKENS.elkjop });
    expect(lookup.status).toBe(400);
  });

  it('answers a body of the wrong kind, array or object, on the body as a whole', async () => {
    const array = await hub.request('POST', '/api/v3/params-probe/typed', { token: DEMO_TOKENS.elkjop, body: [1] });
    expect(array.status).toBe(400);
    expect(array.body).toEqual({
      error: { message: 'Fields validation failed', details: { body: ['Must be an object'] } },
    });
    const object = await hub.request('POST', '/api/v3/params-probe/list', {
      token: DEMO_TOKENS.elkjop,
      body: { ids: [1] },
    });
    expect(object.status).toBe(400);
    expect(object.body.error.details).toEqual({ body: ['Must be an array'] });
    const listed = await hub.request('POST', '/api/v3/params-probe/list', {
      token: DEMO_TOKENS.elkjop,
      body: [1, 'x'],
    });
    expect(listed.status).toBe(400);
    expect(listed.body.error.details).toEqual({ '[1]': ['Wrong format'] });
  });

  it('refuses, naming the field, text no database can store and input nested too deep', async () => {
    const refused = async (path: string, body: unknown) => {
      const res = await hub.request('POST', path, { token: DEMO_TOKENS.elkjop, body });
      expect(res.status).toBe(400);
      return res.body.error.details;
    };
    expect(await refused('/api/v3/params-probe/typed', { id: 1, name: 'a\u0000b' })).toEqual({
      name: ['Wrong format'],
    });
    expect(await refused('/api/v3/params-probe/typed', { id: 1, name: 'half \ud800 a pair' })).toEqual({
      name: ['Wrong format'],
    });
    expect(await refused('/api/v3/params-probe/typed?name=a%00b', { id: 1 })).toEqual({ name: ['Wrong format'] });
    expect(await refused('/api/v3/params-probe/list', [1, { 'key\u0000': 1 }])).toEqual({
      '[1].key\u0000': ['Wrong format'],
    });
    const deep = `{"id":1,"name":${'['.repeat(1000)}1${']'.repeat(1000)}}`;
    const nested = await hub.request('POST', '/api/v3/params-probe/typed', {
      token: DEMO_TOKENS.elkjop,
      rawBody: deep,
    });
    expect(nested.status).toBe(400);
    expect(Object.keys(nested.body.error.details)).toEqual([`name${'[0]'.repeat(64)}`]);
    // A pair whole is text like any other.
    expect(
      (
        await hub.request('POST', '/api/v3/params-probe/typed', {
          token: DEMO_TOKENS.elkjop,
          body: { id: 1, name: 'emoji 😀' },
        })
      ).status,
    ).toBe(200);
  });

  it('answers a body it cannot decode with 400', async () => {
    const res = await hub.request('POST', '/api/v3/params-probe/typed', {
      token: DEMO_TOKENS.elkjop,
      rawBody: 'not gzip',
      headers: { 'Content-Encoding': 'gzip' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: 'Fields validation failed', details: { body: ['Not decodable as its Content-Encoding says'] } },
    });
  });

  it('marks a deprecated form on its errors too', async () => {
    const ok = await hub.request('POST', '/api/v1/params-probe/old?id=1', { token: DEMO_TOKENS.elkjop, body: {} });
    expect(ok.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
    const refused = await hub.request('POST', '/api/v1/params-probe/old', { token: DEMO_TOKENS.elkjop, body: {} });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
  });
});

describe('health', () => {
  it('is live and ready with the database checked', async () => {
    expect((await hub.request('GET', '/health/live')).body).toEqual({ status: 'ok' });
    const ready = await hub.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { services: 'ok', transporter: 'ok', database: 'ok' } });
  });
});

describe('directory lookups (access Any)', () => {
  it('GET /api/v3/partner returns the Partner record with ContactData', async () => {
    const res = await hub.request('GET', '/api/v3/partner?id=3', { token: DEMO_TOKENS.svea });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['contactData', 'id', 'name']);
    expect(res.body.contactData).toMatchObject({
      organizationName: 'Trygg Forsikring AB',
      countryCode: 'SE',
      firstName: null,
      doorCode: null,
    });
    expect(res.body.contactData.id).toEqual(expect.any(Number));
    expect(new Date(res.body.contactData.createdAt).toISOString()).toBe(res.body.contactData.createdAt);
  });

  it('GET /api/v3/provider and /providers', async () => {
    const one = await hub.request('GET', '/api/v3/provider?id=20', { token: DEMO_TOKENS.elkjop });
    expect(one.body).toMatchObject({ id: 20, name: 'Svea Service Verkstad' });
    const some = await hub.request('GET', '/api/v3/providers?ids=30,10', { token: DEMO_TOKENS.elkjop });
    expect(some.body.map((provider: { id: number }) => provider.id)).toEqual([10, 30]);
    const all = await hub.request('GET', '/api/v3/providers', { token: DEMO_TOKENS.elkjop });
    expect(all.body).toHaveLength(4);
    const bad = await hub.request('GET', '/api/v3/providers?ids=1,x', { token: DEMO_TOKENS.elkjop });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ ids: ['Wrong format'] });
  });

  it('GET /api/v3/providers with an empty or out-of-range id list, and its deprecated v2 path', async () => {
    const empty = await hub.request('GET', '/api/v3/providers?ids=', { token: DEMO_TOKENS.elkjop });
    expect(empty.status).toBe(200);
    expect(empty.body).toHaveLength(4);
    const beyond = await hub.request('GET', '/api/v3/providers?ids=10,99999999999', { token: DEMO_TOKENS.elkjop });
    expect(beyond.status).toBe(200);
    expect(beyond.body.map((provider: { id: number }) => provider.id)).toEqual([10]);
    const v2 = await hub.request('GET', '/api/v2/providers?ids=20', { token: DEMO_TOKENS.elkjop });
    expect(v2.status).toBe(200);
    expect(v2.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
    expect(v2.body.map((provider: { id: number }) => provider.id)).toEqual([20]);
  });

  it('GET /api/v3/department wraps the Department in data', async () => {
    const res = await hub.request('GET', '/api/v3/department?id=102', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: 102,
        name: 'NRC Bergen',
        externalData: { sesamCode: 'NRC-BGO' },
        contactData: expect.objectContaining({ city: 'Kokstad' }),
      },
    });
  });

  it('answers 404 for an unknown id', async () => {
    const res = await hub.request('GET', '/api/v3/provider?id=999', { token: DEMO_TOKENS.elkjop });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'Provider not found' } });
  });
});

describe('accounts', () => {
  it('an admin creates an account whose token works at once, shown only in that answer', async () => {
    const created = await hub.request('POST', '/api/admin/accounts', {
      token: DEMO_TOKENS.admin,
      body: { name: 'Second Power key', role: 'partner', partnerId: 2 },
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({
      name: 'Second Power key',
      role: 'partner',
      partnerId: 2,
      providerId: null,
    });
    expect(created.body.data.id).toBeGreaterThan(7);
    const token = created.body.data.token as string;
    expect((await hub.request('GET', '/api/v3/partner?id=2', { token })).status).toBe(200);
    const listed = await hub.request('GET', '/api/admin/accounts', { token: DEMO_TOKENS.admin });
    expect(JSON.stringify(listed.body)).not.toContain(token);
  });

  it('takes a world load at once: an account that gets a new token there is no longer known by the old one', async () => {
    const partners = [{ id: 81, name: 'Rotating partner' }];
    const world = {
      partners,
      accounts: [{ id: 80, name: 'Rotated', role: 'partner', partnerId: 81, token: 'rotated-token-before-0001' }],
    };
    expect((await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } })).status).toBe(
      200,
    );
    expect((await hub.request('GET', '/api/v3/partner?id=81', { token: 'rotated-token-before-0001' })).status).toBe(
      200,
    );
    const rotated = { partners, accounts: [{ ...world.accounts[0], token: 'rotated-token-after-00001' }] };
    expect(
      (await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world: rotated } })).status,
    ).toBe(200);
    expect((await hub.request('GET', '/api/v3/partner?id=81', { token: 'rotated-token-before-0001' })).status).toBe(
      401,
    );
    expect((await hub.request('GET', '/api/v3/partner?id=81', { token: 'rotated-token-after-00001' })).status).toBe(
      200,
    );
  });

  it('refuses an account that does not fit its role', async () => {
    const res = await hub.request('POST', '/api/admin/accounts', {
      token: DEMO_TOKENS.admin,
      body: { name: 'x', role: 'provider', partnerId: 2 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ providerId: ['Field is required'], partnerId: ['Field is not accepted'] });
    const partnerForAll = await hub.request('POST', '/api/admin/accounts', {
      token: DEMO_TOKENS.admin,
      body: { name: 'x', role: 'partner', partnerId: 2, allowAllProviders: true },
    });
    expect(partnerForAll.status).toBe(400);
    expect(partnerForAll.body.error.details).toEqual({ allowAllProviders: ['Field is not accepted'] });
  });

  it('creates a provider account that may act for any provider (X-Service-Provider)', async () => {
    const created = await hub.request('POST', '/api/admin/accounts', {
      token: DEMO_TOKENS.admin,
      body: { name: 'Mediator', role: 'provider', providerId: 10, allowAllProviders: true },
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ role: 'provider', providerId: 10, allowAllProviders: true });
    const asSvea = await hub.request('GET', '/api/v3/provider?id=20', {
      token: created.body.data.token,
      headers: { 'X-Service-Provider': '20' },
    });
    expect(asSvea.status).toBe(200);
  });
});

describe('world loading', () => {
  it('refuses a bad world as a whole, naming entry and field, and writes nothing', async () => {
    const world = {
      partners: [{ id: 50, name: 'New partner' }],
      accounts: [{ id: 50, name: 'New partner key', role: 'partner', partnerId: 51, token: 'new-partner-token-0001' }],
    };
    const res = await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ 'accounts[0].partnerId': ['partner 51 is not in the world'] });
    expect((await hub.request('GET', '/api/v3/partner?id=50', { token: DEMO_TOKENS.elkjop })).status).toBe(404);
  });

  it('refuses, naming the field, worlds that would fail only when written, and writes nothing', async () => {
    const refused = async (world: unknown) => {
      const res = await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
      expect(res.status).toBe(400);
      return res.body.error.details;
    };
    expect(await refused({ partners: [{ id: 2147483648, name: 'Too far' }] })).toEqual({
      'partners[0].id': expect.any(Array),
    });
    expect(await refused({ constructor: 1 })).toEqual({ constructor: ['is not a known key'] });
    const calendar = { timeZone: 'Mars/Olympus', weekdays: [1], cutoffHour: 12, leadDays: 1, horizonDays: 5 };
    const method = { id: 90, name: 'Rocket', properties: { requirePickupDate: true, goodsTypeList: null }, calendar };
    expect(await refused({ shippingMethods: [method] })).toEqual({
      'shippingMethods[0].calendar.timeZone': ['unknown time zone "Mars/Olympus"'],
    });
    // Elkjøp's demo token, given to another account.
    const taken = {
      partners: [{ id: 60, name: 'Token thief' }],
      accounts: [{ id: 60, name: 'Thief', role: 'partner', partnerId: 60, token: DEMO_TOKENS.elkjop }],
    };
    expect(await refused(taken)).toEqual({
      accounts: ['a token of the file belongs to an account the file does not name'],
    });
    expect((await hub.request('GET', '/api/v3/partner?id=60', { token: DEMO_TOKENS.elkjop })).status).toBe(404);
  });

  it('refuses a world with a part no running service loads, unless told to skip such parts', async () => {
    const world = {
      partners: [{ id: 70, name: 'Partner with routing' }],
      competences: [{ id: 9, partnerId: 70, providerId: 10 }],
    };
    const refused = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world: { ...world, providers: [{ id: 10, name: 'Nordic Repair Center' }] } },
    });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      error: {
        message: 'No running service loads competences; nothing was loaded',
        details: { keys: ['competences'] },
      },
    });
    expect((await hub.request('GET', '/api/v3/partner?id=70', { token: DEMO_TOKENS.elkjop })).status).toBe(404);
    const partial = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world: { ...world, providers: [{ id: 10, name: 'Nordic Repair Center' }] }, skipUnowned: true },
    });
    expect(partial.status).toBe(200);
    expect((await hub.request('GET', '/api/v3/partner?id=70', { token: DEMO_TOKENS.elkjop })).status).toBe(200);
  });

  it('loads a world, clears cached lookups, and a second load changes nothing', async () => {
    const before = await hub.request('GET', '/api/v3/partner?id=2', { token: DEMO_TOKENS.elkjop });
    expect(before.body.name).toBe('Power Norden');
    const world = {
      partners: [{ id: 2, name: 'Power Norden AS' }],
      accounts: [{ id: 60, name: 'Extra', role: 'partner', partnerId: 2, token: 'extra-power-token-0001' }],
    };
    for (let load = 0; load < 2; load++) {
      const res = await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ result: true, appliedBy: ['catalog'] });
    }
    const after = await hub.request('GET', '/api/v3/partner?id=2', { token: 'extra-power-token-0001' });
    expect(after.body.name).toBe('Power Norden AS');
    // Its contact was kept: the file named no new one.
    expect(after.body.contactData).toEqual(before.body.contactData);
    const accounts = await hub.request('GET', '/api/admin/accounts', { token: DEMO_TOKENS.admin });
    expect(accounts.body.data.filter((account: { id: number }) => account.id === 60)).toHaveLength(1);
  });
});
