/**
 * invoices/find gives the rows a plain reference query gives, on random invoices and random
 * filters: the same invoices in the same order and the same count, whether walked page by page
 * after a cursor or read at an offset, for partners and providers alike. Invoices share
 * created_at to the millisecond and differ in microseconds, so a cursor that lost precision would
 * skip or repeat them; they fall on four days, at midnight and at a day's last hour among others,
 * so ranges and cursors cut days where the kept counts per day (CUSTOM_VALUE_DAYS) are summed.
 *
 * customData holds values of every JSON type under keys an invoice may or may not have, and the
 * invoices are then re-saved with other values, moved in time, deleted, or given `1.0` where they
 * held `1`: a count read from the kept values (custom-values.store.ts) must still be the
 * reference's.
 * Run on the embedded database (`find.property.test.ts`) and the Postgres server
 * (`find.property.infra.test.ts`).
 */
import fc from 'fast-check';
import type { Knex } from 'knex';
import type { Caller } from '@hub/shared';
import { DEMO_TOKENS, type TestHub } from '../../../test/support/hub';
import { startCaseRecordsHub } from '../../../test/support/cases';
import { CUSTOM_VALUE_DAYS, CUSTOM_VALUES, DAY_OF_CREATED_AT, KEPT_BYTES } from '../src/custom-values.store';
import { INVOICE_DAYS, INVOICES } from '../src/invoices.store';

const caller = (role: 'partner' | 'provider', id: number): Caller => ({
  accountId: 1,
  role,
  name: 'property',
  partnerId: role === 'partner' ? id : null,
  providerId: role === 'provider' ? id : null,
  canForceProvider: false,
  allowAllProviders: false,
});

/** The demo cases booked, in order, by these partners, and the providers they go to. */
const CASES = [
  { token: DEMO_TOKENS.elkjop, partnerId: 1, providerId: 10 },
  { token: DEMO_TOKENS.power, partnerId: 2, providerId: 10 },
  { token: DEMO_TOKENS.trygg, partnerId: 3, providerId: 20 },
];
const CALLERS = [
  ...[...new Set(CASES.map((entry) => entry.partnerId))].map((id) => caller('partner', id)),
  ...[...new Set(CASES.map((entry) => entry.providerId))].map((id) => caller('provider', id)),
];

const CURRENCIES = ['NOK', 'SEK', 'EUR'];
const START = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3600 * 1000;
const instant = (hour: number) => new Date(START + hour * HOUR).toISOString();
/** The hours after START invoices are created at, and those createdAt filters name. */
const HOURS = [0, 1, 12, 23, 24, 25, 36, 47, 48, 60, 71, 72, 95];
const BOUNDS = [-1, ...HOURS, 96, 120];

/** A string too long to be kept, so a filter naming it reads the invoices. */
const UNKEPT = 'x'.repeat(KEPT_BYTES + 1);
/** Scalars a filter may name: equal numbers of both spellings, a number and its text, booleans, null. */
const SCALARS = ['north', 'south', '', '1', 1, 2, 1.5, 0, true, false, null, UNKEPT];
const KEYS = ['region', 'priority', 'flag', 'nested'];
const customValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SCALARS) },
  { weight: 1, arbitrary: fc.constantFrom({ region: 'north' }, ['north'], [1], {}) },
);
const customData = fc.dictionary(fc.constantFrom(...KEYS), customValue, { maxKeys: KEYS.length });

const generatedInvoice = fc.record({
  caseIndex: fc.integer({ min: 0, max: CASES.length - 1 }),
  hour: fc.constantFrom(...HOURS),
  micros: fc.integer({ min: 0, max: 3 }),
  customData,
  currency: fc.constantFrom(...CURRENCIES),
  isPaid: fc.boolean(),
  /** What happens to it after it is saved. */
  later: fc.constantFrom('kept', 'resaved', 'deleted', 'spelled 1.0'),
  resavedData: customData,
});

const createdAtArb = fc.oneof(
  fc.record({ $gt: fc.constantFrom(...BOUNDS).map(instant) }),
  fc.record({ $lte: fc.constantFrom(...BOUNDS).map(instant) }),
  fc.record({
    $gte: fc.constantFrom(...BOUNDS).map(instant),
    $lt: fc.constantFrom(...BOUNDS).map(instant),
  }),
);
const filtersArb = fc.record(
  {
    createdAt: createdAtArb,
    customData: fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...SCALARS), { minKeys: 1, maxKeys: 2 }),
    currency: fc.oneof(fc.constantFrom(...CURRENCIES), fc.record({ $in: fc.subarray(CURRENCIES) })),
    isPaid: fc.boolean(),
  },
  { requiredKeys: [] },
);
/**
 * Mostly the forms the day counts answer (one customData key, createdAt; createdAt alone or no
 * filter), sometimes any.
 */
const findArb = fc.record({
  caller: fc.constantFrom(...CALLERS),
  filters: fc.oneof(
    fc.record({ createdAt: createdAtArb }, { requiredKeys: [] }),
    fc.record(
      {
        createdAt: createdAtArb,
        customData: fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...SCALARS), { minKeys: 1, maxKeys: 1 }),
      },
      { requiredKeys: ['customData'] },
    ),
    filtersArb,
  ),
});

