/**
 * The API reference holds true of the answers: every operation the OpenAPI document lists, older
 * paths included, is called through the gateway on a hub with every service, and its real 200
 * answer must match the response schema the document declares for it (ajv, with the document's
 * named shapes). An operation the tour does not reach fails the suite, so a new endpoint is held
 * to its schema from its first day.
 */
import { ALL_SERVICES, DEMO_WORLD_FILE, readWorld } from '../../shared/src';
import { serviceSchemaOf } from '../../cli/src';
import { caseBody } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { apiReference, type ApiReference } from '../support/openapi';

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;
const admin = DEMO_TOKENS.admin;

let hub: TestHub;
let reference: ApiReference;
const checked = new Set<string>();

beforeAll(async () => {
  hub = await startTestHub({ services: ALL_SERVICES.filter((name) => name === 'gateway' || serviceSchemaOf(name)) });
  reference = await apiReference(hub);
});
afterAll(() => hub.stop());

interface Call {
  token: string;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

/**
 * Calls the operation `METHOD /path` (the document's path, `{id}` filled from `params`) and holds
 * its answer to the documented schema; answers the body.
 */
async function answer(operation: string, call: Call, params: Record<string, number> = {}): Promise<any> {
  const [method, path] = operation.split(' ');
  const query = new URLSearchParams(
    Object.entries(call.query ?? {}).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();
  const url = `/api${path.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]))}${query ? `?${query}` : ''}`;
  const res = await hub.request(method, url, { token: call.token, body: call.body });
  expect({ operation, status: res.status, body: res.body }).toEqual({
    operation,
    status: 200,
    body: res.body,
  });
  const documented = reference.answerOf(method, path);
  if (documented.mediaType === 'application/json') {
    const valid = documented.validate(res.body);
    expect({ operation, errors: valid ? null : documented.validate.errors }).toEqual({ operation, errors: null });
  } else {
    expect(res.headers.get('content-type')).not.toMatch(/^application\/json/);
  }
  checked.add(operation);
  return res.body;
}

/** The same call at each of the operation's paths (`/v3/...` and its older `/v1/`, `/v2/` forms). */
async function atEach(versions: string[], operation: string, call: Call): Promise<any[]> {
  const [method, path] = operation.split(' ');
  const answers = [];
  for (const version of versions) answers.push(await answer(`${method} /${version}${path}`, call));
  return answers;
}

/** A v3 booking body under the v1/v2 names (`order`, `product`). */
function olderBooking(body: Record<string, any>): Record<string, any> {
  const { orderData, productData, ...rest } = body;
  return { ...rest, order: orderData, product: productData };
}

const LOOKUP = { originatorType: 'private', bookingType: 'companyToPrivate' };
const COMBINATION = { ...LOOKUP, serviceType: 2, manufacturer: 'Apple', productType: 1 };

it('answers the reference data as documented', async () => {
  await atEach(['v3', 'v1', 'v2'], 'GET /manufacturers', { token: partner, query: LOOKUP });
  await atEach(['v1', 'v2'], 'GET /brands', { token: partner, query: { originatorType: 'private' } });
  await atEach(['v3', 'v1', 'v2'], 'GET /service-types', { token: partner, query: LOOKUP });
  await atEach(['v3', 'v1', 'v2'], 'GET /product-types', { token: partner, query: { ...LOOKUP, manufacturer: 1 } });
  await atEach(['v3', 'v1', 'v2'], 'GET /service-locations', { token: partner, query: COMBINATION });
  const methods = await atEach(['v3', 'v1', 'v2'], 'GET /shipping-methods', {
    token: partner,
    query: { ...COMBINATION, serviceLocation: 1 },
  });
  expect(methods[0].length).toBeGreaterThan(0);
  await atEach(['v3', 'v1', 'v2'], 'GET /accessory', { token: partner, query: { productType: 1 } });
  const pickup = { token: partner, query: { shippingMethod: 1, postalCode: '0150' } };
  expect((await atEach(['v3', 'v1', 'v2'], 'GET /shipping/pickup-dates', pickup))[0].length).toBeGreaterThan(0);
  await atEach(['v3', 'v2'], 'GET /shipping/pickup-dates-extended', pickup);
  await atEach(['v3', 'v2'], 'GET /partner', { token: provider, query: { id: 1 } });
  await atEach(['v3', 'v2'], 'GET /provider', { token: partner, query: { id: 10 } });
  await atEach(['v3', 'v2'], 'GET /providers', { token: partner, query: { ids: '10,20' } });
  await atEach(['v3', 'v2'], 'GET /department', { token: partner, query: { id: 101 } });
  await atEach(['v3', 'v2'], 'GET /routing', {
    token: partner,
    query: { ...COMBINATION, serviceLocation: 1, clientPostalCode: '0150' },
  });
  expect((await atEach(['v3', 'v2'], 'GET /models', { token: partner, query: { model: 'iphone' } }))[0]).not.toEqual(
    [],
  );
  for (const [version, name] of [
    ['v3', 'Reference phone 3'],
    ['v2', 'Reference phone 2'],
  ])
    await answer(`POST /${version}/models`, {
      token: partner,
      body: [{ manufacturer: 'Apple', productType: 1, name, mpn: name.replace(/\s/g, ''), value: '10.00' }],
    });
});

it('answers the life of a case as documented', async () => {
  const booking = caseBody(partner, { trackingId: 'api-answers' });
  const { serviceType, manufacturer, productType, location, shipping, originatorType, bookingType } = booking;
  await answer('GET /v3/case/schema', {
    token: partner,
    query: { serviceType, manufacturer, productType, location, shipping, originatorType, bookingType },
  });
  await answer('POST /v3/case/validate', { token: partner, body: booking });
  await answer('POST /v2/case/validate', { token: partner, body: olderBooking(booking) });
  await answer('POST /v1/case/validate', { token: partner, body: olderBooking(booking) });
  // v1 answered a failed validation with 200 too.
  expect((await answer('POST /v1/case/validate', { token: partner, body: {} })).result).toBe(false);
  const { guid } = await answer('POST /v3/case/create', { token: partner, body: booking });
  const older = await answer('POST /v2/case/create', { token: partner, body: olderBooking(booking) });
  await answer('POST /v1/case/create', { token: partner, body: olderBooking(booking) });

  const read = await answer('GET /v3/case', { token: partner, query: { guid, includeRequests: true } });
  expect(read.externalRequests).toHaveLength(1);
  await atEach(['v1', 'v2'], 'GET /case', { token: provider, query: { guid } });
  const search = { filters: { guid: older.guid }, pagination: { limit: 2 } };
  expect(
    (await atEach(['v3', 'v1', 'v2'], 'POST /search-cases', { token: partner, body: search }))[0].data,
  ).toHaveLength(1);
  await answer('GET /v3/requests/find', { token: partner, query: { trackingId: 'api-answers' } });
  await answer('POST /v3/requests/find', { token: partner, body: { trackingId: 'api-answers' } });
  await atEach(['v3', 'v2'], 'POST /requests/log', {
    token: provider,
    body: { type: 'pickupOrdered', status: 'success', meta: { caseId: read.id } },
  });
  await answer('GET /v3/case/history', { token: partner, query: { guid } });

  await atEach(['v3', 'v1', 'v2'], 'POST /unexported-cases', { token: provider, body: { pagination: { limit: 1 } } });
  await atEach(['v3', 'v2'], 'GET /case/export', { token: provider, query: { guid } });
  await atEach(['v3', 'v1', 'v2'], 'POST /case/accept', { token: provider, body: { guid } });
  await atEach(['v3', 'v1', 'v2'], 'POST /case/update', {
    token: partner,
    body: { guid, orderData: { refNo: 'R-2' } },
  });
  await answer('POST /v3/case/append', {
    token: provider,
    body: { guid, orderData: { providerOrderReference: 'W-1' } },
  });
  for (const [version, key] of [
    ['v3', 'arrived'],
    ['v1', 'diagnosed'],
    ['v2', 'diagnosed'],
  ])
    await answer(`POST /${version}/case/status`, { token: provider, body: { guid, key } });
  await atEach(['v3', 'v2'], 'GET /case/notifications', { token: partner, query: { guid } });

  const label = { name: 'label.pdf', type: 'shipmentLabel', data: Buffer.from('%PDF-1.4').toString('base64') };
  await atEach(['v3', 'v1', 'v2'], 'POST /case/files', { token: provider, body: { guid, files: [label] } });
  await atEach(['v3', 'v1', 'v2'], 'GET /shipping/label', { token: partner, query: { guid } });
  const files = (await answer('GET /v3/case', { token: partner, query: { guid } })).orderData.files;
  const fileId = Number(new URL(files[0].url, hub.url).searchParams.get('id'));
  await answer('GET /v3/case/file', { token: partner, query: { guid, id: fileId } });

  // Without SMTP_URL the answer says why no email went out.
  await atEach(['v3', 'v2'], 'POST /case/send-completed-email', { token: partner, body: { guid } });
  await atEach(['v3', 'v2'], 'POST /case/finish', { token: partner, body: { guid } });
  await atEach(['v3', 'v1', 'v2'], 'POST /case/cancel', { token: provider, body: { guid: older.guid } });
});

it('answers cost proposals, messages and invoices as documented', async () => {
  const { guid } = await answer('POST /v3/case/create', { token: partner, body: caseBody(partner) });
  const proposal = (name: string) => ({ guid, externalId: [name], name, priceNet: 100, currency: 'NOK' });
  const [saved] = (await answer('POST /v3/cost-proposals', { token: provider, body: [proposal('Repair')] })).data;
  const [second] = (await answer('POST /v2/cost-proposals', { token: provider, body: [proposal('RUR')] })).data;
  const [third] = (await answer('POST /v1/cost-proposals', { token: provider, body: [proposal('Scrap')] })).data;
  await atEach(['v3', 'v1', 'v2'], 'GET /cost-proposals', { token: partner, query: { guid } });
  const reaction = { id: saved.id, name: 'Kari', reaction: 'approved' };
  await atEach(['v3', 'v2'], 'POST /cost-proposals/feedback', { token: partner, body: reaction });
  await answer('POST /v1/cost-proposals/approve', {
    token: partner,
    query: { id: second.id },
    body: { approverName: 'Kari' },
  });
  await answer('POST /v3/cost-proposals/delete', { token: provider, body: { id: third.id } });
  await answer('POST /v2/cost-proposals/delete', { token: provider, body: { id: second.id } });

  const message = { guid, content: 'Is it ready?', type: 'statusRequest' };
  const sent = await answer('POST /v3/case-messages/create', { token: partner, body: message });
  const olderMessage = { guid, content: 'Soon', messageType: 'serviceComment' };
  await atEach(['v1', 'v2'], 'POST /case-messages/create', { token: provider, body: olderMessage });
  await atEach(['v3', 'v1', 'v2'], 'GET /case-messages', { token: partner, query: { guid } });
  await answer('POST /v3/case-messages/confirm', { token: provider, body: [sent.id, 999999] });
  await answer('POST /v2/case-messages/confirm', { token: provider, body: [sent.id] });

  const invoice = {
    guid,
    externalId: 'INV-1',
    priceNet: 100,
    currency: 'NOK',
    dueDate: '2026-12-01',
    details: [
      {
        name: 'Repair',
        count: 1,
        vatRate: 25,
        vatAmount: 25,
        priceExclVat: 100,
        priceInclVat: 125,
        totalAmountExclVat: 100,
        totalAmountInclVat: 125,
      },
    ],
  };
  await atEach(['v3', 'v2'], 'POST /invoices', { token: provider, body: [invoice] });
  await answer('GET /v3/invoices', { token: partner, query: { guid } });
  await atEach(['v3', 'v2'], 'POST /invoices/find', {
    token: partner,
    body: { filters: { guid }, pagination: { limit: 5 } },
  });
});

it('answers the feed and the admin API as documented', async () => {
  await answer('GET /admin/accounts', { token: admin });
  const account = await answer('POST /admin/accounts', {
    token: admin,
    body: { name: 'Answers test', role: 'partner', partnerId: 1 },
  });
  const created = await answer('POST /admin/webhooks/subscriptions', {
    token: admin,
    body: {
      accountId: account.data.id,
      eventTypes: ['status.new'],
      target: { kind: 'http', url: 'https://hooks.example.invalid/hub' },
    },
  });
  const id = created.data.id;
  await answer('GET /admin/webhooks/subscriptions', { token: admin });
  await answer('PUT /admin/webhooks/subscriptions/{id}', { token: admin, body: { maxInFlight: 2 } }, { id });
  await answer('POST /admin/webhooks/subscriptions/{id}/pause', { token: admin }, { id });
  await answer('POST /admin/webhooks/subscriptions/{id}/resume', { token: admin }, { id });
  await answer('POST /admin/webhooks/subscriptions/{id}/rotate-secret', { token: admin }, { id });
  await answer(
    'POST /admin/webhooks/subscriptions/{id}/redeliver-failed',
    { token: admin, body: { since: '2026-01-01T00:00:00Z' } },
    { id },
  );

  // A status of a case of the subscribed partner makes a delivery to read.
  const { guid } = await answer('POST /v3/case/create', { token: partner, body: caseBody(partner) });
  await answer('POST /v3/case/status', { token: provider, body: { guid, key: 'arrived' } });
  let deliveries: Array<{ id: number }> = [];
  await waitFor(async () => {
    const listed = await answer('GET /admin/webhooks/deliveries', { token: admin, query: { subscriptionId: id } });
    deliveries = listed.data;
    return deliveries.length > 0;
  }, 'a delivery of the status');
  await answer('GET /admin/webhooks/deliveries/{id}/attempts', { token: admin }, { id: deliveries[0].id });
  await answer('POST /admin/webhooks/deliveries/{id}/redeliver', { token: admin }, { id: deliveries[0].id });
  await answer('DELETE /admin/webhooks/subscriptions/{id}', { token: admin }, { id });

  await answer('GET /v3/events', { token: partner, query: { limit: 5 } });
  await answer('GET /admin/overview', { token: admin, query: { hours: 2 } });
  await answer('GET /admin/storage', { token: admin });
  // Loading the world the hub holds changes nothing.
  await answer('POST /admin/world', { token: admin, body: { world: readWorld(DEMO_WORLD_FILE) } });
});

it("answers where a simulated provider's case is as documented", async () => {
  const shop = DEMO_TOKENS.sandboxShop;
  const { guid } = await answer('POST /v3/case/create', { token: shop, body: caseBody(shop) });
  // The sandbox takes the case on its next look at the simulated provider's new cases.
  const path = `/api/v3/sandbox/simulation?guid=${guid}`;
  await waitFor(async () => (await hub.request('GET', path, { token: shop })).status === 200, 'the simulation');
  await answer('GET /v3/sandbox/simulation', { token: shop, query: { guid } });
});

it('reaches every operation of the document', () => {
  expect(reference.operations.filter((operation) => !checked.has(operation)).sort()).toEqual([]);
});

it('refuses an answer that does not match its schema, so the check can fail', () => {
  const { validate, example } = reference.answerOf('GET', '/v3/case');
  expect(validate(example)).toBe(true);
  expect(validate({ ...(example as object), guid: 7 })).toBe(false);
  expect(reference.answerOf('GET', '/v3/manufacturers').validate([{ id: 1, name: 'Apple' }])).toBe(false);
});
