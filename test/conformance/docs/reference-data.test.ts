/**
 * The documentation's "Reference data" page: lookups, parties, routing and the model registry,
 * each example sent as documented (demo world ids) and its answer checked against the documented shape.
 */
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, type DocumentedShape, sendDocumented, startDocsHub } from './documented';

let hub: TestHub;
beforeAll(async () => {
  hub = await startDocsHub();
});
afterAll(() => hub?.stop());

const partner = DEMO_TOKENS.elkjop;
const booking = 'originatorType=private&bookingType=companyToPrivate';

const CONTACT_DATA = {
  id: 30347,
  name: null,
  firstName: null,
  lastName: null,
  organizationName: 'Workshop',
  organizationNumber: null,
  addName: null,
  address: 'Teststreet, 123',
  postalCode: '123 45',
  city: 'Testcity',
  countryCode: null,
  phone: '1234567890',
  mobile: null,
  email: 'test@example.com',
  floor: null,
  entrance: null,
  doorCode: null,
  createdAt: '2017-08-01T14:01:24.083Z',
};
/** Contact fields a record may leave empty; the documented examples show some of them filled. */
const contactNullable = (path: string) =>
  ['name', 'firstName', 'lastName', 'organizationName', 'organizationNumber', 'addName', 'address', 'postalCode']
    .concat(['city', 'countryCode', 'phone', 'mobile', 'email', 'floor', 'entrance', 'doorCode'])
    .map((field) => `${path}.${field}`);
const withNulls = (contact: Record<string, DocumentedShape>): Record<string, DocumentedShape> =>
  Object.fromEntries(
    Object.entries(contact).map(([field, value]) => [field, field === 'id' || field === 'createdAt' ? value : ANY]),
  );

describe('GET /api/v3/manufacturers', () => {
  it('answers the documented list of manufacturers', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/manufacturers?${booking}`, token: partner },
      { status: 200, shape: [{ id: 1006, name: 'Acer', externalData: ANY }] },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('GET /api/v3/service-types', () => {
  it('answers the documented list with properties', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/service-types?${booking}`, token: partner },
      { status: 200, shape: [{ id: 1, name: 'Garanti', properties: {}, externalData: ANY }] },
    );
  });
});

describe('GET /api/v3/product-types', () => {
  it('answers the documented list for a manufacturer', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/product-types?${booking}&manufacturer=1`, token: partner },
      { status: 200, shape: [{ id: 1009, name: 'All-in-one desktop', properties: {}, externalData: ANY }] },
    );
  });
});

describe('GET /api/v3/service-locations', () => {
  it('answers the documented list', async () => {
    await sendDocumented(
      hub,
      {
        method: 'GET',
        path: `/api/v3/service-locations?${booking}&serviceType=2&manufacturer=1&productType=2`,
        token: partner,
      },
      { status: 200, shape: [{ id: 2, name: 'På plats reparation', externalData: ANY }] },
    );
  });
});

describe('GET /api/v3/accessory', () => {
  it('answers the documented list of accessories', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/accessory?productType=2', token: partner },
      { status: 200, shape: [{ id: 1106, name: 'Tangentbord' }] },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('GET /api/v3/shipping-methods', () => {
  it('answers the documented list with requirePickupDate and goodsTypeList', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'GET',
        path: `/api/v3/shipping-methods?${booking}&serviceType=2&manufacturer=1&productType=2&serviceLocation=1`,
        token: partner,
      },
      {
        status: 200,
        shape: [{ id: 3, name: 'PostNord Växjö Pallet', properties: { requirePickupDate: false, goodsTypeList: ANY } }],
      },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('GET /api/v3/shipping/pickup-dates and pickup-dates-extended', () => {
  it('answers ISO timestamps at midnight UTC', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/shipping/pickup-dates?shippingMethod=1&postalCode=0150', token: partner },
      { status: 200, shape: ['2017-05-23T00:00:00.000Z'] },
    );
    expect(res.body.length).toBeGreaterThan(0);
    for (const date of res.body) expect(date).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
  });

  it('answers dates with a comment', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'GET',
        path: '/api/v3/shipping/pickup-dates-extended?shippingMethod=1&postalCode=0150',
        token: partner,
      },
      { status: 200, shape: [{ date: '2019-02-01', comment: 'Mondays/Tuesdays between 12-16' }] },
    );
    for (const entry of res.body) expect(entry.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('GET /api/v3/partner and /api/v3/provider', () => {
  it('answers the partner with its contact data, to any account', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/partner?id=1', token: DEMO_TOKENS.nrc },
      {
        status: 200,
        shape: { id: 1, name: 'Workshop', contactData: withNulls(CONTACT_DATA) },
        options: { nullable: contactNullable('contactData') },
      },
    );
  });

  it('answers the provider with its contact data', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/provider?id=10', token: partner },
      { status: 200, shape: { id: 1003, name: 'Provider', contactData: withNulls(CONTACT_DATA) } },
    );
  });
});

describe('GET /api/v3/routing', () => {
  it('answers the provider, the competences and the shipping methods', async () => {
    await sendDocumented(
      hub,
      {
        method: 'GET',
        path: `/api/v3/routing?${booking}&serviceType=2&manufacturer=1&productType=2&clientPostalCode=0150&serviceLocation=1`,
        token: partner,
      },
      {
        status: 200,
        shape: {
          servicePartner: { id: 1, name: 'Partner' },
          servicePartnerCompetence: {},
          serviceProvider: { contactData: withNulls(CONTACT_DATA), id: 1, name: 'Workshop' },
          serviceProviderCompetence: {},
          shippingMethods: [],
        },
      },
    );
  });
});

describe('GET /api/v3/models', () => {
  it('answers the documented example search', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/models?manufacturer=apple&model=iphone&limit=1', token: partner },
      {
        status: 200,
        shape: [
          {
            createdAt: '2019-05-21T09:45:04.000Z',
            id: 845,
            manufacturer: { externalData: ANY, id: 1006, name: 'Acer' },
            manufacturerId: 1006,
            name: 'aspire',
            productType: { externalData: ANY, id: 1004, name: 'Notebook', properties: {} },
            productTypeId: 1004,
            tags: [],
            updatedAt: '2019-05-21T09:45:04.000Z',
          },
        ],
      },
    );
    expect(res.body).toHaveLength(1);
  });
});

describe('POST /api/v3/models', () => {
  it('writes models of the documented fields (the spec adds mpn) and answers the list written', async () => {
    const res = await hub.request('POST', '/api/v3/models', {
      token: partner,
      body: [{ manufacturer: 'apple', productType: 2, name: 'MacBook Docs 14', mpn: 'MDOCS14', tags: [1] }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      expect.objectContaining({ name: 'MacBook Docs 14', manufacturerId: 1, productTypeId: 2, tags: [1] }),
    ]);
    // "To change name you should always pass id".
    const renamed = await hub.request('POST', '/api/v3/models', {
      token: partner,
      body: [{ id: res.body[0].id, manufacturer: 1, productType: 2, name: 'MacBook Docs 15', mpn: 'MDOCS14' }],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual([expect.objectContaining({ id: res.body[0].id, name: 'MacBook Docs 15' })]);
  });
});
