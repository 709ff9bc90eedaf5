/**
 * Reading and searching cases and posting statuses through the gateway: access per party, the
 * request log on demand, every filter form, the status rules, the outbox event, and how a
 * partner sees statuses through the catalog's mappings and blacklists, with no webhooks service
 * running.
 */
import type { Knex } from 'knex';
import { type DbService, DOMAIN_EVENTS, isServiceRunning } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, UNKNOWN_GUID } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';

let hub: TestHub;
let knex: Knex;
let elkjopCase: string;
let elkjopSecond: string;
let powerCase: string;
let tryggCase: string;
const outbox = outboxReader(() => knex, 'booking');

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
  knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  elkjopCase = await bookCase(hub, DEMO_TOKENS.elkjop);
  elkjopSecond = await bookCase(hub, DEMO_TOKENS.elkjop, {
    orderData: { refNo: 'REF-2002', partnerSpecific: { elkjop: { internalReference: 3112312312 } } },
    productData: { serial: 'SERIAL-XYZ-77', problemText: 'Cracked Screen' },
    customer: { firstName: 'Ola', lastName: 'Hansen', email: 'ola@example.com' },
  });
  powerCase = await bookCase(hub, DEMO_TOKENS.power);
  tryggCase = await bookCase(hub, DEMO_TOKENS.trygg);
  await outbox.skip();
});
afterAll(() => hub.stop());

const readCase = (token: string, guid: string, query = '') =>
  hub.request('GET', `/api/v3/case?guid=${guid}${query}`, { token });
const search = (token: string, body: unknown) => hub.request('POST', '/api/v3/search-cases', { token, body });
const postStatus = (token: string, body: unknown) => hub.request('POST', '/api/v3/case/status', { token, body });
const guidsOf = (response: { body: { data: Array<{ guid: string }> } }) =>
  response.body.data.map((found) => found.guid);

describe('GET /api/v3/case', () => {
  it('answers the full Case to its partner and to the provider it is routed to', async () => {
    for (const token of [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc]) {
      const response = await readCase(token, elkjopCase);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        guid: elkjopCase,
        partnerId: 1,
        serviceProviderId: 10,
        currentStatus: 'registered',
        orderData: { refNo: 'REF-1001' },
        productData: { model: 'MacBook Air' },
        customer: { firstName: 'Kari' },
        servicePartner: { id: 1, name: 'Elkjøp Nordic' },
      });
      expect(response.body.caseStatuses).toEqual([expect.objectContaining({ key: 'registered', guid: elkjopCase })]);
      expect(response.body).not.toHaveProperty('externalRequests');
    }
  });

  it('adds the case request log with includeRequests=1', async () => {
    const [{ id: caseId }] = await knex('booking.cases').where({ guid: elkjopCase }).select('id');
    const logged = await hub.request('POST', '/api/v3/requests/log', {
      token: DEMO_TOKENS.elkjop,
      body: { type: 'erpSync', status: 'success', meta: { caseId } },
    });
    expect(logged.status).toBe(200);
    const response = await readCase(DEMO_TOKENS.elkjop, elkjopCase, '&includeRequests=1');
    expect(response.status).toBe(200);
    expect(response.body.externalRequests).toEqual([
      expect.objectContaining({ id: logged.body.id, caseId, type: 'erpSync', status: 'success' }),
    ]);
    const without = await readCase(DEMO_TOKENS.elkjop, elkjopCase, '&includeRequests=0');
    expect(without.status).toBe(200);
    expect(without.body).not.toHaveProperty('externalRequests');
  });

  it('is a 404 for another partner, a provider it is not routed to, an unknown or malformed guid', async () => {
    for (const [token, guid] of [
      [DEMO_TOKENS.power, elkjopCase],
      [DEMO_TOKENS.svea, elkjopCase],
      [DEMO_TOKENS.elkjop, UNKNOWN_GUID],
      [DEMO_TOKENS.elkjop, 'not-a-guid'],
    ]) {
      const response = await readCase(token, guid);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: { message: 'Case not found' } });
    }
  });

  it('refuses a missing guid with the validation envelope and other access levels with 403', async () => {
    const missing = await hub.request('GET', '/api/v3/case', { token: DEMO_TOKENS.elkjop });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: { message: 'Fields validation failed', details: { guid: ['Field is required'] } },
    });
    expect((await readCase(DEMO_TOKENS.admin, elkjopCase)).status).toBe(403);
    expect((await hub.request('GET', `/api/v3/case?guid=${elkjopCase}`)).status).toBe(401);
  });
});

