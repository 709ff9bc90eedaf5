import { keptOrderValueIds } from '../src/order-values';

describe('the cases of an orderData value, from the kept values', () => {
  const partner = { column: 'partner_id' as const, id: 1 };

  it("are read from the values in the caller's scope, by key and any of the texts", () => {
    expect(keptOrderValueIds(partner, { key: 'storeId', texts: ['S-042', '12'] })).toEqual({
      sql: expect.stringMatching(/v\.partner_id = \? and v\.key = \? and v\.value in \(\?, \?\)$/),
      bindings: [1, 'storeId', 'S-042', '12'],
    });
  });

  it('are not, for a text longer than the values keep, counted in characters as Postgres counts them', () => {
    expect(keptOrderValueIds(partner, { key: 'note', texts: ['x'.repeat(255)] })).toBeDefined();
    expect(keptOrderValueIds(partner, { key: 'note', texts: ['ok', 'x'.repeat(256)] })).toBeUndefined();
    // 255 characters outside the basic plane: 510 UTF-16 units.
    expect(keptOrderValueIds(partner, { key: 'note', texts: ['😀'.repeat(255)] })).toBeDefined();
  });

  it('are not, for a key the values do not keep', () => {
    expect(keptOrderValueIds(partner, { key: 'k'.repeat(65), texts: ['a'] })).toBeUndefined();
    expect(keptOrderValueIds(partner, { key: 'store id', texts: ['a'] })).toBeUndefined();
  });
});
