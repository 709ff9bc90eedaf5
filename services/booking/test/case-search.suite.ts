/**
 * search-cases gives the rows a plain reference query gives, on random cases and random filters:
 * the same cases in the same order and the same count, whether walked page by page after a
 * cursor or read at an offset. The reference is the search as first written (every condition on
 * the case row, `commonSearch` as one OR with the contacts in an EXISTS, no containment hints);
 * the service's query is the one shaped for the indexes.
 *
 * Written once and run on the embedded database (`case-search.property.test.ts`) and on the
 * Postgres server (`case-search.property.infra.test.ts`), whose planner and triggers are those a
 * hub at production size runs.
 */
import fc from 'fast-check';
import type { Knex } from 'knex';
import { buildExpressionStatistics, type Caller, type DbService } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';
import { commonSearchPieces, type LookupNames, searchCases } from '../src/case-search';

const PROVIDER: Caller = {
  accountId: 1,
  role: 'provider',
  name: 'property',
  partnerId: null,
  providerId: 10,
  canForceProvider: false,
  allowAllProviders: false,
};

const PARTNER: Caller = { ...PROVIDER, role: 'partner', partnerId: 1, providerId: null };
const ADMIN: Caller = { ...PROVIDER, role: 'admin', providerId: null };

const STATUSES = ['registered', 'repaired', 'shipped'];
// `vip` and `VIP` are two tags (names are case-sensitive, as the product documents), which a case may both carry.
const TAGS = ['warranty', 'urgent', 'vip', 'VIP'];
// Store values as a string, a number, a boolean, an object and null: `->>` reads each as text.
const STORES = ['S1', 'S2', '12', 12, true, 'true', { nested: 'S1' }, null];
const NAMES = ['Anna', 'Ola', 'Kari_5', 'Per%', 'Nils'];
// Besides plain words, texts mixing trigrams every contact or orderData holds (their JSON keys)
// with rare ones, which are searched by the rare pieces (search-pieces.ts), some of them held by
// rows the whole text does not match; keys are not values, so these find nothing. Then the
// lookups' names (the demo case's Apple, Laptop, Paid repair), text only a field left out of the
// search holds (problemText, the demo case's password), and a key.
const SEARCHES = [
  'ann',
  'OLA',
  'ref-1',
  'S1',
  '_5',
  'r%',
  '12',
  'nested',
  'xyz',
  'firstName": "Nils',
  'Name": "Kari_5',
  'Anna", "firstName',
  'irstNam',
  'REF-17',
  'refNo": "REF-2',
  'S1"}, "refNo',
  'appl',
  'LAPTOP',
  'paid rep',
  'screen',
  '1234',
  'model',
];
const DAY = 24 * 3600 * 1000;
const START = Date.parse('2026-01-01T00:00:00Z');

const generatedCase = fc.record({
  partnerId: fc.constantFrom(1, 2),
  providerId: fc.constantFrom(10, 10, 10, 11),
  bookedStatus: fc.constantFrom(...STATUSES),
  status: fc.constantFrom(...STATUSES),
  createdDay: fc.integer({ min: 0, max: 20 }),
  createdMicros: fc.integer({ min: 0, max: 2 }),
  refNo: fc.integer({ min: 1, max: 30 }).map((n) => `REF-${n}`),
  store: fc.constantFrom(...STORES),
  metaStore: fc.constantFrom(...STORES),
  problem: fc.constantFrom('Screen', 'Battery', 'Keyboard s1'),
  customer: fc.constantFrom(...NAMES),
  tags: fc.subarray(TAGS),
});

const instant = (day: number) => new Date(START + day * DAY).toISOString();

const statusFilterArb = fc.oneof(fc.constantFrom(...STATUSES), fc.subarray(STATUSES));
/** A search by status alone, whose count can come from the counts kept per status. */
const statusOnlyArb = fc.record({ currentStatus: statusFilterArb });
// The demo world also holds `Urgent`.
const tagsFilterArb = fc.subarray([...TAGS, 'Warranty', 'none'], { minLength: 1, maxLength: 2 });
/** A search by tags alone, whose matches come from the tags' entries without a look at the cases. */
const tagsOnlyArb = fc.record({ tags: tagsFilterArb });

const storeFilterArb = fc.oneof(
  fc.constantFrom('S1', 'S2', '12', 12, true, 'true', '{"nested": "S1"}'),
  fc.subarray(['S1', 'S2', '12', 'true'], { minLength: 1 }),
);
/** A search by one top-level orderData key alone, whose matches come from the kept values without a look at the cases. */
const orderDataOnlyArb = fc.record({ 'orderData.store': storeFilterArb });

