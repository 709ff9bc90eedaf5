import { readWorld, DEMO_WORLD_FILE } from '../src/world';
import { validateWorld, worldKeysPresent, type World } from '../src/world';

const demo = readWorld(DEMO_WORLD_FILE);

describe('validateWorld', () => {
  it('accepts the demo world', () => {
    expect(validateWorld(demo)).toEqual([]);
  });

  it('names the entry and field of a shape error', () => {
    const world = {
      partners: [
        { id: 1, name: 'A' },
        { id: 'two', name: 'B' },
      ],
    };
    expect(validateWorld(world)).toEqual([expect.objectContaining({ field: 'partners[1].id' })]);
  });

  it("takes a status key's description and channels, each of its type", () => {
    const provider = (statusKeys: unknown[]) => ({ providers: [{ id: 1, name: 'P', statusKeys }] });
    expect(
      validateWorld(
        provider([{ key: 'done', name: 'Done', description: 'Sent back', smsAvailable: true, emailAvailable: false }]),
      ),
    ).toEqual([]);
    expect(validateWorld(provider([{ key: 'told', name: 'Told', smsAvailable: 'yes' }]))).toEqual([
      expect.objectContaining({ field: 'providers[0].statusKeys[0].smsAvailable' }),
    ]);
  });

  it('takes the shipping methods a provider, a department and a tag allow, and the directions a method ships in', () => {
    const method = { id: 1, name: 'Post', properties: { requirePickupDate: false, goodsTypeList: null } };
    const world = (extra: Partial<World>): World => ({
      shippingMethods: [{ ...method, actionTypes: ['outbound'] }],
      providers: [
        { id: 1, name: 'P', shippingMethods: [1], departments: [{ id: 2, name: 'D', shippingMethods: null }] },
      ],
      tags: [{ id: 3, name: 'T', shippingMethods: [1] }],
      ...extra,
    });
    expect(validateWorld(world({}))).toEqual([]);
    expect(
      validateWorld(
        world({
          providers: [
            { id: 1, name: 'P', shippingMethods: [9], departments: [{ id: 2, name: 'D', shippingMethods: [8] }] },
          ],
          tags: [{ id: 3, name: 'T', shippingMethods: [7] }],
        }),
      ),
    ).toEqual([
      { field: 'providers[0].shippingMethods[0]', message: 'shipping method 9 is not in the world' },
      { field: 'providers[0].departments[0].shippingMethods[0]', message: 'shipping method 8 is not in the world' },
      { field: 'tags[0].shippingMethods[0]', message: 'shipping method 7 is not in the world' },
    ]);
    expect(validateWorld({ shippingMethods: [{ ...method, actionTypes: ['sideways'] }] })).toEqual([
      expect.objectContaining({ field: 'shippingMethods[0].actionTypes[0]' }),
    ]);
    expect(validateWorld({ shippingMethods: [{ ...method, actionTypes: [] }] })).toEqual([
      expect.objectContaining({ field: 'shippingMethods[0].actionTypes' }),
    ]);
  });

  it('refuses unknown keys instead of ignoring a typo', () => {
    expect(validateWorld({ partner: [] })).toEqual([expect.objectContaining({ field: 'partner' })]);
  });

  it('checks references between entries', () => {
    const world: World = {
      ...demo,
      competences: [{ ...demo.competences![0], providerId: 999, manufacturers: [1, 77] }],
      accounts: [
        { id: 9, name: 'x', role: 'provider', token: 'a-token-of-enough-length' },
        {
          id: 10,
          name: 'y',
          role: 'partner',
          partnerId: 1,
          token: 'b-token-of-enough-length',
          allowAllProviders: true,
        },
        {
          id: 11,
          name: 'z',
          role: 'provider',
          providerId: 10,
          token: 'c-token-of-enough-length',
          allowAllProviders: true,
        },
      ],
    };
    const fields = validateWorld(world).map((error) => error.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'competences[0].providerId',
        'competences[0].manufacturers[1]',
        'accounts[0].providerId',
        'accounts[1].allowAllProviders',
      ]),
    );
    expect(fields.filter((field) => field.startsWith('accounts[2]'))).toEqual([]);
  });

  it('finds duplicate ids and tokens', () => {
    const world: World = {
      partners: [
        { id: 1, name: 'A' },
        { id: 1, name: 'B' },
      ],
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
      webhooks: {
        subscriptions: [
          {
            id: 1,
            accountId: 1,
            eventTypes: ['status.new', 'status.gone'],
            target: { kind: 'amqp', url: 'http://x', queue: '' } as never,
          },
        ],
      },
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
    const calendar = {
      timeZone: 'Europe/Oslo',
      weekdays: [1],
      cutoffHour: 12,
      leadDays: 1,
      horizonDays: 5,
      holidays: ['2026-02-30'],
      window: '14:00-10:00',
      areas: [{ postalCodeFrom: '9000', postalCodeTo: '1000', weekdays: [1] }],
    };
    const world = {
      providers: [
        {
          id: 1,
          name: 'P',
          statusKeys: [
            {
              key: 'done',
              name: 'Done',
              description: 'Repaired and sent back',
              smsAvailable: true,
              emailAvailable: false,
            },
            { key: 'done', name: 'Done again' },
          ],
        },
      ],
      partners: [{ id: 1, name: 'Q' }],
      accounts: [{ id: 1, name: 'a', role: 'partner', partnerId: 1, token: 'a-token-of-enough-length' }],
      shippingMethods: [{ id: 1, name: 'S', properties: { requirePickupDate: true, goodsTypeList: null }, calendar }],
      tags: [
        { id: 1, name: 'VIP' },
        { id: 2, name: 'vip' },
      ],
      webhooks: {
        subscriptions: [
          {
            id: 1,
            accountId: 1,
            eventTypes: ['status.new'],
            target: { kind: 'http', url: 'http:// bad', headers: { 'bad name': 'x' } },
          },
          {
            id: 2,
            accountId: 1,
            eventTypes: ['status.new'],
            target: { kind: 'amqp', url: 'amqp://x', queue: 'q'.repeat(256) },
          },
        ],
        statusMappings: [
          { partnerId: 1, providerKey: 'a', partnerKey: 'b' },
          { partnerId: 1, providerKey: 'a', partnerKey: 'c' },
        ],
        blacklists: [
          { partnerId: 1, key: 'x' },
          { partnerId: 1, key: 'x' },
        ],
      },
    };
    expect(
      validateWorld(world)
        .map((error) => error.field)
        .sort(),
    ).toEqual(
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
  const stored = {
    manufacturers: [{ id: 1, name: 'Apple', aliases: ['Apple Inc'] }],
    productTypes: [{ id: 3, name: 'Television', aliases: ['TV'] }],
  };
  const model = (manufacturer: number | string, productType: number | string) => ({
    manufacturer,
    productType,
    name: 'n',
    mpn: 'm',
  });

  it("takes models naming the file's entries or stored ones, by id, name or alias", () => {
    const world: World = {
      manufacturers: [{ id: 7, name: 'Nokla' }],
      models: [model('nokla', 'tv'), model(1, 3), model('APPLE INC', '3')],
    };
    expect(validateWorld(world, stored)).toEqual([]);
  });

  it('names each model entry whose manufacturer or product type is neither in the file nor stored', () => {
    const world: World = {
      productTypes: [{ id: 3, name: 'Monitor' }],
      models: [model('Nokla', 'Monitor'), model(1, 'TV')],
    };
    // The file's product type 3 replaces the stored one, alias and all.
    expect(validateWorld(world, stored)).toEqual([
      { field: 'models[0].manufacturer', message: 'manufacturer "Nokla" is neither in the file nor in the catalog' },
      { field: 'models[1].productType', message: 'product type "TV" is neither in the file nor in the catalog' },
    ]);
  });
});

describe('a simulated provider', () => {
  const LIFE_KEYS = ['received', 'diagnosing', 'awaiting_approval', 'in_repair', 'repaired', 'not_repaired', 'shipped'];
  /** Provider 90 simulated, with the accounts 8 (its own) and 9 (provider 91's). */
  const world = (simulated: unknown, overrides: Record<string, unknown> = {}): World =>
    ({
      providers: [
        {
          id: 90,
          name: 'Sandbox',
          statusKeys: ['registered', ...LIFE_KEYS].map((key) => ({ key, name: key })),
          invoiceStatuses: [{ key: 'sent', sendToClient: true }],
          simulated,
          ...overrides,
        },
        { id: 91, name: 'Other' },
      ],
      accounts: [
        { id: 8, name: 'Sandbox API', role: 'provider', providerId: 90, token: 'sandbox-token-of-enough-length' },
        { id: 9, name: 'Other API', role: 'provider', providerId: 91, token: 'other-token-of-enough-length' },
      ],
    }) as World;

  it('is marked with the account it acts as and the delays of its steps; null ends it', () => {
    expect(validateWorld(world({ accountId: 8 }))).toEqual([]);
    expect(validateWorld(world({ accountId: 8, delays: { accept: '0', receive: '250ms', ship: '2d' } }))).toEqual([]);
    expect(validateWorld(world(null, { statusKeys: undefined, invoiceStatuses: undefined }))).toEqual([]);
  });

  it("acts only as an account of the file that is the provider's own", () => {
    expect(validateWorld(world({ accountId: 7 }))).toEqual([
      { field: 'providers[0].simulated.accountId', message: 'account 7 is not in the world' },
    ]);
    expect(validateWorld(world({ accountId: 9 }))).toEqual([
      { field: 'providers[0].simulated.accountId', message: 'account 9 is not an account of provider 90' },
    ]);
  });

  it('takes only the known steps, each with a duration of at most 30 days', () => {
    expect(validateWorld(world({ accountId: 8, delays: { repair: 'soon', ship: '31d', accept: '30d' } }))).toEqual([
      expect.objectContaining({ field: 'providers[0].simulated.delays.repair' }),
      expect.objectContaining({ field: 'providers[0].simulated.delays.ship' }),
    ]);
    expect(validateWorld(world({ accountId: 8, delays: { polish: '1s' } }))).toEqual([
      { field: 'providers[0].simulated.delays.polish', message: 'is not a known key' },
    ]);
  });

  it('lists the status keys and the invoice status its cases take', () => {
    const errors = validateWorld(
      world(
        { accountId: 8 },
        {
          statusKeys: [
            { key: 'registered', name: 'Registered' },
            ...LIFE_KEYS.slice(0, 5).map((key) => ({ key, name: key })),
          ],
          invoiceStatuses: [{ key: 'sent', sendToClient: false }],
        },
      ),
    );
    expect(errors).toEqual([
      {
        field: 'providers[0].statusKeys',
        message: 'a simulated provider lists the status keys its cases go through; missing: not_repaired, shipped',
      },
      expect.objectContaining({ field: 'providers[0].invoiceStatuses' }),
    ]);
  });

  it('is a part of its own, which the sandbox loads', () => {
    expect(worldKeysPresent(world({ accountId: 8 }))).toContain('providers.simulated');
    expect(worldKeysPresent(world(null))).toContain('providers.simulated');
    expect(worldKeysPresent(world(undefined))).not.toContain('providers.simulated');
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

  it('names the parts of the webhooks object, whose status rules the catalog loads', () => {
    const world: World = {
      webhooks: { statusMappings: [], blacklists: [{ partnerId: 1, key: 'diagnosed' }] },
    };
    expect(worldKeysPresent(world)).toEqual(['webhooks.statusMappings', 'webhooks.blacklists']);
    expect(worldKeysPresent({ webhooks: { subscriptions: [] } })).toEqual(['webhooks.subscriptions']);
  });
});
