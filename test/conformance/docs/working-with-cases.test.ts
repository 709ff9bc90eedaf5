/**
 * The documentation's "Working with cases" page: reading, searching, the provider's intake,
 * statuses and files, each example sent as documented (demo world ids) and its answer checked
 * against the documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, sendDocumented, startDocsHub } from './documented';
import { CONTACT_DATA, documentedExample, documentedShape, DOCUMENTED_CASE } from './reference';

let hub: TestHub;
let guid: string;
beforeAll(async () => {
  hub = await startDocsHub();
  // Elkjøp's demo case goes to Nordic Repair Center.
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});
afterAll(() => hub?.stop());

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;

describe('GET /api/v3/case', () => {
  it('answers the documented case to its partner and its provider', async () => {
    for (const token of [partner, provider]) {
      const res = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/v3/case?guid=${guid}`, token },
        { status: 200, shape: DOCUMENTED_CASE },
      );
      expect(res.body.guid).toBe(guid);
    }
  });

  it('answers every contact as documented ContactData', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case?guid=${guid}`, token: partner },
      { status: 200, shape: { customer: CONTACT_DATA, sender: CONTACT_DATA, receiver: CONTACT_DATA } },
    );
    expect(res.body.customer.firstName).toBe('Kari');
  });

  it('adds the external requests with includeRequests=1', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case?guid=${guid}&includeRequests=1`, token: partner },
      { status: 200, shape: { ...DOCUMENTED_CASE, externalRequests: [] } },
    );
  });
});

describe('POST /api/v3/search-cases', () => {
  it('answers the documented page for the $gt example', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/search-cases',
        token: partner,
        body: { filters: { createdAt: { $gt: '2017-01-01' } } },
      },
      { status: 200, shape: { data: [DOCUMENTED_CASE], pagination: { offset: 0, count: 194 } } },
    );
    expect(res.body.data.map((found: { guid: string }) => found.guid)).toContain(guid);
  });

  it('searches by commonSearch and tags as documented', async () => {
    for (const filters of [{ commonSearch: 'nordmann' }, { tags: ['VIP'] }]) {
      await sendDocumented(
        hub,
        { method: 'POST', path: '/api/v3/search-cases', token: partner, body: { filters } },
        { status: 200, shape: { data: [DOCUMENTED_CASE], pagination: { offset: 0, count: 194 } } },
      );
    }
  });
});

describe('the provider intake', () => {
  it('POST /api/v3/unexported-cases answers as search-cases does', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/unexported-cases', token: provider, body: {} },
      { status: 200, shape: { data: [DOCUMENTED_CASE], pagination: { offset: 0, count: 194 } } },
    );
    expect(res.body.data.map((found: { guid: string }) => found.guid)).toContain(guid);
  });

  it('GET /api/v3/case/export answers the case with the provider department', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case/export?guid=${guid}`, token: provider },
      {
        status: 200,
        shape: {
          ...DOCUMENTED_CASE,
          consumer: ANY,
          customer: CONTACT_DATA,
          serviceProviderDepartment: ANY,
          serviceProviderDepartmentId: ANY,
          shippingMethod: ANY,
          shippingMethodId: ANY,
        },
      },
    );
  });

  it('POST /api/v3/case/accept takes the documented example', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/accept', token: provider, body: { guid } },
      { status: 200 },
    );
  });
});

describe('POST /api/v3/case/status', () => {
  it('answers the documented status record, its key lower-cased', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/status',
        token: provider,
        body: { guid, key: 'ARRIVED', declaredAt: '2019-01-22T10:12:54.003Z' },
      },
      {
        status: 200,
        shape: {
          data: {
            id: 98,
            caseId: 7927,
            guid: 'a7180ff9-7c6e-4d0e-b756-16b49531382f',
            key: 'final',
            createdAt: '2019-01-22T11:29:38.258Z',
            updatedAt: '2019-01-22T11:29:38.258Z',
            declaredAt: '2019-01-22T10:12:54.003Z',
          },
        },
      },
    );
    expect(res.body.data).toMatchObject({ guid, key: 'arrived', declaredAt: '2019-01-22T10:12:54.003Z' });
  });
});

describe('POST /api/v3/case/files', () => {
  it('takes the documented file objects, by url and by base64 data', async () => {
    await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/files',
        token: partner,
        body: {
          guid,
          files: [
            { name: 'cat.jpg', type: 'proofOfDamage', url: 'http://example.com/cat-image' },
            { name: 'doge.jpg', data: Buffer.from('not really a jpeg').toString('base64') },
          ],
        },
      },
      { status: 200, shape: { data: { result: true } } },
    );
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.body.orderData.files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'cat.jpg', type: 'proofOfDamage' }),
        expect.objectContaining({ name: 'doge.jpg', type: 'other' }),
      ]),
    );
  });

  it('takes every file extension the page lists, videos and office formats included', async () => {
    const documented = ['jpg', 'png', 'txt', 'pdf', 'doc', 'docx', 'jpeg', 'odt', 'xls', 'xlsx', 'avi', 'mp4'];
    const more = ['m4v', 'mov', 'wmv', 'mpg', 'mpeg', 'm2v', 'gif', 'mkv', 'mp2', 'mpe', 'mpv', '3gp'];
    // At most 20 files go in one call.
    for (const extensions of [documented, more]) {
      await sendDocumented(
        hub,
        {
          method: 'POST',
          path: '/api/v3/case/files',
          token: partner,
          body: {
            guid,
            files: extensions.map((extension) => ({
              name: `clip.${extension}`,
              url: `https://example.com/clip.${extension}`,
            })),
          },
        },
        { status: 200, shape: { data: { result: true } } },
      );
    }
  });
});

describe('the case family answers as the page shows', () => {
  it('POST /api/v3/search-cases takes the nested filter example', async () => {
    const booked = await bookCase(hub, partner, {
      orderData: { partnerSpecific: { partnerName: { internalReference: 3112312312 } } },
    });
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/search-cases',
        token: partner,
        body: { filters: { orderData: { partnerSpecific: { partnerName: { internalReference: 3112312312 } } } } },
      },
      { status: 200, shape: { data: [DOCUMENTED_CASE], pagination: { offset: 0, count: 194 } } },
    );
    expect(res.body.data.map((found: { guid: string }) => found.guid)).toEqual([booked]);
  });

  it('POST /api/v3/case/update takes the example, consents as a list, and answers { result: true }', async () => {
    await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/update',
        token: partner,
        body: { guid, orderData: { infocareSesamOriginator: 'Microsoft', consents: ['hello', 'world'] } },
      },
      { status: 200, shape: { result: true } },
    );
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.body.orderData).toMatchObject({ infocareSesamOriginator: 'Microsoft', consents: ['hello', 'world'] });
  });

  it('POST /api/v3/case/accept takes orderData and status false', async () => {
    const other = await bookCase(hub, partner);
    await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/accept',
        token: provider,
        body: { guid: other, orderData: { providerOrderReference: 'WO-1' }, status: false },
      },
      { status: 200, shape: { data: { result: true } } },
    );
    const read = await hub.request('GET', `/api/v3/case?guid=${other}`, { token: partner });
    expect(read.body.orderData).toMatchObject({ providerOrderReference: 'WO-1', serviceProviderExportStatus: false });
  });

  it('POST /api/v3/case/cancel takes the example with only the guid', async () => {
    const other = await bookCase(hub, partner);
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/cancel', token: provider, body: { guid: other } },
      { status: 200, shape: { data: { result: true } } },
    );
  });

  it('GET /api/v3/case/export carries externalData and productData.accessoryNames', async () => {
    const other = await bookCase(hub, partner, { productData: { accessory: { '1': true, '6': true } } });
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case/export?guid=${other}`, token: provider },
      {
        status: 200,
        shape: {
          externalData: { departmentId: 1 },
          productData: { accessory: ['1099', '1107'], accessoryNames: ['Strömadapter', 'Mus'], model: 'abc-123' },
        },
      },
    );
    expect(res.body.productData).toMatchObject({ accessory: ['1', '6'], accessoryNames: ['Charger', 'Carrying bag'] });
  });

  it('POST /api/v3/case/finish answers { result: true }', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/finish', token: partner, body: { guid } },
      { status: 200, shape: { result: true } },
    );
  });
});

const NOTIFICATIONS = 'GET /api/v3/case/notifications';
describe(NOTIFICATIONS, () => {
  it('lists each status key the case can take with its description and channels, to both parties', async () => {
    for (const token of [partner, provider]) {
      const res = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/v3/case/notifications?guid=${guid}`, token },
        {
          status: 200,
          shape: documentedShape('Working with cases', NOTIFICATIONS, 'Example'),
        },
      );
      // Only the documented fields, so a client that maps each entry whole meets no other names.
      const documented = documentedExample('Working with cases', NOTIFICATIONS, 'Example') as { data: object[] };
      const fields = Object.keys(documented.data[0]).sort();
      for (const entry of res.body.data) expect(Object.keys(entry).sort()).toEqual(fields);
      expect(res.body.data.length).toBeGreaterThan(0);
    }
  });
});
