/**
 * The routing rules as pure functions: matching, ranking, the parameters needed, and options.
 */
import fc from 'fast-check';
import {
  choose,
  comparePostalCodes,
  type Competence,
  matches,
  narrowBooking,
  options,
  postalCodeInRange,
} from '../src/choice';

function competence(fields: Partial<Competence> & { id: number }): Competence {
  return {
    partnerId: 1,
    providerId: 10,
    departmentId: null,
    originatorTypes: null,
    bookingTypes: null,
    serviceTypes: null,
    manufacturers: null,
    productTypes: null,
    serviceLocations: null,
    shippingMethods: null,
    postalCodes: null,
    models: null,
    priority: 0,
    primary: true,
    sesam: null,
    persDep: null,
    overrideCode: null,
    partnerCompetence: null,
    ...fields,
  };
}

describe('postal codes', () => {
  it('compares digit codes as numbers and others as text', () => {
    expect(comparePostalCodes('11120', '4999')).toBeGreaterThan(0);
    expect(comparePostalCodes('0150', '150')).toBe(0);
    expect(comparePostalCodes('111 20', '11120')).toBe(0);
    expect(comparePostalCodes('SW1A', 'SW2A')).toBeLessThan(0);
  });

  it('finds a code inside its range and not outside', () => {
    expect(postalCodeInRange('0150', { from: '0001', to: '4999' })).toBe(true);
    expect(postalCodeInRange('4999', { from: '0001', to: '4999' })).toBe(true);
    expect(postalCodeInRange('5000', { from: '0001', to: '4999' })).toBe(false);
    expect(postalCodeInRange('11120', { from: '0001', to: '4999' })).toBe(false);
  });
});

describe('matches', () => {
  it('accepts any value where a list is absent and only listed values where present', () => {
    const rule = competence({ id: 1, manufacturers: [1, 2] });
    expect(matches(rule, { manufacturer: 2, productType: 7 })).toBe(true);
    expect(matches(rule, { manufacturer: 3 })).toBe(false);
    expect(matches(rule, {})).toBe(true);
  });

  it('applies a model-specific rule only to its models, case-insensitive', () => {
    const rule = competence({ id: 1, models: ['iPhone 15 Pro'] });
    expect(matches(rule, { modelNames: ['IPHONE 15 PRO'] })).toBe(true);
    expect(matches(rule, { modelNames: ['iPhone 14'] })).toBe(false);
    expect(matches(rule, {})).toBe(false);
  });

  it('checks the client postal code against the ranges', () => {
    const rule = competence({
      id: 1,
      postalCodes: [
        { from: '0001', to: '1999' },
        { from: '5000', to: '5999' },
      ],
    });
    expect(matches(rule, { clientPostalCode: '5500' })).toBe(true);
    expect(matches(rule, { clientPostalCode: '3000' })).toBe(false);
  });
});

