/**
 * The documentation's "Booking" page: case/validate and case/create with the documented example
 * (demo world ids in place of the example's), the answers checked against the documented shapes.
 */
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { sendDocumented, startDocsHub } from './documented';

let hub: TestHub;
beforeAll(async () => {
  hub = await startDocsHub();
});
afterAll(() => hub?.stop());

const partner = DEMO_TOKENS.elkjop;

/**
 * The page's case/create example on the demo world's Apple laptop (serviceType 2, manufacturer 1,
 * productType 2, location 1), with a serial (the demo world's laptops need one), the shipping
 * method the demo case uses (the one the hub would assign needs a weight) and the partnerSpecific
 * slug Elkjøp's.
 */
export function documentedCreateExample(): Record<string, any> {
  return {
    serviceType: 2,
    manufacturer: 1,
    productType: 2,
    location: 1,
    shipping: 3,
    orderData: {
      consents: { ConsentTerms: true, ConsentRepair: true, ConsentOffers: false },
      infocareSesamOriginator: 'OtherSE',
      partnerSpecific: {
        elkjop: { acmeUniqueStringProperty: 'text', acmeUniqueFloatProperty: 5.1, acmeUniqueBoolProperty: true },
      },
    },
    productData: {
      model: 'iTest 10+',
      serial: 'C02XK0AAJG5H',
      accessory: { '1': true, '4': true, '6': false },
      otherAccessory: 'Accessory(ies) without ID in free text',
      password: '1345',
      problemText: 'Picture/sound problems / Bad picture. Is periodic or constant?: Periodic',
    },
    customer: {
      type: 1,
      organizationName: 'Test LTD',
      organizationNumber: '64236482764',
      mobile: '234234324',
      email: 'test@test.com',
      address: 'test',
      postalCode: '1234',
      city: 'test',
    },
    consumer: {
      type: 0,
      firstName: 'John',
      lastName: 'Doe',
      mobile: '234234324',
      email: 'test@test.com',
      address: 'test',
      postalCode: '1145',
      city: 'test',
    },
    originatorType: 'private',
    bookingType: 'companyToPrivate',
    clientPostalCode: '0150',
  };
}

describe('POST /api/v3/case/validate', () => {
  it('answers { data: { result: true } } for correct data', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/validate', token: partner, body: documentedCreateExample() },
      { status: 200, shape: { data: { result: true } } },
    );
  });

  it('answers 400 with error.details naming each field for incorrect data', async () => {
    const body = documentedCreateExample();
    delete body.productData.password;
    body.location = 999;
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/validate', token: partner, body },
      {
        status: 400,
        shape: {
          error: {
            message: 'Fields validation failed',
            details: {
              'productData.password': ['Field is required'],
              location: ['Value is not present in possible options'],
            },
          },
        },
      },
    );
    expect(res.body.error.message).toBe('Fields validation failed');
  });
});

describe('POST /api/v3/case/create', () => {
  it('books the documented example and answers only its guid', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/create', token: partner, body: documentedCreateExample() },
      { status: 200, shape: { guid: '69b0e17f-eeb9-4834-b809-60b015054c0d' } },
    );
    expect(res.body).not.toHaveProperty('id');
  });

  it('keeps a tracked request findable by its trackingId', async () => {
    await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/create',
        token: partner,
        body: { ...documentedCreateExample(), trackingId: 'docs-booking-1' },
      },
      { status: 200, shape: { guid: '69b0e17f-eeb9-4834-b809-60b015054c0d' } },
    );
    const found = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/requests/find', token: partner, body: { trackingId: 'docs-booking-1' } },
      { status: 200, shape: { data: [{ id: 1, type: 'caseCreated', status: 'success', meta: { trackingId: 'x' } }] } },
    );
    expect(found.body.data).toHaveLength(1);
  });
});
