/**
 * GET /api/v3/case/history through the gateway: every kind of write recorded with its account,
 * party and changed fields, nothing recorded for a write that changed nothing or failed, each
 * party's view (a partner: no provider-private data, its own status keys, no hidden statuses),
 * and case-level access.
 */
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase, UNKNOWN_GUID } from '../../../test/support/cases';
import { documentedAnswer } from '../../../test/support/openapi';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
});
afterAll(() => hub.stop());

const post = async (path: string, token: string, body: unknown, status = 200) => {
  const response = await hub.request('POST', `/api/v3/${path}`, { token, body });
  expect({ path, status: response.status, body: response.body }).toMatchObject({ path, status });
  return response.body;
};
const history = async (guid: string, token: string) => {
  const response = await hub.request('GET', `/api/v3/case/history?guid=${guid}`, { token });
  expect(response.status).toBe(200);
  return response.body.data as Array<Record<string, any>>;
};
/** Each entry as `action: field before→after, ...` by `party`, to compare whole histories at a glance. */
const outline = (entries: Array<Record<string, any>>) =>
  entries.map((entry) => ({
    action: entry.action,
    by: entry.party?.type ?? null,
    changes: Object.fromEntries(
      entry.changes.map((change: { field: string; before: unknown; after: unknown }) => [
        change.field,
        [change.before, change.after],
      ]),
    ),
  }));

const ELKJOP = { account: { id: 2, name: 'Elkjøp API' }, party: { type: 'partner', id: 1, name: 'Elkjøp Nordic' } };
const NRC = {
  account: { id: 5, name: 'Nordic Repair Center API' },
  party: { type: 'provider', id: 10, name: 'Nordic Repair Center' },
};

