/** The shape check every documentation page's test relies on: it must catch each kind of departure. */
import { ANY, shapeMismatches } from './documented';

describe('shapeMismatches', () => {
  const documented = { id: 1, name: 'Acer', externalData: ANY, properties: { requireSerial: true }, tags: [{ id: 1 }] };

  it('passes an answer with every documented field of the documented type, and more fields', () => {
    expect(
      shapeMismatches(
        {
          id: 7,
          name: 'Apple',
          externalData: { code: 'A' },
          properties: { requireSerial: false, extra: 1 },
          tags: [],
          more: 'x',
        },
        documented,
      ),
    ).toEqual([]);
  });

  it('names a missing field, a field of another type and a wrong nesting, each by its path', () => {
    expect(
      shapeMismatches({ id: '7', externalData: null, properties: [], tags: [{ id: 2 }, { id: 'x' }] }, documented),
    ).toEqual([
      'id: documented as number, got string',
      'name: documented, missing',
      'properties: documented as object, got array',
      'tags[].id: documented as number, got string',
    ]);
  });

  it('takes null only where the documentation shows null or the test names the path nullable', () => {
    expect(shapeMismatches({ phone: null }, { phone: '123' })).toEqual(['phone: documented as string, got null']);
    expect(shapeMismatches({ phone: null }, { phone: '123' }, { nullable: ['phone'] })).toEqual([]);
    expect(shapeMismatches({ data: null }, { data: null })).toEqual([]);
    expect(shapeMismatches({ data: {} }, { data: null })).toEqual(['data: documented as null, got object']);
  });

  it('checks the answer itself when it is a list', () => {
    expect(shapeMismatches({ id: 1 }, [{ id: 1 }])).toEqual(['(answer): documented as array, got object']);
    expect(shapeMismatches([{ id: 1 }, { name: 'x' }], [{ id: 1 }])).toEqual(['[].id: documented, missing']);
  });
});
