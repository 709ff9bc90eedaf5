/**
 * The provider's intake (unexported-cases, export, accept, cancel) and the partner's finish
 * through the gateway: each state rule kept and broken, access per party, and the events.
 */
import type { Knex } from 'knex';
import { type DbService, DOMAIN_EVENTS } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';

let hub: TestHub;
let knex: Knex;
let first: string;
let second: string;
let power: string;
let trygg: string;
const outbox = outboxReader(() => knex, 'booking');

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  first = await bookCase(hub, DEMO_TOKENS.elkjop, { productData: { accessory: { 1: true } } });
  second = await bookCase(hub, DEMO_TOKENS.elkjop);
  power = await bookCase(hub, DEMO_TOKENS.power);
  trygg = await bookCase(hub, DEMO_TOKENS.trygg);
  await outbox.skip();
});
afterAll(() => hub.stop());

const post = (path: string, token: string, body: unknown) => hub.request('POST', `/api/v3/${path}`, { token, body });
const unexported = async (token: string, body: unknown = {}) => {
  const response = await post('unexported-cases', token, body);
  expect(response.status).toBe(200);
  return response.body.data.map((found: { guid: string }) => found.guid);
};

describe('POST /api/v3/unexported-cases', () => {
  it('lists the provider its cases not yet accepted, with the search filters and pagination', async () => {
    expect(await unexported(DEMO_TOKENS.nrc)).toEqual([first, second, power]);
    expect(await unexported(DEMO_TOKENS.svea)).toEqual([trygg]);
    expect(await unexported(DEMO_TOKENS.nrc, { filters: { partnerId: 2 } })).toEqual([power]);
    const paged = await post('unexported-cases', DEMO_TOKENS.nrc, { pagination: { offset: 2, limit: 5 } });
    expect(paged.body.pagination).toEqual({ offset: 2, count: 3, next: null });
  });

  it('refuses bad filters and partners', async () => {
    const bad = await post('unexported-cases', DEMO_TOKENS.nrc, { pagination: { limit: 500 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ 'pagination.limit': ['Must be at most 100'] });
    expect((await post('unexported-cases', DEMO_TOKENS.elkjop, {})).status).toBe(403);
  });
});

describe('GET /api/v3/case/export', () => {
  it('answers the whole case with its contacts, department, shipping method, files and accessory names', async () => {
    const response = await hub.request('GET', `/api/v3/case/export?guid=${first}`, { token: DEMO_TOKENS.nrc });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      guid: first,
      customer: { firstName: 'Kari', lastName: 'Nordmann' },
      serviceProviderDepartment: { id: 101, name: 'NRC Oslo' },
      shippingMethod: { id: 3 },
      // As the product's export: ids as text, their names beside them, the competence data.
      productData: { accessory: ['1'], accessoryNames: ['Charger'] },
      externalData: { id: 1, departmentId: 101 },
    });
    expect(response.body).toHaveProperty('consumer', null);
    expect(response.body).not.toHaveProperty('accessories');
  });

  it('is a 404 for a provider the case is not routed to and a 403 for partners', async () => {
    expect((await hub.request('GET', `/api/v3/case/export?guid=${first}`, { token: DEMO_TOKENS.svea })).status).toBe(
      404,
    );
    expect((await hub.request('GET', `/api/v3/case/export?guid=${first}`, { token: DEMO_TOKENS.elkjop })).status).toBe(
      403,
    );
    expect((await hub.request('GET', '/api/v3/case/export', { token: DEMO_TOKENS.nrc })).status).toBe(400);
  });
});

