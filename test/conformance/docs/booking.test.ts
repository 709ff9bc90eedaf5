/**
 * The documentation's "Booking" page: case/validate and case/create with the documented example
 * (demo world ids in place of the example's), the answers checked against the documented shapes.
 */
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { sendDocumented, useDocsHub } from './documented';
import { documentedExample, documentedShape } from './reference';

let hub: TestHub;
useDocsHub((started) => {
  hub = started;
});

const partner = DEMO_TOKENS.elkjop;

const PAGE = 'Booking';
const CREATE = 'POST /api/v3/case/create';
const VALIDATE = 'POST /api/v3/case/validate';

/**
 * The page's case/create example, read from the page, on the demo world's Apple laptop
 * (serviceType 2, manufacturer 1, productType 2, location 1): with a serial (the demo world's
 * laptops need one), the shipping method the demo case uses (the one the hub would assign needs
 * a weight), Elkjøp's partnerSpecific slug and accessories, and a client postal code Elkjøp's
 * competences route.
 */
export function documentedCreateExample(): Record<string, any> {
  const example = documentedExample(PAGE, CREATE, 'Example') as Record<string, any>;
  const { partnerSpecific } = example.orderData;
  return {
    ...example,
    serviceType: 2,
    manufacturer: 1,
    productType: 2,
    location: 1,
    shipping: 3,
    orderData: { ...example.orderData, partnerSpecific: { elkjop: Object.values(partnerSpecific)[0] } },
    productData: {
      ...example.productData,
      serial: 'C02XK0AAJG5H',
      accessory: Object.fromEntries(
        Object.values(example.productData.accessory)
          .slice(0, 3)
          .map((chosen, index) => [[1, 4, 6][index], chosen]),
      ),
    },
    clientPostalCode: '0150',
  };
}

describe('POST /api/v3/case/validate', () => {
  it('answers { data: { result: true } } for correct data', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/validate', token: partner, body: documentedCreateExample() },
      { status: 200, shape: documentedShape(PAGE, VALIDATE, 'Output') },
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
        // The page's example names four fields; this body gets two of them wrong.
        shape: documentedShape(PAGE, VALIDATE, 'Output', {
          index: 1,
          replace: { 'error.details': { 'productData.password': ['Field is required'], location: ['Wrong'] } },
        }),
      },
    );
    const documented = documentedExample(PAGE, VALIDATE, 'Output', 1) as {
      error: { details: Record<string, string[]> };
    };
    expect(res.body.error.details).toMatchObject({
      'productData.password': documented.error.details['productData.password'],
      location: documented.error.details.location,
    });
    expect(res.body.error.message).toBe('Fields validation failed');
  });
});

describe('POST /api/v3/case/create', () => {
  it('books the documented example and answers only its guid', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/create', token: partner, body: documentedCreateExample() },
      { status: 200, shape: documentedShape(PAGE, CREATE, 'Output') },
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
      { status: 200, shape: documentedShape(PAGE, CREATE, 'Output') },
    );
    const found = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/requests/find', token: partner, body: { trackingId: 'docs-booking-1' } },
      { status: 200, shape: { data: [{ id: 1, type: 'caseCreated', status: 'success', meta: { trackingId: 'x' } }] } },
    );
    expect(found.body.data).toHaveLength(1);
  });
});
