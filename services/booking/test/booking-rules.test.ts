import { FIELD_MESSAGES } from '@hub/shared';
import { checkBookingShape, type BookingBody } from '../src/booking-body';
import { chooseShipping, findOption } from '../src/booking-options';
import {
  acceptConditionsRule,
  conditionalRules,
  mergeDetails,
  structuralRules,
  type RuleReference,
} from '../src/booking-rules';

const { required, notAnOption, mustBeTrue, notAccepted, wrongFormat } = FIELD_MESSAGES;

function body(overrides: Partial<BookingBody> = {}): BookingBody {
  return {
    serviceType: 2,
    manufacturer: 1,
    productType: 1,
    location: 1,
    clientPostalCode: '0150',
    originatorType: 'private',
    bookingType: 'companyToPrivate',
    acceptConditions: true,
    customer: { type: 0, firstName: 'Kari', lastName: 'Nordmann' },
    orderData: {},
    productData: {},
    ...overrides,
  };
}

const none: RuleReference = {};

describe('structural rules', () => {
  it('accepts a consumer unless the booking is private to private', () => {
    expect(structuralRules(body({ consumer: { type: 0, firstName: 'A', lastName: 'B' } }))).toEqual({});
    expect(
      structuralRules(body({ bookingType: 'privateToPrivate', consumer: { type: 0, firstName: 'A', lastName: 'B' } })),
    ).toEqual({ consumer: [notAccepted] });
    expect(structuralRules(body({ bookingType: 'privateToPrivate' }))).toEqual({});
  });

  it('takes destinations only from help desks', () => {
    expect(structuralRules(body({ pickupDestination: 'consumer' }))).toEqual({ pickupDestination: [notAccepted] });
    expect(
      structuralRules(
        body({ originatorType: 'helpdesk', pickupDestination: 'consumer', returnDestination: 'consumer' }),
      ),
    ).toEqual({});
  });

  it('needs pickupDst/returnDst exactly when the destination is not the consumer', () => {
    const contact = { type: 1 as const, organizationName: 'Shop', organizationNumber: '1' };
    expect(
      structuralRules(
        body({ originatorType: 'helpdesk', pickupDestination: 'customCompany', returnDestination: 'customPrivate' }),
      ),
    ).toEqual({
      pickupDst: [required],
      returnDst: [required],
    });
    expect(
      structuralRules(body({ originatorType: 'helpdesk', pickupDestination: 'customCompany', pickupDst: contact })),
    ).toEqual({});
    expect(structuralRules(body({ pickupDst: contact, returnDst: contact }))).toEqual({
      pickupDst: [notAccepted],
      returnDst: [notAccepted],
    });
  });

  it('refuses orderData.files', () => {
    expect(structuralRules(body({ orderData: { files: [] } }))).toEqual({ 'orderData.files': [notAccepted] });
  });

  it('rules 4 and 5: names for a private contact, organization for a company', () => {
    expect(structuralRules(body({ customer: { type: 0, firstName: ' ' } }))).toEqual({
      'customer.firstName': [required],
      'customer.lastName': [required],
    });
    expect(
      structuralRules(body({ customer: { type: 1, organizationName: 'Shop' }, consumer: { type: 0, lastName: 'B' } })),
    ).toEqual({
      'customer.organizationNumber': [required],
      'consumer.firstName': [required],
    });
    expect(structuralRules(body({ customer: { type: 1, organizationName: 'Shop', organizationNumber: '9' } }))).toEqual(
      {},
    );
  });
});

describe('rule 8: acceptConditions', () => {
  it('must be true without consents', () => {
    expect(acceptConditionsRule(body())).toEqual({});
    expect(acceptConditionsRule(body({ acceptConditions: false }))).toEqual({ acceptConditions: [mustBeTrue] });
    expect(acceptConditionsRule(body({ acceptConditions: undefined }))).toEqual({ acceptConditions: [required] });
  });
  it('is not needed with a non-empty consents object', () => {
    expect(
      acceptConditionsRule(body({ acceptConditions: undefined, orderData: { consents: { terms: true } } })),
    ).toEqual({});
    expect(acceptConditionsRule(body({ acceptConditions: undefined, orderData: { consents: {} } }))).toEqual({
      acceptConditions: [required],
    });
  });
});

