/**
 * The documentation's "Working with cases" page: reading, searching, the provider's intake,
 * statuses and files, each example sent as documented (demo world ids) and its answer checked
 * against the documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, type DocumentedShape, sendDocumented, useDocsHub } from './documented';
import { CONTACT_DATA, documentedExample, documentedShape, DOCUMENTED_CASE, readPage, section } from './reference';

const PAGE = 'Working with cases';
const STATUS = 'POST /api/v3/case/status';
const FILES = 'POST /api/v3/case/files';
const UPDATE = 'POST /api/v3/case/update';
/** search-cases' page of cases: each `{ Case 1 }` is the case "GET /api/v3/case" shows. */
const searchShape = () =>
  documentedShape(PAGE, 'POST /api/v3/search-cases', 'Output', { replace: { 'data[]': DOCUMENTED_CASE } });

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  // Elkjøp's demo case goes to Nordic Repair Center.
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

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

/**
 * The export "GET /api/v3/case/export" shows. Its orderData and productData hold what that case was
 * booked with, keys of the product's own integrations among them (discarded here, see
 * docs/compatibility.md), so only the keys a test names are expected; its
 * externalData is the routing's competence data, without alternatives (docs/compatibility.md);
 * its contacts are ContactData; its flags and its manufacturer's externalData are those records' own.
 */
function exportShape(productData: DocumentedShape = {}): DocumentedShape {
  const EXPORT = 'GET /api/v3/case/export';
  const example = documentedExample(PAGE, EXPORT, 'Output') as Record<string, any>;
  return documentedShape(PAGE, EXPORT, 'Output', {
    replace: {
      externalData: { departmentId: example.externalData.departmentId },
      orderData: { originatorType: example.orderData.originatorType },
      productData,
      customer: CONTACT_DATA,
      sender: CONTACT_DATA,
      receiver: CONTACT_DATA,
      'manufacturer.externalData': ANY,
      'serviceType.properties': {},
      'productType.properties': {},
    },
  });
}

describe('POST /api/v3/search-cases', () => {
  it('answers the documented page for the $gt example', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/search-cases',
        token: partner,
        body: documentedExample(PAGE, 'POST /api/v3/search-cases', 'Example', 1),
      },
      { status: 200, shape: searchShape() },
    );
    expect(res.body.data.map((found: { guid: string }) => found.guid)).toContain(guid);
  });

  it('searches by commonSearch and tags as documented', async () => {
    for (const filters of [{ commonSearch: 'nordmann' }, { tags: ['VIP'] }]) {
      await sendDocumented(
        hub,
        { method: 'POST', path: '/api/v3/search-cases', token: partner, body: { filters } },
        { status: 200, shape: searchShape() },
      );
    }
  });
});

describe('the provider intake', () => {
  it('POST /api/v3/unexported-cases answers as search-cases does', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/unexported-cases', token: provider, body: {} },
      { status: 200, shape: searchShape() },
    );
    expect(res.body.data.map((found: { guid: string }) => found.guid)).toContain(guid);
  });

  it('GET /api/v3/case/export answers the case with the provider department', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case/export?guid=${guid}`, token: provider },
      { status: 200, shape: exportShape() },
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
        // The example's key, upper-cased: "We always convert `key` to lower case"; the demo provider has `arrived`.
        body: { ...(documentedExample(PAGE, STATUS, 'Example') as object), guid, key: 'ARRIVED' },
      },
      { status: 200, shape: documentedShape(PAGE, STATUS, 'Output') },
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
          // The example's "base64 encoded content", encoded.
          files: (documentedExample(PAGE, FILES, 'Example') as { files: Array<Record<string, string>> }).files.map(
            (file) => (file.data ? { ...file, data: Buffer.from('not really a jpeg').toString('base64') } : file),
          ),
        },
      },
      { status: 200, shape: documentedShape(PAGE, FILES, 'Output') },
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
    const listed = /Allowed file extensions: (.*)/.exec(section(readPage(PAGE), FILES))![1];
    const documented = [...new Set([...listed.matchAll(/'([^']+)'/g)].map((match) => match[1]))];
    expect(documented.length).toBeGreaterThan(20);
    // At most 20 files go in one call.
    for (const extensions of [documented.slice(0, 20), documented.slice(20)]) {
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
        { status: 200, shape: documentedShape(PAGE, FILES, 'Output') },
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
      { status: 200, shape: searchShape() },
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
        body: { ...(documentedExample(PAGE, UPDATE, 'Example') as object), guid },
      },
      { status: 200, shape: documentedShape(PAGE, UPDATE, 'Output') },
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
      {
        method: 'POST',
        path: '/api/v3/case/cancel',
        token: provider,
        body: { ...(documentedExample(PAGE, 'POST /api/v3/case/cancel', 'Example') as object), guid: other },
      },
      { status: 200, shape: documentedShape(PAGE, 'POST /api/v3/case/cancel', 'Output') },
    );
  });

  it('GET /api/v3/case/export carries externalData and productData.accessoryNames', async () => {
    const other = await bookCase(hub, partner, { productData: { accessory: { '1': true, '6': true } } });
    const documented = documentedShape(PAGE, 'GET /api/v3/case/export', 'Output') as Record<string, any>;
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case/export?guid=${other}`, token: provider },
      {
        status: 200,
        shape: exportShape({
          accessory: documented.productData.accessory,
          accessoryNames: documented.productData.accessoryNames,
          model: documented.productData.model,
        }),
      },
    );
    expect(res.body.productData).toMatchObject({ accessory: ['1', '6'], accessoryNames: ['Charger', 'Carrying bag'] });
  });

  it('POST /api/v3/case/finish answers { result: true }', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/finish', token: partner, body: { guid } },
      { status: 200, shape: documentedShape(PAGE, 'POST /api/v3/case/finish', 'Output') },
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