describe('POST /api/v3/case/accept', () => {
  it('takes the case out of the unexported list and tells the partner', async () => {
    const response = await post('case/accept', DEMO_TOKENS.nrc, { guid: first });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: true } });
    expect(await unexported(DEMO_TOKENS.nrc)).toEqual([second, power]);
    const events = await outbox.newEvents();
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe(DOMAIN_EVENTS.CASE_UPDATED);
    expect(events[0].audience).toEqual({ partnerId: 1 });
    expect(events[0].payload).toEqual({ guid: first, orderData: { serviceProviderExportStatus: true } });
  });

  it('changes nothing when sent again', async () => {
    expect((await post('case/accept', DEMO_TOKENS.nrc, { guid: first })).status).toBe(200);
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('merges the orderData sent, checked as an append is, with the provider its own keys', async () => {
    const response = await post('case/accept', DEMO_TOKENS.nrc, {
      guid: first,
      orderData: { providerOrderReference: 'WO-77', providerSpecific: { nrc: { bench: 4 } }, refNo: 'kept?' },
    });
    expect(response.status).toBe(200);
    const read = await hub.request('GET', `/api/v3/case?guid=${first}`, { token: DEMO_TOKENS.nrc });
    expect(read.body.orderData).toMatchObject({
      providerOrderReference: 'WO-77',
      providerSpecific: { nrc: { bench: 4 } },
      refNo: 'kept?',
      serviceProviderExportStatus: true,
    });
    // The partner neither reads nor hears of the provider's private data.
    const partnersRead = await hub.request('GET', `/api/v3/case?guid=${first}`, { token: DEMO_TOKENS.elkjop });
    expect(partnersRead.body.orderData).toMatchObject({ providerOrderReference: 'WO-77', refNo: 'kept?' });
    expect(partnersRead.body.orderData).not.toHaveProperty('providerSpecific');
    const [event] = await outbox.newEvents();
    expect(event.audience).toEqual({ partnerId: 1 });
    expect(event.payload).toEqual({ guid: first, orderData: { providerOrderReference: 'WO-77', refNo: 'kept?' } });

    const bad = await post('case/accept', DEMO_TOKENS.nrc, { guid: first, orderData: { emballage: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ 'orderData.emballage': ['Wrong format'] });
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('declines with status false: a declined case is (again) unexported and the partner hears it', async () => {
    // A case never accepted is declined already: nothing changes.
    const fresh = await post('case/accept', DEMO_TOKENS.nrc, { guid: power, status: false });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({ data: { result: true } });
    expect(await outbox.newEvents()).toEqual([]);

    expect((await post('case/accept', DEMO_TOKENS.nrc, { guid: first, status: false })).status).toBe(200);
    expect(await unexported(DEMO_TOKENS.nrc)).toEqual([first, second, power]);
    const [event] = await outbox.newEvents();
    expect(event.payload).toEqual({ guid: first, orderData: { serviceProviderExportStatus: false } });

    expect((await post('case/accept', DEMO_TOKENS.nrc, { guid: first })).status).toBe(200);
    expect(await unexported(DEMO_TOKENS.nrc)).toEqual([second, power]);
    await outbox.skip();
  });
});

describe('POST /api/v3/case/cancel', () => {
  it('refuses a reason that is not text or too long', async () => {
    for (const reason of [5, 'x'.repeat(1001)]) {
      const response = await post('case/cancel', DEMO_TOKENS.nrc, { guid: second, reason });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.error.details)).toEqual(['reason']);
    }
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('adds the cancelled status, keeps the reason and tells the partner both', async () => {
    const response = await post('case/cancel', DEMO_TOKENS.nrc, { guid: second, reason: 'No spare parts available' });
    expect(response.status).toBe(200);
    const read = await hub.request('GET', `/api/v3/case?guid=${second}`, { token: DEMO_TOKENS.elkjop });
    expect(read.body.currentStatus).toBe('cancelled');
    expect(read.body.orderData.cancelReason).toBe('No spare parts available');
    expect(await unexported(DEMO_TOKENS.nrc)).toEqual([power]);

    const events = await outbox.newEvents();
    expect(events.map((event) => [event.type, event.audience])).toEqual([
      [DOMAIN_EVENTS.CASE_STATUS_ADDED, { partnerId: 1 }],
      [DOMAIN_EVENTS.CASE_UPDATED, { partnerId: 1 }],
    ]);
    expect(events[0].payload.prevKey).toBe('registered');
    expect(events[0].payload.status).toMatchObject({ guid: second, key: 'cancelled', name: 'Cancelled' });
    expect(events[1].payload).toEqual({ guid: second, orderData: { cancelReason: 'No spare parts available' } });
  });

  it('leaves a cancelled case as it is: a repeated cancel changes nothing; accept, update, files and statuses are refused', async () => {
    expect((await post('case/cancel', DEMO_TOKENS.nrc, { guid: second, reason: 'Again' })).status).toBe(200);
    const refused = [
      await post('case/accept', DEMO_TOKENS.nrc, { guid: second }),
      await post('case/update', DEMO_TOKENS.elkjop, { guid: second, orderData: { refNo: 'X' } }),
      await post('case/status', DEMO_TOKENS.nrc, { guid: second, key: 'arrived' }),
      await post('case/files', DEMO_TOKENS.elkjop, {
        guid: second,
        files: [{ name: 'a.pdf', url: 'https://x.example/a.pdf' }],
      }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error: { message: 'Case is cancelled', details: { guid: second } } });
    }
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('is a 404 for another provider and a 403 for partners', async () => {
    expect((await post('case/cancel', DEMO_TOKENS.svea, { guid: power, reason: 'x' })).status).toBe(404);
    expect((await post('case/cancel', DEMO_TOKENS.power, { guid: power, reason: 'x' })).status).toBe(403);
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('cancels with only the guid, as the documented example sends it', async () => {
    const response = await post('case/cancel', DEMO_TOKENS.nrc, { guid: power });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: true } });
    const read = await hub.request('GET', `/api/v3/case?guid=${power}`, { token: DEMO_TOKENS.power });
    expect(read.body.currentStatus).toBe('cancelled');
    expect(read.body.orderData).not.toHaveProperty('cancelReason');
    const events = await outbox.newEvents();
    expect(events.map((event) => event.type)).toEqual([DOMAIN_EVENTS.CASE_STATUS_ADDED]);
  });
});

describe('POST /api/v3/case/finish', () => {
  it('hands the case over and tells the provider', async () => {
    const response = await post('case/finish', DEMO_TOKENS.elkjop, { guid: first });
    expect(response.status).toBe(200);
    // The product's answer to case/finish.
    expect(response.body).toEqual({ result: true });
    const [event] = await outbox.newEvents();
    expect(event.type).toBe(DOMAIN_EVENTS.CASE_UPDATED);
    expect(event.audience).toEqual({ providerId: 10 });
    expect(event.payload).toEqual({ guid: first, orderData: { integrationsFinished: true } });
    expect((await post('case/finish', DEMO_TOKENS.elkjop, { guid: first })).status).toBe(200);
    expect(await outbox.newEvents()).toEqual([]);
  });

  // "partner doesn't want to send case to provider just after creation ... you can initiate this
  // process by demand using this endpoint": once handed over, the case is the provider's to cancel.
  it('leaves a finished case to its provider, who may still cancel it', async () => {
    const response = await post('case/cancel', DEMO_TOKENS.nrc, { guid: first, reason: 'Too late' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { result: true } });
    const read = await hub.request('GET', `/api/v3/case?guid=${first}`, { token: DEMO_TOKENS.nrc });
    expect(read.body.orderData).toMatchObject({ integrationsFinished: true, cancelReason: 'Too late' });
    await outbox.skip();
  });

  it('is a 404 for another partner and a 403 for providers', async () => {
    expect((await post('case/finish', DEMO_TOKENS.power, { guid: first })).status).toBe(404);
    expect((await post('case/finish', DEMO_TOKENS.nrc, { guid: first })).status).toBe(403);
    expect(await outbox.newEvents()).toEqual([]);
  });
});