describe('POST /api/v3/search-cases', () => {
  it('finds only the partner its own cases and the provider the cases routed to it', async () => {
    const partner = await search(DEMO_TOKENS.elkjop, {});
    expect(partner.status).toBe(200);
    expect(guidsOf(partner)).toEqual([elkjopCase, elkjopSecond]);
    expect(partner.body.pagination).toEqual({ offset: 0, count: 2, next: null });
    const provider = await search(DEMO_TOKENS.nrc, {});
    expect(provider.status).toBe(200);
    expect(guidsOf(provider)).toEqual([elkjopCase, elkjopSecond, powerCase]);
    const svea = await search(DEMO_TOKENS.svea, { filters: {} });
    expect(guidsOf(svea)).toEqual([tryggCase]);
    // Naming another party's id narrows, never widens.
    const other = await search(DEMO_TOKENS.elkjop, { filters: { partnerId: 2 } });
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ data: [], pagination: { offset: 0, count: 0, next: null } });
  });

  it('filters by equality, lists, $lt/$gt, productData and orderData keys', async () => {
    const [first, second] = await knex('booking.cases')
      .whereIn('guid', [elkjopCase, elkjopSecond])
      .orderBy('id')
      .select('id', 'created_at');
    const cases: Array<[unknown, string[]]> = [
      [{ guid: elkjopSecond }, [elkjopSecond]],
      [{ guid: elkjopSecond.toUpperCase() }, [elkjopSecond]],
      [{ id: [first.id, second.id] }, [elkjopCase, elkjopSecond]],
      [{ id: { $gt: first.id } }, [elkjopSecond]],
      [{ id: { $lt: second.id } }, [elkjopCase]],
      [{ id: { $gt: first.id, $lt: second.id } }, []],
      [{ createdAt: { $lt: '2000-01-01' } }, []],
      [{ createdAt: { $gt: '2000-01-01T00:00:00Z' } }, [elkjopCase, elkjopSecond]],
      [{ 'productData.serial': 'SERIAL-XYZ-77' }, [elkjopSecond]],
      [{ 'orderData.refNo': 'REF-1001' }, [elkjopCase]],
      [{ 'orderData.refNo': 'ref-1001' }, []],
      // The documented nested form, at any depth, and the same path dotted.
      [{ orderData: { partnerSpecific: { elkjop: { internalReference: 3112312312 } } } }, [elkjopSecond]],
      [{ 'orderData.partnerSpecific.elkjop.internalReference': '3112312312' }, [elkjopSecond]],
      [{ 'orderData.partnerSpecific': { elkjop: { internalReference: 1 } } }, []],
      [{ orderData: { refNo: 'REF-1001' }, productData: { model: 'MacBook Air' } }, [elkjopCase]],
      [{ orderData: { refNo: { $gt: 'REF-1500' } } }, [elkjopSecond]],
      [{ orderData: { refNo: ['REF-1001', 'REF-2002'] } }, [elkjopCase, elkjopSecond]],
      [
        { manufacturerId: 1, serviceTypeId: 2, productTypeId: 2, serviceLocationId: 1, serviceProviderId: 10 },
        [elkjopCase, elkjopSecond],
      ],
      [{ manufacturerId: 3 }, []],
      [{ currentStatus: 'registered' }, [elkjopCase, elkjopSecond]],
      [{ commonSearch: 'serial-xyz' }, [elkjopSecond]],
      // problemText is not searched, as the product documents.
      [{ commonSearch: 'cracked screen' }, []],
      [{ commonSearch: 'OLA@EXAMPLE' }, [elkjopSecond]],
      [{ commonSearch: elkjopCase.slice(0, 13) }, [elkjopCase]],
      [{ commonSearch: '%' }, []],
    ];
    for (const [filters, expected] of cases) {
      const response = await search(DEMO_TOKENS.elkjop, { filters });
      expect({ filters, status: response.status, guids: guidsOf(response) }).toEqual({
        filters,
        status: 200,
        guids: expected,
      });
    }
  });

  it('pages with offset and limit and counts every match', async () => {
    const response = await search(DEMO_TOKENS.nrc, { pagination: { offset: 1, limit: 1 } });
    expect(response.status).toBe(200);
    expect(guidsOf(response)).toEqual([elkjopSecond]);
    expect(response.body.pagination).toEqual({ offset: 1, count: 3, next: expect.any(String) });
  });

  it('pages after a cursor: each page starts after the last case of the one before, counted as offset', async () => {
    const walked: string[] = [];
    const offsets: number[] = [];
    let body: Record<string, unknown> = { pagination: { limit: 1 } };
    for (;;) {
      const response = await search(DEMO_TOKENS.nrc, body);
      expect(response.status).toBe(200);
      expect(response.body.pagination.count).toBe(3);
      walked.push(...guidsOf(response));
      offsets.push(response.body.pagination.offset);
      if (response.body.pagination.next === null) break;
      body = { pagination: { limit: 1, after: response.body.pagination.next } };
    }
    expect(walked).toEqual([elkjopCase, elkjopSecond, powerCase]);
    expect(offsets).toEqual([0, 1, 2]);
  });

  it('keeps the filters on pages after a cursor, and answers an empty last page past the end', async () => {
    const first = await search(DEMO_TOKENS.nrc, { filters: { partnerId: 1 }, pagination: { limit: 1 } });
    expect(guidsOf(first)).toEqual([elkjopCase]);
    const second = await search(DEMO_TOKENS.nrc, {
      filters: { partnerId: 1 },
      pagination: { limit: 1, after: first.body.pagination.next },
    });
    expect(guidsOf(second)).toEqual([elkjopSecond]);
    expect(second.body.pagination).toEqual({ offset: 1, count: 2, next: null });
    const wider = await search(DEMO_TOKENS.nrc, { pagination: { limit: 5, after: first.body.pagination.next } });
    expect(guidsOf(wider)).toEqual([elkjopSecond, powerCase]);
  });

  it('refuses a cursor it did not make, and a cursor beside an offset, naming the field', async () => {
    const next = (await search(DEMO_TOKENS.nrc, { pagination: { limit: 1 } })).body.pagination.next;
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ pagination: { after: 'not a cursor' } }, { 'pagination.after': ['Wrong format'] }],
      [{ pagination: { after: Buffer.from('["1"]').toString('base64url') } }, { 'pagination.after': ['Wrong format'] }],
      [{ pagination: { after: Buffer.from('[1.5]').toString('base64url') } }, { 'pagination.after': ['Wrong format'] }],
      [{ pagination: { after: Buffer.from('[1,2]').toString('base64url') } }, { 'pagination.after': ['Wrong format'] }],
      [{ pagination: { after: next, offset: 0 } }, { 'pagination.offset': ['Leave out offset when after is given'] }],
    ];
    for (const [body, details] of cases) {
      const response = await search(DEMO_TOKENS.nrc, body);
      expect({ body, status: response.status, answer: response.body }).toEqual({
        body,
        status: 400,
        answer: { error: { message: 'Fields validation failed', details } },
      });
    }
  });

  it('refuses unknown fields and operators, bad values, dates and ids that cannot exist, and a limit over 100', async () => {
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ filters: { password: '1234' } }, { 'filters.password': ['Field is not accepted'] }],
      [{ filters: { id: { $ne: 1 } } }, { 'filters.id.$ne': ['Field is not accepted'] }],
      [{ filters: { id: 'one' } }, { 'filters.id': ['Wrong format'] }],
      [{ filters: { createdAt: { $gt: 'yesterday' } } }, { 'filters.createdAt.$gt': ['Wrong format'] }],
      [{ filters: { createdAt: '0000-01-01' } }, { 'filters.createdAt': ['Wrong format'] }],
      [{ filters: { createdAt: { $lt: '2026-02-30' } } }, { 'filters.createdAt.$lt': ['Wrong format'] }],
      [{ filters: { id: { $gt: 1e308 } } }, { 'filters.id.$gt': ['Wrong format'] }],
      [{ filters: { id: [1e20] } }, { 'filters.id': ['Wrong format'] }],
      [
        { filters: { "productData.x' or 1=1 --": 'a' } },
        { "filters.productData.x' or 1=1 --": ['Field is not accepted'] },
      ],
      [
        { filters: { orderData: { partnerSpecific: { "x' or 1=1 --": 'a' } } } },
        { "filters.orderData.partnerSpecific.x' or 1=1 --": ['Field is not accepted'] },
      ],
      [
        { filters: { productData: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } } },
        { 'filters.productData.a.b.c.d.e.f.g.h.i': ['Field is not accepted'] },
      ],
      [
        { filters: { orderData: { refNo: { $ne: 'x' } } } },
        { 'filters.orderData.refNo.$ne': ['Field is not accepted'] },
      ],
      [{ filters: { orderData: {} } }, { 'filters.orderData': ['Field is not accepted'] }],
      [{ filters: { commonSearch: '' } }, { 'filters.commonSearch': ['Wrong format'] }],
      [{ filters: 'everything' }, { filters: ['Wrong format'] }],
      [{ pagination: { limit: 101 } }, { 'pagination.limit': ['Must be at most 100'] }],
      [{ pagination: { offset: -1 } }, { 'pagination.offset': ['Must be at least 0'] }],
    ];
    for (const [body, details] of cases) {
      const response = await search(DEMO_TOKENS.elkjop, body);
      expect({ body, status: response.status, answer: response.body }).toEqual({
        body,
        status: 400,
        answer: { error: { message: 'Fields validation failed', details } },
      });
    }
  });

  it('is for partners and providers only', async () => {
    expect((await search(DEMO_TOKENS.admin, {})).status).toBe(403);
  });
});

