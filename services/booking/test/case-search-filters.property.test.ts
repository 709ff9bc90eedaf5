/**
 * search-cases and unexported-cases never fail on a filter: every operator they accept with every
 * JSON value type on every searchable field (productData and orderData keys dotted and nested),
 * through the gateway, as a partner and as a provider, answers a 200 page or a 400 envelope naming
 * the field, never a 5xx.
 */
import fc from 'fast-check';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';
import { OPERATORS, SEARCHABLE_FIELDS } from '../src/case-filters';

/** The top-level fields, and keys of productData and orderData written dotted, a private one and one no key can be. */
const FIELDS = [
  ...SEARCHABLE_FIELDS,
  'productData.model',
  'orderData.refNo',
  'orderData.partnerSpecific.acme.ref',
  'orderData.providerSpecific.note',
  'orderData.no such key',
  'orderData.a.b.c.d.e.f.g.h.i',
];

/** One value of every JSON type: null, booleans, numbers, texts of days, instants and neither, arrays, objects. */
const SAMPLES: unknown[] = [
  null,
  true,
  false,
  0,
  -1.5,
  1e308,
  2 ** 40,
  '2026-01-01',
  '2026-01-01T10:00:00Z',
  '2026-02-30',
  '9999-12-31T23:59:59+14:00',
  '',
  ' ',
  'registered',
  '0f9c7a1e-8d4b-4c3a-9e2f-5a6b7c8d9e0f',
  'x'.repeat(300),
  [],
  ['2026-01-01', null],
  [1, 'registered'],
  [[1]],
  {},
  { refNo: 'A-1' },
  { $lt: '2026-01-01' },
];

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SAMPLES),
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
    fc.string({ maxLength: 20 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('refNo', 'model', 'acme', '$lt', '$gt', '$eq'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const fieldFilter = fc.oneof(
  jsonValue,
  fc.dictionary(fc.constantFrom(...OPERATORS, '$in', '$ne'), jsonValue, { minKeys: 1, maxKeys: 2 }),
);
const filters = fc.dictionary(fc.constantFrom(...FIELDS), fieldFilter, { minKeys: 1, maxKeys: 3 });

const PATH = '/api/v3/search-cases';
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sends a few requests at a time: the gateway's concurrency, not one round trip after another. */
async function inBatches<T>(items: T[], send: (item: T) => Promise<void>, size = 8): Promise<void> {
  for (let start = 0; start < items.length; start += size)
    await Promise.all(items.slice(start, start + size).map(send));
}

describe('search-cases filters of every operator and value type', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ services: BOOKING_SERVICES, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    await bookCase(hub, DEMO_TOKENS.elkjop, {
      orderData: { refNo: 'A-1', partnerSpecific: { acme: { ref: 'R' } } },
    });
  });
  afterAll(() => hub.stop());

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
    for (const field of FIELDS)
      for (const value of SAMPLES)
        sent.push({ [field]: value }, ...OPERATORS.map((operator) => ({ [field]: { [operator]: value } })));
    await inBatches(sent, (filters) => expectPageOrNamed(PATH, DEMO_TOKENS.nrc, filters));
    await inBatches(sent, (filters) => expectPageOrNamed(PATH, DEMO_TOKENS.elkjop, filters));
  }, 600_000);

  it('answers a page or a 400 naming the field, never a 5xx, for any filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        filters,
        fc.constantFrom(
          ['/api/v3/search-cases', DEMO_TOKENS.elkjop],
          ['/api/v3/search-cases', DEMO_TOKENS.nrc],
          ['/api/v3/unexported-cases', DEMO_TOKENS.nrc],
        ),
        async (sent, [path, token]) => expectPageOrNamed(path, token, sent),
      ),
      { numRuns: 300 },
    );
  }, 600_000);
});
