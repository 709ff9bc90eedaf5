import fc from 'fast-check';
import { caseUpdatedPayload, diffObjects, type Json } from '../src/case-diff';

type JsonObject = { [key: string]: Json };
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How a receiver rebuilds the new state from the old one and the payload. */
function applyDiff(before: JsonObject, diff: JsonObject): JsonObject {
  const after: JsonObject = { ...before };
  for (const [key, value] of Object.entries(diff)) {
    if (value === null) delete after[key];
    else if (isObject(value) && isObject(before[key])) after[key] = applyDiff(before[key], value);
    else after[key] = value;
  }
  return after;
}

// Values without null: the diff cannot tell a null value from a removed key, by the spec's rule.
const { value: jsonValue } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 4 }),
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4 }),
  ),
}));
const jsonObject = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), jsonValue, { maxKeys: 5 });

describe('diffObjects (spec 6 rule 4)', () => {
  it('sends a removed key as null, leaves unchanged keys out and carries the new value of a changed one', () => {
    expect(diffObjects({ a: 1, b: 'x', c: true }, { a: 2, b: 'x' })).toEqual({ a: 2, c: null });
    expect(diffObjects({ a: 1 }, { a: 1, b: null })).toEqual({});
    expect(diffObjects({ a: 1, b: 2 }, { a: 1, b: null })).toEqual({ b: null });
  });

  it('compares objects key by key at every depth', () => {
    expect(diffObjects({ o: { x: 1, y: { z: 1, w: 2 } } }, { o: { x: 1, y: { z: 3, w: 2 } } })).toEqual({
      o: { y: { z: 3 } },
    });
    expect(diffObjects({ o: { x: 1 } }, { o: { x: 1 } })).toEqual({});
    expect(diffObjects({ o: null }, { o: { x: 1 } })).toEqual({ o: { x: 1 } });
  });

  it('counts an array as one value', () => {
    expect(diffObjects({ list: [1, 2, 3] }, { list: [1, 2, 4] })).toEqual({ list: [1, 2, 4] });
    expect(diffObjects({ list: [{ a: 1 }] }, { list: [{ a: 1 }] })).toEqual({});
    expect(diffObjects({ list: [1] }, { list: { 0: 1 } })).toEqual({ list: { 0: 1 } });
  });

  it('is empty exactly when nothing changed', () => {
    fc.assert(fc.property(jsonObject, (value) => Object.keys(diffObjects(value, structuredClone(value))).length === 0));
  });

  it('rebuilds the new state when applied to the old one', () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, (before, after) => {
        expect(applyDiff(before, diffObjects(before, after))).toEqual(after);
      }),
    );
  });

  it('names no key whose value did not change', () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, (before, after) => {
        for (const key of Object.keys(diffObjects(before, after))) expect(after[key]).not.toEqual(before[key]);
      }),
    );
  });
});

describe('caseUpdatedPayload', () => {
  const before = {
    guid: 'g',
    orderData: { refNo: 'A', mail: 'x@y.z' },
    productData: { serial: 'S' },
    customer: { firstName: 'Kari' },
    consumer: null,
    tags: [],
    currentStatus: 'registered',
  };

  it('carries the guid and the changed case keys only', () => {
    const after = {
      ...before,
      orderData: { refNo: 'B' },
      consumer: { firstName: 'Ola' },
      tags: [{ id: 1, name: 'VIP' }],
      currentStatus: 'arrived',
    };
    expect(caseUpdatedPayload('g', before, after, false)).toEqual({
      guid: 'g',
      orderData: { refNo: 'B', mail: null },
      consumer: { firstName: 'Ola' },
      tags: [{ id: 1, name: 'VIP' }],
    });
  });

  it('is null when no reported key changed', () => {
    expect(caseUpdatedPayload('g', before, { ...before, currentStatus: 'arrived' }, false)).toBeNull();
  });

  it("leaves the provider's private data out of a partner's payload, and nothing else", () => {
    const after = { ...before, orderData: { ...before.orderData, providerSpecific: { nrc: { bench: 2 } } } };
    expect(caseUpdatedPayload('g', before, after, false)).toEqual({
      guid: 'g',
      orderData: { providerSpecific: { nrc: { bench: 2 } } },
    });
    expect(caseUpdatedPayload('g', before, after, true)).toBeNull();
    const alsoRefNo = { ...after, orderData: { ...after.orderData, refNo: 'B' } };
    expect(caseUpdatedPayload('g', before, alsoRefNo, true)).toEqual({ guid: 'g', orderData: { refNo: 'B' } });
  });
});