describe('POST /api/v3/case/status', () => {
  it('adds a lower-cased provider key, answers the status record and moves currentStatus', async () => {
    const response = await postStatus(DEMO_TOKENS.nrc, {
      guid: elkjopCase,
      key: ' ARRIVED ',
      declaredAt: '2026-03-01T10:00:00+01:00',
    });
    expect(response.status).toBe(200);
    const [{ id: caseId }] = await knex('booking.cases').where({ guid: elkjopCase }).select('id');
    expect(response.body).toEqual({
      data: {
        id: expect.any(Number),
        caseId,
        guid: elkjopCase,
        key: 'arrived',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        declaredAt: '2026-03-01T09:00:00.000Z',
      },
    });
    const read = await readCase(DEMO_TOKENS.elkjop, elkjopCase);
    expect(read.body.currentStatus).toBe('arrived');
    expect(read.body.caseStatuses.map((status: { key: string }) => status.key)).toEqual(['registered', 'arrived']);
  });

  it('writes case.statusAdded for the partner with the previous key and the case', async () => {
    await outbox.skip();
    const response = await postStatus(DEMO_TOKENS.nrc, { guid: elkjopCase, key: 'diagnosed' });
    expect(response.status).toBe(200);
    const events = await outbox.newEvents();
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event.type).toBe(DOMAIN_EVENTS.CASE_STATUS_ADDED);
    expect(event.case_guid).toBe(elkjopCase);
    expect(event.audience).toEqual({ partnerId: 1 });
    expect(event.payload.prevKey).toBe('arrived');
    expect(event.payload.status).toEqual({ ...response.body.data, name: 'Diagnosed' });
    expect(event.payload.case.guid).toBe(elkjopCase);
    expect(event.payload.case.currentStatus).toBe('diagnosed');
    expect(event.payload.case.caseStatuses).toHaveLength(3);
  });

  it('ignores the current key sent again: same record, no new status, no event', async () => {
    const first = await postStatus(DEMO_TOKENS.nrc, { guid: elkjopCase, key: 'repaired' });
    expect(first.status).toBe(200);
    await outbox.skip();
    const again = await postStatus(DEMO_TOKENS.nrc, { guid: elkjopCase, key: 'Repaired' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await outbox.newEvents()).toEqual([]);
    const read = await readCase(DEMO_TOKENS.nrc, elkjopCase);
    expect(read.body.caseStatuses.map((status: { key: string }) => status.key)).toEqual([
      'registered',
      'arrived',
      'diagnosed',
      'repaired',
    ]);
  });

  it('refuses keys that are not the provider its own, bad dates and missing fields', async () => {
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [{ guid: elkjopSecond, key: 'teleported' }, { key: ['Value is not present in possible options'] }],
      [{ guid: elkjopSecond, key: 'in_repair' }, { key: ['Value is not present in possible options'] }],
      [{ guid: elkjopSecond, key: 'arrived', declaredAt: 'soon' }, { declaredAt: ['Wrong format'] }],
      [{ guid: elkjopSecond }, { key: ['Field is required'] }],
    ];
    for (const [body, details] of cases) {
      const response = await postStatus(DEMO_TOKENS.nrc, body);
      expect({ body, status: response.status, answer: response.body }).toEqual({
        body,
        status: 400,
        answer: { error: { message: 'Fields validation failed', details } },
      });
    }
    expect(await outbox.newEvents()).toEqual([]);
  });

  it('is a 404 on a case not routed to the provider and a 403 for partners', async () => {
    const other = await postStatus(DEMO_TOKENS.svea, { guid: elkjopSecond, key: 'arrived' });
    expect(other.status).toBe(404);
    const partner = await postStatus(DEMO_TOKENS.elkjop, { guid: elkjopSecond, key: 'arrived' });
    expect(partner.status).toBe(403);
    expect(await outbox.newEvents()).toEqual([]);
    expect((await readCase(DEMO_TOKENS.elkjop, elkjopSecond)).body.currentStatus).toBe('registered');
  });
});

