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
    expect(ids((await get(`manufacturers?originatorType=helpdesk&bookingType=companyToPrivate`, DEMO_TOKENS.power)).body)).toEqual([4, 5, 6]);
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
    expect(res.body).toEqual({ error: { message: 'Fields validation failed', details: { originatorType: ['Field is required'], bookingType: ['Field is required'] } } });
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
      properties: { requireSerial: false, requireImei: true, withLocations: true, allowPassword: true, requirePassword: true, lowCost: false },
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
    const result = await hub.broker.call<Record<string, any>, object>('catalog.bookingReference', { serviceType: 1, manufacturer: 'samsung electronics', productType: 'notebook', serviceLocation: 9, shippingMethod: 2 });
    expect(result.serviceType).toEqual({ id: 1, name: 'Warranty repair', properties: { requirePurchaseDate: true, requireInsuranceNumber: false }, externalData: null });
    expect(result.manufacturer).toEqual({ id: 2, name: 'Samsung', externalData: null });
    expect(result.productType.properties.requireSerial).toBe(true);
    expect(result.serviceLocation).toBeNull();
    expect(result.shippingMethod).toEqual({ id: 2, name: 'Bring home delivery', properties: { requirePickupDate: false, goodsTypeList: null }, requireWeight: true, requireVolume: false });
  });
});
