import { readWorld, DEMO_WORLD_FILE } from '../src/runner';
import { validateWorld, worldKeysPresent, type World } from '../src/world';

const demo = readWorld(DEMO_WORLD_FILE);

describe('validateWorld', () => {
  it('accepts the demo world', () => {
    expect(validateWorld(demo)).toEqual([]);
  });

  it('names the entry and field of a shape error', () => {
    const world = { partners: [{ id: 1, name: 'A' }, { id: 'two', name: 'B' }] };
    expect(validateWorld(world)).toEqual([expect.objectContaining({ field: 'partners[1].id' })]);
  });

  it('refuses unknown keys instead of ignoring a typo', () => {
    expect(validateWorld({ partner: [] })).toEqual([expect.objectContaining({ field: 'partner' })]);
  });

  it('checks references between entries', () => {
    const world: World = {
      ...demo,
      competences: [{ ...demo.competences![0], providerId: 999, manufacturers: [1, 77] }],
      accounts: [{ id: 9, name: 'x', role: 'provider', token: 'a-token-of-enough-length' }],
    };
    const fields = validateWorld(world).map((error) => error.field);
    expect(fields).toEqual(expect.arrayContaining(['competences[0].providerId', 'competences[0].manufacturers[1]', 'accounts[0].providerId']));
  });

  it('finds duplicate ids and tokens', () => {
    const world: World = {
      partners: [{ id: 1, name: 'A' }, { id: 1, name: 'B' }],
      accounts: [
        { id: 1, name: 'a', role: 'admin', token: 'same-token-same-token' },
        { id: 2, name: 'b', role: 'admin', token: 'same-token-same-token' },
      ],
    };
    expect(validateWorld(world).map((error) => error.field)).toEqual(['partners[1].id', 'accounts[1].token']);
  });

  it('checks webhook targets', () => {
    const world: World = {
      accounts: [{ id: 1, name: 'a', role: 'admin', token: 'a-token-of-enough-length' }],
      webhooks: { subscriptions: [{ id: 1, accountId: 1, eventTypes: ['status.new', 'status.gone'], target: { kind: 'amqp', url: 'http://x', queue: '' } as never }] },
    };
    expect(validateWorld(world).map((error) => error.field)).toEqual([
      'webhooks.subscriptions[0].eventTypes[1]',
      'webhooks.subscriptions[0].target.url',
      'webhooks.subscriptions[0].target.queue',
    ]);
  });
});

describe('validateWorld: what would fail only when written', () => {
  it('names keys a list holds twice, days and windows that do not exist, and bad webhook targets', () => {
    const calendar = { timeZone: 'Europe/Oslo', weekdays: [1], cutoffHour: 12, leadDays: 1, horizonDays: 5, holidays: ['2026-02-30'], window: '14:00-10:00', areas: [{ postalCodeFrom: '9000', postalCodeTo: '1000', weekdays: [1] }] };
    const world = {
      providers: [{ id: 1, name: 'P', statusKeys: [{ key: 'done', name: 'Done' }, { key: 'done', name: 'Done again' }] }],
      partners: [{ id: 1, name: 'Q' }],
      accounts: [{ id: 1, name: 'a', role: 'partner', partnerId: 1, token: 'a-token-of-enough-length' }],
      shippingMethods: [{ id: 1, name: 'S', properties: { requirePickupDate: true, goodsTypeList: null }, calendar }],
      tags: [{ id: 1, name: 'VIP' }, { id: 2, name: 'vip' }],
      webhooks: {
        subscriptions: [
          { id: 1, accountId: 1, eventTypes: ['status.new'], target: { kind: 'http', url: 'http:// bad', headers: { 'bad name': 'x' } } },
          { id: 2, accountId: 1, eventTypes: ['status.new'], target: { kind: 'amqp', url: 'amqp://x', queue: 'q'.repeat(256) } },
        ],
        statusMappings: [{ partnerId: 1, providerKey: 'a', partnerKey: 'b' }, { partnerId: 1, providerKey: 'a', partnerKey: 'c' }],
        blacklists: [{ partnerId: 1, key: 'x' }, { partnerId: 1, key: 'x' }],
      },
    };
    expect(validateWorld(world).map((error) => error.field).sort()).toEqual(
      [
        'providers[0].statusKeys[1].key',
        'shippingMethods[0].calendar.holidays[0]',
        'shippingMethods[0].calendar.window',
        'shippingMethods[0].calendar.areas[0]',
        'tags[1].name',
        'webhooks.subscriptions[0].target.url',
        'webhooks.subscriptions[0].target.headers',
        'webhooks.subscriptions[1].target.queue',
        'webhooks.statusMappings[1].providerKey',
        'webhooks.blacklists[1].key',
      ].sort(),
    );
  });
});

describe('validateWorld with what the catalog holds', () => {
  const stored = { manufacturers: [{ id: 1, name: 'Apple', aliases: ['Apple Inc'] }], productTypes: [{ id: 3, name: 'Television', aliases: ['TV'] }] };
  const model = (manufacturer: number | string, productType: number | string) => ({ manufacturer, productType, name: 'n', mpn: 'm' });

  it("takes models naming the file's entries or stored ones, by id, name or alias", () => {
    const world: World = { manufacturers: [{ id: 7, name: 'Nokla' }], models: [model('nokla', 'tv'), model(1, 3), model('APPLE INC', '3')] };
    expect(validateWorld(world, stored)).toEqual([]);
  });

  it('names each model entry whose manufacturer or product type is neither in the file nor stored', () => {
    const world: World = { productTypes: [{ id: 3, name: 'Monitor' }], models: [model('Nokla', 'Monitor'), model(1, 'TV')] };
    // The file's product type 3 replaces the stored one, alias and all.
    expect(validateWorld(world, stored)).toEqual([
      { field: 'models[0].manufacturer', message: 'manufacturer "Nokla" is neither in the file nor in the catalog' },
      { field: 'models[1].productType', message: 'product type "TV" is neither in the file nor in the catalog' },
    ]);
  });
});

describe('worldKeysPresent', () => {
  it('names the filled top-level parts and the nested parts another service loads', () => {
    const world: World = {
      partners: [{ id: 1, name: 'A' }],
      providers: [{ id: 2, name: 'B', statusKeys: [{ key: 'arrived', name: 'Arrived' }] }],
      competences: [],
    };
    expect(worldKeysPresent(world)).toEqual(['partners', 'providers', 'providers.statusKeys']);
  });
});
