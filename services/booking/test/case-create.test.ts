import { databaseOf, DEMO_WORLD_FILE, DOMAIN_EVENTS, readWorld } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, caseBody } from '../../../test/support/cases';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
});
afterAll(() => hub.stop());

const knex = async () => (await databaseOf(hub.broker)).knex;

describe('POST /api/v3/case/create', () => {
  it('books a valid case and answers only its guid', async () => {
    const response = await hub.request('POST', '/api/v3/case/create', {
      token: DEMO_TOKENS.elkjop,
      body: caseBody(DEMO_TOKENS.elkjop),
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['guid']);
    expect(response.body.guid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stores the full Case shape, routed, with the provider first status', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop, {
      surprise: 'dropped',
      orderData: { partnerSpecific: { elkjop: { store: 'A1' } } },
    });
    const [core] = await hub.broker.call<any[], object>('booking.caseCores', { guids: [guid] });
    expect(core).toMatchObject({
      guid,
      partnerId: 1,
      servicePartner: { id: 1, name: 'Elkjøp Nordic' },
      serviceProviderId: 10,
      serviceProvider: { id: 10, name: 'Nordic Repair Center' },
      serviceProviderDepartmentId: 101,
      serviceProviderDepartment: { id: 101, name: 'NRC Oslo' },
      manufacturerId: 1,
      manufacturer: { id: 1, name: 'Apple' },
      productTypeId: 2,
      productType: { id: 2, name: 'Laptop' },
      serviceTypeId: 2,
      serviceType: { id: 2, name: 'Paid repair' },
      serviceLocationId: 1,
      serviceLocation: { id: 1, name: 'Workshop' },
      shippingMethodId: 3,
      currentStatus: 'registered',
      country: 'NO',
      spareParts: [],
      freightTrackings: [],
      tags: [],
      consumer: null,
      pickupDst: null,
      returnDst: null,
      orderData: {
        refNo: 'REF-1001',
        partnerSpecific: { elkjop: { store: 'A1' } },
        bookingType: 'companyToPrivate',
        originatorType: 'private',
        clientPostalCode: '0150',
        pickupDestination: 'consumer',
        returnDestination: 'consumer',
      },
      productData: { model: 'MacBook Air', serial: 'C02XK0AAJG5H', password: '1234', noPassword: false },
    });
    expect(core.customer).toMatchObject({
      firstName: 'Kari',
      lastName: 'Nordmann',
      countryCode: 'NO',
      organizationName: null,
    });
    expect(core.customer.id).toEqual(expect.any(Number));
    expect(core.sender).toMatchObject({ firstName: 'Kari' });
    expect(core.caseStatuses).toEqual([
      expect.objectContaining({ caseId: core.id, guid, key: 'registered', name: 'Registered' }),
    ]);
    expect(JSON.stringify(core)).not.toContain('dropped');
  });

  it('writes case.created for the provider and its first status for the partner to the outbox in the same transaction', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.power);
    const db = await knex();
    const events = await db('booking.outbox').where({ case_guid: guid }).orderBy('id');
    expect(events.map((event: { type: string }) => event.type)).toEqual([
      DOMAIN_EVENTS.CASE_CREATED,
      DOMAIN_EVENTS.CASE_STATUS_ADDED,
    ]);
    expect(new Set(events.map((event: { occurred_at: Date }) => event.occurred_at.getTime())).size).toBe(1);
    expect(events[0]).toMatchObject({ audience: { providerId: 10 } });
    expect(events[0].payload.case).toMatchObject({
      guid,
      partnerId: 2,
      serviceProviderId: 10,
      currentStatus: 'registered',
    });
    expect(events[1]).toMatchObject({
      audience: { partnerId: 2 },
      payload: { prevKey: null, status: { guid, key: 'registered' } },
    });
  });

  it('answers caseParties for known guids only', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.trygg);
    const parties = await hub.broker.call<any[], object>('booking.caseParties', {
      guids: [guid, 'not-a-guid', '00000000-0000-4000-8000-000000000000'],
    });
    expect(parties).toEqual([{ id: expect.any(Number), guid, partnerId: 3, serviceProviderId: 20 }]);
  });

  it("starts a case with its provider's first status key from the world file", async () => {
    // Only the parts the running services own: the providers, without their invoice statuses,
    // and without the simulated one, whose account and invoice statuses belong to other services.
    const world = {
      providers: readWorld(DEMO_WORLD_FILE)
        .providers!.filter((provider) => !provider.simulated)
        .map(({ invoiceStatuses: _statuses, ...provider }) => provider),
    };
    const nrc = world.providers.find((provider) => provider.id === 10)!;
    nrc.statusKeys = [{ key: 'received', name: 'Received by the workshop' }, ...nrc.statusKeys!];
    const loaded = await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
    expect(loaded.status).toBe(200);
    const [core] = await hub.broker.call<any[], object>('booking.caseCores', {
      guids: [await bookCase(hub, DEMO_TOKENS.elkjop)],
    });
    expect(core.currentStatus).toBe('received');
    expect(core.caseStatuses.map((status: { key: string; name: string }) => [status.key, status.name])).toEqual([
      ['received', 'Received by the workshop'],
    ]);

    // Loading the same world again changes nothing.
    expect((await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } })).status).toBe(
      200,
    );
    const db = await knex();
    expect(
      (await db('booking.status_keys').where({ provider_id: 10 }).orderBy('position'))
        .map((row: { key: string }) => row.key)
        .slice(0, 2),
    ).toEqual(['received', 'registered']);
  });

  it('is reachable by partners only', async () => {
    const response = await hub.request('POST', '/api/v3/case/create', {
      token: DEMO_TOKENS.nrc,
      body: caseBody(DEMO_TOKENS.elkjop),
    });
    expect(response.status).toBe(403);
  });
});
