/** trackingId request log, requests/find, requests/log and Idempotency-Key through the gateway. */
import { databaseOf } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, caseBody } from '../../../test/support/cases';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
});
afterAll(() => hub.stop());

const { elkjop, power, nrc, svea } = DEMO_TOKENS;
const caseId = async (guid: string) => (await hub.broker.call<any[], object>('booking.caseParties', { guids: [guid] }))[0].id as number;

describe('trackingId', () => {
  it('stores failed and successful attempts with errors and every field, found by the partner that sent them', async () => {
    const failed = caseBody(elkjop, { trackingId: 'TRK-1', extraneous: 'kept in the log', productData: { serial: undefined } });
    expect((await hub.request('POST', '/api/v3/case/create', { token: elkjop, body: failed })).status).toBe(400);
    const created = await hub.request('POST', '/api/v3/case/create', { token: elkjop, body: caseBody(elkjop, { trackingId: 'TRK-1' }) });
    expect(created.status).toBe(200);

    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-1', { token: elkjop });
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(2);
    const [first, second] = found.body.data;
    expect(first).toMatchObject({ type: 'caseCreated', status: 'failed', caseId: null, message: 'Fields validation failed' });
    expect(first.meta).toEqual({ trackingId: 'TRK-1', validationErrors: { 'productData.serial': ['Field is required'] } });
    expect(JSON.parse(first.request)).toMatchObject({ extraneous: 'kept in the log', trackingId: 'TRK-1' });
    expect(JSON.parse(first.response)).toEqual({ error: { message: 'Fields validation failed', details: { 'productData.serial': ['Field is required'] } } });
    expect(second).toMatchObject({ type: 'caseCreated', status: 'success', caseId: await caseId(created.body.guid) });
    expect(second.meta).toEqual({ trackingId: 'TRK-1', caseId: second.caseId, guid: created.body.guid });
  });

  it('keeps case/validate attempts too, marked validateOnly, with their errors and no case', async () => {
    const invalid = caseBody(elkjop, { trackingId: 'TRK-V', productData: { serial: undefined } });
    expect((await hub.request('POST', '/api/v3/case/validate', { token: elkjop, body: invalid })).status).toBe(400);
    const valid = await hub.request('POST', '/api/v3/case/validate', { token: elkjop, body: caseBody(elkjop, { trackingId: 'TRK-V' }) });
    expect(valid.status).toBe(200);

    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-V', { token: elkjop });
    expect(found.status).toBe(200);
    const [failed, passed] = found.body.data;
    expect(found.body.data).toHaveLength(2);
    expect(failed).toMatchObject({ type: 'caseCreated', status: 'failed', caseId: null, message: 'Fields validation failed' });
    expect(failed.meta).toEqual({ trackingId: 'TRK-V', validateOnly: true, validationErrors: { 'productData.serial': ['Field is required'] } });
    expect(passed).toMatchObject({ type: 'caseCreated', status: 'success', caseId: null, message: 'Validation passed' });
    expect(passed.meta).toEqual({ trackingId: 'TRK-V', validateOnly: true });
    expect(JSON.parse(passed.request)).toMatchObject({ trackingId: 'TRK-V' });
    expect(JSON.parse(passed.response)).toEqual({ data: { result: true } });
  });

  it('keeps the body as sent, never the token that came in the query string', async () => {
    const created = await hub.request('POST', `/api/v3/case/create?accessToken=${elkjop}`, { body: caseBody(elkjop, { trackingId: 'TRK-TOKEN' }) });
    expect(created.status).toBe(200);
    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-TOKEN', { token: elkjop });
    expect(found.body.data).toHaveLength(1);
    expect(JSON.parse(found.body.data[0].request)).not.toHaveProperty('accessToken');
    expect(JSON.stringify(found.body.data[0])).not.toContain(elkjop);
  });

  it('shows another partner nothing', async () => {
    await hub.request('POST', '/api/v3/case/create', { token: elkjop, body: caseBody(elkjop, { trackingId: 'TRK-2' }) });
    const found = await hub.request('GET', '/api/v3/requests/find?trackingId=TRK-2', { token: power });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ data: [] });
  });

  it('logs nothing without a trackingId', async () => {
    const db = (await databaseOf(hub.broker)).knex;
    const before = await db('booking.external_requests').count<{ count: number }[]>('id as count');
    await bookCase(hub, elkjop);
    const after = await db('booking.external_requests').count<{ count: number }[]>('id as count');
    expect(after[0].count).toBe(before[0].count);
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
    const body = { type: 'shipmentBooked', status: 'success', url: 'https://carrier.example/api', meta: { caseId: id, carrier: 'PostNord' }, request: '{}', response: '{"ok":true}', message: 'Booked' };
    const partner = await hub.request('POST', '/api/v3/requests/log', { token: elkjop, body });
    expect(partner.status).toBe(200);
    expect(partner.body).toMatchObject({ id: expect.any(Number), caseId: id, type: 'shipmentBooked', status: 'success', meta: { caseId: id, carrier: 'PostNord' }, message: 'Booked' });
    const provider = await hub.request('POST', '/api/v3/requests/log', { token: nrc, body });
    expect(provider.status).toBe(200);
  });

  it('answers 404 for a case the caller may not see or that does not exist', async () => {
    const id = await caseId(await bookCase(hub, elkjop));
    const body = { type: 'x', status: 'success', meta: { caseId: id } };
    expect((await hub.request('POST', '/api/v3/requests/log', { token: power, body })).status).toBe(404);
    expect((await hub.request('POST', '/api/v3/requests/log', { token: svea, body })).status).toBe(404);
    expect((await hub.request('POST', '/api/v3/requests/log', { token: elkjop, body: { ...body, meta: { caseId: 99999999 } } })).status).toBe(404);
  });

  it('needs type, status and meta.caseId', async () => {
    const response = await hub.request('POST', '/api/v3/requests/log', { token: elkjop, body: { meta: {} } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual({ type: ['Field is required'], status: ['Field is required'], 'meta.caseId': ['Field is required'] });
  });
});