describe('choose', () => {
  it('answers none when no rule accepts the case', () => {
    expect(choose([competence({ id: 1, manufacturers: [1] })], { manufacturer: 2 })).toEqual({ kind: 'none' });
  });

  it('ranks primary first, then model-specific, then more constrained, then priority, then id', () => {
    const fallback = competence({ id: 1, primary: false, priority: 100 });
    const plain = competence({ id: 2, priority: 1 });
    expect(choose([fallback, plain], {})).toMatchObject({ kind: 'chosen', competence: { id: 2 } });
    const model = competence({ id: 3, models: ['X1'] });
    expect(choose([plain, model], { modelNames: ['x1'] })).toMatchObject({ kind: 'chosen', competence: { id: 3 } });
    const narrow = competence({ id: 4, manufacturers: [1] });
    expect(choose([plain, narrow], { manufacturer: 1 })).toMatchObject({ kind: 'chosen', competence: { id: 4 } });
    const high = competence({ id: 5, priority: 9 });
    expect(choose([plain, high], {})).toMatchObject({ kind: 'chosen', competence: { id: 5 } });
    const twin = competence({ id: 6, priority: 9 });
    expect(choose([twin, high], {})).toMatchObject({ kind: 'chosen', competence: { id: 5 } });
  });

  it('needs an open parameter on which another candidate accepts what the best does not', () => {
    const oslo = competence({ id: 1, postalCodes: [{ from: '0001', to: '4999' }] });
    const bergen = competence({ id: 2, postalCodes: [{ from: '5000', to: '9999' }] });
    expect(choose([oslo, bergen], {})).toEqual({ kind: 'notEnoughData', paramsNeeded: ['clientPostalCode'] });
    expect(choose([oslo, bergen], { clientPostalCode: '5100' })).toMatchObject({
      kind: 'chosen',
      competence: { id: 2 },
    });
  });

  it('decides when the best accepts everything the others accept on every open parameter', () => {
    const wide = competence({ id: 1, priority: 5, manufacturers: [1, 2, 3] });
    const narrow = competence({ id: 2, priority: 1, manufacturers: [2] });
    expect(choose([wide, narrow], {})).toMatchObject({ kind: 'chosen', competence: { id: 1 } });
    const wider = competence({ id: 3, primary: false, manufacturers: null });
    expect(choose([wide, wider], {})).toEqual({ kind: 'notEnoughData', paramsNeeded: ['manufacturer'] });
  });

  it('lists the needed parameters in the spec order', () => {
    const a = competence({ id: 1, serviceLocations: [1], originatorTypes: ['private'] });
    const b = competence({ id: 2, serviceLocations: [2], originatorTypes: ['helpdesk'] });
    expect(choose([a, b], {})).toEqual({ kind: 'notEnoughData', paramsNeeded: ['originatorType', 'serviceLocation'] });
  });

  it('never needs a parameter the input gives, and a chosen rule always matches (property)', () => {
    const list = fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }), {
      nil: null,
    });
    const rule = fc.record({
      id: fc.integer({ min: 1, max: 10_000 }),
      manufacturers: list,
      productTypes: list,
      serviceTypes: list,
      primary: fc.boolean(),
      priority: fc.integer({ min: 0, max: 3 }),
    });
    const input = fc.record(
      {
        manufacturer: fc.integer({ min: 1, max: 4 }),
        productType: fc.integer({ min: 1, max: 4 }),
        serviceType: fc.integer({ min: 1, max: 4 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.uniqueArray(rule, { selector: (entry) => entry.id, maxLength: 8 }), input, (rules, given) => {
        const competences = rules.map((entry) => competence(entry));
        const choice = choose(competences, given);
        if (choice.kind === 'chosen') {
          expect(matches(choice.competence, given)).toBe(true);
          // Whatever values fill the open parameters, no other rule that then matches ranks above.
          for (const manufacturer of given.manufacturer ? [given.manufacturer] : [1, 2, 3, 4]) {
            for (const productType of given.productType ? [given.productType] : [1, 2, 3, 4]) {
              for (const serviceType of given.serviceType ? [given.serviceType] : [1, 2, 3, 4]) {
                const full = { manufacturer, productType, serviceType };
                const winner = choose(competences, full);
                if (winner.kind === 'chosen') expect(winner.competence.id).toBe(choice.competence.id);
              }
            }
          }
        }
        if (choice.kind === 'notEnoughData') {
          expect(choice.paramsNeeded.length).toBeGreaterThan(0);
          for (const param of choice.paramsNeeded) expect(given).not.toHaveProperty(param);
        }
        if (choice.kind === 'none') expect(competences.some((entry) => matches(entry, given))).toBe(false);
      }),
    );
  });
});

describe('options', () => {
  it('is the union of what the accepting rules allow, null where one accepts any value', () => {
    const a = competence({ id: 1, manufacturers: [1, 2], productTypes: [1], shippingMethods: [1] });
    const b = competence({ id: 2, manufacturers: [3], productTypes: [2], shippingMethods: [2, 3] });
    expect(options([a, b], {})).toEqual({
      serviceTypes: null,
      manufacturers: [1, 2, 3],
      productTypes: [1, 2],
      serviceLocations: null,
      shippingMethods: [1, 2, 3],
    });
    expect(options([a, b], { productType: 2 })).toMatchObject({ manufacturers: [3], shippingMethods: [2, 3] });
    expect(options([a, b], { productType: 9 })).toEqual({
      serviceTypes: [],
      manufacturers: [],
      productTypes: [],
      serviceLocations: [],
      shippingMethods: [],
    });
  });

  it('counts model-specific rules, as a lookup names no model', () => {
    expect(options([competence({ id: 1, models: ['X1'], manufacturers: [4] })], {}).manufacturers).toEqual([4]);
  });
});

describe('narrowBooking', () => {
  const rules = [
    competence({
      id: 1,
      serviceTypes: [1],
      manufacturers: [1],
      productTypes: [1],
      serviceLocations: [1],
      shippingMethods: [1],
    }),
    competence({
      id: 2,
      serviceTypes: [2],
      manufacturers: [2],
      productTypes: [2],
      serviceLocations: [2],
      shippingMethods: [2],
    }),
  ];

  it('asks each step with the values before it that were accepted, and offers shipping last', () => {
    const { offered, accepted } = narrowBooking(rules, {
      serviceType: 1,
      manufacturer: 1,
      productType: 1,
      serviceLocation: 1,
    });
    expect(offered).toEqual({
      serviceTypes: [1, 2],
      manufacturers: [1],
      productTypes: [1],
      serviceLocations: [1],
      shippingMethods: [1],
    });
    expect(accepted).toMatchObject({ serviceType: 1, manufacturer: 1, productType: 1, serviceLocation: 1 });
  });

  it('stops where a value is refused: no product type step without a manufacturer, no location without all three', () => {
    expect(narrowBooking(rules, { serviceType: 1, manufacturer: 2, productType: 2 }).offered).toEqual({
      serviceTypes: [1, 2],
      manufacturers: [1],
    });
    const withoutServiceType = narrowBooking(rules, { serviceType: 9, manufacturer: 2, productType: 2 });
    expect(withoutServiceType.offered).toEqual({ serviceTypes: [1, 2], manufacturers: [1, 2], productTypes: [2] });
    expect(withoutServiceType.accepted).toMatchObject({ serviceType: undefined, manufacturer: 2, productType: 2 });
  });
});
