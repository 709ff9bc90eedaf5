import { changedFields, type HistoryEntry, historyForPartner } from '../src/case-history';

describe('changedFields', () => {
  it('names each changed field at the depth where it changed, an array as one value', () => {
    expect(
      changedFields(
        { a: 1, o: { x: 1, y: { z: 1 } }, list: [1, 2], gone: 'g' },
        { a: 1, o: { x: 2, y: { z: 1, w: 3 } }, list: [1, 3], added: true },
      ),
    ).toEqual([
      { field: 'o.x', before: 1, after: 2 },
      { field: 'o.y.w', before: null, after: 3 },
      { field: 'list', before: [1, 2], after: [1, 3] },
      { field: 'gone', before: 'g', after: null },
      { field: 'added', before: null, after: true },
    ]);
  });

  it('takes a missing key and null as the same, and an object replacing a value as one change', () => {
    expect(changedFields({ a: null, b: 1 }, { b: 1 })).toEqual([]);
    expect(changedFields({ a: 'text' }, { a: { k: 1 } })).toEqual([{ field: 'a', before: 'text', after: { k: 1 } }]);
  });
});

const entry = (id: number, action: HistoryEntry['action'], changes: HistoryEntry['changes']): HistoryEntry => ({
  id,
  at: new Date(0).toISOString(),
  action,
  account: null,
  party: null,
  changes,
});
const status = (before: string | null, after: string) => ({ field: 'currentStatus', before, after });

describe('historyForPartner', () => {
  const rules = { mappings: { in_repair: 'repairing', awaiting_parts: 'repairing' }, blacklist: ['diagnosed'] };

  it('maps statuses, leaves out hidden ones and those that map to the key already seen', () => {
    const entries = [
      entry(1, 'created', [status(null, 'registered')]),
      entry(2, 'statusAdded', [status('registered', 'diagnosed')]),
      entry(3, 'statusAdded', [status('diagnosed', 'in_repair')]),
      entry(4, 'statusAdded', [status('in_repair', 'awaiting_parts')]),
      entry(5, 'statusAdded', [status('awaiting_parts', 'final')]),
    ];
    expect(historyForPartner(entries, rules)).toEqual([
      entry(1, 'created', [status(null, 'registered')]),
      entry(3, 'statusAdded', [status('registered', 'repairing')]),
      entry(5, 'statusAdded', [status('repairing', 'final')]),
    ]);
    // Without rules a partner sees the provider's keys.
    expect(historyForPartner(entries, null)).toEqual(entries);
  });

  it("leaves out the provider's private data at any depth, and an entry left with nothing", () => {
    const entries = [
      entry(1, 'created', [status(null, 'diagnosed')]),
      entry(2, 'appended', [
        { field: 'orderData.providerSpecific.nrc.bench', before: 4, after: 5 },
        { field: 'orderData.providerSpecificNote', before: null, after: 'kept' },
      ]),
      entry(3, 'appended', [{ field: 'orderData.providerSpecific', before: null, after: { nrc: {} } }]),
    ];
    expect(historyForPartner(entries, rules)).toEqual([
      // The booking stays, even when its first status is hidden.
      entry(1, 'created', []),
      entry(2, 'appended', [{ field: 'orderData.providerSpecificNote', before: null, after: 'kept' }]),
    ]);
  });
});