describe('Idempotency-Key', () => {
  const create = (key: string, body: unknown) =>
    hub.request('POST', '/api/v3/case/create', { token: elkjop, body, headers: { 'Idempotency-Key': key } });

  it('answers a retried create with the same guid and makes one case', async () => {
    const body = caseBody(elkjop, { orderData: { refNo: 'IDEM-1' } });
    const first = await create('key-1', body);
    const retried = await create('key-1', body);
    expect(first.status).toBe(200);
    expect(retried.status).toBe(200);
    expect(retried.body.guid).toBe(first.body.guid);
    const db = (await databaseOf(hub.broker)).knex;
    expect(await db('booking.cases').whereRaw(`order_data->>'refNo' = 'IDEM-1'`)).toHaveLength(1);
  });

  it('answers concurrent retries with one case', async () => {
    const body = caseBody(elkjop, { orderData: { refNo: 'IDEM-2' } });
    const answers = await Promise.all([create('key-2', body), create('key-2', body), create('key-2', body)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.guid)).size).toBe(1);
    const db = (await databaseOf(hub.broker)).knex;
    expect(await db('booking.cases').whereRaw(`order_data->>'refNo' = 'IDEM-2'`)).toHaveLength(1);
  });

  it('takes the same body with its keys in another order as the same request', async () => {
    const body = caseBody(elkjop, { orderData: { refNo: 'IDEM-ORDER' } });
    const first = await create('key-order', body);
    expect(first.status).toBe(200);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    reordered.customer = Object.fromEntries(Object.entries(body.customer).reverse());
    const retried = await create('key-order', reordered);
    expect(retried.status).toBe(200);
    expect(retried.body.guid).toBe(first.body.guid);
  });

  it('refuses the same key with a different body', async () => {
    expect((await create('key-3', caseBody(elkjop))).status).toBe(200);
    const reused = await create('key-3', caseBody(elkjop, { orderData: { refNo: 'OTHER' } }));
    expect(reused.status).toBe(409);
  });

  it('forgets a key after IDEMPOTENCY_KEY_TTL (a day by default): the same key books again, even with another body', async () => {
    const first = await create('key-5', caseBody(elkjop, { orderData: { refNo: 'IDEM-5' } }));
    expect(first.status).toBe(200);
    const db = (await databaseOf(hub.broker)).knex;
    await db('booking.idempotency_keys').where({ key: 'key-5' }).update({ created_at: db.raw("now() - interval '25 hours'") });
    const again = await create('key-5', caseBody(elkjop, { orderData: { refNo: 'IDEM-5b' } }));
    expect(again.status).toBe(200);
    expect(again.body.guid).not.toBe(first.body.guid);
    // The key now stands for the new case.
    const retried = await create('key-5', caseBody(elkjop, { orderData: { refNo: 'IDEM-5b' } }));
    expect(retried.body.guid).toBe(again.body.guid);
  });

  it('keeps keys apart per partner and without a key books again', async () => {
    const first = await create('key-4', caseBody(elkjop));
    const other = await hub.request('POST', '/api/v3/case/create', { token: power, body: caseBody(power), headers: { 'Idempotency-Key': 'key-4' } });
    expect(other.status).toBe(200);
    expect(other.body.guid).not.toBe(first.body.guid);
    expect(await bookCase(hub, elkjop)).not.toBe(await bookCase(hub, elkjop));
  });
});

describe('Idempotency-Key expiry sweep', () => {
  let shortLived: TestHub;
  beforeAll(async () => {
    shortLived = await startTestHub({ services: BOOKING_SERVICES, env: { IDEMPOTENCY_KEY_TTL: '2s' } });
  });
  afterAll(() => shortLived.stop());

  it('deletes keys older than IDEMPOTENCY_KEY_TTL', async () => {
    const created = await shortLived.request('POST', '/api/v3/case/create', { token: elkjop, body: caseBody(elkjop), headers: { 'Idempotency-Key': 'swept' } });
    expect(created.status).toBe(200);
    const db = (await databaseOf(shortLived.broker)).knex;
    expect(await db('booking.idempotency_keys').where({ key: 'swept' })).toHaveLength(1);
    await waitFor(async () => (await db('booking.idempotency_keys').where({ key: 'swept' })).length === 0, 'the expired key to be swept');
  });
});
