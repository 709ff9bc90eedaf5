/**
 * The reference lookups of spec 4.1 through the real gateway on the demo world: each narrows
 * to what the calling partner's competences allow.
 */
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'routing', 'gateway'], env: { RATE_LIMIT_PER_MINUTE: '100000' } });
});
afterAll(() => hub.stop());

const base = 'originatorType=private&bookingType=companyToPrivate';
const get = (path: string, token = DEMO_TOKENS.elkjop) => hub.request('GET', `/api/v3/${path}`, { token });
const ids = (body: Array<{ id: number }>) => body.map((record) => record.id);

describe('manufacturers', () => {
  it("lists the partner's bookable manufacturers with the spec's fields", async () => {
    const res = await get(`manufacturers?${base}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([1, 2, 3, 4, 6]);
    expect(res.body[0]).toEqual({ id: 1, name: 'Apple', externalData: null });
    const power = await get(`manufacturers?${base}`, DEMO_TOKENS.power);
    expect(ids(power.body)).toEqual([1, 2, 4, 5, 6]);
  });

  it('narrows by each optional parameter', async () => {
    expect(ids((await get(`manufacturers?${base}&productType=4`, DEMO_TOKENS.power)).body)).toEqual([4, 5, 6]);
    expect(
      ids((await get(`manufacturers?originatorType=helpdesk&bookingType=companyToPrivate`, DEMO_TOKENS.power)).body),
    ).toEqual([4, 5, 6]);
    expect(ids((await get(`manufacturers?${base}&serviceType=1`, DEMO_TOKENS.power)).body)).toEqual([4, 5, 6]);
    expect(ids((await get(`manufacturers?${base}&manufacturer=aeg`, DEMO_TOKENS.power)).body)).toEqual([5]);
  });

  it('answers [] when nothing is bookable', async () => {
    const res = await get(`manufacturers?${base}&serviceType=3`, DEMO_TOKENS.power);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('requires originatorType and bookingType', async () => {
    const res = await get('manufacturers');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: 'Fields validation failed',
        details: { originatorType: ['Field is required'], bookingType: ['Field is required'] },
      },
    });
  });
});

describe('product types', () => {
  it('requires manufacturer and carries the properties flags', async () => {
    expect((await get(`product-types?${base}`)).body.error.details).toEqual({ manufacturer: ['Field is required'] });
    const res = await get(`product-types?${base}&manufacturer=Apple%20Inc`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([1, 2, 3, 5]);
    expect(res.body[0]).toEqual({
      id: 1,
      name: 'Mobile phone',
      properties: {
        requireSerial: false,
        requireImei: true,
        withLocations: true,
        allowPassword: true,
        requirePassword: true,
        lowCost: false,
      },
      externalData: null,
    });
  });

  it('refuses an unknown manufacturer, naming the field', async () => {
    const res = await get(`product-types?${base}&manufacturer=Nokia`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ manufacturer: ['Value is not present in possible options'] });
  });
});

describe('shipping methods', () => {
  it('lists the methods with requirePickupDate and goodsTypeList', async () => {
    const res = await get(`shipping-methods?${base}&serviceType=2&manufacturer=1&productType=1&serviceLocation=1`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, name: 'PostNord pickup', properties: { requirePickupDate: true, goodsTypeList: ['parcel', 'pallet'] } },
      { id: 2, name: 'Bring home delivery', properties: { requirePickupDate: false, goodsTypeList: null } },
      { id: 3, name: 'Customer drop-off', properties: { requirePickupDate: false, goodsTypeList: null } },
    ]);
  });
});

describe('booking reference', () => {
  it('resolves each record by id or by name, null when unknown', async () => {
    const result = await hub.broker.call<Record<string, any>, object>('catalog.bookingReference', {
      serviceType: 1,
      manufacturer: 'samsung electronics',
      productType: 'notebook',
      serviceLocation: 9,
      shippingMethod: 2,
    });
    expect(result.serviceType).toEqual({
      id: 1,
      name: 'Warranty repair',
      properties: { requirePurchaseDate: true, requireInsuranceNumber: false },
      externalData: null,
    });
    expect(result.manufacturer).toEqual({ id: 2, name: 'Samsung', externalData: null });
    expect(result.productType.properties.requireSerial).toBe(true);
    expect(result.serviceLocation).toBeNull();
    expect(result.shippingMethod).toEqual({
      id: 2,
      name: 'Bring home delivery',
      properties: { requirePickupDate: false, goodsTypeList: null },
      requireWeight: true,
      requireVolume: false,
    });
  });
});

describe('service types', () => {
  it('lists the bookable service types with their properties, narrowed by manufacturer and product type', async () => {
    const res = await get(`service-types?${base}`, DEMO_TOKENS.power);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: 1,
        name: 'Warranty repair',
        properties: { requirePurchaseDate: true, requireInsuranceNumber: false },
        externalData: null,
      },
      {
        id: 2,
        name: 'Paid repair',
        properties: { requirePurchaseDate: false, requireInsuranceNumber: false },
        externalData: null,
      },
    ]);
    expect(ids((await get(`service-types?${base}&manufacturer=Samsung`, DEMO_TOKENS.power)).body)).toEqual([2]);
    expect(ids((await get(`service-types?${base}&productType=TV`, DEMO_TOKENS.power)).body)).toEqual([1, 2]);
    expect(ids((await get(`service-types?${base}&serviceType=2`, DEMO_TOKENS.power)).body)).toEqual([2]);
  });

  it('narrows by client postal code', async () => {
    expect(ids((await get(`service-types?${base}&manufacturer=4&clientPostalCode=0150`)).body)).toEqual([1, 2, 3]);
    expect((await get(`service-types?${base}&manufacturer=4&clientPostalCode=11120`)).body).toEqual([]);
  });

  it('refuses an unknown enumeration value and a wrong type', async () => {
    const res = await get('service-types?originatorType=robot&bookingType=companyToPrivate&serviceType=two');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      originatorType: ['Value is not present in possible options'],
      serviceType: ['Wrong format'],
    });
  });

  it('refuses a postal code outside 3 to 10 characters', async () => {
    const res = await get(`service-types?${base}&clientPostalCode=12`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ clientPostalCode: ['Must be at least 3 characters'] });
  });
});

describe('service locations', () => {
  const required = 'serviceType=2&manufacturer=Apple&productType=1';

  it('requires its five parameters', async () => {
    const res = await get('service-locations');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual([
      'bookingType',
      'manufacturer',
      'originatorType',
      'productType',
      'serviceType',
    ]);
  });

  it('lists the locations the matching rules allow', async () => {
    const res = await get(`service-locations?${base}&${required}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, name: 'Workshop', externalData: null },
      { id: 2, name: 'In store', externalData: null },
    ]);
    expect(
      ids((await get(`service-locations?${base}&serviceType=1&manufacturer=5&productType=4`, DEMO_TOKENS.power)).body),
    ).toEqual([1, 3]);
    expect(
      (await get(`service-locations?${base}&serviceType=3&manufacturer=5&productType=4`, DEMO_TOKENS.power)).body,
    ).toEqual([]);
  });

  it('refuses an unknown product type', async () => {
    const res = await get(`service-locations?${base}&serviceType=2&manufacturer=Apple&productType=Toaster`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ productType: ['Value is not present in possible options'] });
  });
});

