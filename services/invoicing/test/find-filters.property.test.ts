/**
 * invoices/find never fails on a filter: every operator it accepts with every JSON value type on
 * every searchable field, through the gateway, as a partner and as a provider, at v3 and v2,
 * answers a 200 page or a 400 envelope naming the field, never a 5xx. A createdAt filter that is
 * not a range ($ne: null) once reached the day counts' range reading and failed there.
 */
import fc from 'fast-check';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';
import { OPERATORS, SEARCHABLE_FIELDS } from '../src/filters';

/** One value of every JSON type: null, booleans, numbers, texts of days, instants and neither, arrays, objects. */
const SAMPLES: unknown[] = [
  null,
  true,
  false,
  0,
  -1.5,
  1e308,
  '2026-01-01',
  '2026-01-01T10:00:00Z',
  '2026-01-01 10:00',
  '2026-02-30',
  '9999-12-31T23:59:59+14:00',
  '',
  'invoice',
  '0f9c7a1e-8d4b-4c3a-9e2f-5a6b7c8d9e0f',
  [],
  ['2026-01-01', null],
  [1, 'NOK'],
  {},
  { name: 'Screen' },
  { $gt: '2026-01-01' },
];

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SAMPLES),
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
    fc.string({ maxLength: 20 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('name', 'count', 'key', '$eq', '$gt'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** A field's filter: a bare value, or an object of operators (and now and then one it does not know). */
const fieldFilter = fc.oneof(
  jsonValue,
  fc.dictionary(fc.constantFrom(...OPERATORS, '$regex'), jsonValue, { minKeys: 1, maxKeys: 3 }),
);
const filters = fc.dictionary(fc.constantFrom(...SEARCHABLE_FIELDS), fieldFilter, { minKeys: 1, maxKeys: 3 });

const PATH = '/api/v3/invoices/find';
const TOKEN = DEMO_TOKENS.nrc;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sends a few requests at a time: the gateway's concurrency, not one round trip after another. */
async function inBatches<T>(items: T[], send: (item: T) => Promise<void>, size = 8): Promise<void> {
  for (let start = 0; start < items.length; start += size)
    await Promise.all(items.slice(start, start + size).map(send));
}

describe('invoices/find filters of every operator and value type', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({
      services: [...BOOKING_SERVICES, 'invoicing'],
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    const saved = await hub.request('POST', '/api/v3/invoices', {
      token: DEMO_TOKENS.nrc,
      body: [{ guid, externalId: 'P-1', customData: { key: 'value' }, dueDate: '2026-03-01' }],
    });
    expect(saved.status).toBe(200);
  });
  afterAll(() => hub.stop());

  it('answers the date filter that is not a range, as it answers any other', async () => {
    for (const path of ['/api/v3/invoices/find', '/api/v2/invoices/find']) {
      for (const createdAt of [{ $ne: null }, { $eq: null }, { $gt: '2026-01-01', $ne: null }, { $in: [] }]) {
        const res = await hub.request('POST', path, {
          token: DEMO_TOKENS.nrc,
          body: { filters: { createdAt }, pagination: { offset: 0, limit: 10 } },
        });
        expect(res.status).toBe(200);
        expect(res.body.pagination.count).toBe(res.body.data.length);
      }
    }
    const notNull = await hub.request('POST', '/api/v3/invoices/find', {
      token: DEMO_TOKENS.nrc,
      body: { filters: { createdAt: { $ne: null } } },
    });
    expect(notNull.body.data.map((invoice: { externalId: string }) => invoice.externalId)).toEqual(['P-1']);
  });

  /** A 200 page, or a 400 envelope naming only fields that were sent; anything else fails. */
  async function expectPageOrNamed(path: string, token: string, sent: unknown) {
    const res = await hub.request('POST', path, { token, body: { filters: sent, pagination: { limit: 10 } } });
    if (res.status === 200) {
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(res.body.pagination).toEqual(expect.objectContaining({ count: expect.any(Number), offset: 0 }));
      return;
    }
    expect({ sent, status: res.status }).toEqual({ sent, status: 400 });
    expect(res.body.error.message).toBe('Fields validation failed');
    const named = Object.keys(res.body.error.details);
    expect(named.length).toBeGreaterThan(0);
    const fields = isObject(sent) ? Object.keys(sent).map((field) => `filters.${field}`) : ['filters'];
    for (const at of named) expect(fields.some((field) => at.startsWith(field))).toBe(true);
  }

  it('answers every operator with every value type on every field', async () => {
    const sent: unknown[] = [...SAMPLES];
    for (const field of SEARCHABLE_FIELDS)
      for (const value of SAMPLES)
        sent.push({ [field]: value }, ...OPERATORS.map((operator) => ({ [field]: { [operator]: value } })));
    await inBatches(sent, (filters) => expectPageOrNamed(PATH, TOKEN, filters));
  }, 600_000);

  it('answers a page or a 400 naming the field, never a 5xx, for any filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        filters,
        fc.constantFrom(DEMO_TOKENS.nrc, DEMO_TOKENS.elkjop),
        fc.constantFrom('/api/v3/invoices/find', '/api/v2/invoices/find'),
        async (sent, token, path) => expectPageOrNamed(path, token, sent),
      ),
      { numRuns: 200 },
    );
  }, 600_000);
});
