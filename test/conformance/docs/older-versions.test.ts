/**
 * The previous versions the documentation describes (the root "Service order API", "Service
 * provider API", "Cost proposals" and "Messages" pages, the v1 "Working with cases" page and the
 * v2 forms of today's pages): every documented older path answers with its documented names and
 * shapes, translated onto the same actions as v3, and says it is deprecated (Deprecation and
 * Sunset headers, `deprecated` in the OpenAPI document).
 */
import { OLDER_VERSIONS_DEPRECATION, OLDER_VERSIONS_SUNSET } from '../../../shared/src';
import { bookCase, caseBody } from '../../support/cases';
import { DEMO_TOKENS, type HttpResult, type TestHub } from '../../support/hub';
import { ANY, sendDocumented, useDocsHub } from './documented';
import { CONTACT_DATA, DOCUMENTED_CASE } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  // Elkjøp's demo case goes to Nordic Repair Center.
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;
const lookup = 'originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=1&productType=2';

function expectDeprecated(res: HttpResult) {
  expect(res.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
  expect(res.headers.get('sunset')).toBe(OLDER_VERSIONS_SUNSET);
}

/** The demo booking in the v1 and v2 names: `order` and `product` for `orderData` and `productData`. */
function olderBooking(overrides: Record<string, unknown> = {}) {
  const { orderData, productData, ...rest } = caseBody(partner);
  return { ...rest, order: { ...orderData, infocareSesamOriginator: 'OtherSE' }, product: productData, ...overrides };
}

describe('booking in the v1 and v2 names', () => {
  for (const version of ['v1', 'v2']) {
    it(`POST /api/${version}/case/create takes order and product and answers the case's id and guid`, async () => {
      const res = await sendDocumented(
        hub,
        { method: 'POST', path: `/api/${version}/case/create`, token: partner, body: olderBooking() },
        { status: 200, shape: { id: 7707, guid: '69b0e17f-eeb9-4834-b809-60b015054c0d' } },
      );
      expectDeprecated(res);
      const read = await hub.request('GET', `/api/v3/case?guid=${res.body.guid}`, { token: partner });
      expect(read.body.id).toBe(res.body.id);
      expect(read.body.orderData.refNo).toBe('REF-1001');
      expect(read.body.productData.model).toBe('MacBook Air');
    });
  }

  it('POST /api/v2/case/validate answers 400 naming the fields in the v2 names', async () => {
    const body = olderBooking();
    delete (body.product as Record<string, unknown>).password;
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v2/case/validate', token: partner, body: { ...body, location: 999 } },
      {
        status: 400,
        shape: {
          error: { message: 'Fields validation failed', details: { 'product.password': ['Field is required'] } },
        },
      },
    );
    expect(res.body.error.details).toEqual({
      'product.password': ['Field is required'],
      location: ['Value is not present in possible options'],
    });
    expectDeprecated(res);
  });

  it('POST /api/v2/case/validate answers { data: { result: true } } for correct data', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v2/case/validate', token: partner, body: olderBooking() },
      { status: 200, shape: { data: { result: true } } },
    );
  });

  it('POST /api/v1/case/validate answers 200 either way: { result: true }, or result false with the fields', async () => {
    const ok = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v1/case/validate', token: partner, body: olderBooking() },
      { status: 200, shape: { result: true } },
    );
    expect(ok.body).toEqual({ result: true });
    const body = olderBooking({ acceptConditions: false });
    delete (body.product as Record<string, unknown>).password;
    const failed = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v1/case/validate', token: partner, body },
      {
        status: 200,
        shape: {
          result: false,
          message: 'Fields validation failed',
          validation: { acceptConditions: ['Field must be equal to true'] },
        },
      },
    );
    expect(failed.body.result).toBe(false);
    expect(failed.body.validation['product.password']).toEqual(['Field is required']);
    expectDeprecated(failed);
  });
});