export function findPropertySuite(infra: boolean): void {
  let hub: TestHub;
  let knex: Knex;

  beforeAll(async () => {
    let cases: string[];
    ({ hub, knex, cases } = await startCaseRecordsHub(
      'invoicing',
      infra,
      CASES.map((entry) => entry.token),
    ));
    const invoices = fc.sample(fc.array(generatedInvoice, { minLength: 90, maxLength: 90 }), 1)[0];
    const save = (items: Array<Record<string, unknown>>, providerId: number) =>
      hub.broker.call('invoicing.save', { items }, { meta: { caller: caller('provider', providerId) } }) as Promise<
        Array<{ id: number }>
      >;
    const ids: number[] = [];
    for (const [index, invoice] of invoices.entries()) {
      const { providerId } = CASES[invoice.caseIndex];
      const item = { guid: cases[invoice.caseIndex], externalId: `P-${index}`, currency: invoice.currency };
      const [saved] = await save([{ ...item, customData: invoice.customData, isPaid: invoice.isPaid }], providerId);
      ids.push(saved.id);
      await knex.raw(
        `update invoicing.invoices set created_at = ?::timestamptz + ? * interval '1 microsecond' where id = ?`,
        [instant(invoice.hour), invoice.micros, saved.id],
      );
      if (invoice.later === 'resaved') await save([{ ...item, customData: invoice.resavedData }], providerId);
      if (invoice.later === 'deleted') await knex('invoicing.invoices').where('id', saved.id).delete();
      if (invoice.later === 'spelled 1.0')
        await knex.raw(
          `update invoicing.invoices set custom_data = (select coalesce(jsonb_object_agg(key, case when value = '1' then '1.0'::jsonb else value end), '{}')
             from jsonb_each(custom_data)) where id = ?`,
          [saved.id],
        );
    }
  });
  afterAll(() => hub.stop());

  const OPERATORS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

  /** The reference: each filter as the plainest SQL that says it, over the caller's invoices, in created order. */
  async function referenceIds(who: Caller, filters: Record<string, unknown>): Promise<number[]> {
    const query = knex('invoicing.invoices as i').orderBy([{ column: 'i.created_at' }, { column: 'i.id' }]);
    if (who.role === 'partner') query.where('i.partner_id', who.partnerId!);
    else query.where('i.provider_id', who.providerId!);
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

  const find = (who: Caller, params: Record<string, unknown>) =>
    hub.broker.call('invoicing.find', params, { meta: { caller: who } }) as Promise<FindAnswer>;

  describe('invoices/find against a plain reference query', () => {
    it('keeps the day counts of the invoices and their kept values through every write', async () => {
      const { rows: invoices } = await knex.raw(
        `select partner_id, provider_id, ${DAY_OF_CREATED_AT} as day, count(*)::int as invoices
           from ${INVOICES} group by 1, 2, 3 order by 1, 2, 3`,
      );
      const { rows: invoiceDays } = await knex.raw(
        `select partner_id, provider_id, day, sum(invoices)::int as invoices
           from ${INVOICE_DAYS} group by 1, 2, 3 having sum(invoices) <> 0 order by 1, 2, 3`,
      );
      expect(invoiceDays).toEqual(invoices);
      const { rows: kept } = await knex.raw(
        `select partner_id, provider_id, key, value, ${DAY_OF_CREATED_AT} as day, count(*)::int as invoices
           from ${CUSTOM_VALUES} group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`,
      );
      const { rows: counted } = await knex.raw(
        `select partner_id, provider_id, key, value, day, sum(invoices)::int as invoices
           from ${CUSTOM_VALUE_DAYS} group by 1, 2, 3, 4, 5 having sum(invoices) <> 0 order by 1, 2, 3, 4, 5`,
      );
      expect(new Set(kept.map((row: { day: unknown }) => String(row.day))).size).toBe(4);
      expect(counted).toEqual(kept);
    });

    it('finds the same invoices in the same order, walked after cursors, with the same count', async () => {
      await fc.assert(
        fc.asyncProperty(findArb, fc.integer({ min: 1, max: 9 }), async ({ caller: who, filters }, limit) => {
          const expected = await referenceIds(who, filters);
          const walked: number[] = [];
          let pagination: Record<string, unknown> = { limit };
          for (;;) {
            const page = await find(who, { filters, pagination });
            expect(page.pagination.count).toBe(expected.length);
            expect(page.pagination.offset).toBe(walked.length);
            walked.push(...page.data.map((invoice) => invoice.id));
            if (page.pagination.next === null) break;
            pagination = { limit, after: page.pagination.next };
          }
          expect(walked).toEqual(expected);
        }),
        { numRuns: 80 },
      );
    });

    it('answers the reference slice at any offset', async () => {
      await fc.assert(
        fc.asyncProperty(
          findArb,
          fc.integer({ min: 0, max: 50 }),
          fc.integer({ min: 1, max: 10 }),
          async ({ caller: who, filters }, offset, limit) => {
            const expected = await referenceIds(who, filters);
            const page = await find(who, { filters, pagination: { offset, limit } });
            expect(page.pagination).toEqual({
              offset,
              count: expected.length,
              next: offset + limit < expected.length ? expect.any(String) : null,
            });
            expect(page.data.map((invoice) => invoice.id)).toEqual(expected.slice(offset, offset + limit));
          },
        ),
        { numRuns: 60 },
      );
    });
  });
}