describe('shipping methods parameters', () => {
  it('requires its six parameters', async () => {
    const res = await get(`shipping-methods?${base}&serviceType=2&manufacturer=1&productType=1`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ serviceLocation: ['Field is required'] });
  });

  it('narrows to the methods of the rules that accept the case', async () => {
    const res = await get(
      `shipping-methods?${base}&serviceType=1&manufacturer=5&productType=4&serviceLocation=3`,
      DEMO_TOKENS.power,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 3, name: 'Customer drop-off', properties: { requirePickupDate: false, goodsTypeList: null } },
      {
        id: 4,
        name: 'DB Schenker freight',
        properties: { requirePickupDate: true, goodsTypeList: ['pallet', 'large item'] },
      },
    ]);
    expect(
      (
        await get(
          `shipping-methods?${base}&serviceType=1&manufacturer=5&productType=4&serviceLocation=2`,
          DEMO_TOKENS.power,
        )
      ).body,
    ).toEqual([]);
  });

  it('refuses an unknown service location', async () => {
    const res = await get(`shipping-methods?${base}&serviceType=2&manufacturer=1&productType=1&serviceLocation=42`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ serviceLocation: ['Value is not present in possible options'] });
  });
});

describe('accessory', () => {
  it('lists the accessories of a product type', async () => {
    const res = await get('accessory?productType=1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: 1, name: 'Charger' },
      { id: 2, name: 'Case' },
      { id: 3, name: 'SIM card' },
    ]);
  });

  it('requires an integer product type that exists', async () => {
    expect((await get('accessory')).body.error.details).toEqual({ productType: ['Field is required'] });
    expect((await get('accessory?productType=Phone')).body.error.details).toEqual({ productType: ['Wrong format'] });
    const unknown = await get('accessory?productType=77');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual({ productType: ['Value is not present in possible options'] });
  });
});

