/** Every booking rule of spec 4.4 through the gateway: one request that breaks it, one that keeps it. */
import { databaseOf, FIELD_MESSAGES } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, caseBody } from '../../../test/support/cases';

const { required, notAnOption, mustBeTrue, notAccepted, wrongFormat } = FIELD_MESSAGES;

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
});
afterAll(() => hub.stop());

type Body = Record<string, any>;

async function validate(token: string, overrides: Body, drop: string[] = []) {
  const body = caseBody(token, overrides);
  for (const key of drop) delete body[key];
  return hub.request('POST', '/api/v3/case/validate', { token, body });
}

/** Expects a 400 whose details are exactly `details`. */
async function rejects(token: string, overrides: Body, details: Record<string, string[]>, drop: string[] = []) {
  const response = await validate(token, overrides, drop);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({ error: { message: 'Fields validation failed', details } });
}

async function accepts(token: string, overrides: Body, drop: string[] = []) {
  const response = await validate(token, overrides, drop);
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { data: { result: true } } });
}

const elkjop = DEMO_TOKENS.elkjop;
const power = DEMO_TOKENS.power;
const core = async (guid: string) => (await hub.broker.call<any[], object>('booking.caseCores', { guids: [guid] }))[0];

describe('case/validate', () => {
  it('answers { data: { result: true } } for a valid body', () => accepts(elkjop, {}));

  it('reports every failing field at once with the spec messages', async () => {
    const response = await hub.request('POST', '/api/v3/case/validate', {
      token: elkjop,
      body: {
        serviceType: 'x',
        manufacturer: 1,
        originatorType: 'shop',
        acceptConditions: false,
        customer: { type: 0 },
        orderData: { pickupDate: 'soon' },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual({
      serviceType: [wrongFormat],
      productType: [required],
      location: [required],
      productData: [required],
      clientPostalCode: [required],
      originatorType: [notAnOption],
      bookingType: [required],
      'orderData.pickupDate': [wrongFormat],
      acceptConditions: [mustBeTrue],
      'customer.firstName': [required],
      'customer.lastName': [required],
    });
  });

  it('changes nothing', async () => {
    const db = (await databaseOf(hub.broker)).knex;
    const before = await db('booking.cases').count<{ count: number }[]>('id as count');
    await accepts(elkjop, {});
    const after = await db('booking.cases').count<{ count: number }[]>('id as count');
    expect(after[0].count).toBe(before[0].count);
  });
});

describe('values must be among what the lookups offer this partner', () => {
  it('refuses a service type, manufacturer, product type, location or shipping not offered', async () => {
    await rejects(elkjop, { manufacturer: 5 }, { manufacturer: [notAnOption] });
    await rejects(elkjop, { productType: 4 }, { productType: [notAnOption] });
    await rejects(elkjop, { location: 3 }, { location: [notAnOption] });
    await rejects(elkjop, { shipping: 4 }, { shipping: [notAnOption] });
    await rejects(elkjop, { serviceType: 99 }, { serviceType: [notAnOption] });
    await rejects(DEMO_TOKENS.trygg, { serviceType: 2 }, { serviceType: [notAnOption] });
  });

  it('accepts a manufacturer and product type by name or alias', () =>
    accepts(elkjop, { manufacturer: 'apple inc', productType: 'Notebook' }));
});

describe('conditional rules', () => {
  it('1: a password for product types that need one, unless noPassword', async () => {
    await rejects(elkjop, { productData: { password: undefined } }, { 'productData.password': [required] });
    await accepts(elkjop, { noPassword: true, productData: { password: undefined } });
  });

  it('2: an IMEI for mobile phones', async () => {
    await rejects(elkjop, { productType: 1, productData: { serial: undefined } }, { 'productData.imei': [required] });
    await accepts(elkjop, { productType: 1, productData: { serial: undefined, imei: '356938035643809' } });
  });

  it('3: a serial for product types that need one, not for low-cost ones', async () => {
    await rejects(elkjop, { productData: { serial: undefined } }, { 'productData.serial': [required] });
    await accepts(elkjop, { productType: 5, productData: { serial: undefined, password: undefined } });
  });

  it('4 and 5: names for a private contact, organization name and number for a company', async () => {
    await rejects(
      elkjop,
      { customer: { type: 0, firstName: '', lastName: undefined } },
      { 'customer.firstName': [required], 'customer.lastName': [required] },
    );
    await rejects(
      elkjop,
      { customer: { type: 1, organizationName: 'Shop AS' } },
      { 'customer.organizationNumber': [required] },
    );
    await accepts(elkjop, {
      customer: {
        type: 1,
        firstName: undefined,
        lastName: undefined,
        organizationName: 'Shop AS',
        organizationNumber: '999 999 999',
      },
    });
  });

  it('6: purchase date and attached files for warranty repairs', async () => {
    await rejects(
      elkjop,
      { serviceType: 1 },
      { 'productData.purchaseDate': [required], 'productData.attachedFiles': [required] },
    );
    await accepts(elkjop, {
      serviceType: 1,
      productData: {
        purchaseDate: '2026-03-01',
        attachedFiles: [{ url: 'https://files.example/receipt.pdf', name: 'receipt.pdf' }],
      },
    });
  });

  it('7: insurance number and company for insurance repairs', async () => {
    await rejects(
      elkjop,
      { serviceType: 3 },
      { 'productData.insuranceNumber': [required], 'productData.insuranceCompany': [required] },
    );
    await accepts(elkjop, { serviceType: 3, productData: { insuranceNumber: 'P-1', insuranceCompany: 'Trygg' } });
  });

  it('8: acceptConditions must be true unless consents are sent', async () => {
    await rejects(elkjop, { acceptConditions: false }, { acceptConditions: [mustBeTrue] });
    await rejects(elkjop, {}, { acceptConditions: [required] }, ['acceptConditions']);
    await accepts(elkjop, { orderData: { consents: { terms: true } } }, ['acceptConditions']);
  });

  it('8: refuses a consent named __proto__ rather than reading the consents as empty', async () => {
    const consents = JSON.parse('{"__proto__": true}');
    await rejects(
      elkjop,
      { orderData: { consents } },
      // The second message is the list form of consents, which an object is not either.
      { 'orderData.consents': ['Key __proto__ is not accepted', wrongFormat] },
      ['acceptConditions'],
    );
    const notifications = JSON.parse('{"__proto__": {"sms": true}, "customer": {"email": true}}');
    await rejects(
      elkjop,
      { orderData: { notifications } },
      { 'orderData.notifications': ['Key __proto__ is not accepted'] },
    );
  });

  it('9 and 11: pickup date and goods type from the list for carriers that need them', async () => {
    await rejects(elkjop, { shipping: 1 }, { 'orderData.pickupDate': [required], 'orderData.goodsType': [required] });
    await rejects(
      elkjop,
      { shipping: 1, orderData: { pickupDate: '2026-12-01', goodsType: 'crate' } },
      { 'orderData.goodsType': [notAnOption] },
    );
    await accepts(elkjop, { shipping: 1, orderData: { pickupDate: '2026-12-01', goodsType: 'parcel' } });
  });

  it('10: weight and volume for carriers that need them', async () => {
    await rejects(elkjop, { shipping: 2 }, { 'productData.weight': [required] });
    await accepts(elkjop, { shipping: 2, productData: { weight: 2.5 } });
    const washer = { manufacturer: 5, productType: 4, productData: { password: undefined, model: 'EW6F' } };
    await rejects(
      power,
      { ...washer, shipping: 4, orderData: { pickupDate: '2026-12-02', goodsType: 'large item' } },
      {
        'productData.weight': [required],
        'productData.volume': [required],
      },
    );
    await accepts(power, {
      ...washer,
      shipping: 4,
      orderData: { pickupDate: '2026-12-02', goodsType: 'large item' },
      productData: { ...washer.productData, weight: 70, volume: 0.4 },
    });
  });

  it('12: mail when the partner supports packaging and emballage is true', async () => {
    await rejects(elkjop, { orderData: { emballage: true } }, { 'orderData.mail': [required] });
    await accepts(elkjop, { orderData: { emballage: true, mail: 'kari@example.com' } });
    await accepts(power, { orderData: { emballage: true } });
  });
});

describe('structural rules', () => {
  const person = { type: 0, firstName: 'Ola', lastName: 'Nordmann' };
  const company = { type: 1, organizationName: 'Pickup AS', organizationNumber: '123' };

  it('takes a consumer only when the booking is not private to private', async () => {
    await rejects(elkjop, { bookingType: 'privateToPrivate', consumer: person }, { consumer: [notAccepted] });
    await accepts(elkjop, { consumer: person });
  });

  it('takes pickup and return destinations only from help desks', async () => {
    await rejects(elkjop, { pickupDestination: 'consumer' }, { pickupDestination: [notAccepted] });
    await accepts(elkjop, { originatorType: 'helpdesk', pickupDestination: 'consumer', returnDestination: 'consumer' });
  });

  it('needs pickupDst/returnDst only when the destination is not the consumer', async () => {
    await rejects(
      elkjop,
      { originatorType: 'helpdesk', pickupDestination: 'customCompany' },
      { pickupDst: [required] },
    );
    await rejects(elkjop, { returnDst: company }, { returnDst: [notAccepted] });
    await accepts(elkjop, {
      originatorType: 'helpdesk',
      pickupDestination: 'customCompany',
      pickupDst: company,
      returnDestination: 'customPrivate',
      returnDst: person,
    });
  });

  it('does not accept orderData.files', async () => {
    await rejects(
      elkjop,
      { orderData: { files: [{ url: 'https://x.example/a.pdf' }] } },
      { 'orderData.files': [notAccepted] },
    );
  });

  it('discards unexpected fields without an error', async () => {
    const guid = await bookCase(hub, elkjop, {
      colour: 'red',
      orderData: { internalFlag: true },
      productData: { secret: 1 },
      customer: { shoeSize: 44 },
    });
    const stored = await core(guid);
    expect(JSON.stringify(stored)).not.toMatch(/colour|internalFlag|secret|shoeSize/);
  });
});

describe('routing and shipping', () => {
  it('assigns the first shipping method by name when none is sent', async () => {
    await rejects(elkjop, {}, { 'productData.weight': [required] }, ['shipping']);
    const body = caseBody(elkjop, { productData: { weight: 1.2 } });
    delete body.shipping;
    const response = await hub.request('POST', '/api/v3/case/create', { token: elkjop, body });
    expect(response.status).toBe(200);
    expect(await core(response.body.guid)).toMatchObject({
      shippingMethodId: 2,
      shippingMethod: { id: 2, name: 'Bring home delivery' },
    });
  });

  it('keeps a sent shipping method', async () => {
    expect(
      await core(
        await bookCase(hub, elkjop, { shipping: 1, orderData: { pickupDate: '2026-12-01', goodsType: 'pallet' } }),
      ),
    ).toMatchObject({ shippingMethodId: 1 });
  });

  it('routes by the competences: postal code decides the department', async () => {
    expect(await core(await bookCase(hub, elkjop, { clientPostalCode: '5003' }))).toMatchObject({
      serviceProviderId: 10,
      serviceProviderDepartmentId: 102,
    });
  });

  it('forcedProvider bypasses routing for accounts allowed to use it', async () => {
    const forced = await core(await bookCase(hub, elkjop, { forcedProvider: 20 }));
    expect(forced).toMatchObject({
      serviceProviderId: 20,
      serviceProvider: { id: 20, name: 'Svea Service Verkstad' },
      serviceProviderDepartmentId: null,
    });
    await rejects(power, { forcedProvider: 20 }, { forcedProvider: [notAccepted] });
    await rejects(elkjop, { forcedProvider: 999 }, { forcedProvider: [notAnOption] });
  });
});
