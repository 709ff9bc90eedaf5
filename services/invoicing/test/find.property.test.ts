/**
 * invoices/find gives the rows a plain reference query gives, on random invoices and random
 * filters: the same invoices in the same order and the same count, whether walked page by page
 * after a cursor or read at an offset. Invoices share created_at to the millisecond and differ in
 * microseconds, so a cursor that lost precision would skip or repeat them.
 */
import fc from 'fast-check';
import type { Knex } from 'knex';
import type { Caller } from '@hub/shared';
import { DEMO_TOKENS, type TestHub } from '../../../test/support/hub';
import { startCaseRecordsHub } from '../../../test/support/cases';

const PARTNER: Caller = {
  accountId: 1,
  role: 'partner',
  name: 'property',
  partnerId: 1,
  providerId: null,
  canForceProvider: false,
  allowAllProviders: false,
};

const REGIONS = ['north', 'south', 'east'];
const CURRENCIES = ['NOK', 'SEK', 'EUR'];
const START = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3600 * 1000;
const instant = (hour: number) => new Date(START + hour * HOUR).toISOString();

const generatedInvoice = fc.record({
  onElkjop: fc.boolean(),
  hour: fc.integer({ min: 0, max: 12 }),
  micros: fc.integer({ min: 0, max: 3 }),
  region: fc.constantFrom(...REGIONS),
  priority: fc.constantFrom(1, 2, '1'),
  currency: fc.constantFrom(...CURRENCIES),
  isPaid: fc.boolean(),
});

const filtersArb = fc.record(
  {
    createdAt: fc.oneof(
      fc.record({ $gt: fc.integer({ min: -1, max: 13 }).map(instant) }),
      fc.record({ $lte: fc.integer({ min: -1, max: 13 }).map(instant) }),
    ),
    customData: fc.record(
      { region: fc.constantFrom(...REGIONS), priority: fc.constantFrom(1, 2, '1') },
      { requiredKeys: [] },
    ),
    currency: fc.oneof(fc.constantFrom(...CURRENCIES), fc.record({ $in: fc.subarray(CURRENCIES) })),
    isPaid: fc.boolean(),
  },
  { requiredKeys: [] },
);

let hub: TestHub;
let knex: Knex;

beforeAll(async () => {
  let cases: string[];
  ({ hub, knex, cases } = await startCaseRecordsHub('invoicing', false, [DEMO_TOKENS.elkjop, DEMO_TOKENS.power]));
  const invoices = fc.sample(fc.array(generatedInvoice, { minLength: 70, maxLength: 70 }), 1)[0];
  const saved = (await hub.broker.call(
    'invoicing.save',
    {
      items: invoices.map((invoice, index) => ({
        guid: invoice.onElkjop ? cases[0] : cases[1],
        externalId: `P-${index}`,
        customData: { region: invoice.region, priority: invoice.priority },
        currency: invoice.currency,
        isPaid: invoice.isPaid,
      })),
    },
    { meta: { caller: { ...PARTNER, role: 'provider', partnerId: null, providerId: 10 } } },
  )) as Array<{ id: number }>;
  for (const [index, invoice] of invoices.entries()) {
    await knex.raw(
      `update invoicing.invoices set created_at = ?::timestamptz + ? * interval '1 microsecond' where id = ?`,
      [instant(invoice.hour), invoice.micros, saved[index].id],
    );
  }
});
afterAll(() => hub.stop());

const OPERATORS: Record<string, string> = { $gt: '>', $lte: '<=' };

/** The reference: each filter as the plainest SQL that says it, over the partner's invoices, in created order. */
async function referenceIds(filters: Record<string, unknown>): Promise<number[]> {
  const query = knex('invoicing.invoices as i')
    .where('i.partner_id', PARTNER.partnerId)
    .orderBy([{ column: 'i.created_at' }, { column: 'i.id' }]);
  for (const [field, value] of Object.entries(filters)) {
    if (field === 'createdAt')
      for (const [operator, bound] of Object.entries(value as Record<string, string>))
        query.where('i.created_at', OPERATORS[operator], bound);
    if (field === 'customData')
      for (const [key, item] of Object.entries(value as Record<string, unknown>))
        query.whereRaw('i.custom_data -> ? = ?::jsonb', [key, JSON.stringify(item)]);
    if (field === 'currency') {
      const list = typeof value === 'string' ? [value] : (value as { $in: string[] }).$in;
      query.whereIn('i.currency', list);
    }
    if (field === 'isPaid') query.where('i.is_paid', value as boolean);
  }
  return (await query.pluck('i.id')) as number[];
}

interface FindAnswer {
  data: Array<{ id: number }>;
  pagination: { offset: number; count: number; next: string | null };
}

const find = (params: Record<string, unknown>) =>
  hub.broker.call('invoicing.find', params, { meta: { caller: PARTNER } }) as Promise<FindAnswer>;

describe('invoices/find against a plain reference query', () => {
  it('finds the same invoices in the same order, walked after cursors, with the same count', async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb, fc.integer({ min: 1, max: 9 }), async (filters, limit) => {
        const expected = await referenceIds(filters);
        const walked: number[] = [];
        let pagination: Record<string, unknown> = { limit };
        for (;;) {
          const page = await find({ filters, pagination });
          expect(page.pagination.count).toBe(expected.length);
          expect(page.pagination.offset).toBe(walked.length);
          walked.push(...page.data.map((invoice) => invoice.id));
          if (page.pagination.next === null) break;
          pagination = { limit, after: page.pagination.next };
        }
        expect(walked).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('answers the reference slice at any offset', async () => {
    await fc.assert(
      fc.asyncProperty(
        filtersArb,
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 10 }),
        async (filters, offset, limit) => {
          const expected = await referenceIds(filters);
          const page = await find({ filters, pagination: { offset, limit } });
          expect(page.pagination).toEqual({
            offset,
            count: expected.length,
            next: offset + limit < expected.length ? expect.any(String) : null,
          });
          expect(page.data.map((invoice) => invoice.id)).toEqual(expected.slice(offset, offset + limit));
        },
      ),
      { numRuns: 40 },
    );
  });
});