describe('GET /api/v3/case/notifications', () => {
  it('lists the status keys of the case for its provider', async () => {
    {
      const response = await hub.request('GET', `/api/v3/case/notifications?guid=${elkjopCase}`, {
        token: DEMO_TOKENS.nrc,
      });
      expect(response.status).toBe(200);
      expect(response.body.data.map((entry: { key: string }) => entry.key)).toEqual([
        'registered',
        'arrived',
        'diagnosed',
        'awaiting_parts',
        'repaired',
        'shipped',
        'final',
        'cancelled',
      ]);
    }
    const svea = await hub.request('GET', `/api/v3/case/notifications?guid=${tryggCase}`, { token: DEMO_TOKENS.trygg });
    // "By default, we assume that all notifications are allowed": a case that chooses none wants every one.
    const on = { smsNotificationEnabled: true, emailNotificationEnabled: true };
    const chosen = ({ key, name, smsNotificationEnabled, emailNotificationEnabled }: Record<string, unknown>) => ({
      key,
      name,
      smsNotificationEnabled,
      emailNotificationEnabled,
    });
    expect(svea.body.data.map(chosen)).toEqual([
      { key: 'registered', name: 'Registrerad', ...on },
      { key: 'arrived', name: 'Ankommen', ...on },
      { key: 'in_repair', name: 'Under reparation', ...on },
      { key: 'final', name: 'Klar', ...on },
      { key: 'cancelled', name: 'Avbruten', ...on },
    ]);
  });

  it("carries each key's description and whether it can go out by sms and by email, as the world says", async () => {
    const response = await hub.request('GET', `/api/v3/case/notifications?guid=${elkjopCase}`, {
      token: DEMO_TOKENS.nrc,
    });
    expect(response.body.data[0]).toMatchObject({
      key: 'registered',
      name: 'Registered',
      description: 'The case is registered at the workshop',
      smsNotificationAvailable: false,
      emailNotificationAvailable: true,
    });
    expect(response.body.data[1]).toMatchObject({
      key: 'arrived',
      smsNotificationAvailable: true,
      emailNotificationAvailable: true,
    });
    expect(response.body.data[2]).toMatchObject({
      key: 'diagnosed',
      smsNotificationAvailable: false,
      emailNotificationAvailable: false,
    });
    for (const entry of response.body.data) {
      expect(Object.keys(entry).sort()).toEqual([
        'description',
        'emailNotificationAvailable',
        'emailNotificationEnabled',
        'key',
        'name',
        'smsNotificationAvailable',
        'smsNotificationEnabled',
      ]);
    }
  });

  it('answers what the case chose for each channel, apart from whether the key has that channel', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop, {
      orderData: { notifications: { diagnosed: { sms: true, email: true }, arrived: { sms: false, email: true } } },
    });
    const response = await hub.request('GET', `/api/v3/case/notifications?guid=${guid}`, { token: DEMO_TOKENS.elkjop });
    const byKey = Object.fromEntries(response.body.data.map((entry: { key: string }) => [entry.key, entry]));
    expect(byKey.diagnosed).toMatchObject({
      smsNotificationAvailable: false,
      emailNotificationAvailable: false,
      smsNotificationEnabled: true,
      emailNotificationEnabled: true,
    });
    expect(byKey.arrived).toMatchObject({ smsNotificationEnabled: false, emailNotificationEnabled: true });
  });

  it('is a 404 for another party and a 403 for admins', async () => {
    expect(
      (await hub.request('GET', `/api/v3/case/notifications?guid=${elkjopCase}`, { token: DEMO_TOKENS.power })).status,
    ).toBe(404);
    expect(
      (await hub.request('GET', `/api/v3/case/notifications?guid=${elkjopCase}`, { token: DEMO_TOKENS.svea })).status,
    ).toBe(404);
    expect(
      (await hub.request('GET', `/api/v3/case/notifications?guid=${elkjopCase}`, { token: DEMO_TOKENS.admin })).status,
    ).toBe(403);
  });
});

