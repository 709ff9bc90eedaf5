/** trackingId request log, requests/find and requests/log through the gateway. */
import { databaseOf } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, caseBody } from '../../../test/support/cases';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
});
afterAll(() => hub.stop());

const { elkjop, power, nrc, svea } = DEMO_TOKENS;
const caseId = async (guid: string) =>
  (await hub.broker.call<any[], object>('booking.caseParties', { guids: [guid] }))[0].id as number;

describe('trackingId', () => {
  it('stores failed and successful attempts with errors and every field, found by the partner that sent them', async () => {
    const failed = caseBody(elkjop, {
      trackingId: 'TRK-1',
      extraneous: 'kept in the log',
      productData: { serial: undefined },
    });
    expect((await hub.request('POST', '/api/v3/case/create', { token: elkjop, body: failed })).status).toBe(400);
    const created = await hub.request('POST', '/api/v3/case/create', {
      token: elkjop,
      body: caseBody(elkjop, { trackingId: 'TRK-1' }),
    });
    expect(created.status).toBe(200);

    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-1', { token: elkjop });
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(2);
    const [first, second] = found.body.data;
    expect(first).toMatchObject({
      type: 'caseCreated',
      status: 'error',
      caseId: null,
      message: 'Fields validation failed',
    });
    expect(first.meta).toEqual({
      trackingId: 'TRK-1',
      validationErrors: { 'productData.serial': ['Field is required'] },
    });
    expect(JSON.parse(first.request)).toMatchObject({ extraneous: 'kept in the log', trackingId: 'TRK-1' });
    expect(JSON.parse(first.response)).toEqual({
      error: { message: 'Fields validation failed', details: { 'productData.serial': ['Field is required'] } },
    });
    expect(second).toMatchObject({ type: 'caseCreated', status: 'success', caseId: await caseId(created.body.guid) });
    expect(second.meta).toEqual({ trackingId: 'TRK-1', caseId: second.caseId, guid: created.body.guid });
  });

  it('keeps case/validate attempts too, marked validateOnly, with their errors and no case', async () => {
    const invalid = caseBody(elkjop, { trackingId: 'TRK-V', productData: { serial: undefined } });
    expect((await hub.request('POST', '/api/v3/case/validate', { token: elkjop, body: invalid })).status).toBe(400);
    const valid = await hub.request('POST', '/api/v3/case/validate', {
      token: elkjop,
      body: caseBody(elkjop, { trackingId: 'TRK-V' }),
    });
    expect(valid.status).toBe(200);

    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-V', { token: elkjop });
    expect(found.status).toBe(200);
    const [failed, passed] = found.body.data;
    expect(found.body.data).toHaveLength(2);
    expect(failed).toMatchObject({
      type: 'caseCreated',
      status: 'error',
      caseId: null,
      message: 'Fields validation failed',
    });
    expect(failed.meta).toEqual({
      trackingId: 'TRK-V',
      validateOnly: true,
      validationErrors: { 'productData.serial': ['Field is required'] },
    });
    expect(passed).toMatchObject({
      type: 'caseCreated',
      status: 'success',
      caseId: null,
      message: 'Validation passed',
    });
    expect(passed.meta).toEqual({ trackingId: 'TRK-V', validateOnly: true });
    expect(JSON.parse(passed.request)).toMatchObject({ trackingId: 'TRK-V' });
    expect(JSON.parse(passed.response)).toEqual({ data: { result: true } });
  });

  it('keeps the body as sent, never the token that came in the query string', async () => {
    const created = await hub.request('POST', `/api/v3/case/create?accessToken=${elkjop}`, {
      body: caseBody(elkjop, { trackingId: 'TRK-TOKEN' }),
    });
    expect(created.status).toBe(200);
    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-TOKEN', { token: elkjop });
    expect(found.body.data).toHaveLength(1);
    expect(JSON.parse(found.body.data[0].request)).not.toHaveProperty('accessToken');
    expect(JSON.stringify(found.body.data[0])).not.toContain(elkjop);
  });

  it('shows another partner nothing', async () => {
    await hub.request('POST', '/api/v3/case/create', {
      token: elkjop,
      body: caseBody(elkjop, { trackingId: 'TRK-2' }),
    });
    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-2', { token: power });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ data: [], next: null });
  });

  it('logs nothing without a trackingId', async () => {
    const db = (await databaseOf(hub.broker)).knex;
    const before = await db('booking.external_requests').count<{ count: number }[]>('id as count');
    await bookCase(hub, elkjop);
    const after = await db('booking.external_requests').count<{ count: number }[]>('id as count');
    expect(after[0].count).toBe(before[0].count);
  });

  it('finds by a POST body as the documentation does, the same as by query', async () => {
    await hub.request('POST', '/api/v3/case/create', {
      token: elkjop,
      body: caseBody(elkjop, { trackingId: 'TRK-POST' }),
    });
    const byBody = await hub.request('POST', '/api/v3/requests/find', {
      token: elkjop,
      body: { trackingId: 'TRK-POST' },
    });
    expect(byBody.status).toBe(200);
    expect(byBody.body.data).toHaveLength(1);
    expect(byBody.body.data[0]).toMatchObject({ type: 'caseCreated', status: 'success' });
    const byQuery = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-POST', { token: elkjop });
    expect(byQuery.body).toEqual(byBody.body);
    const missing = await hub.request('POST', '/api/v3/requests/find', { token: elkjop, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual({ trackingId: ['Field is required'] });
  });

  it('needs a trackingId to find', async () => {
    const response = await hub.request('GET', '/api/v3/requests/find', { token: elkjop });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual({ trackingId: ['Field is required'] });
  });
});

describe('POST /api/v3/requests/log', () => {
  it('stores a record on a case the caller may see and returns it', async () => {
    const guid = await bookCase(hub, elkjop);
    const id = await caseId(guid);
    const body = {
      type: 'shipmentBooked',
      status: 'success',
      url: 'https://carrier.example/api',
      meta: { caseId: id, carrier: 'PostNord' },
      request: '{}',
      response: '{"ok":true}',
      message: 'Booked',
    };
    const partner = await hub.request('POST', '/api/v3/requests/log', { token: elkjop, body });
    expect(partner.status).toBe(200);
    expect(partner.body).toMatchObject({
      id: expect.any(Number),
      caseId: id,
      type: 'shipmentBooked',
      status: 'success',
      meta: { caseId: id, carrier: 'PostNord' },
      message: 'Booked',
    });
    const provider = await hub.request('POST', '/api/v3/requests/log', { token: nrc, body });
    expect(provider.status).toBe(200);
  });

  it('answers 404 for a case the caller may not see or that does not exist', async () => {
    const id = await caseId(await bookCase(hub, elkjop));
    const body = { type: 'x', status: 'success', meta: { caseId: id } };
    expect((await hub.request('POST', '/api/v3/requests/log', { token: power, body })).status).toBe(404);
    expect((await hub.request('POST', '/api/v3/requests/log', { token: svea, body })).status).toBe(404);
    expect(
      (
        await hub.request('POST', '/api/v3/requests/log', {
          token: elkjop,
          body: { ...body, meta: { caseId: 99999999 } },
        })
      ).status,
    ).toBe(404);
  });

  it('takes only the documented statuses, success and error', async () => {
    const id = await caseId(await bookCase(hub, elkjop));
    const log = (status: string) =>
      hub.request('POST', '/api/v3/requests/log', { token: elkjop, body: { type: 'x', status, meta: { caseId: id } } });
    expect((await log('error')).status).toBe(200);
    const refused = await log('failed');
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.error.details)).toEqual(['status']);
  });

  it('needs type, status and meta.caseId', async () => {
    const response = await hub.request('POST', '/api/v3/requests/log', { token: elkjop, body: { meta: {} } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual({
      type: ['Field is required'],
      status: ['Field is required'],
      'meta.caseId': ['Field is required'],
    });
  });
});
