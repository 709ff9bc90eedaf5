/**
 * The find filter translator on its own: each form and operator, the 400 for anything it cannot
 * read, and that no caller-supplied text ever becomes SQL text.
 */
import fc from 'fast-check';
import type { Caller } from '@hub/shared';
import { allOf } from '@hub/shared';
import { KEPT_BYTES } from '../src/custom-values.store';
import {
  callerScope,
  FILTER_LIMITS,
  invoiceDayMatches,
  keptValueMatches,
  OPERATORS,
  SEARCHABLE_FIELDS,
  translateFilters,
} from '../src/filters';

const GUID = '5b0c8f3e-3f2a-4b7e-9a51-0f7f1f2c9d10';

function detailsOf(filters: unknown): Record<string, string[]> {
  try {
    translateFilters(filters);
  } catch (err) {
    return (err as { data: { details: Record<string, string[]> } }).data.details;
  }
  throw new Error('expected a validation error');
}

describe('translateFilters', () => {
  it('matches everything without filters', () => {
    expect(translateFilters(undefined)).toEqual({ sql: 'true', bindings: [] });
    expect(translateFilters(null)).toEqual({ sql: 'true', bindings: [] });
    expect(translateFilters({})).toEqual({ sql: 'true', bindings: [] });
  });

  it('reads a plain value as equality and null as "is null"', () => {
    expect(translateFilters({ status: 'ready' })).toEqual({ sql: '(i.status = ?)', bindings: ['ready'] });
    expect(translateFilters({ status: null })).toEqual({ sql: '(i.status is null)', bindings: [] });
    expect(translateFilters({ status: { $ne: null } })).toEqual({ sql: '(i.status is not null)', bindings: [] });
  });

  it('translates every operator', () => {
    expect(translateFilters({ priceNet: { $eq: 1, $ne: 2, $gt: 3, $gte: 4, $lt: 5, $lte: 6, $in: [7, 8] } })).toEqual({
      sql: '(i.price_net = ?) and (i.price_net is distinct from ?) and (i.price_net > ?) and (i.price_net >= ?) and (i.price_net < ?) and (i.price_net <= ?) and (i.price_net in (?, ?))',
      bindings: [1, 2, 3, 4, 5, 6, 7, 8],
    });
    expect(OPERATORS).toEqual(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in']);
  });

  it('binds timestamps as UTC instants, a value without a zone taken as UTC', () => {
    expect(translateFilters({ createdAt: { $gt: '2026-01-02T03:04:05+02:00' } }).bindings).toEqual([
      '2026-01-02T01:04:05.000Z',
    ]);
    expect(translateFilters({ updatedAt: { $lte: '2026-01-02 03:04' } }).bindings).toEqual([
      '2026-01-02T03:04:00.000Z',
    ]);
    expect(translateFilters({ createdAt: { $gte: '2026-01-02' } }).bindings).toEqual(['2026-01-02T00:00:00.000Z']);
  });

  it('reads customData as equality per key in one containment test', () => {
    expect(translateFilters({ customData: { orderRef: 'A-1', priority: 2, urgent: true, note: null } })).toEqual({
      sql: '(i.custom_data @> ?::jsonb)',
      bindings: ['{"orderRef":"A-1","priority":2,"urgent":true,"note":null}'],
    });
  });

  it('reads details as "has a line with these values"', () => {
    expect(translateFilters({ details: { name: 'Screen', count: 1 } })).toEqual({
      sql: '(i.details @> ?::jsonb)',
      bindings: ['[{"name":"Screen","count":1}]'],
    });
    expect(translateFilters({ details: [{ name: 'Screen' }, { article: 'X1' }] }).bindings).toEqual([
      '[{"name":"Screen"},{"article":"X1"}]',
    ]);
  });

  it('matches nothing for an empty $in', () => {
    expect(translateFilters({ currency: { $in: [] } })).toEqual({ sql: '(false)', bindings: [] });
  });

  it('lower-cases a guid and accepts booleans and dates of their kind', () => {
    expect(
      translateFilters({
        guid: GUID.toUpperCase(),
        isSent: true,
        isPaid: { $in: [false] },
        dueDate: { $lt: '2026-12-31' },
      }),
    ).toEqual({
      sql: '(i.guid = ?) and (i.is_sent = ?) and (i.is_paid in (?)) and (i.due_date < ?)',
      bindings: [GUID, true, false, '2026-12-31'],
    });
  });

  it('refuses unknown fields and operators, naming each', () => {
    expect(detailsOf({ id: 1, partnerId: 2, status: { $regex: 'a' } })).toEqual({
      'filters.id': ['Field is not accepted'],
      'filters.partnerId': ['Field is not accepted'],
      'filters.status.$regex': ['Field is not accepted'],
    });
  });

  it('does not find fields on the prototype', () => {
    expect(detailsOf(JSON.parse('{"__proto__": {"$eq": 1}, "constructor": 1, "toString": 2}'))).toEqual({
      'filters.__proto__': ['Field is not accepted'],
      'filters.constructor': ['Field is not accepted'],
      'filters.toString': ['Field is not accepted'],
    });
  });

  it('refuses values not of the field kind', () => {
    expect(detailsOf({ guid: 'not-a-guid' })).toEqual({ 'filters.guid': ['Wrong format'] });
    expect(detailsOf({ priceNet: '12' })).toEqual({ 'filters.priceNet': ['Wrong format'] });
    expect(detailsOf({ isSent: 'true' })).toEqual({ 'filters.isSent': ['Wrong format'] });
    expect(detailsOf({ dueDate: '2026-02-30' })).toEqual({ 'filters.dueDate': ['Wrong format'] });
    expect(detailsOf({ createdAt: { $gt: 'yesterday' } })).toEqual({ 'filters.createdAt.$gt': ['Wrong format'] });
    expect(detailsOf({ createdAt: { $gt: null } })).toEqual({ 'filters.createdAt.$gt': ['Wrong format'] });
    expect(detailsOf({ status: ['a'] })).toEqual({ 'filters.status': ['Wrong format'] });
    expect(detailsOf({ status: {} })).toEqual({ 'filters.status': ['Wrong format'] });
    expect(detailsOf({ currency: { $in: 'SEK' } })).toEqual({ 'filters.currency.$in': ['Wrong format'] });
    expect(detailsOf({ currency: { $in: ['SEK', 1] } })).toEqual({ 'filters.currency.$in': ['Wrong format'] });
    expect(detailsOf({ currency: { $in: Array(FILTER_LIMITS.inValues + 1).fill('SEK') } })).toEqual({
      'filters.currency.$in': ['Wrong format'],
    });
    expect(detailsOf('status=ready')).toEqual({ filters: ['Wrong format'] });
  });

  it('refuses ordering on guids and booleans', () => {
    expect(detailsOf({ guid: { $gt: GUID }, isPaid: { $lt: true } })).toEqual({
      'filters.guid.$gt': ['Field is not accepted'],
      'filters.isPaid.$lt': ['Field is not accepted'],
    });
  });

  it('refuses customData values that are not scalars, and details keys that are not detail fields', () => {
    expect(detailsOf({ customData: { amount: { $gt: 5 } } })).toEqual({
      'filters.customData.amount': ['Wrong format'],
    });
    expect(detailsOf({ customData: 'x' })).toEqual({ 'filters.customData': ['Wrong format'] });
    expect(detailsOf({ details: { colour: 'red' } })).toEqual({
      'filters.details.colour': ['Field is not accepted'],
      'filters.details': ['Wrong format'],
    });
    expect(detailsOf({ details: [] })).toEqual({ 'filters.details': ['Wrong format'] });
  });

  it('never puts caller text into the SQL, whatever the keys and values', () => {
    const text = fc.string({ minLength: 1 }).filter((value) => value.trim().length > 0);
    const value = fc.oneof(
      text,
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(text, { maxLength: 3 }),
      fc.dictionary(text, text, { maxKeys: 3 }),
    );
    const field = fc.oneof(fc.constantFrom(...SEARCHABLE_FIELDS), text);
    const operator = fc.oneof(fc.constantFrom(...OPERATORS), text);
    const filter = fc.dictionary(field, fc.oneof(value, fc.dictionary(operator, value, { maxKeys: 3 })), {
      maxKeys: 4,
    });
    const columns = [
      'i.guid',
      'i.external_id',
      'i.type',
      'i.price_net',
      'i.currency',
      'i.due_date',
      'i.is_sent',
      'i.is_paid',
      'i.status',
      'i.created_at',
      'i.updated_at',
      'i.custom_data',
      'i.details',
    ];
    const words = new Set([
      ...columns,
      'and',
      'is',
      'not',
      'null',
      'distinct',
      'from',
      'in',
      'true',
      'false',
      '=',
      '>',
      '>=',
      '<',
      '<=',
      '@>',
      '?',
      '?::jsonb',
    ]);
    fc.assert(
      fc.property(filter, (filters) => {
        let sql: string;
        try {
          sql = translateFilters(filters).sql;
        } catch (err) {
          expect((err as { type?: string }).type).toBe('FIELDS_VALIDATION');
          return;
        }
        // Only whitelisted columns, keywords, operators and placeholders.
        const strange = sql.split(/[\s(),]+/).filter((word) => word && !words.has(word));
        expect(strange).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('callerScope', () => {
  const base: Caller = {
    accountId: 1,
    role: 'partner',
    name: 'x',
    partnerId: 3,
    providerId: null,
    canForceProvider: false,
    allowAllProviders: false,
  };

  it('scopes a partner by its partner id and a provider by its provider id', () => {
    expect(callerScope(base)).toEqual({ sql: 'i.partner_id = ?', bindings: [3] });
    expect(callerScope({ ...base, role: 'provider', partnerId: null, providerId: 20 })).toEqual({
      sql: 'i.provider_id = ?',
      bindings: [20],
    });
  });

  it('finds nothing for anyone else', () => {
    expect(callerScope({ ...base, role: 'admin', partnerId: null })).toEqual({ sql: 'false', bindings: [] });
    expect(callerScope({ ...base, partnerId: null })).toEqual({ sql: 'false', bindings: [] });
  });

  it('combines with filters, the scope first', () => {
    expect(allOf([callerScope(base), translateFilters({ status: 'ready' })])).toEqual({
      sql: '(i.partner_id = ?) and ((i.status = ?))',
      bindings: [3, 'ready'],
    });
  });
});

describe('keptValueMatches', () => {
  const partner: Caller = {
    accountId: 1,
    role: 'partner',
    name: 'x',
    partnerId: 3,
    providerId: null,
    canForceProvider: false,
    allowAllProviders: false,
  };
  const provider: Caller = { ...partner, role: 'provider', partnerId: null, providerId: 20 };

  it('reads one customData key with createdAt bounds from the kept values, in the scope', () => {
    expect(
      keptValueMatches(partner, {
        createdAt: { $gt: '2026-01-02T00:00:00Z', $lte: '2026-02-01' },
        customData: { region: 'north' },
      }),
    ).toEqual({
      entries: 'values',
      values: {
        sql: '(v.partner_id = ?) and (v.key = ? and v.value = ?::jsonb) and ((v.created_at > ?) and (v.created_at <= ?))',
        bindings: [3, 'region', '"north"', '2026-01-02T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
      },
      days: { sql: '(d.partner_id = ?) and (d.key = ? and d.value = ?::jsonb)', bindings: [3, 'region', '"north"'] },
      createdWithin: { from: '2026-01-02T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z' },
    });
    expect(keptValueMatches(provider, { customData: { priority: 1 } })).toEqual({
      entries: 'values',
      values: {
        sql: '(v.provider_id = ?) and (v.key = ? and v.value = ?::jsonb) and (true)',
        bindings: [20, 'priority', '1'],
      },
      days: { sql: '(d.provider_id = ?) and (d.key = ? and d.value = ?::jsonb)', bindings: [20, 'priority', '1'] },
      createdWithin: {},
    });
  });

  it('takes the narrowest of several createdAt bounds, and no range from other comparisons', () => {
    const within = (createdAt: unknown) =>
      keptValueMatches(partner, { createdAt, customData: { region: 'north' } })?.createdWithin;
    expect(
      within({ $gt: '2026-01-02T00:00:00+01:00', $gte: '2026-01-01T23:30:00Z', $lt: '2026-03-01', $lte: '2026-02-01' }),
    ).toEqual({ from: '2026-01-01T23:30:00.000Z', to: '2026-02-01T00:00:00.000Z' });
    expect(within({ $lt: '2026-03-01' })).toEqual({ to: '2026-03-01T00:00:00.000Z' });
    for (const createdAt of ['2026-01-02T00:00:00Z', { $eq: '2026-01-02' }, { $gt: '2026-01-02', $ne: '2026-01-05' }])
      expect(within(createdAt)).toBeUndefined();
  });

  it('binds each scalar as the JSON the containment test compares', () => {
    const bound = (value: unknown) => keptValueMatches(partner, { customData: { k: value } })?.values.bindings[2];
    expect([true, null, '1', 1.5].map(bound)).toEqual(['true', 'null', '"1"', '1.5']);
  });

  it('takes a key and a string of KEPT_BYTES bytes, counting multi-byte characters', () => {
    expect(
      keptValueMatches(partner, { customData: { ['k'.repeat(KEPT_BYTES)]: 'v'.repeat(KEPT_BYTES) } }),
    ).toBeDefined();
    expect(keptValueMatches(partner, { customData: { k: 'v'.repeat(KEPT_BYTES + 1) } })).toBeUndefined();
    expect(keptValueMatches(partner, { customData: { k: 'ø'.repeat(KEPT_BYTES / 2 + 1) } })).toBeUndefined();
    expect(keptValueMatches(partner, { customData: { ['k'.repeat(KEPT_BYTES + 1)]: 1 } })).toBeUndefined();
  });

  it('leaves every other form to the invoices', () => {
    for (const filters of [
      undefined,
      {},
      { createdAt: { $gt: '2026-01-02' } },
      { customData: {} },
      { customData: { region: 'north', priority: 1 } },
      { customData: { region: 'north' }, status: 'ready' },
      { customData: { region: 'north' }, details: { name: 'Screen' } },
    ])
      expect(keptValueMatches(partner, filters)).toBeUndefined();
    expect(keptValueMatches({ ...partner, role: 'admin', partnerId: null }, { customData: { k: 1 } })).toBeUndefined();
  });
});

describe('invoiceDayMatches', () => {
  const provider: Caller = {
    accountId: 1,
    role: 'provider',
    name: 'x',
    partnerId: null,
    providerId: 20,
    canForceProvider: false,
    allowAllProviders: false,
  };

  it('counts every invoice of the scope, in a createdAt range or without filters, from the invoices', () => {
    expect(invoiceDayMatches(provider, { createdAt: { $gte: '2026-01-02' } })).toEqual({
      entries: 'invoices',
      values: { sql: '(v.provider_id = ?) and ((v.created_at >= ?))', bindings: [20, '2026-01-02T00:00:00.000Z'] },
      days: { sql: 'd.provider_id = ?', bindings: [20] },
      createdWithin: { from: '2026-01-02T00:00:00.000Z' },
    });
    for (const filters of [undefined, null, {}])
      expect(invoiceDayMatches(provider, filters)).toMatchObject({ entries: 'invoices', createdWithin: {} });
  });

  it('leaves every other form to a count of the invoices one by one', () => {
    for (const filters of [
      { createdAt: { $eq: '2026-01-02' } },
      { createdAt: { $gt: '2026-01-02' }, status: 'ready' },
      { customData: { region: 'north' } },
    ])
      expect(invoiceDayMatches(provider, filters)).toBeUndefined();
    expect(invoiceDayMatches({ ...provider, role: 'admin', providerId: null }, {})).toBeUndefined();
  });
});