describe('statuses as a partner sees them, from the catalog, with no webhooks service running', () => {
  beforeAll(async () => {
    // The demo world's status rules: Elkjøp maps two keys to "repairing", Power hides "diagnosed".
    expect(isServiceRunning(hub.broker, 'webhooks')).toBe(false);
    expect((await postStatus(DEMO_TOKENS.nrc, { guid: elkjopSecond, key: 'awaiting_parts' })).status).toBe(200);
    expect((await postStatus(DEMO_TOKENS.nrc, { guid: powerCase, key: 'diagnosed' })).status).toBe(200);
  });

  it('shows mapped keys to the partner and provider keys to the provider', async () => {
    const partner = await readCase(DEMO_TOKENS.elkjop, elkjopSecond);
    expect(partner.status).toBe(200);
    expect(partner.body.currentStatus).toBe('repairing');
    expect(partner.body.caseStatuses.map((status: { key: string }) => status.key)).toEqual(['registered', 'repairing']);
    const provider = await readCase(DEMO_TOKENS.nrc, elkjopSecond);
    expect(provider.body.currentStatus).toBe('awaiting_parts');
  });

  it('hides blacklisted statuses: currentStatus is the last one the partner may see', async () => {
    const partner = await readCase(DEMO_TOKENS.power, powerCase);
    expect(partner.status).toBe(200);
    expect(partner.body.currentStatus).toBe('registered');
    expect(partner.body.caseStatuses.map((status: { key: string }) => status.key)).toEqual(['registered']);
    expect((await readCase(DEMO_TOKENS.nrc, powerCase)).body.currentStatus).toBe('diagnosed');
  });

  it('applies the same view to search results and searches currentStatus in partner keys', async () => {
    const mapped = await search(DEMO_TOKENS.elkjop, { filters: { currentStatus: 'repairing' } });
    expect(mapped.status).toBe(200);
    expect(guidsOf(mapped)).toEqual([elkjopSecond]);
    expect(mapped.body.data[0].currentStatus).toBe('repairing');
    const providerKey = await search(DEMO_TOKENS.elkjop, { filters: { currentStatus: 'awaiting_parts' } });
    expect(guidsOf(providerKey)).toEqual([]);
    const hidden = await search(DEMO_TOKENS.power, {});
    expect(hidden.body.data[0].caseStatuses.map((status: { key: string }) => status.key)).toEqual(['registered']);
  });

  it('lists notification keys mapped once and without blacklisted ones', async () => {
    const elkjop = await hub.request('GET', `/api/v3/case/notifications?guid=${elkjopSecond}`, {
      token: DEMO_TOKENS.elkjop,
    });
    expect(elkjop.body.data.map((entry: { key: string }) => entry.key)).toEqual([
      'registered',
      'arrived',
      'diagnosed',
      'repairing',
      'repaired',
      'shipped',
      'final',
      'cancelled',
    ]);
    const power = await hub.request('GET', `/api/v3/case/notifications?guid=${powerCase}`, {
      token: DEMO_TOKENS.power,
    });
    expect(power.body.data.map((entry: { key: string }) => entry.key)).not.toContain('diagnosed');
    const provider = await hub.request('GET', `/api/v3/case/notifications?guid=${powerCase}`, {
      token: DEMO_TOKENS.nrc,
    });
    expect(provider.body.data.map((entry: { key: string }) => entry.key)).toContain('diagnosed');
  });
});
