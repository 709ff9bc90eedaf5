/**
 * Every orderData and productData key the product documents (its "Data types and structures"
 * page and its examples) through the gateway: validated by its documented type, stored, answered
 * in reads, exports and the case events webhooks are made of, and changed by update and append;
 * only keys documented nowhere are discarded (spec 4.4 rule 4).
 */
import type { Knex } from 'knex';
import { type DbService, DOMAIN_EVENTS } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, caseBody } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';

let hub: TestHub;
let knex: Knex;
const outbox = outboxReader(() => knex, 'booking');

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
});
afterAll(() => hub.stop());

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;

const SHIPMENT = {
  guid: '1231d25f-4313-48d4-a48b-000000000000',
  service: 'senderella',
  packageNumber: 'JJFI60277300000170000',
  senderAddress: { city: 'Joensuu', postalCode: '00000', countryCode: 'FI' },
};

/** Every documented orderData key the partner may send at booking, with a value of its documented type. */
const DOCUMENTED_ORDER_DATA = {
  chain: 'ELK-NO',
  refNo: 'REF-DOC-1',
  emballage: true,
  mail: 'Storgata 1, 0150 Oslo',
  partnerSpecific: { elkjop: { internalReference: 3112312312, note: 'FREETEXT123' } },
  providerSpecific: { nrc: { bench: 1 } },
  partnerOrderReference: 'PO-1',
  providerOrderReference: 'WO-1',
  maxRepairPrice: '1500',
  deductible: '300',
  proofOfPurchaseReference: 'RCPT-9',
  skipCostProposalAndRepairForAnyPrice: false,
  contactPerson: 'Kari at the store',
  notifications: { arrived: { sms: true, email: false }, repaired: { email: true } },
  shipmentData: SHIPMENT,
  exportShipmentData: { shipmentNumber: 'EXP-1' },
  infocareSesamOriginator: 'OtherSE',
};

const DOCUMENTED_PRODUCT_DATA = {
  solution: 'Replaced the logic board',
  damage: 'Dent on the lid',
  weight: 1.3,
  volume: { width: 40, height: 8, depth: 30 },
  otherAccessory: 'Sleeve',
};

