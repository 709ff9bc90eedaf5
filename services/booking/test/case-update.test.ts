/**
 * case/update, its v2 path and case/append through the gateway: replacing and merging each part,
 * tags, the booking rules on what changes, access per party and the `case.updated` diff.
 */
import type { Knex } from 'knex';
import { type DbService, DOMAIN_EVENTS, OLDER_VERSIONS_DEPRECATION } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';

let hub: TestHub;
let knex: Knex;
let guid: string;
const outbox = outboxReader(() => knex, 'booking');

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop, { orderData: { partnerSpecific: { elkjop: { store: 'A1' } } } });
  await outbox.skip();
});
afterAll(() => hub.stop());

const update = (token: string, body: unknown, path = '/api/v3/case/update') =>
  hub.request('POST', path, { token, body });
const append = (token: string, body: unknown) => hub.request('POST', '/api/v3/case/append', { token, body });
const read = async (token = DEMO_TOKENS.elkjop) => {
  const response = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token });
  expect(response.status).toBe(200);
  return response.body;
};

describe('POST /api/v3/case/update', () => {
  it('replaces orderData, keeps the hub its own keys, and tells the provider exactly what changed', async () => {
    const response = await update(DEMO_TOKENS.elkjop, {
      guid,
      orderData: { refNo: 'REF-2', activityNumber: 'ACT-9', bookingType: 'privateToPrivate', surprise: 1 },
    });
    expect(response.status).toBe(200);
    // The product's answer; the changed case is read back.
    expect(response.body).toEqual({ result: true });
    const changed = await read();
    expect(changed.orderData).toEqual({
      refNo: 'REF-2',
      activityNumber: 'ACT-9',
      bookingType: 'companyToPrivate',
      originatorType: 'private',
      clientPostalCode: '0150',
      pickupDestination: 'consumer',
      returnDestination: 'consumer',
      integrationsFinished: false,
      serviceProviderExportStatus: false,
    });

    const events = await outbox.newEvents();
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe(DOMAIN_EVENTS.CASE_UPDATED);
    expect(events[0].case_guid).toBe(guid);
    expect(events[0].audience).toEqual({ providerId: 10 });
    expect(events[0].payload).toEqual({
      guid,
      orderData: { refNo: 'REF-2', activityNumber: 'ACT-9', partnerSpecific: null },
    });
  });

  it('replaces a contact in place; sender, receiver and country follow, and the diff names changed fields only', async () => {
    const before = await read();
    const response = await update(DEMO_TOKENS.nrc, {
      guid,
      customer: { type: 0, firstName: 'Kari', lastName: 'Berg', countryCode: 'SE', email: 'kari@example.com' },
    });
    expect(response.status).toBe(200);
    const after = await read();
    expect(after.customer).toMatchObject({
      id: before.customer.id,
      createdAt: before.customer.createdAt,
      lastName: 'Berg',
      address: null,
      countryCode: 'SE',
    });
    expect(after.sender).toMatchObject({ id: before.sender.id, lastName: 'Berg' });
    expect(after.country).toBe('SE');

    const [event] = await outbox.newEvents();
    expect(event.audience).toEqual({ partnerId: 1 });
    const changed = { lastName: 'Berg', countryCode: 'SE', address: null, postalCode: null, city: null, phone: null };
    expect(event.payload).toEqual({ guid, customer: changed, sender: changed, receiver: changed });
  });

  it('sets the full list of tags by id', async () => {
    const response = await update(DEMO_TOKENS.elkjop, { guid, tags: [1, 2] });
    expect(response.status).toBe(200);
    expect((await read()).tags).toEqual([
      { id: 2, name: 'Urgent' },
      { id: 1, name: 'VIP' },
    ]);
    const [event] = await outbox.newEvents();
    expect(event.payload).toEqual({
      guid,
      tags: [
        { id: 2, name: 'Urgent' },
        { id: 1, name: 'VIP' },
      ],
    });

    const replaced = await update(DEMO_TOKENS.elkjop, { guid, tags: [3] });
    expect(replaced.status).toBe(200);
    expect((await read()).tags).toEqual([{ id: 3, name: 'Warranty check' }]);
    await outbox.skip();
  });

  it('writes no event when nothing changes', async () => {
    const response = await update(DEMO_TOKENS.elkjop, { guid, orderData: { refNo: 'REF-2', activityNumber: 'ACT-9' } });
    expect(response.status).toBe(200);
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('refuses with the booking rules what the change breaks, and changes nothing', async () => {
    const before = await read();
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ productData: { model: 'MacBook Air', password: '1' } }, { 'productData.serial': ['Field is required'] }],
      [{ customer: { type: 0, firstName: 'Kari' } }, { 'customer.lastName': ['Field is required'] }],
      [{ customer: { type: 1, organizationName: 'Acme' } }, { 'customer.organizationNumber': ['Field is required'] }],
      [{ customer: null }, { customer: ['Field is required'] }],
      [{ pickupDst: { type: 0, firstName: 'A', lastName: 'B' } }, { pickupDst: ['Field is not accepted'] }],
      [{ orderData: { files: [] } }, { 'orderData.files': ['Field is not accepted'] }],
      [{ orderData: { maxRepairPrice: 1500 } }, { 'orderData.maxRepairPrice': ['Wrong format'] }],
      [{ orderData: { exportShipmentData: 'x' } }, { 'orderData.exportShipmentData': ['Wrong format'] }],
      [
        { productData: { serial: 'S', password: '1', volume: { width: 10 } } },
        { 'productData.volume': ['Wrong format'] },
      ],
      [
        { productData: { serial: 'S', password: '1', imei: '35-209900-176148-1-234' } },
        { 'productData.imei': ['Must be at most 20 characters'] },
      ],
      [{ tags: [1, 999] }, { 'tags[1]': ['Value is not present in possible options'] }],
    ];
    for (const [change, details] of cases) {
      const response = await update(DEMO_TOKENS.elkjop, { guid, ...change });
      expect({ change, status: response.status, body: response.body }).toEqual({
        change,
        status: 400,
        body: { error: { message: 'Fields validation failed', details } },
      });
    }
    expect(await read()).toEqual(before);
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('checks only what changes: a part it does not touch is not reported', async () => {
    await knex('booking.cases')
      .where({ guid })
      .update({ product_data: JSON.stringify({ model: 'MacBook Air' }) });
    const orderOnly = await update(DEMO_TOKENS.elkjop, { guid, orderData: { refNo: 'REF-3' } });
    expect(orderOnly.status).toBe(200);
    const product = await update(DEMO_TOKENS.elkjop, { guid, productData: { model: 'MacBook Pro' } });
    expect(product.status).toBe(400);
    expect(product.body.error.details).toEqual({
      'productData.serial': ['Field is required'],
      'productData.password': ['Field is required'],
    });
    const fixed = await update(DEMO_TOKENS.elkjop, {
      guid,
      productData: { model: 'MacBook Pro', serial: 'C02', noPassword: true },
    });
    expect(fixed.status).toBe(200);
    await outbox.skip();
  });

  it('answers 400 for an empty change and a malformed part', async () => {
    const empty = await update(DEMO_TOKENS.elkjop, { guid });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/Nothing to change/);
    const malformed = await update(DEMO_TOKENS.elkjop, { guid, orderData: 'refNo' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      error: { message: 'Fields validation failed', details: { orderData: ['Wrong format'] } },
    });
  });

  it('is a 404 for another partner and a provider the case is not routed to, a 403 for admins', async () => {
    for (const token of [DEMO_TOKENS.power, DEMO_TOKENS.svea]) {
      const response = await update(token, { guid, orderData: { refNo: 'STOLEN' } });
      expect(response.status).toBe(404);
    }
    expect((await update(DEMO_TOKENS.admin, { guid, orderData: { refNo: 'X' } })).status).toBe(403);
    expect((await read()).orderData.refNo).toBe('REF-3');
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('works at the deprecated v2 path with a Deprecation header', async () => {
    const response = await update(DEMO_TOKENS.elkjop, { guid, orderData: { refNo: 'REF-V2' } }, '/api/v2/case/update');
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
    expect(response.body).toEqual({ result: true });
    expect((await read()).orderData.refNo).toBe('REF-V2');
    const [event] = await outbox.newEvents();
    expect(event.payload).toEqual({ guid, orderData: { refNo: 'REF-V2' } });
  });
});

describe('POST /api/v3/case/append', () => {
  it('merges the keys sent into each part and reports only those', async () => {
    const before = await read();
    const response = await append(DEMO_TOKENS.nrc, {
      guid,
      productData: { problemText: 'Water damage' },
      orderData: { customerNumber: 'C-7' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ result: true });
    const after = await read();
    expect(after.productData).toEqual({ ...before.productData, problemText: 'Water damage' });
    expect(after.orderData).toEqual({ ...before.orderData, customerNumber: 'C-7' });
    const [event] = await outbox.newEvents();
    expect(event.type).toBe(DOMAIN_EVENTS.CASE_UPDATED);
    expect(event.audience).toEqual({ partnerId: 1 });
    expect(event.payload).toEqual({
      guid,
      productData: { problemText: 'Water damage' },
      orderData: { customerNumber: 'C-7' },
    });
  });

  it('merges contacts field by field and adds tags', async () => {
    const response = await append(DEMO_TOKENS.elkjop, { guid, customer: { phone: '+4799999999' }, tags: [1] });
    expect(response.status).toBe(200);
    const after = await read();
    expect(after.customer).toMatchObject({ firstName: 'Kari', lastName: 'Berg', phone: '+4799999999' });
    expect(after.tags).toEqual([
      { id: 1, name: 'VIP' },
      { id: 3, name: 'Warranty check' },
    ]);
    const [event] = await outbox.newEvents();
    expect(event.audience).toEqual({ providerId: 10 });
    expect(event.payload).toEqual({
      guid,
      customer: { phone: '+4799999999' },
      sender: { phone: '+4799999999' },
      receiver: { phone: '+4799999999' },
      tags: [
        { id: 1, name: 'VIP' },
        { id: 3, name: 'Warranty check' },
      ],
    });
    const found = await hub.request('POST', '/api/v3/search-cases', {
      token: DEMO_TOKENS.elkjop,
      body: { filters: { tags: ['VIP', 'Warranty check'] } },
    });
    expect(found.body.data.map((entry: { guid: string }) => entry.guid)).toEqual([guid]);
    // "Names are case-sensitive" (the product's Working with cases page).
    const otherCase = await hub.request('POST', '/api/v3/search-cases', {
      token: DEMO_TOKENS.elkjop,
      body: { filters: { tags: ['vip', 'Warranty check'] } },
    });
    expect(otherCase.body.data).toEqual([]);
    const notAll = await hub.request('POST', '/api/v3/search-cases', {
      token: DEMO_TOKENS.elkjop,
      body: { filters: { tags: ['VIP', 'urgent'] } },
    });
    expect(notAll.body.data).toEqual([]);
  });

  it('validates the merged result and refuses other parties', async () => {
    const broken = await append(DEMO_TOKENS.elkjop, { guid, productData: { serial: null } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.details).toEqual({ 'productData.serial': ['Field is required'] });
    expect((await append(DEMO_TOKENS.power, { guid, productData: { problemText: 'x' } })).status).toBe(404);
    expect((await append(DEMO_TOKENS.svea, { guid, productData: { problemText: 'x' } })).status).toBe(404);
    expect((await append(DEMO_TOKENS.admin, { guid, productData: { problemText: 'x' } })).status).toBe(403);
    expect(await outbox.newEvents()).toEqual([]);
  });
});