const filtersArb = fc.record(
  {
    currentStatus: statusFilterArb,
    createdAt: fc.oneof(
      fc.record({ $gt: fc.integer({ min: -1, max: 21 }).map(instant) }),
      fc.record({ $lt: fc.integer({ min: -1, max: 21 }).map(instant) }),
      fc.record({
        $gt: fc.integer({ min: 0, max: 10 }).map(instant),
        $lt: fc.integer({ min: 8, max: 21 }).map(instant),
      }),
    ),
    commonSearch: fc.constantFrom(...SEARCHES),
    tags: tagsFilterArb,
    'orderData.store': storeFilterArb,
    'orderData.meta.store': fc.constantFrom('S1', '12', true),
    partnerId: fc.constantFrom(1, 2),
  },
  { requiredKeys: [] },
);

export function caseSearchSuite(infra: boolean): void {
  let hub: TestHub;
  let knex: Knex;
  let names: LookupNames;
  const lookupNames = () => Promise.resolve(names);

  beforeAll(async () => {
    hub = await startTestHub({ services: BOOKING_SERVICES, infra });
    knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
    names = await hub.broker.call('catalog.lookupNames');
    const template = await bookCase(hub, DEMO_TOKENS.elkjop);
    const cases = fc.sample(fc.array(generatedCase, { minLength: 60, maxLength: 60 }), 1)[0];
    const { id: templateId } = await knex('booking.cases').where({ guid: template }).first('id');
    const tagIds = new Map<string, number>();
    for (const name of TAGS) {
      const [row] = await knex('booking.tags').insert({ name }).onConflict('name').merge().returning('id');
      tagIds.set(name, row.id);
    }
    for (const [index, generated] of cases.entries()) {
      const id = templateId + 1 + index;
      const createdAt = new Date(START + generated.createdDay * DAY + DAY / 2).toISOString();
      // Cases of one day share the millisecond and differ in microseconds, so ties in every sort key occur.
      const overrides = {
        id,
        partner_id: generated.partnerId,
        service_provider_id: generated.providerId,
        current_status: generated.bookedStatus,
        order_data: { refNo: generated.refNo, store: generated.store, meta: { store: generated.metaStore } },
        product_data: { problemText: generated.problem },
      };
      await knex.raw(
        `insert into booking.cases
         select (jsonb_populate_record(null::booking.cases, to_jsonb(t) || ?::jsonb || jsonb_build_object('guid', gen_random_uuid()))).*
         from booking.cases t where t.id = ?`,
        [JSON.stringify(overrides), templateId],
      );
      // Booked in one status and moved to its own, as a status post moves it: the counts kept per
      // status follow.
      await knex.raw(
        `update booking.cases set created_at = ?::timestamptz + ? * interval '1 microsecond', current_status = ? where id = ?`,
        [createdAt, generated.createdMicros, generated.status, id],
      );
      await knex('booking.case_contacts').insert({
        case_id: id,
        role: 'customer',
        type: 1,
        data: JSON.stringify({ firstName: generated.customer }),
      });
      if (generated.tags.length)
        await knex('booking.case_tags').insert(
          generated.tags.map((name) => ({ case_id: id, tag_id: tagIds.get(name) })),
        );
    }
    // Cases that change scope or go keep the scopes' kept counts, and the scopes their tags keep,
    // exact as well: tagged before the change, and after it.
    const last = templateId + cases.length;
    const tagAll = (id: number) =>
      knex('booking.case_tags')
        .insert(TAGS.map((name) => ({ case_id: id, tag_id: tagIds.get(name) })))
        .onConflict(['case_id', 'tag_id'])
        .ignore();
    await tagAll(last);
    await knex('booking.cases').where({ id: last }).update({ partner_id: 2, service_provider_id: 11 });
    await knex('booking.cases')
      .where({ id: last - 1 })
      .update({ partner_id: 1, service_provider_id: 10 });
    await tagAll(last - 1);
    await knex('booking.cases')
      .where({ id: last - 2 })
      .update({ service_provider_id: 11 });
    // Cases whose orderData or scope changes keep their kept values in step: one's orderData, one's
    // with its partner, one's partner alone.
    await knex('booking.cases')
      .where({ id: last - 3 })
      .update({ order_data: knex.raw(`order_data || '{"store": "S2"}'`) });
    await knex('booking.cases')
      .where({ id: last - 4 })
      .update({ partner_id: 2, order_data: knex.raw(`order_data || '{"store": 12}'`) });
    await knex('booking.cases')
      .where({ id: last - 5 })
      .update({ partner_id: knex.raw('3 - partner_id') });
    await knex.raw(
      `insert into booking.cases select (jsonb_populate_record(null::booking.cases, to_jsonb(t) || jsonb_build_object('id', ?::int, 'guid', gen_random_uuid()))).*
       from booking.cases t where t.id = ?`,
      [last + 1, templateId],
    );
    await tagAll(last + 1);
    await knex('booking.cases')
      .where({ id: last + 1 })
      .delete();
    // The texts' trigram statistics, as autovacuum keeps them on the server. The embedded
    // database's timer may have built them while the rows went in, from a part of them: build
    // them again from every row, or which pieces are rare would depend on when it fired.
    await knex.raw('analyze booking.cases, booking.case_contacts');
    await buildExpressionStatistics(knex);
  });
  afterAll(() => hub.stop());

  const sortedValues = (rows: Array<Record<string, unknown>>) =>
    rows
      .map((row): Record<string, unknown> & { case_id: number } => ({ ...row, case_id: Number(row.case_id) }))
      .sort((a, b) => a.case_id - b.case_id || String(a.key).localeCompare(String(b.key)));

  const keptOrderValues = async () =>
    sortedValues(
      await knex('booking.case_order_values').select('case_id', 'partner_id', 'service_provider_id', 'key', 'value'),
    );

  /** The reference: each filter as the plainest SQL that says it, over the caller's cases, in id order. */
  async function referenceGuids(filters: Record<string, unknown>, caller: Caller = PROVIDER): Promise<string[]> {
    const query = knex('booking.cases as c').orderBy('c.id');
    if (caller.role === 'partner') query.where('c.partner_id', caller.partnerId!);
    if (caller.role === 'provider') query.where('c.service_provider_id', caller.providerId!);
    const anyOf = (value: unknown) => (Array.isArray(value) ? value : [value]).map(String);
    // knex takes a raw expression where whereIn names its column; its types admit only a name.
    const expression = (sql: string) => knex.raw(sql) as unknown as string;
    for (const [field, value] of Object.entries(filters)) {
      if (field === 'currentStatus') query.whereIn('c.current_status', anyOf(value));
      if (field === 'partnerId') query.where('c.partner_id', value as number);
      if (field === 'createdAt') {
        const range = value as { $gt?: string; $lt?: string };
        if (range.$gt) query.where('c.created_at', '>', range.$gt);
        if (range.$lt) query.where('c.created_at', '<', range.$lt);
      }
      if (field === 'orderData.store') query.whereIn(expression("c.order_data ->> 'store'"), anyOf(value));
      if (field === 'orderData.meta.store')
        query.whereIn(expression("c.order_data -> 'meta' ->> 'store'"), anyOf(value));
      if (field === 'tags')
        for (const name of value as string[])
          query.whereExists((tagged) => {
            tagged
              .from('booking.case_tags as ct')
              .join('booking.tags as t', 't.id', 'ct.tag_id')
              .whereRaw('ct.case_id = c.id and t.name = ?', [name]);
          });
      if (field === 'commonSearch') {
        const pattern = `%${String(value).replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
        // Every value of a document, walked down its objects and arrays.
        const aValueOf = (document: string) =>
          `exists (with recursive walked(v) as (select ${document}
             union all select inner_value from walked, lateral (
               select value as inner_value from jsonb_each(case when jsonb_typeof(walked.v) = 'object' then walked.v else '{}' end)
               union all select value from jsonb_array_elements(case when jsonb_typeof(walked.v) = 'array' then walked.v else '[]' end)) inside)
           select from walked where jsonb_typeof(v) in ('string', 'number', 'boolean') and v #>> '{}' ilike :p escape '\\')`;
        const unsearchedOrderData =
          caller.role === 'partner'
            ? "'files', 'consents', 'webhooks', 'providerSpecific'"
            : "'files', 'consents', 'webhooks'";
        const sql = `(c.guid::text ilike :p escape '\\'
          or ${aValueOf(`c.order_data - array[${unsearchedOrderData}]`)}
          or ${aValueOf("c.product_data - array['problemText', 'accessory', 'purchaseDate', 'otherAccessory', 'password']")}
          or c.manufacturer ->> 'name' ilike :p escape '\\' or c.product_type ->> 'name' ilike :p escape '\\'
          or c.service_type ->> 'name' ilike :p escape '\\'
          or exists (select 1 from booking.case_contacts cc, unnest(array['firstName', 'lastName', 'organizationName',
            'organizationNumber', 'postalCode', 'city', 'phone', 'mobile', 'email']) field
            where cc.case_id = c.id and cc.data ->> field ilike :p escape '\\'))`;
        query.whereRaw(sql.replace(/:p/g, '?'), Array(sql.split(':p').length - 1).fill(pattern));
      }
    }
    return (await query.pluck('c.guid')) as string[];
  }

  interface SearchAnswer {
    data: Array<{ guid: string }>;
    pagination: { offset: number; count: number; next: string | null };
  }

  const search = (params: Record<string, unknown>) =>
    hub.broker.call('booking.search', params, { meta: { caller: PROVIDER } }) as Promise<SearchAnswer>;

  /**
   * Every page from the first, each after the cursor the one before gave, each checked for the
   * count and for the offset of its first case; answers the guids in the order found.
   */
  async function walkAfterCursors(
    searchPage: (pagination: Record<string, unknown>) => Promise<SearchAnswer>,
    limit: number,
    count: number,
  ): Promise<string[]> {
    const walked: string[] = [];
    let pagination: Record<string, unknown> = { limit };
    for (;;) {
      const page = await searchPage(pagination);
      expect(page.pagination.count).toBe(count);
      expect(page.pagination.offset).toBe(walked.length);
      walked.push(...page.data.map((found) => found.guid));
      if (page.pagination.next === null) return walked;
      pagination = { limit, after: page.pagination.next };
    }
  }

  describe('search-cases against a plain reference query', () => {
    it('finds the same cases in the same order, walked after cursors, with the same count', async () => {
      await fc.assert(
        fc.asyncProperty(filtersArb, fc.integer({ min: 1, max: 7 }), async (filters, limit) => {
          const expected = await referenceGuids(filters);
          const walked = await walkAfterCursors(
            (pagination) => search({ filters, pagination }),
            limit,
            expected.length,
          );
          expect(walked).toEqual(expected);
        }),
        { numRuns: 40 },
      );
    });

    it('answers the reference slice at any offset', async () => {
      await fc.assert(
        fc.asyncProperty(
          filtersArb,
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 1, max: 10 }),
          async (filters, offset, limit) => {
            const expected = await referenceGuids(filters);
            const page = await search({ filters, pagination: { offset, limit } });
            expect(page.pagination).toEqual({
              offset,
              count: expected.length,
              next: offset + limit < expected.length ? expect.any(String) : null,
            });
            expect(page.data.map((found) => found.guid)).toEqual(expected.slice(offset, offset + limit));
          },
        ),
        { numRuns: 40 },
      );
    });

    // Each caller's scope, unfiltered or by status alone (counts kept by booking.case_counts), by
    // tags alone (matches from the tags' entries), by one orderData key alone (matches from the
    // kept values) or not, each way of taking a page (from every match sorted, up to a bound of
    // matches, or by walking the scope), each way of finding a tag's cases (looked up by id when
    // its entries are few, or not), and each way of finding contacts (by the whole text, or by its
    // pieces rarer than a share).
    it('holds for every scope and both ways of taking a page or finding tags', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(PROVIDER, PARTNER, ADMIN),
          fc.oneof(fc.constant({}), statusOnlyArb, tagsOnlyArb, orderDataOnlyArb, filtersArb),
          fc.constantFrom(0, 10_000),
          fc.constantFrom(0, 5, 10_000),
          fc.constantFrom(0, 0.5, 0.9, 1),
          fc.integer({ min: 1, max: 9 }),
          async (caller, filters, sortedInFull, probedUpTo, commonTrigramShare, limit) => {
            const options = { sortedInFull, probedUpTo, commonTrigramShare, lookupNames };
            const expected = await referenceGuids(filters, caller);
            const walked = await walkAfterCursors(
              (pagination) => searchCases(knex, caller, { filters, pagination }, null, options),
              limit,
              expected.length,
            );
            expect(walked).toEqual(expected);
            const offset = Math.floor(expected.length / 2);
            const page = await searchCases(knex, caller, { filters, pagination: { offset, limit } }, null, options);
            expect(page.data.map((found) => found.guid)).toEqual(expected.slice(offset, offset + limit));
          },
        ),
        { numRuns: 60 },
      );
    });

    it('keeps the count of each partner, provider and status exact through bookings, moves and status changes', async () => {
      const kept = await knex('booking.case_counts')
        .select('partner_id', 'service_provider_id', 'current_status')
        .sum({ cases: 'cases' })
        .groupBy('partner_id', 'service_provider_id', 'current_status')
        .havingRaw('sum(cases) <> 0')
        .orderBy(['partner_id', 'service_provider_id', 'current_status']);
      const counted = await knex('booking.cases')
        .select('partner_id', 'service_provider_id', 'current_status')
        .count({ cases: '*' })
        .groupBy('partner_id', 'service_provider_id', 'current_status')
        .orderBy(['partner_id', 'service_provider_id', 'current_status']);
      const numbers = (rows: Array<Record<string, unknown>>) =>
        rows.map((row) => ({ ...row, cases: Number(row.cases) }));
      expect(numbers(kept)).toEqual(numbers(counted));
      expect(counted.length).toBeGreaterThan(3);
    });

    it('searches a text by the pieces of it whose trigrams few rows hold', async () => {
      // `firstName` is in every contact's JSON, `Nils` in about a fifth of them; `refNo` and
      // `REF-` are in every case's orderData, a word starting with 1 in more than half of them.
      expect(await commonSearchPieces(knex, 'firstName": "Nils', 0.5)).toMatchObject({ contacts: ['"Nils'] });
      expect(await commonSearchPieces(knex, 'firstName": "Nils', 1)).toMatchObject({ contacts: [] });
      expect(await commonSearchPieces(knex, 'irstNam', 0.5)).toMatchObject({ contacts: [] });
      expect(await commonSearchPieces(knex, 'refNo": "REF-17', 0.9)).toMatchObject({ orderData: ['-17'] });
    });

    it('reads the trigram statistics once for the searches of a while', async () => {
      const reads: string[] = [];
      const listener = (query: { sql: string }) => {
        if (query.sql.includes('pg_stats_ext_exprs')) reads.push(query.sql);
      };
      knex.on('query', listener);
      try {
        // A search that takes no read older than none reads; one that takes a minute's uses it.
        await commonSearchPieces(knex, 'firstName": "Nils', 0.5, 0);
        expect(await commonSearchPieces(knex, 'firstName": "Nils', 0.5, 60_000)).toMatchObject({ contacts: ['"Nils'] });
        expect(await commonSearchPieces(knex, 'refNo": "REF-17', 0.9, 60_000)).toMatchObject({ orderData: ['-17'] });
        expect(await commonSearchPieces(knex, 'refNo": "REF-17', 0.9, 0)).toMatchObject({ orderData: ['-17'] });
      } finally {
        knex.removeListener('query', listener);
      }
      expect(reads).toHaveLength(2);
    });

    it('finds what the whole text finds, by whichever pieces, for every search text', async () => {
      for (const commonSearch of SEARCHES)
        for (const commonTrigramShare of [0, 0.5, 0.9, 1]) {
          const filters = { commonSearch };
          const expected = await referenceGuids(filters, ADMIN);
          const found = await searchCases(knex, ADMIN, { filters, pagination: { limit: 100 } }, null, {
            commonTrigramShare,
            lookupNames,
          });
          expect({ commonSearch, commonTrigramShare, guids: found.data.map((row) => row.guid) }).toEqual({
            commonSearch,
            commonTrigramShare,
            guids: expected,
          });
        }
    });

    it('keeps each top-level orderData value a filter can equal, in the scope of its case', async () => {
      const cases = await knex('booking.cases').select('id', 'partner_id', 'service_provider_id', 'order_data');
      const expected = cases
        .flatMap((row) =>
          Object.entries(row.order_data as Record<string, unknown>)
            .filter(
              ([key, value]) =>
                /^[A-Za-z0-9_-]{1,64}$/.test(key) && ['string', 'number', 'boolean'].includes(typeof value),
            )
            .map(([key, value]) => ({
              case_id: Number(row.id),
              partner_id: row.partner_id,
              service_provider_id: row.service_provider_id,
              key,
              value: String(value),
            })),
        )
        .filter((row) => row.value.length <= 255);
      const kept = await keptOrderValues();
      expect(kept).toEqual(sortedValues(expected));
      expect(kept.filter((row) => row.key === 'store').length).toBeGreaterThan(10);
    });

    it('keeps every tag in the scope of its case', async () => {
      const [{ misplaced }] = await knex('booking.case_tags as ct')
        .join('booking.cases as c', 'c.id', 'ct.case_id')
        .whereRaw('(ct.partner_id, ct.service_provider_id) is distinct from (c.partner_id, c.service_provider_id)')
        .count({ misplaced: '*' });
      expect(Number(misplaced)).toBe(0);
    });
  });
}