describe('a booking with every documented key', () => {
  let guid: string;

  beforeAll(async () => {
    await outbox.skip();
    guid = await bookCase(hub, partner, {
      orderData: {
        ...DOCUMENTED_ORDER_DATA,
        consents: { ConsentTerms: true, ConsentRepair: true, ConsentOffers: false },
        undocumentedKey: 'dropped',
      },
      productData: { ...DOCUMENTED_PRODUCT_DATA, accessory: { '1': true, '4': false }, undocumentedKey: 'dropped' },
    });
  });

  it('stores each one and answers it in reads, consents and accessories as lists', async () => {
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.status).toBe(200);
    const { providerSpecific: _providersOwn, ...partnersView } = DOCUMENTED_ORDER_DATA;
    expect(read.body.orderData).toMatchObject({ ...partnersView, consents: ['ConsentTerms', 'ConsentRepair'] });
    // The product: a partner sees only the partnerSpecific data it owns.
    expect(read.body.orderData).not.toHaveProperty('providerSpecific');
    expect(read.body.productData).toMatchObject({ ...DOCUMENTED_PRODUCT_DATA, accessory: ['1'] });
    expect(read.body.orderData).not.toHaveProperty('undocumentedKey');
    expect(read.body.productData).not.toHaveProperty('undocumentedKey');

    const found = await hub.request('POST', '/api/v3/search-cases', {
      token: provider,
      body: { filters: { orderData: { partnerOrderReference: 'PO-1' } } },
    });
    expect(found.body.data.map((entry: { guid: string }) => entry.guid)).toEqual([guid]);
    expect(found.body.data[0].orderData).toMatchObject(DOCUMENTED_ORDER_DATA);
  });

  it('carries each one in the case.created event and in the provider export', async () => {
    const created = (await outbox.newEvents()).find((event) => event.type === DOMAIN_EVENTS.CASE_CREATED);
    expect(created?.payload.case ?? created?.payload).toMatchObject({
      orderData: DOCUMENTED_ORDER_DATA,
      productData: DOCUMENTED_PRODUCT_DATA,
    });
    const exported = await hub.request('GET', `/api/v3/case/export?guid=${guid}`, { token: provider });
    expect(exported.status).toBe(200);
    expect(exported.body.orderData).toMatchObject(DOCUMENTED_ORDER_DATA);
    expect(exported.body.productData).toMatchObject({
      ...DOCUMENTED_PRODUCT_DATA,
      accessory: ['1'],
      accessoryNames: ['Charger'],
    });
  });

  it('lets the per-case notifications choose the channels the notifications endpoint shows', async () => {
    const response = await hub.request('GET', `/api/v3/case/notifications?guid=${guid}`, { token: partner });
    expect(response.status).toBe(200);
    const byKey = Object.fromEntries(response.body.data.map((entry: { key: string }) => [entry.key, entry]));
    expect(byKey.arrived).toMatchObject({ smsNotificationEnabled: true, emailNotificationEnabled: false });
    // A channel or a key the case does not name is allowed, as the documentation's Data types says.
    expect(byKey.repaired).toMatchObject({ smsNotificationEnabled: true, emailNotificationEnabled: true });
    expect(byKey.final).toMatchObject({ smsNotificationEnabled: true, emailNotificationEnabled: true });
  });

  it('changes them through update and append, consents also in the documented list form', async () => {
    const updated = await hub.request('POST', '/api/v3/case/update', {
      token: partner,
      body: {
        guid,
        orderData: { ...DOCUMENTED_ORDER_DATA, chain: 'ELK-SE', consents: ['hello', 'world'] },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ result: true });
    const appended = await hub.request('POST', '/api/v3/case/append', {
      token: provider,
      body: { guid, orderData: { providerSpecific: { nrc: { bench: 2 } } }, productData: { damage: 'None' } },
    });
    expect(appended.status).toBe(200);
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: provider });
    expect(read.body.orderData).toMatchObject({
      chain: 'ELK-SE',
      consents: ['hello', 'world'],
      providerSpecific: { nrc: { bench: 2 } },
      infocareSesamOriginator: 'OtherSE',
    });
    expect(read.body.productData.damage).toBe('None');
    const partnersRead = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(partnersRead.body.orderData).toMatchObject({ chain: 'ELK-SE', infocareSesamOriginator: 'OtherSE' });
    expect(partnersRead.body.orderData).not.toHaveProperty('providerSpecific');
    const partnersSearch = await hub.request('POST', '/api/v3/search-cases', {
      token: partner,
      body: { filters: { guid } },
    });
    expect(partnersSearch.body.data[0].orderData).not.toHaveProperty('providerSpecific');
  });

  it("keeps each party's own keys from the other party's update", async () => {
    await outbox.skip();
    const replaced = await hub.request('POST', '/api/v3/case/update', {
      token: partner,
      body: { guid, orderData: { refNo: 'REF-DOC-2', providerSpecific: { nrc: { bench: 9 } } } },
    });
    expect(replaced.status).toBe(200);
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: provider });
    expect(read.body.orderData).toMatchObject({
      refNo: 'REF-DOC-2',
      providerSpecific: { nrc: { bench: 2 } },
      providerOrderReference: 'WO-1',
    });
    expect(read.body.orderData).not.toHaveProperty('chain');
    expect(read.body.orderData).not.toHaveProperty('partnerSpecific');
  });

  it("lets no partner search by the provider's private data", async () => {
    const appended = await hub.request('POST', '/api/v3/case/append', {
      token: provider,
      body: { guid, orderData: { providerSpecific: { nrc: { note: 'BENCH-ONLY-7731' } } } },
    });
    expect(appended.status).toBe(200);
    const search = (token: string, filters: Record<string, unknown>) =>
      hub.request('POST', '/api/v3/search-cases', { token, body: { filters } });
    const guidsOf = (res: { body: { data: Array<{ guid: string }> } }) => res.body.data.map((entry) => entry.guid);

    expect(guidsOf(await search(provider, { commonSearch: 'BENCH-ONLY-7731' }))).toEqual([guid]);
    expect(guidsOf(await search(provider, { 'orderData.providerSpecific.nrc.note': 'BENCH-ONLY-7731' }))).toEqual([
      guid,
    ]);
    expect(guidsOf(await search(partner, { commonSearch: 'BENCH-ONLY-7731' }))).toEqual([]);
    // The partner's own orderData is still found by the same search.
    expect(guidsOf(await search(partner, { commonSearch: 'REF-DOC-2' }))).toEqual([guid]);
    for (const filters of [
      { 'orderData.providerSpecific.nrc.note': 'BENCH-ONLY-7731' },
      { orderData: { providerSpecific: { nrc: { note: 'BENCH-ONLY-7731' } } } },
    ]) {
      const refused = await search(partner, filters);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual({
        'filters.orderData.providerSpecific.nrc.note': ['Field is not accepted'],
      });
    }
  });
});

