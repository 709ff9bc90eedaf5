/**
 * The documentation's "Reference data" page: lookups, parties, routing and the model registry,
 * each example sent as documented (demo world ids) and its answer checked against the documented shape.
 */
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { sendDocumented, useDocsHub } from './documented';
import { documentedInputs, documentedShape } from './reference';

let hub: TestHub;
useDocsHub((started) => {
  hub = started;
});

const partner = DEMO_TOKENS.elkjop;
const booking = 'originatorType=private&bookingType=companyToPrivate';

/** Contact fields a record may leave empty; the documented examples show some of them filled. */
const contactNullable = (path: string) =>
  ['name', 'firstName', 'lastName', 'organizationName', 'organizationNumber', 'addName', 'address', 'postalCode']
    .concat(['city', 'countryCode', 'phone', 'mobile', 'email', 'floor', 'entrance', 'doorCode'])
    .map((field) => `${path}.${field}`);
const PAGE = 'Reference data';
/** A product or service type's flags are that record's own: the example's say only "an object". */
const FLAGS = { '[].properties': {} };

describe('GET /api/v3/manufacturers', () => {
  it('answers the documented list of manufacturers', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/manufacturers?${booking}`, token: partner },
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/manufacturers', 'Output') },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('GET /api/v3/service-types', () => {
  it('answers the documented list with properties', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/service-types?${booking}`, token: partner },
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/service-types', 'Output', { replace: FLAGS }) },
    );
  });
});

describe('GET /api/v3/product-types', () => {
  it('answers the documented list for a manufacturer', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/product-types?${booking}&manufacturer=1`, token: partner },
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/product-types', 'Output', { replace: FLAGS }) },
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
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/service-locations', 'Output') },
    );
  });
});

describe('GET /api/v3/accessory', () => {
  it('answers the documented list of accessories', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/accessory?productType=2', token: partner },
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/accessory', 'Output') },
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
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/shipping-methods', 'Output') },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

/** A demo-world value for each parameter the page's input tables name. */
const DEMO_VALUES: Record<string, string> = {
  originatorType: 'private',
  bookingType: 'companyToPrivate',
  serviceType: '2',
  manufacturer: '1',
  productType: '2',
  serviceLocation: '1',
  clientPostalCode: '0150',
  model: 'MacBook Air',
  tags: 'VIP',
  serviceProviderId: '10',
  departmentId: '101',
  actionType: 'inbound',
};

describe('every parameter the page documents', () => {
  it.each(['GET /api/v3/shipping-methods', 'GET /api/v3/routing'])('is taken by %s', async (endpoint) => {
    const names = documentedInputs(PAGE, endpoint).map((input) => input.name);
    const query = names.map((name) => `${name}=${encodeURIComponent(DEMO_VALUES[name])}`).join('&');
    const res = await hub.request('GET', `${endpoint.slice(4)}?${query}`, { token: partner });
    expect({ status: res.status, body: res.body }).toEqual(expect.objectContaining({ status: 200 }));
  });
});

describe('GET /api/v3/shipping/pickup-dates and pickup-dates-extended', () => {
  it('answers ISO timestamps at midnight UTC', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/shipping/pickup-dates?shippingMethod=1&postalCode=0150', token: partner },
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/shipping/pickup-dates', 'Output') },
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
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/shipping/pickup-dates-extended', 'Output') },
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
        shape: documentedShape(PAGE, 'GET /api/v3/partner', 'Output'),
        options: { nullable: contactNullable('contactData') },
      },
    );
  });

  it('answers the provider with its contact data', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/provider?id=10', token: partner },
      {
        status: 200,
        shape: documentedShape(PAGE, 'GET /api/v3/provider', 'Output'),
        options: { nullable: contactNullable('contactData') },
      },
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
        shape: documentedShape(PAGE, 'GET /api/v3/routing', 'Output'),
        options: { nullable: contactNullable('serviceProvider.contactData') },
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
        shape: documentedShape(PAGE, 'GET /api/v3/models', 'Output', { replace: { '[].productType.properties': {} } }),
        options: { nullable: ['[].mpn', '[].value', '[].weight', '[].taricSE', '[].taricNO'] },
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