describe('lookups at v1 and v2', () => {
  it('GET /api/v1/brands answers the manufacturers, taking brand and no bookingType', async () => {
    for (const version of ['v1', 'v2']) {
      const res = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/${version}/brands?originatorType=private&brand=1`, token: partner },
        { status: 200, shape: [{ id: 1006, name: 'Acer' }] },
      );
      expect(res.body.map((brand: { id: number }) => brand.id)).toEqual([1]);
      expectDeprecated(res);
      // brand is part of the answer's cache key, as manufacturer is for v3.
      const other = await hub.request('GET', `/api/${version}/brands?originatorType=private&brand=2`, {
        token: partner,
      });
      expect(other.body.map((brand: { id: number }) => brand.id)).toEqual([2]);
    }
  });

  it('GET manufacturers, service-types, product-types and service-locations answer as v3 does', async () => {
    const paths = ['manufacturers', 'service-types', 'product-types', 'service-locations'];
    for (const version of ['v1', 'v2'])
      for (const path of paths) {
        const current = await hub.request('GET', `/api/v3/${path}?${lookup}`, { token: partner });
        const older = await hub.request('GET', `/api/${version}/${path}?${lookup}`, { token: partner });
        expect({ path, version, status: older.status, body: older.body }).toEqual({
          path,
          version,
          status: 200,
          body: current.body,
        });
        expectDeprecated(older);
      }
  });

  it('GET /api/v1/accessory and /api/v2/accessory answer the accessories', async () => {
    for (const version of ['v1', 'v2']) {
      const res = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/${version}/accessory?productType=2`, token: partner },
        { status: 200, shape: [{ id: 1106, name: 'Tangentbord' }] },
      );
      expect(res.body.length).toBeGreaterThan(0);
    }
  });

  it('GET /api/v1/shipping-methods takes no bookingType, as v1 documented', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'GET',
        path: '/api/v1/shipping-methods?originatorType=private&serviceType=2&manufacturer=1&productType=2&serviceLocation=1',
        token: partner,
      },
      {
        status: 200,
        shape: [{ id: 3, name: 'PostNord', properties: { requirePickupDate: false, goodsTypeList: ANY } }],
      },
    );
    expect(res.body.length).toBeGreaterThan(0);
    const v2 = await hub.request('GET', `/api/v2/shipping-methods?${lookup}&serviceLocation=1`, { token: partner });
    expect(v2.body).toEqual(res.body);
  });

  it('GET /api/v1/shipping/pickup-dates answers the dates', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v1/shipping/pickup-dates?shippingMethod=1&postalCode=0150', token: partner },
      { status: 200, shape: ['2017-05-23T00:00:00.000Z'] },
    );
  });

  it('GET /api/v2/routing answers the routing wrapped in data, as the Other page documents it', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v2/routing?${lookup}&clientPostalCode=0150&serviceLocation=1`, token: partner },
      {
        status: 200,
        shape: {
          data: {
            serviceProvider: { id: 1, name: 'InfoCare Workshop', contactData: ANY },
            serviceProviderCompetence: {},
            servicePartner: { id: 1, name: 'InfoCare Workshop SE' },
            servicePartnerCompetence: {},
          },
        },
      },
    );
    expect(res.body.data.serviceProvider.id).toBe(10);
  });

  it('GET /api/v2/providers answers the providers', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v2/providers?ids=10', token: partner },
      { status: 200, shape: [{ id: 1, name: 'Workshop', contactData: {} }] },
    );
    expectDeprecated(res);
  });
});

describe('working with cases at v1 and v2', () => {
  it('GET /api/v1/case and POST /api/v1/search-cases answer the documented case', async () => {
    for (const version of ['v1', 'v2']) {
      await sendDocumented(
        hub,
        { method: 'GET', path: `/api/${version}/case?guid=${guid}`, token: partner },
        { status: 200, shape: { ...DOCUMENTED_CASE, sender: CONTACT_DATA } },
      );
      const found = await sendDocumented(
        hub,
        {
          method: 'POST',
          path: `/api/${version}/search-cases`,
          token: partner,
          body: { filters: { createdAt: { $gt: '2017-01-01' } } },
        },
        { status: 200, shape: { data: [DOCUMENTED_CASE], pagination: { offset: 0, count: 194 } } },
      );
      expect(found.body.data.map((entry: { guid: string }) => entry.guid)).toContain(guid);
    }
  });

  it('POST /api/v1/case/status adds a status and answers it in data', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v1/case/status', token: provider, body: { guid, key: 'arrived' } },
      {
        status: 200,
        shape: {
          data: {
            id: 98,
            caseId: 7927,
            guid: 'a7180ff9-7c6e-4d0e-b756-16b49531382f',
            key: 'ass',
            createdAt: '2019-01-22T11:29:38.258Z',
            updatedAt: '2019-01-22T11:29:38.258Z',
          },
        },
      },
    );
    expect(res.body.data).toMatchObject({ guid, key: 'arrived' });
  });

  it('POST /api/v1/case/files and /api/v1/case/update work on the case', async () => {
    await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v1/case/files',
        token: partner,
        body: { guid, files: [{ name: 'cat.jpg', url: 'http://example.com/cat-image' }] },
      },
      { status: 200, shape: { data: { result: true } } },
    );
    const updated = await hub.request('POST', '/api/v1/case/update', {
      token: partner,
      body: { guid, orderData: { refNo: 'REF-V1' } },
    });
    expect(updated.status).toBe(200);
    expectDeprecated(updated);
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.body.orderData.refNo).toBe('REF-V1');
  });

  it('POST /api/v2/case/update updates as v3 does', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v2/case/update', token: partner, body: { guid, orderData: { refNo: 'REF-V2' } } },
      { status: 200 },
    );
    expectDeprecated(res);
  });

  it('POST /api/v1/unexported-cases answers the provider as search-cases does', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v1/unexported-cases', token: provider, body: {} },
      { status: 200, shape: { data: [DOCUMENTED_CASE], pagination: { offset: 0, count: 194 } } },
    );
  });
});

describe('messages at v1 and v2', () => {
  it('create and list name the type messageType', async () => {
    for (const version of ['v1', 'v2']) {
      const created = await sendDocumented(
        hub,
        {
          method: 'POST',
          path: `/api/${version}/case-messages/create`,
          token: partner,
          body: { guid, content: `Test message ${version}`, messageType: 'serviceComment' },
        },
        {
          status: 200,
          shape: {
            id: 1,
            caseId: 7748,
            guid: '1e0abcb7-b94c-4072-a9c0-37072a1ef015',
            senderAccountId: 1009,
            content: 'Test message',
            messageType: 'serviceComment',
            createdAt: '2017-07-26T14:02:02.170Z',
            updatedAt: '2017-07-26T14:02:02.170Z',
          },
        },
      );
      expect(created.body).not.toHaveProperty('type');
      expectDeprecated(created);
      const listed = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/${version}/case-messages?guid=${guid}`, token: provider },
        { status: 200, shape: [{ id: 1, content: 'Hello!', messageType: 'serviceComment' }] },
      );
      expect(listed.body.map((message: { content: string }) => message.content)).toContain(`Test message ${version}`);
    }
  });

  it('a missing messageType is named as such', async () => {
    const res = await hub.request('POST', '/api/v2/case-messages/create', {
      token: partner,
      body: { guid, content: 'x' },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['messageType']);
    expectDeprecated(res);
  });
});