describe('documented types', () => {
  it('refuses a value of another type, naming the field, and books nothing', async () => {
    const wrong: Array<[Record<string, unknown>, string | string[]]> = [
      [{ orderData: { chain: 7 } }, 'orderData.chain'],
      [{ orderData: { providerSpecific: 'x' } }, 'orderData.providerSpecific'],
      [
        { orderData: { skipCostProposalAndRepairForAnyPrice: 'yes' } },
        'orderData.skipCostProposalAndRepairForAnyPrice',
      ],
      [{ orderData: { maxRepairPrice: 1500 } }, 'orderData.maxRepairPrice'],
      [{ orderData: { shipmentData: [] } }, 'orderData.shipmentData'],
      [{ orderData: { forwardingShipmentData: 'x' } }, 'orderData.forwardingShipmentData'],
      [{ orderData: { notifications: { arrived: { sms: 'on' } } } }, 'orderData.notifications.arrived.sms'],
      [{ orderData: { consents: 'all' } }, 'orderData.consents'],
      [{ productData: { solution: ['x'] } }, 'productData.solution'],
      [{ productData: { volume: { width: 1, height: 2 } } }, 'productData.volume'],
      [{ productData: { volume: -1 } }, 'productData.volume'],
      [{ productData: { accessory: ['x'] } }, ['productData.accessory', 'productData.accessory[0]']],
    ];
    const before = await knex('booking.cases').count<Array<{ count: string }>>('id as count');
    for (const [override, field] of wrong) {
      const response = await hub.request('POST', '/api/v3/case/validate', {
        token: partner,
        body: caseBody(partner, override),
      });
      expect({ override, status: response.status, fields: Object.keys(response.body.error?.details ?? {}) }).toEqual({
        override,
        status: 400,
        fields: [field].flat(),
      });
    }
    expect(await knex('booking.cases').count<Array<{ count: string }>>('id as count')).toEqual(before);
  });

  it('takes Dimensions as a volume or as a box, and a bare volume number', async () => {
    for (const volume of [{ volume: 0.4 }, { width: 40, height: 8, depth: 30 }, 0.4]) {
      const response = await hub.request('POST', '/api/v3/case/validate', {
        token: partner,
        body: caseBody(partner, { productData: { volume } }),
      });
      expect({ volume, status: response.status }).toEqual({ volume, status: 200 });
    }
  });

  it('books for the documented originator registered and booking type companyToCompany', async () => {
    const guid = await bookCase(hub, partner, { originatorType: 'registered', bookingType: 'companyToCompany' });
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.body.orderData).toMatchObject({ originatorType: 'registered', bookingType: 'companyToCompany' });
    const helpdeskOnly = await hub.request('POST', '/api/v3/case/validate', {
      token: partner,
      body: caseBody(partner, { originatorType: 'registered', pickupDestination: 'customPrivate' }),
    });
    expect(helpdeskOnly.status).toBe(400);
    expect(helpdeskOnly.body.error.details).toMatchObject({ pickupDestination: ['Field is not accepted'] });
  });
});
