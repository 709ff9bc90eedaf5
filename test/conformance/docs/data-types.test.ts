/**
 * The documentation's "Data types and structures" page: the types a case's answers are made of
 * (ContactData, FileType), checked on what the hub answers for a booked case.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { CONTACT_DATA, expectShape, startDocsHub } from './documented';

let hub: TestHub;
let guid: string;
beforeAll(async () => {
  hub = await startDocsHub();
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});
afterAll(() => hub?.stop());

const partner = DEMO_TOKENS.elkjop;

describe('ContactData', () => {
  it('answers every documented contact field', async () => {
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.status).toBe(200);
    expectShape(read.body.customer, CONTACT_DATA);
    expect(read.body.customer).toMatchObject({ firstName: 'Kari', lastName: 'Nordmann', countryCode: 'NO' });
  });
});

describe('FileType', () => {
  const DOCUMENTED_TYPES = [
    'proofOfPurchase',
    'proofOfDamage',
    'transportDamage',
    'claim',
    'report',
    'shipmentLabel',
    'other',
  ];

  it('keeps each documented type and assigns other to an unknown or missing one', async () => {
    const files = [
      ...DOCUMENTED_TYPES.map((type) => ({ name: `${type}.pdf`, type, url: `https://example.com/${type}.pdf` })),
      { name: 'unknown.pdf', type: 'selfie', url: 'https://example.com/unknown.pdf' },
      { name: 'untyped.pdf', url: 'https://example.com/untyped.pdf' },
    ];
    const res = await hub.request('POST', '/api/v3/case/files', { token: partner, body: { guid, files } });
    expect(res.status).toBe(200);
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    const typeOf = (name: string) =>
      read.body.orderData.files.find((file: { name: string }) => file.name === name)?.type;
    for (const type of DOCUMENTED_TYPES) expect(typeOf(`${type}.pdf`)).toBe(type);
    expect(typeOf('unknown.pdf')).toBe('other');
    expect(typeOf('untyped.pdf')).toBe('other');
  });
});
