/**
 * GET /api/v3/routing and the routing.route action through the real gateway on the demo world.
 */
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'routing', 'gateway'], env: { RATE_LIMIT_PER_MINUTE: '100000' } });
});
afterAll(() => hub.stop());

const full =
  'originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=1&productType=1&serviceLocation=1';

const route = (query: string, token = DEMO_TOKENS.elkjop) => hub.request('GET', `/api/v3/routing?${query}`, { token });

describe('routing output', () => {
  it('returns the chosen competence with partner, provider, competences and shipping methods', async () => {
    const res = await route(`${full}&clientPostalCode=0150`);
    expect(res.status).toBe(200);
    expect(res.body.servicePartner).toEqual({ id: 1, name: 'Elkjøp Nordic' });
    expect(res.body.servicePartnerCompetence).toEqual({ id: 501, overrideCode: null });
    expect(res.body.serviceProvider).toMatchObject({ id: 10, name: 'Nordic Repair Center' });
    expect(res.body.serviceProvider.contactData).toMatchObject({ city: 'Skedsmokorset', countryCode: 'NO' });
    expect(res.body.serviceProviderCompetence).toEqual({
      sesam: 'S-1001',
      persDep: 'OSL',
      departmentId: 101,
      primarySesam: true,
      id: 1,
      overrideCode: null,
    });
    expect(res.body.shippingMethods.map((method: { id: number }) => method.id)).toEqual([1, 2, 3]);
    expect(res.body.shippingMethods[0]).toEqual({
      id: 1,
      name: 'PostNord pickup',
      properties: { requirePickupDate: true, goodsTypeList: ['parcel', 'pallet'] },
    });
  });

  it('chooses by postal-code range', async () => {
    const res = await route(`${full}&clientPostalCode=5003`);
    expect(res.status).toBe(200);
    expect(res.body.serviceProviderCompetence.id).toBe(2);
    expect(res.body.serviceProviderCompetence.departmentId).toBe(102);
  });

  it('accepts manufacturer and product type by name or alias, case-insensitive', async () => {
    const res = await route(
      'originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=apple%20inc&productType=SMARTPHONE&serviceLocation=1&clientPostalCode=0150',
    );
    expect(res.status).toBe(200);
    expect(res.body.serviceProviderCompetence.id).toBe(1);
  });

  it('lets a model-specific competence win for that model only', async () => {
    const withModel = await route(`${full}&clientPostalCode=0150&model=iphone%2015%20pro`);
    expect(withModel.status).toBe(200);
    expect(withModel.body.serviceProviderCompetence).toMatchObject({
      id: 3,
      overrideCode: 'APPLE-PRO',
      departmentId: 301,
    });
    expect(withModel.body.servicePartnerCompetence).toEqual({ id: 503, overrideCode: 'PRO' });
    expect(withModel.body.serviceProvider.name).toBe('Fixit Danmark');
    expect(withModel.body.shippingMethods.map((method: { id: number }) => method.id)).toEqual([2, 3]);
    const otherModel = await route(`${full}&clientPostalCode=0150&model=Galaxy%20S24`);
    expect(otherModel.status).toBe(200);
    expect(otherModel.body.serviceProviderCompetence.id).toBe(1);
  });
});

describe('not enough data', () => {
  it('names exactly the parameters that would decide', async () => {
    const res = await route(full);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Not enough data', data: { paramsNeeded: ['clientPostalCode'] } });
  });

  it('leaves out open parameters on which the best candidate already accepts all the others do', async () => {
    // Power's primary rule accepts every originator type, service type and location its fallback does.
    const res = await route('', DEMO_TOKENS.power);
    expect(res.status).toBe(400);
    expect(res.body.data.paramsNeeded).toEqual(['manufacturer', 'productType']);
  });

  it('decides without parameters when only one competence can serve', async () => {
    const res = await route('', DEMO_TOKENS.trygg);
    expect(res.status).toBe(200);
    expect(res.body.serviceProviderCompetence.id).toBe(6);
  });
});

describe('cannot process', () => {
  it('answers 404 when no competence serves the case', async () => {
    const res = await route('manufacturer=Electrolux');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: "Can't process this case" }, data: null });
  });
});

describe('parameters', () => {
  it('refuses an unknown value, naming the field', async () => {
    const res = await route('manufacturer=Nokia&serviceType=99');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: 'Fields validation failed',
        details: {
          serviceType: ['Value is not present in possible options'],
          manufacturer: ['Value is not present in possible options'],
        },
      },
    });
  });

  it('refuses a wrong type and an unknown enumeration value', async () => {
    const res = await route('serviceLocation=abc&originatorType=robot');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      originatorType: ['Value is not present in possible options'],
      serviceLocation: ['Wrong format'],
    });
  });

  it('is for partners only', async () => {
    expect((await route(full, DEMO_TOKENS.nrc)).status).toBe(403);
  });
});

describe('routing.route action', () => {
  it('routes for the partner it is given', async () => {
    const result = await hub.broker.call<{ serviceProviderCompetence: { id: number } }, object>('routing.route', {
      partnerId: 2,
      originatorType: 'private',
      bookingType: 'companyToPrivate',
      serviceType: 2,
      manufacturer: 1,
      productType: 'Laptop',
    });
    expect(result.serviceProviderCompetence.id).toBe(5);
  });

  it('throws NotEnoughDataError with the parameters needed', async () => {
    await expect(hub.broker.call('routing.route', { partnerId: 1, manufacturer: 'Apple' })).rejects.toMatchObject({
      type: 'NOT_ENOUGH_DATA',
      data: { paramsNeeded: expect.arrayContaining(['clientPostalCode']) },
    });
  });
});

describe('with the model registry', () => {
  beforeAll(async () => {
    // Stands in for the models service: resolves a part number to its registered model.
    hub.broker.createService({
      name: 'models',
      actions: {
        resolveName: {
          visibility: 'public',
          handler: (ctx: { params: { name: string } }) =>
            ctx.params.name.toLowerCase() === 'mu773'
              ? { id: 77, name: 'iPhone 15 Pro', manufacturerId: 1, productTypeId: 1 }
              : null,
        },
      },
    });
    await hub.broker.waitForServices('models');
  });
  afterAll(async () => {
    const models = hub.broker.getLocalService('models');
    if (models) await hub.broker.destroyService(models);
  });

  it('routes a model known by another name to its model-specific rule, taking its manufacturer and product type', async () => {
    const res = await route(
      'originatorType=private&bookingType=companyToPrivate&serviceType=2&serviceLocation=1&clientPostalCode=0150&model=MU773',
    );
    expect(res.status).toBe(200);
    expect(res.body.serviceProviderCompetence.id).toBe(3);
  });

  it('falls back to the general rules for a model the registry does not know', async () => {
    const res = await route(`${full}&clientPostalCode=0150&model=Unknown%20Phone`);
    expect(res.status).toBe(200);
    expect(res.body.serviceProviderCompetence.id).toBe(1);
  });
});