describe('pickup dates', () => {
  const dayMs = 86_400_000;

  it('answers ISO timestamps at midnight UTC on the carrier business days', async () => {
    const res = await get('shipping/pickup-dates?shippingMethod=4&postalCode=41705', DEMO_TOKENS.power);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const timestamp of res.body as string[]) {
      expect(timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      // DB Schenker picks up on Monday, Wednesday and Friday only.
      expect([1, 3, 5]).toContain(new Date(timestamp).getUTCDay());
      expect(Date.parse(timestamp)).toBeGreaterThan(Date.now() - dayMs);
      expect(['2026-12-24T00:00:00.000Z', '2026-12-25T00:00:00.000Z']).not.toContain(timestamp);
    }
  });

  it('answers the extended form with the window of the postal-code area', async () => {
    const res = await get('shipping/pickup-dates-extended?shippingMethod=1&postalCode=9010');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const entry of res.body as Array<{ date: string; comment: string }>) {
      expect(Object.keys(entry)).toEqual(['date', 'comment']);
      expect(entry.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect([2, 4]).toContain(new Date(`${entry.date}T00:00:00Z`).getUTCDay());
      expect(entry.comment).toBe('Pickup between 10:00 and 15:00');
    }
  });

  it("refuses a method none of the partner's competences offer, as one that does not exist", async () => {
    // DB Schenker (4) is Power's carrier only; Elkjøp books with 1, 2 and 3.
    for (const path of ['shipping/pickup-dates', 'shipping/pickup-dates-extended']) {
      const res = await get(`${path}?shippingMethod=4&postalCode=41705`);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        message: 'Fields validation failed',
        details: { shippingMethod: ['Value is not present in possible options'] },
      });
    }
    expect(
      (await get('shipping/pickup-dates-extended?shippingMethod=4&postalCode=41705', DEMO_TOKENS.power)).status,
    ).toBe(200);
  });

  it('answers [] for a method that is not picked up', async () => {
    const res = await get('shipping/pickup-dates?shippingMethod=3&postalCode=0150');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('requires shippingMethod and a postal code of 3 to 10 characters', async () => {
    expect((await get('shipping/pickup-dates')).body.error.details).toEqual({
      shippingMethod: ['Field is required'],
      postalCode: ['Field is required'],
    });
    expect((await get('shipping/pickup-dates?shippingMethod=1&postalCode=12')).body.error.details).toEqual({
      postalCode: ['Must be at least 3 characters'],
    });
    const long = await get('shipping/pickup-dates-extended?shippingMethod=1&postalCode=12345678901');
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual({ postalCode: ['Must be at most 10 characters'] });
    expect((await get('shipping/pickup-dates?shippingMethod=9&postalCode=0150')).body.error.details).toEqual({
      shippingMethod: ['Value is not present in possible options'],
    });
  });
});

describe('access', () => {
  it('is for partners only', async () => {
    expect((await get(`manufacturers?${base}`, DEMO_TOKENS.nrc)).status).toBe(403);
    expect((await get('accessory?productType=1', DEMO_TOKENS.admin)).status).toBe(403);
  });
});
