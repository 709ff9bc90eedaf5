/** The registry's pure rules: search words, reference keys and how a batch is planned. */
import { MESSAGES, type ModelRow, planBatch, referenceKey, searchTerms, searchTextOf } from '../src/rules';

const stored = (fields: Partial<ModelRow>): ModelRow => ({
  id: 1,
  name: 'Bravia X90',
  mpn: 'KD-55X90',
  manufacturerId: 6,
  productTypeId: 3,
  aliases: [],
  tags: [],
  countryOfOrigin: null,
  taricSE: null,
  taricNO: null,
  value: null,
  weight: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...fields,
});

describe('search terms', () => {
  it('lower-cases, joins the words with one space, drops repeated words and escapes LIKE wildcards', () => {
    expect(searchTerms('  Galaxy  S24 galaxy ')).toEqual({
      phrase: 'galaxy s24 galaxy',
      prefix: 'galaxy s24 galaxy%',
      contains: ['%galaxy%', '%s24%'],
      suffixes: ['galaxy%', 's24%'],
      shortSuffixes: [],
    });
    expect(searchTerms('100% a_b c\\d')).toEqual({
      phrase: '100% a_b c\\d',
      prefix: '100\\% a\\_b c\\\\d%',
      contains: ['%100\\%%', '%a\\_b%', '%c\\\\d%'],
      suffixes: ['100\\%%', 'a\\_b%', 'c\\\\d%'],
      shortSuffixes: [],
    });
    expect(searchTerms('   ')).toBeNull();
  });

  it('looks inside names only when a word has at least three characters', () => {
    expect(searchTerms('x1 s2')?.contains).toEqual([]);
    expect(searchTerms('x1 car')?.contains).toEqual(['%x1%', '%car%']);
  });

  it('reads suffixes for words of at least two characters, counted as the database counts them', () => {
    expect(searchTerms('x1 car')).toMatchObject({ suffixes: ['x1%', 'car%'], shortSuffixes: ['x1%'] });
    expect(searchTerms('x car')).toMatchObject({ suffixes: ['car%'], shortSuffixes: [] });
    // Two characters, four UTF-16 units: a short word, without a trigram.
    expect(searchTerms('😀😀 car')).toMatchObject({ suffixes: ['😀😀%', 'car%'], shortSuffixes: ['😀😀%'] });
    // Four characters in four UTF-16 units.
    expect(searchTerms('😀😀😀😀 x1')).toMatchObject({ suffixes: ['😀😀😀😀%', 'x1%'], shortSuffixes: ['x1%'] });
    expect(searchTerms('x1 s2')).toMatchObject({ suffixes: [], shortSuffixes: [] });
  });

  it('covers name, mpn and aliases in one lower-cased text', () => {
    expect(searchTextOf('Galaxy S24', 'SM-S921B', ['S24', 'Galaxy24'])).toBe('galaxy s24 sm-s921b s24 galaxy24');
  });
});

describe('reference keys', () => {
  it('reads digits as an id and anything else as a name', () => {
    expect(referenceKey(' 12 ')).toBe(12);
    expect(referenceKey(5)).toBe(5);
    expect(referenceKey(' Sony ')).toBe('Sony');
    expect(referenceKey('12a')).toBe('12a');
  });
});

describe('planning a batch', () => {
  it('updates the model matched by name, keeps what an entry leaves out, and skips an entry that changes nothing', () => {
    const row = stored({ countryOfOrigin: 'Japan', value: '10.00' });
    const changed = planBatch(
      [{ name: 'BRAVIA x90', mpn: 'KD-55X90', manufacturerId: 6, productTypeId: 3, value: '12.00' }],
      [row],
    );
    expect(changed).toEqual({
      details: {},
      writes: [
        {
          kind: 'update',
          index: 0,
          id: 1,
          values: expect.objectContaining({ name: 'BRAVIA x90', countryOfOrigin: 'Japan', value: '12.00' }),
        },
      ],
    });
    const same = planBatch([{ name: 'Bravia X90', mpn: 'KD-55X90', manufacturerId: 6, productTypeId: 3 }], [row]);
    expect(same.writes).toEqual([{ kind: 'unchanged', index: 0, id: 1 }]);
  });

  it('creates a model of a new name, or of a known name under another manufacturer', () => {
    const plan = planBatch([{ name: 'Bravia X90', mpn: 'OTHER', manufacturerId: 2, productTypeId: 3 }], [stored({})]);
    expect(plan.details).toEqual({});
    expect(plan.writes[0].kind).toBe('create');
  });

  it('names the entry and field that breaks a uniqueness rule', () => {
    const plan = planBatch(
      [
        { name: 'New one', mpn: 'kd-55x90', manufacturerId: 6, productTypeId: 3 },
        { id: 9, name: 'Ghost', mpn: 'G', manufacturerId: 6, productTypeId: 3 },
      ],
      [stored({})],
    );
    expect(plan.details).toEqual({ 'items[0].mpn': [MESSAGES.mpnTaken], 'items[1].id': [MESSAGES.unknown] });
  });
});
