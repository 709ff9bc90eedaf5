/**
 * The model registry through the HTTP gateway: search filters, ranking and limits, the bulk
 * upsert's matching and uniqueness rules, all-or-nothing batches, the world's `models` key and
 * the name resolution routing uses.
 */
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';

let hub: TestHub;
const token = DEMO_TOKENS.elkjop;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'models', 'gateway'], env: { RATE_LIMIT_PER_MINUTE: '100000' } });
});
afterAll(() => hub.stop());

let unique = 0;
/** A name no other test uses, so tests share one hub without seeing each other's models. */
const fresh = (stem: string) => `${stem} ${++unique}x${Date.now().toString(36)}`;

async function post(body: unknown, expected = 200) {
  const res = await hub.request('POST', '/api/v3/models', { token, body });
  expect(res.status).toBe(expected);
  return res.body;
}

async function search(query: string, expected = 200) {
  const res = await hub.request('GET', `/api/v3/models?${query}`, { token });
  expect(res.status).toBe(expected);
  return res.body;
}

const entry = (fields: Record<string, unknown>) => ({ manufacturer: 6, productType: 3, ...fields });

describe('GET /api/v3/models', () => {
  it('is open to every kind of account and closed without a token', async () => {
    for (const caller of [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc, DEMO_TOKENS.admin]) {
      expect((await hub.request('GET', '/api/v3/models?model=iphone', { token: caller })).status).toBe(200);
    }
    expect((await hub.request('GET', '/api/v3/models?model=iphone')).status).toBe(401);
  });

  it('answers [] without a filter, even with a limit', async () => {
    expect(await search('')).toEqual([]);
    expect(await search('limit=5')).toEqual([]);
    expect(await search('model=%20%20')).toEqual([]);
  });

  it("answers the spec's record with manufacturer and product type objects, decimals as strings and ISO timestamps", async () => {
    const [model] = await search('model=iPhone%2015%20Pro');
    expect(model).toEqual({
      id: expect.any(Number),
      name: 'iPhone 15 Pro',
      aliases: ['A3102', 'iPhone15,3'],
      mpn: 'MTUV3',
      manufacturer: { id: 1, name: 'Apple', externalData: null },
      manufacturerId: 1,
      productType: {
        id: 1,
        name: 'Mobile phone',
        properties: expect.objectContaining({ requireImei: true, requireSerial: false }),
        externalData: null,
      },
      productTypeId: 1,
      tags: ['flagship'],
      countryOfOrigin: 'China',
      value: '1199.00',
      weight: '0.19',
      taricSE: '8517130000',
      taricNO: '85171300',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('filters by manufacturer and product type given as id, name or alias, in any case', async () => {
    const byId = await search('manufacturer=1');
    expect(byId.map((model: { name: string }) => model.name)).toEqual(['iPhone 15', 'iPhone 15 Pro']);
    expect(await search('manufacturer=apple')).toEqual(byId);
    expect(await search('manufacturer=APPLE%20COMPUTER')).toEqual(byId);
    const laptops = await search('productType=notebook');
    expect(laptops.map((model: { name: string }) => model.name)).toEqual(['ThinkPad X1 Carbon Gen 11']);
    expect(await search('manufacturer=1&productType=Laptop')).toEqual([]);
    const phones = await search('manufacturer=Samsung&productType=1');
    expect(phones.map((model: { name: string }) => model.name)).toEqual(['Galaxy S24']);
    expect(phones[0].manufacturer).toEqual({ id: 2, name: 'Samsung', externalData: null });
  });

  it('refuses a manufacturer or product type the catalog does not know, naming the field', async () => {
    const res = await hub.request('GET', '/api/v3/models?manufacturer=Nokla&productType=99', { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: 'Fields validation failed',
        details: {
          manufacturer: ['Value is not present in possible options'],
          productType: ['Value is not present in possible options'],
        },
      },
    });
  });

  it('searches name, mpn and aliases by partial words, ignoring case', async () => {
    const names = async (query: string) =>
      (await search(`model=${encodeURIComponent(query)}`)).map((model: { name: string }) => model.name);
    expect(await names('iphone pro')).toEqual(['iPhone 15 Pro']);
    expect(await names('PRO 15')).toEqual(['iPhone 15 Pro']);
    expect(await names('thinkp carb')).toEqual(['ThinkPad X1 Carbon Gen 11']);
    expect(await names('s921')).toEqual(['Galaxy S24']);
    expect(await names('a309')).toEqual(['iPhone 15']);
    expect(await names('iphone galaxy')).toEqual([]);
    // LIKE's wildcards are plain characters in a search.
    expect(await names('%')).toEqual([]);
    expect(await names('_')).toEqual([]);
  });

  it('ranks an exact name, mpn or alias first, then names starting with the query, then the rest', async () => {
    const stem = fresh('Ranker');
    // Written worst first, so insertion order cannot pass for ranking.
    await post([
      entry({ name: `Case for ${stem}`, mpn: `${stem}-case` }),
      entry({ name: `${stem} Ultra`, mpn: `${stem}-ultra` }),
      entry({ name: `${stem}`, mpn: `${stem}-base` }),
    ]);
    const ranked = await search(`model=${encodeURIComponent(stem.toUpperCase())}`);
    expect(ranked.map((model: { name: string }) => model.name)).toEqual([stem, `${stem} Ultra`, `Case for ${stem}`]);
    const byMpn = await search(`model=${encodeURIComponent(`${stem}-case`)}`);
    expect(byMpn[0].name).toBe(`Case for ${stem}`);
    const alias = fresh('Nick');
    await post([entry({ name: `Zeta ${stem}`, mpn: `${stem}-zeta`, aliases: [alias] })]);
    const byAlias = await search(`model=${encodeURIComponent(alias)}`);
    expect(byAlias.map((model: { name: string }) => model.name)).toEqual([`Zeta ${stem}`]);
  });

  it('orders names and mpns starting with the query by that name or mpn, after exact matches', async () => {
    const stem = fresh('Tiers').toLowerCase();
    await post([
      entry({ name: `Holder of ${stem}`, mpn: `${stem} c` }),
      entry({ name: `${stem} b`, mpn: `x-${stem}-b` }),
      entry({ name: `Aliased ${stem}`, mpn: `y-${stem}`, aliases: [stem] }),
      entry({ name: `${stem} d`, mpn: `z-${stem}-d` }),
      entry({ name: `Inside ${stem} e`, mpn: `w-${stem}-e` }),
    ]);
    const names = (await search(`model=${encodeURIComponent(stem)}`)).map((model: { name: string }) => model.name);
    // The alias is exact; then "<stem> b", "<stem> c" (the mpn of "Holder of"), "<stem> d"; then the rest.
    expect(names).toEqual([`Aliased ${stem}`, `${stem} b`, `Holder of ${stem}`, `${stem} d`, `Inside ${stem} e`]);
  });

  it('ranks models that only hold the words after those starting with the query, within the limit', async () => {
    const stem = fresh('Fill').toLowerCase();
    await post([
      entry({ name: `${stem} one`, mpn: `${stem}-1` }),
      entry({ name: `${stem} two`, mpn: `${stem}-2` }),
      entry({ name: `Holds ${stem}`, mpn: `h-${stem}` }),
    ]);
    const names = async (limit: number) =>
      (await search(`model=${encodeURIComponent(stem)}&limit=${limit}`)).map((model: { name: string }) => model.name);
    expect(await names(2)).toEqual([`${stem} one`, `${stem} two`]);
    expect(await names(3)).toEqual([`${stem} one`, `${stem} two`, `Holds ${stem}`]);
  });

  it('matches a query of words shorter than three characters only at the start of a name or mpn, or exactly', async () => {
    await post([
      entry({ name: fresh('Qz starts'), mpn: fresh('M') }),
      entry({ name: fresh('Holds qz'), mpn: fresh('M') }),
      entry({ name: fresh('Alias only'), mpn: fresh('M'), aliases: ['qz'] }),
    ]);
    const found = (await search('model=QZ&limit=100')).map((model: { name: string }) => model.name);
    expect(found.some((name: string) => name.startsWith('Qz starts'))).toBe(true);
    expect(found.some((name: string) => name.startsWith('Alias only'))).toBe(true);
    expect(found.some((name: string) => name.startsWith('Holds qz'))).toBe(false);
    // With a word of three characters the search looks inside names again.
    expect((await search('model=QZ%20hol')).map((model: { name: string }) => model.name)).toEqual([
      expect.stringMatching(/^Holds qz/),
    ]);
  });

  it('documents the ranking and its limits in the OpenAPI description', async () => {
    const { body } = await hub.request('GET', '/api/openapi.json');
    const { description } = body.paths['/v3/models'].get;
    expect(description).toContain('a name or mpn starting with the query');
    expect(description).toContain('at most 300 such models');
    expect(description).toContain('shorter than 3 characters');
  });

  it('matches mpn strictly: the whole mpn, ignoring case, and nothing else', async () => {
    expect((await search('mpn=sm-s921b')).map((model: { name: string }) => model.name)).toEqual(['Galaxy S24']);
    expect(await search('mpn=SM-S921')).toEqual([]);
    expect(await search('mpn=Galaxy%20S24')).toEqual([]);
    expect((await search('mpn=MTUV3&manufacturer=1')).map((model: { name: string }) => model.name)).toEqual([
      'iPhone 15 Pro',
    ]);
    expect(await search('mpn=MTUV3&manufacturer=2')).toEqual([]);
  });

  it('answers 10 models by default, up to the maximum of 100 when asked', async () => {
    const stem = fresh('Limit');
    await post(
      Array.from({ length: 12 }, (_, i) =>
        entry({ name: `${stem} ${String(i).padStart(2, '0')}`, mpn: `${stem}-${i}` }),
      ),
    );
    expect(await search(`model=${encodeURIComponent(stem)}`)).toHaveLength(10);
    expect(await search(`model=${encodeURIComponent(stem)}&limit=11`)).toHaveLength(11);
    expect(await search(`model=${encodeURIComponent(stem)}&limit=100`)).toHaveLength(12);
    const over = await search(`model=x&limit=101`, 400);
    expect(over.error.details).toEqual({ limit: ['Must be at most 100'] });
    expect((await search('model=x&limit=0', 400)).error.details).toEqual({ limit: ['Must be at least 1'] });
    expect((await search('model=x&limit=ten', 400)).error.details).toEqual({ limit: ['Wrong format'] });
  });

  it('pages the ranked answer by offset, and names the rest in a Link header when it passes 512 KiB', async () => {
    const stem = fresh('Bulky');
    // 100 aliases of 255 characters: about 26 KB a model, so 30 of them pass the answer's 512 KiB.
    const aliases = (i: number) => Array.from({ length: 100 }, (_, a) => `${stem}-${i}-${a}-`.padEnd(255, 'z'));
    const names = Array.from({ length: 30 }, (_, i) => `${stem} ${String(i).padStart(2, '0')}`);
    const models = names.map((name, i) => entry({ name, mpn: `${stem}-${i}`, aliases: aliases(i) }));
    const refused = await post(models, 400);
    expect(Object.entries(refused.error.details)).toEqual([
      [
        expect.stringMatching(/^\[1\d\]$/),
        ['The records before this one fill the answer: send this one and those after it in another call'],
      ],
    ]);
    await post(models.slice(0, 15));
    await post(models.slice(15));

    const query = `model=${encodeURIComponent(stem)}&limit=30`;
    const first = await hub.request('GET', `/api/v3/models?${query}`, { token });
    expect(first.status).toBe(200);
    expect(first.body.length).toBeGreaterThan(10);
    expect(first.body.length).toBeLessThan(30);
    const link = first.headers.get('link');
    expect(link).toMatch(/^<\?.*offset=\d+>; rel="next"$/);
    const rest = await hub.request('GET', `/api/v3/models${link!.slice(1, link!.indexOf('>'))}`, { token });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('link')).toBeNull();
    const answered = [...first.body, ...rest.body].map((model: { name: string }) => model.name);
    expect(answered).toEqual(names);

    const page = await search(`model=${encodeURIComponent(stem)}&limit=3&offset=4`);
    expect(page.map((model: { name: string }) => model.name)).toEqual(names.slice(4, 7));
    expect((await search(`model=x&offset=-1`, 400)).error.details).toEqual({ offset: ['Must be at least 0'] });
  });
});

describe('POST /api/v3/models', () => {
  it('creates models and answers them as stored, value and weight with two decimals', async () => {
    const name = fresh('Bravia');
    const [created] = await post([
      entry({
        name,
        mpn: `${name}-mpn`,
        aliases: ['KD-55'],
        tags: ['tv', 7],
        countryOfOrigin: 'Malaysia',
        taricSE: '852872',
        taricNO: '85287200',
        value: '12.5',
        weight: '3',
      }),
    ]);
    expect(created).toEqual({
      id: expect.any(Number),
      name,
      aliases: ['KD-55'],
      mpn: `${name}-mpn`,
      manufacturer: { id: 6, name: 'Sony', externalData: null },
      manufacturerId: 6,
      productType: expect.objectContaining({ id: 3, name: 'Television' }),
      productTypeId: 3,
      tags: ['tv', 7],
      countryOfOrigin: 'Malaysia',
      value: '12.50',
      weight: '3.00',
      taricSE: '852872',
      taricNO: '85287200',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await search(`model=${encodeURIComponent(name)}`)).toEqual([created]);
  });

  it('takes manufacturer and product type by name or alias too', async () => {
    const name = fresh('Washer');
    const [created] = await post([{ manufacturer: 'aeg', productType: 'Television', name, mpn: `${name}-m` }]);
    expect(created.manufacturer).toEqual({ id: 5, name: 'Electrolux', externalData: { brandCode: 'ELX' } });
    expect(created.productTypeId).toBe(3);
    expect(created.aliases).toEqual([]);
    expect(created.tags).toEqual([]);
    expect(created.value).toBeNull();
  });

  it('updates the model of the same name and manufacturer when no id is sent', async () => {
    const name = fresh('Upsert');
    const [first] = await post([entry({ name, mpn: `${name}-1`, value: '100.00', countryOfOrigin: 'Japan' })]);
    const [second] = await post([entry({ name: name.toUpperCase(), mpn: `${name}-2`, value: '90.10' })]);
    expect(second.id).toBe(first.id);
    expect(second).toMatchObject({
      name: name.toUpperCase(),
      mpn: `${name}-2`,
      value: '90.10',
      countryOfOrigin: 'Japan',
    });
    expect(await search(`model=${encodeURIComponent(name)}`)).toEqual([second]);
    const [cleared] = await post([entry({ name, mpn: `${name}-2`, countryOfOrigin: null })]);
    expect(cleared).toMatchObject({ id: first.id, countryOfOrigin: null, value: '90.10' });
  });

  it('creates a separate model for the same name under another manufacturer', async () => {
    const name = fresh('Shared');
    const [sony] = await post([entry({ name, mpn: 'SAME-MPN' })]);
    const [lenovo] = await post([{ manufacturer: 3, productType: 2, name, mpn: 'SAME-MPN' }]);
    expect(lenovo.id).not.toBe(sony.id);
    expect((await search(`model=${encodeURIComponent(name)}`)).map((model: { id: number }) => model.id).sort()).toEqual(
      [sony.id, lenovo.id].sort(),
    );
  });

  it('renames a model only by its id', async () => {
    const name = fresh('Old');
    const mpn = fresh('code');
    const [model] = await post([entry({ name, mpn })]);
    const renamed = fresh('New');
    const [after] = await post([entry({ id: model.id, name: renamed, mpn })]);
    expect(after).toMatchObject({ id: model.id, name: renamed });
    expect(await search(`model=${encodeURIComponent(name)}`)).toEqual([]);
    // Without the id a new name is a new model, whose mpn then collides with the old one's.
    const res = await hub.request('POST', '/api/v3/models', { token, body: [entry({ name: fresh('Other'), mpn })] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: 'Fields validation failed',
        details: { '[0].mpn': ['A model with this mpn already exists for this manufacturer'] },
      },
    });
  });

  it('refuses an id the registry does not hold', async () => {
    const body = await post([entry({ id: 987654, name: fresh('Ghost'), mpn: 'ghost' })], 400);
    expect(body.error.details).toEqual({ '[0].id': ['Value is not present in possible options'] });
  });

  it('refuses a duplicate (mpn, manufacturer) naming the entry, and writes nothing of the batch', async () => {
    const name = fresh('Taken');
    await post([entry({ name, mpn: `${name}-mpn` })]);
    const innocent = fresh('Innocent');
    const body = await post(
      [entry({ name: innocent, mpn: `${innocent}-mpn` }), entry({ name: fresh('Thief'), mpn: `${name}-MPN` })],
      400,
    );
    expect(body).toEqual({
      error: {
        message: 'Fields validation failed',
        details: { '[1].mpn': ['A model with this mpn already exists for this manufacturer'] },
      },
    });
    expect(await search(`model=${encodeURIComponent(innocent)}`)).toEqual([]);
  });

  it('refuses a rename onto a name the manufacturer already has, and writes nothing', async () => {
    const taken = fresh('Name');
    const [holder] = await post([entry({ name: taken, mpn: `${taken}-a` })]);
    const other = fresh('Mover');
    const [mover] = await post([entry({ name: other, mpn: `${other}-b` })]);
    const body = await post(
      [
        entry({ name: other, mpn: `${other}-b`, value: '1.00' }),
        entry({ id: mover.id, name: taken, mpn: `${other}-b` }),
      ],
      400,
    );
    expect(body.error.details).toEqual({ '[1].id': ['Another entry of this batch changes the same model'] });
    const rename = await post([entry({ id: mover.id, name: taken.toLowerCase(), mpn: `${other}-b` })], 400);
    expect(rename.error.details).toEqual({
      '[0].name': ['A model with this name already exists for this manufacturer'],
    });
    const [unchanged] = await search(`model=${encodeURIComponent(other)}`);
    expect(unchanged).toMatchObject({ id: mover.id, name: other, value: null });
    expect((await search(`model=${encodeURIComponent(taken)}`))[0].id).toBe(holder.id);
  });

  it('refuses two entries of one batch with the same name or mpn for a manufacturer', async () => {
    const name = fresh('Twin');
    const body = await post(
      [
        entry({ name, mpn: `${name}-1` }),
        entry({ name, mpn: `${name}-2` }),
        entry({ name: `${name} b`, mpn: `${name}-1` }),
        entry({ name: `${name} c`, mpn: `${name}-3` }),
      ],
      400,
    );
    expect(body.error.details).toEqual({
      '[1].name': ['Another entry of this batch has the same name for this manufacturer'],
      '[2].mpn': ['Another entry of this batch has the same mpn for this manufacturer'],
    });
    expect(await search(`model=${encodeURIComponent(name)}`)).toEqual([]);
  });

  it('keeps a name taken for the whole batch that renames its model away', async () => {
    const a = fresh('Swap');
    const [first] = await post([entry({ name: a, mpn: `${a}-1` })]);
    const b = fresh('Swap');
    const body = await post(
      [entry({ id: first.id, name: b, mpn: `${a}-1` }), entry({ name: fresh('Taker'), mpn: `${a}-1` })],
      400,
    );
    expect(body.error.details).toEqual({
      '[1].mpn': [
        'Another entry of this batch has the same mpn for this manufacturer',
        'A model with this mpn already exists for this manufacturer',
      ],
    });
    const [renamed] = await post([entry({ id: first.id, name: b, mpn: `${a}-1` })]);
    const [taker] = await post([entry({ name: a, mpn: `${a}-2` })]);
    expect(taker.id).not.toBe(renamed.id);
    expect(renamed.name).toBe(b);
  });

  it('does not need aliases to be unique', async () => {
    const alias = fresh('Alias');
    const models = await post([
      entry({ name: fresh('One'), mpn: fresh('m'), aliases: [alias] }),
      entry({ name: fresh('Two'), mpn: fresh('m'), aliases: [alias, alias] }),
    ]);
    expect(models).toHaveLength(2);
    expect(await search(`model=${encodeURIComponent(alias)}`)).toHaveLength(2);
  });

  it('takes value and weight only as #.## strings', async () => {
    const name = fresh('Decimal');
    const [model] = await post([entry({ name, mpn: `${name}-m`, value: '0.5', weight: '1234567890.99' })]);
    expect(model).toMatchObject({ value: '0.50', weight: '1234567890.99' });
    const body = await post(
      [
        entry({ name: fresh('Bad'), mpn: fresh('m'), value: '12.345', weight: 12.5 }),
        entry({ name: fresh('Bad'), mpn: fresh('m'), value: '-1.00', weight: '1,50' }),
      ],
      400,
    );
    expect(body.error.details).toEqual({
      '[0].value': ['Wrong format'],
      '[0].weight': ['Wrong format'],
      '[1].value': ['Wrong format'],
      '[1].weight': ['Wrong format'],
    });
  });

  it('names each missing field and each unknown reference by entry', async () => {
    const body = await post(
      [
        { productType: 3, mpn: 'x' },
        entry({ name: fresh('Ok'), mpn: fresh('m') }),
        { manufacturer: 'Nokla', productType: 'Fridge', name: 'n', mpn: 'm' },
      ],
      400,
    );
    expect(body.error.details).toEqual({
      '[0].manufacturer': ['Field is required'],
      '[0].name': ['Field is required'],
    });
    const unknown = await post(
      [
        entry({ name: fresh('Ok'), mpn: fresh('m') }),
        { manufacturer: 'Nokla', productType: 'Fridge', name: 'n', mpn: 'm' },
      ],
      400,
    );
    expect(unknown.error.details).toEqual({
      '[1].manufacturer': ['Value is not present in possible options'],
      '[1].productType': ['Value is not present in possible options'],
    });
  });

  it('answers [] for an empty batch and refuses a body that is not a list, or one over 1000 entries', async () => {
    expect(await post([])).toEqual([]);
    expect((await post({ name: 'x' }, 400)).error.details).toEqual({ body: ['Must be an array'] });
    const many = Array.from({ length: 1001 }, (_, i) => entry({ name: `m${i}`, mpn: `m${i}` }));
    expect((await post(many, 400)).error.details).toEqual({ body: ['Must have at most 1000 items'] });
  });

  it('leaves an entry that changes nothing as it was', async () => {
    const name = fresh('Still');
    const [model] = await post([entry({ name, mpn: `${name}-m`, tags: ['a'] })]);
    const [again] = await post([entry({ name, mpn: `${name}-m` })]);
    expect(again).toEqual(model);
  });
});

describe('resolveName (for routing)', () => {
  it('finds a model by exact name, mpn or alias ignoring case, and nothing by a part', async () => {
    const expected = { id: expect.any(Number), name: 'iPhone 15 Pro', manufacturerId: 1, productTypeId: 1 };
    expect(await hub.broker.call('models.resolveName', { name: 'IPHONE 15 PRO' })).toEqual(expected);
    expect(await hub.broker.call('models.resolveName', { name: 'mtuv3' })).toEqual(expected);
    expect(await hub.broker.call('models.resolveName', { name: 'a3102' })).toEqual(expected);
    expect(await hub.broker.call('models.resolveName', { name: 'iPhone 15 P' })).toBeNull();
    expect(await hub.broker.call('models.resolveName', { name: 'A310' })).toBeNull();
    expect(await hub.broker.call('models.resolveName', { name: '' })).toBeNull();
  });
});

describe('world models', () => {
  const world = (value: string) => ({
    models: [{ manufacturer: 'Sony', productType: 'TV', name: 'World TV 1', mpn: 'WTV-1', aliases: ['WTV'], value }],
  });

  it('upserts the world file models, so loading it twice changes nothing', async () => {
    const load = (body: unknown) =>
      hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world: body } });
    expect((await load(world('10.00'))).status).toBe(200);
    const [first] = await search('model=World%20TV%201');
    expect((await load(world('10.00'))).status).toBe(200);
    expect(await search('model=World%20TV%201')).toEqual([first]);
    expect((await load(world('11.00'))).status).toBe(200);
    expect(await search('model=World%20TV%201')).toEqual([{ ...first, value: '11.00', updatedAt: expect.any(String) }]);
  });

  it('refuses a world whose model is malformed, naming it', async () => {
    const res = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world: { models: [{ manufacturer: 6, productType: 3, name: 'x', mpn: 'y', value: 3.5, id: 4 }] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      'models[0].value': [expect.any(String)],
      'models[0].id': ['is not a known key'],
    });
  });
});