describe('conditional rules from reference data', () => {
  const phone: RuleReference = {
    productType: { properties: { requireImei: true, requirePassword: true, requireSerial: false } },
  };
  const laptop: RuleReference = { productType: { properties: { requireSerial: true, allowPassword: true } } };

  it('rule 1: password where the product type asks for one, bypassed by noPassword', () => {
    expect(conditionalRules(body(), laptop)).toEqual({
      'productData.password': [required],
      'productData.serial': [required],
    });
    expect(conditionalRules(body({ noPassword: true, productData: { serial: 'S1' } }), laptop)).toEqual({});
    expect(conditionalRules(body({ productData: { serial: 'S1', noPassword: true } }), laptop)).toEqual({});
    expect(conditionalRules(body({ productData: { serial: 'S1', password: '1234' } }), laptop)).toEqual({});
  });

  it('rules 2 and 3: IMEI for phones, serial otherwise unless low cost', () => {
    expect(conditionalRules(body({ productData: { password: 'x' } }), phone)).toEqual({
      'productData.imei': [required],
    });
    expect(conditionalRules(body({ productData: { password: 'x', imei: '356938035643809' } }), phone)).toEqual({});
    expect(conditionalRules(body(), { productType: { properties: { requireSerial: true, lowCost: true } } })).toEqual(
      {},
    );
    expect(
      conditionalRules(body(), { productType: { properties: { requireSerial: true, requireImei: true } } }),
    ).toEqual({ 'productData.imei': [required] });
  });

  it('rule 6: purchase date and attached files for warranty service types', () => {
    const warranty: RuleReference = { serviceType: { properties: { requirePurchaseDate: true } } };
    expect(conditionalRules(body({ productData: { attachedFiles: [] } }), warranty)).toEqual({
      'productData.purchaseDate': [required],
      'productData.attachedFiles': [required],
    });
    expect(
      conditionalRules(
        body({ productData: { purchaseDate: '2026-01-02', attachedFiles: [{ url: 'https://x/r.pdf' }] } }),
        warranty,
      ),
    ).toEqual({});
  });

  it('rule 7: insurance number and company for insurance service types', () => {
    const insurance: RuleReference = { serviceType: { properties: { requireInsuranceNumber: true } } };
    expect(conditionalRules(body({ productData: { insuranceCompany: 'Trygg' } }), insurance)).toEqual({
      'productData.insuranceNumber': [required],
    });
    expect(
      conditionalRules(body({ productData: { insuranceCompany: 'Trygg', insuranceNumber: 'P-1' } }), insurance),
    ).toEqual({});
  });

  it('rules 9 to 11: pickup date, weight, volume and goods type from the shipping method', () => {
    const freight: RuleReference = {
      shippingMethod: {
        properties: { requirePickupDate: true, goodsTypeList: ['pallet'] },
        requireWeight: true,
        requireVolume: true,
      },
    };
    expect(conditionalRules(body(), freight)).toEqual({
      'orderData.pickupDate': [required],
      'productData.weight': [required],
      'productData.volume': [required],
      'orderData.goodsType': [required],
    });
    expect(
      conditionalRules(
        body({ orderData: { pickupDate: '2026-12-01', goodsType: 'parcel' }, productData: { weight: 3, volume: 1 } }),
        freight,
      ),
    ).toEqual({
      'orderData.goodsType': [notAnOption],
    });
    expect(
      conditionalRules(
        body({ orderData: { pickupDate: '2026-12-01', goodsType: 'pallet' }, productData: { weight: 3, volume: 1 } }),
        freight,
      ),
    ).toEqual({});
    // The spec: a pickup date is needed whenever requirePickupDate is not false.
    expect(conditionalRules(body(), { shippingMethod: { properties: { goodsTypeList: null } } })).toEqual({
      'orderData.pickupDate': [required],
    });
    expect(
      conditionalRules(body(), { shippingMethod: { properties: { requirePickupDate: false, goodsTypeList: null } } }),
    ).toEqual({});
    expect(conditionalRules(body(), none)).toEqual({});
  });

  it('rule 12: mail when the partner supports packaging and emballage is true', () => {
    const packaging: RuleReference = { partnerSettings: { supportsPackaging: true } };
    expect(conditionalRules(body({ orderData: { emballage: true } }), packaging)).toEqual({
      'orderData.mail': [required],
    });
    expect(conditionalRules(body({ orderData: { emballage: true, mail: 'a@b.no' } }), packaging)).toEqual({});
    expect(conditionalRules(body({ orderData: { emballage: false } }), packaging)).toEqual({});
    expect(
      conditionalRules(body({ orderData: { emballage: true } }), { partnerSettings: { supportsPackaging: false } }),
    ).toEqual({});
  });

  it("mandatory consents: each of the partner's given, in either form consents are sent in", () => {
    const mandatory: RuleReference = { partnerSettings: { mandatoryConsents: ['ConsentTerms', 'ConsentRepair'] } };
    const consenting = (consents: unknown) => conditionalRules(body({ orderData: { consents } as never }), mandatory);
    expect(consenting({ ConsentTerms: true, ConsentRepair: true, ConsentOffers: false })).toEqual({});
    expect(consenting(['ConsentRepair', 'ConsentTerms'])).toEqual({});
    expect(consenting({ ConsentTerms: false, ConsentRepair: true })).toEqual({
      'orderData.consents.ConsentTerms': [mustBeTrue],
    });
    expect(consenting(['ConsentTerms'])).toEqual({ 'orderData.consents.ConsentRepair': [required] });
    expect(conditionalRules(body(), mandatory)).toEqual({
      'orderData.consents.ConsentTerms': [required],
      'orderData.consents.ConsentRepair': [required],
    });
    expect(conditionalRules(body(), { partnerSettings: { mandatoryConsents: [] } })).toEqual({});
  });

  it('merges every failing field at once', () => {
    expect(mergeDetails({ a: [required] }, { a: [required, wrongFormat] }, { b: [notAnOption] })).toEqual({
      a: [required, wrongFormat],
      b: [notAnOption],
    });
  });
});