describe('GET /api/v3/case/history', () => {
  let guid: string;
  const file = { name: 'label.pdf', url: 'https://files.example.com/label.pdf', type: 'shipmentLabel' };

  beforeAll(async () => {
    guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    await post('case/status', DEMO_TOKENS.nrc, { guid, key: 'arrived' });
    await post('case/status', DEMO_TOKENS.nrc, { guid, key: 'awaiting_parts' });
    // The current key again adds nothing, so it is no entry.
    await post('case/status', DEMO_TOKENS.nrc, { guid, key: 'awaiting_parts' });
    await post('case/update', DEMO_TOKENS.elkjop, {
      guid,
      orderData: { refNo: 'REF-2', partnerSpecific: { elkjop: { store: 'A1' } } },
    });
    await post('case/append', DEMO_TOKENS.nrc, { guid, orderData: { providerSpecific: { nrc: { bench: 4 } } } });
    await post('case/append', DEMO_TOKENS.nrc, {
      guid,
      orderData: { providerOrderReference: 'WO-7', providerSpecific: { nrc: { bench: 5 } } },
    });
    // Refused, so nothing changed and nothing is recorded.
    await post(
      'case/append',
      DEMO_TOKENS.elkjop,
      { guid, productData: { imei: 'an IMEI longer than twenty characters' } },
      400,
    );
    // Sending what is already stored changes nothing.
    await post('case/append', DEMO_TOKENS.elkjop, { guid, orderData: { refNo: 'REF-2' } });
    await post('case/files', DEMO_TOKENS.nrc, { guid, files: [file] });
    await post('case/accept', DEMO_TOKENS.nrc, { guid });
    await post('case/finish', DEMO_TOKENS.elkjop, { guid });
  });

  it('lists every change for the provider: who, what, when, each field before and after', async () => {
    const entries = await history(guid, DEMO_TOKENS.nrc);
    expect(outline(entries)).toEqual([
      { action: 'created', by: 'partner', changes: { currentStatus: [null, 'registered'] } },
      { action: 'statusAdded', by: 'provider', changes: { currentStatus: ['registered', 'arrived'] } },
      { action: 'statusAdded', by: 'provider', changes: { currentStatus: ['arrived', 'awaiting_parts'] } },
      {
        action: 'updated',
        by: 'partner',
        changes: {
          'orderData.refNo': ['REF-1001', 'REF-2'],
          'orderData.partnerSpecific': [null, { elkjop: { store: 'A1' } }],
        },
      },
      {
        action: 'appended',
        by: 'provider',
        changes: { 'orderData.providerSpecific': [null, { nrc: { bench: 4 } }] },
      },
      {
        action: 'appended',
        by: 'provider',
        changes: {
          'orderData.providerSpecific.nrc.bench': [4, 5],
          'orderData.providerOrderReference': [null, 'WO-7'],
        },
      },
      { action: 'filesUploaded', by: 'provider', changes: { 'orderData.files': [null, [file]] } },
      { action: 'accepted', by: 'provider', changes: { 'orderData.serviceProviderExportStatus': [false, true] } },
      { action: 'finished', by: 'partner', changes: { 'orderData.integrationsFinished': [false, true] } },
    ]);
    expect(entries[0]).toMatchObject(ELKJOP);
    expect(entries[1]).toMatchObject(NRC);
    const times = entries.map((entry) => Date.parse(entry.at));
    expect(times.every((time, index) => Number.isFinite(time) && (index === 0 || time >= times[index - 1]))).toBe(true);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
  });

  it("shows the partner its own status keys and none of the provider's private data", async () => {
    expect(outline(await history(guid, DEMO_TOKENS.elkjop))).toEqual([
      { action: 'created', by: 'partner', changes: { currentStatus: [null, 'registered'] } },
      { action: 'statusAdded', by: 'provider', changes: { currentStatus: ['registered', 'arrived'] } },
      // Elkjøp maps awaiting_parts to its own key.
      { action: 'statusAdded', by: 'provider', changes: { currentStatus: ['arrived', 'repairing'] } },
      {
        action: 'updated',
        by: 'partner',
        changes: {
          'orderData.refNo': ['REF-1001', 'REF-2'],
          'orderData.partnerSpecific': [null, { elkjop: { store: 'A1' } }],
        },
      },
      // The append that changed only providerSpecific is not there at all.
      { action: 'appended', by: 'provider', changes: { 'orderData.providerOrderReference': [null, 'WO-7'] } },
      { action: 'filesUploaded', by: 'provider', changes: { 'orderData.files': [null, [file]] } },
      { action: 'accepted', by: 'provider', changes: { 'orderData.serviceProviderExportStatus': [false, true] } },
      { action: 'finished', by: 'partner', changes: { 'orderData.integrationsFinished': [false, true] } },
    ]);
  });

  it('leaves out the statuses a partner may not see, reading each change from the last one it saw', async () => {
    const powerCase = await bookCase(hub, DEMO_TOKENS.power);
    await post('case/status', DEMO_TOKENS.nrc, { guid: powerCase, key: 'diagnosed' });
    await post('case/status', DEMO_TOKENS.nrc, { guid: powerCase, key: 'repaired' });
    expect(outline(await history(powerCase, DEMO_TOKENS.power))).toEqual([
      { action: 'created', by: 'partner', changes: { currentStatus: [null, 'registered'] } },
      { action: 'statusAdded', by: 'provider', changes: { currentStatus: ['registered', 'repaired'] } },
    ]);
    expect(outline(await history(powerCase, DEMO_TOKENS.nrc))).toHaveLength(3);
  });

  it("records a cancellation's status and reason as one change", async () => {
    const cancelled = await bookCase(hub, DEMO_TOKENS.elkjop);
    await post('case/cancel', DEMO_TOKENS.nrc, { guid: cancelled, reason: 'No parts' });
    expect(outline(await history(cancelled, DEMO_TOKENS.elkjop))).toEqual([
      { action: 'created', by: 'partner', changes: { currentStatus: [null, 'registered'] } },
      {
        action: 'cancelled',
        by: 'provider',
        changes: { 'orderData.cancelReason': [null, 'No parts'], currentStatus: ['registered', 'cancelled'] },
      },
    ]);
  });

  it('is in the API reference with its summary and answer schema, which its answers keep', async () => {
    const { operation, example, validate } = await documentedAnswer(hub, 'GET', '/v3/case/history');
    expect(operation.summary).toBe('Who changed the case, what and when');
    expect(operation['x-access']).toBe('partner+provider');
    for (const token of [DEMO_TOKENS.nrc, DEMO_TOKENS.elkjop]) {
      const body = (await hub.request('GET', `/api/v3/case/history?guid=${guid}`, { token })).body;
      expect({ valid: validate(body), errors: validate.errors }).toEqual({ valid: true, errors: null });
    }
    expect(validate(example)).toBe(true);
    expect(validate({ data: [{ id: 1, action: 'created' }] })).toBe(false);
  });

  it('is a 404 for a case the caller may not see, a 403 for an admin and a 400 without a guid', async () => {
    const request = (path: string, token: string) => hub.request('GET', path, { token });
    expect((await request(`/api/v3/case/history?guid=${guid}`, DEMO_TOKENS.power)).status).toBe(404);
    expect((await request(`/api/v3/case/history?guid=${guid}`, DEMO_TOKENS.svea)).status).toBe(404);
    expect((await request(`/api/v3/case/history?guid=${UNKNOWN_GUID}`, DEMO_TOKENS.elkjop)).status).toBe(404);
    expect((await request(`/api/v3/case/history?guid=${guid}`, DEMO_TOKENS.admin)).status).toBe(403);
    const missing = await request('/api/v3/case/history', DEMO_TOKENS.elkjop);
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.error.details)).toEqual(['guid']);
  });
});