describe('cost proposals at v2', () => {
  it('save, list and feedback answer as v3 does', async () => {
    const saved = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v2/cost-proposals',
        token: provider,
        body: [{ guid, externalId: ['v2'], name: 'Repair', priceNet: 1000, currency: 'SEK' }],
      },
      { status: 200, shape: { data: [{ guid: ANY, name: 'Repair', isActive: true }] } },
    );
    const listed = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v2/cost-proposals?guid=${guid}`, token: partner },
      { status: 200, shape: [{ id: 1, name: 'Repair', isActive: true }] },
    );
    expect(listed.body.map((proposal: { id: number }) => proposal.id)).toContain(saved.body.data[0].id);
    const rejected = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v2/cost-proposals/feedback',
        token: partner,
        body: { id: saved.body.data[0].id, name: 'John Smith', reaction: 'rejected' },
      },
      { status: 200, shape: { reaction: 'rejected', reactionName: 'John Smith' } },
    );
    expectDeprecated(rejected);
  });
});

describe('invoices at v2', () => {
  it('save and find answer as v3 does, as the earlier Invoices page documents them', async () => {
    const saved = await hub.request('POST', '/api/v2/invoices', {
      token: provider,
      body: [{ guid, externalId: 'INV-V2', priceNet: 100, currency: 'SEK', dueDate: '2019-01-01' }],
    });
    expect(saved.status).toBe(200);
    expectDeprecated(saved);
    expect(saved.body).toEqual([expect.objectContaining({ externalId: 'INV-V2', guid })]);
    const found = await hub.request('POST', '/api/v2/invoices/find', {
      token: partner,
      body: { filters: { externalId: 'INV-V2' } },
    });
    expect(found.status).toBe(200);
    expectDeprecated(found);
    expect(found.body.data.map((invoice: { id: number }) => invoice.id)).toEqual([saved.body[0].id]);
  });
});

describe('the older paths as a whole', () => {
  it('answer their errors with Deprecation and Sunset too, and v3 with neither', async () => {
    const refused = await hub.request('GET', '/api/v2/accessory?productType=abc', { token: partner });
    expect(refused.status).toBe(400);
    expectDeprecated(refused);
    const current = await hub.request('GET', '/api/v3/accessory?productType=2', { token: partner });
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.headers.get('sunset')).toBeNull();
  });

  it('are each shown deprecated in the OpenAPI document, and no v3 path is', async () => {
    const res = await hub.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    const operations = Object.entries<Record<string, { deprecated?: boolean }>>(res.body.paths).flatMap(
      ([path, methods]) =>
        Object.values(methods).map((operation) => ({ path, deprecated: operation.deprecated === true })),
    );
    const older = operations.filter(({ path }) => /^\/api\/v[12]\//.test(path) || /^\/v[12]\//.test(path));
    expect(older.length).toBeGreaterThan(40);
    expect(older.filter(({ deprecated }) => !deprecated)).toEqual([]);
    expect(operations.filter(({ path, deprecated }) => /\/v3\//.test(path) && deprecated)).toEqual([]);
  });

  it('each answer with Deprecation and Sunset, whatever they answer', async () => {
    const document = (await hub.request('GET', '/api/openapi.json')).body;
    const deprecated = Object.entries<Record<string, { deprecated?: boolean }>>(document.paths).flatMap(
      ([path, methods]) =>
        Object.entries(methods)
          .filter(([, operation]) => operation.deprecated)
          .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{\w+\}/g, '1') })),
    );
    expect(deprecated.length).toBeGreaterThan(40);
    const unmarked: string[] = [];
    for (const { method, path } of deprecated) {
      // Without input most answer a 400 or 404, which is marked as a success would be.
      const res = await hub.request(method, `/api${path}`, { token: partner, body: method === 'GET' ? undefined : {} });
      if (
        res.headers.get('deprecation') !== OLDER_VERSIONS_DEPRECATION ||
        res.headers.get('sunset') !== OLDER_VERSIONS_SUNSET
      )
        unmarked.push(`${method} ${path} (${res.status})`);
    }
    expect(unmarked).toEqual([]);
  });
});