describe('body shape', () => {
  it('discards unexpected fields at every level', () => {
    const raw = {
      ...body(),
      extra: 1,
      orderData: { refNo: 'R1', surprise: true },
      customer: { type: 0, firstName: 'A', lastName: 'B', x: 1 },
    };
    const { body: checked, details } = checkBookingShape(raw);
    expect(details).toEqual({});
    expect(checked).not.toHaveProperty('extra');
    expect(checked.orderData).toEqual({ refNo: 'R1' });
    expect(checked.customer).toEqual({ type: 0, firstName: 'A', lastName: 'B' });
    expect(raw).toHaveProperty('extra', 1);
  });

  it('refuses values of the wrong JSON type instead of converting them', () => {
    const { details } = checkBookingShape({
      ...body(),
      serviceType: 'two',
      acceptConditions: 'true',
      productData: { weight: '2.5' },
      forcedProvider: 2147483648,
    });
    expect(details).toEqual({
      serviceType: [wrongFormat],
      acceptConditions: [wrongFormat],
      'productData.weight': [wrongFormat],
      forcedProvider: ['Must be at most 2147483647'],
    });
  });

  it('reads an integer sent as its digits as that integer, as the product documents', () => {
    const checked = checkBookingShape({ ...body(), serviceType: '2' });
    expect(checked.details).toEqual({});
    expect(checked.body.serviceType).toBe(2);
  });

  it('takes dates and times that exist only', () => {
    const dated = (purchaseDate: string, pickupDate: string) =>
      checkBookingShape({ ...body(), orderData: { pickupDate }, productData: { purchaseDate } }).details;
    expect(dated('2024-02-29', '2026-12-01T10:00:00+01:00')).toEqual({});
    expect(dated('2024-13-45', '2026-02-30')).toEqual({
      'productData.purchaseDate': [wrongFormat],
      'orderData.pickupDate': [wrongFormat],
    });
    expect(dated('0000-01-01', '2026-12-01T25:00')).toEqual({
      'productData.purchaseDate': [wrongFormat],
      'orderData.pickupDate': [wrongFormat],
    });
  });

  it('names every structural failure with the spec messages', () => {
    const { details } = checkBookingShape({
      originatorType: 'shop',
      productData: { imei: '35-209900-176148-1-234' },
      customer: { email: 'no' },
    });
    expect(details).toMatchObject({
      serviceType: [required],
      manufacturer: [required],
      productType: [required],
      location: [required],
      orderData: [required],
      clientPostalCode: [required],
      originatorType: [notAnOption],
      bookingType: [required],
      'productData.imei': ['Must be at most 20 characters'],
      'customer.email': [wrongFormat],
      'customer.type': [required],
    });
  });
});

describe('options', () => {
  const options = [
    { id: 2, name: 'Bring home delivery' },
    { id: 1, name: 'PostNord pickup' },
    { id: 3, name: 'Customer drop-off', aliases: ['Drop'] },
  ];
  it('finds an option by id, name or alias', () => {
    expect(findOption(options, 1)?.id).toBe(1);
    expect(findOption(options, '3')?.id).toBe(3);
    expect(findOption(options, 'postnord PICKUP')?.id).toBe(1);
    expect(findOption(options, 'drop')?.id).toBe(3);
    expect(findOption(options, 9)).toBeUndefined();
  });
  it('keeps a sent shipping method only when offered, else assigns the first by name', () => {
    expect(chooseShipping(options, 1)).toEqual({ method: options[1], assigned: false });
    expect(chooseShipping(options, 4)).toEqual({ error: 'notAnOption' });
    expect(chooseShipping(options, undefined)).toEqual({ method: options[0], assigned: true });
    expect(chooseShipping([], undefined)).toEqual({ method: null, assigned: false });
  });
});
