/**
 * The documentation's "Data types and structures" page: the types a case's answers are made of
 * (Date, ContactData, ProductData, FileType), checked on what the hub answers for a booked case.
 */
import { bookCase, caseBody } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { expectShape, useDocsHub } from './documented';
import { CONTACT_DATA, readPage, section } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const partner = DEMO_TOKENS.elkjop;

describe('Date', () => {
  it('converts a date with a time to UTC ("Every date will be converted to UTC"), on booking and update', async () => {
    const booked = await bookCase(hub, partner, { productData: { purchaseDate: '2012-04-23T20:25:43.511+02:00' } });
    const read = async () =>
      (await hub.request('GET', `/api/v3/case?guid=${booked}`, { token: partner })).body.productData.purchaseDate;
    expect(await read()).toBe('2012-04-23T18:25:43.511Z');
    const appended = await hub.request('POST', '/api/v3/case/append', {
      token: partner,
      body: { guid: booked, productData: { purchaseDate: '2012-04-23T00:30:00-01:00' } },
    });
    expect(appended.status).toBe(200);
    expect(await read()).toBe('2012-04-23T01:30:00.000Z');
    // A day alone stays the day it names.
    await hub.request('POST', '/api/v3/case/append', {
      token: partner,
      body: { guid: booked, productData: { purchaseDate: '2017-04-01' } },
    });
    expect(await read()).toBe('2017-04-01');
  });
});

describe('ProductData', () => {
  it('takes an imei as the documented String of up to 20 characters and refuses a longer one', async () => {
    for (const imei of ['356938035643809', '3569380356438091', '35-209900-176148-1']) {
      const res = await hub.request('POST', '/api/v3/case/validate', {
        token: partner,
        body: caseBody(partner, { productData: { imei } }),
      });
      expect({ imei, status: res.status }).toEqual({ imei, status: 200 });
    }
    const long = await hub.request('POST', '/api/v3/case/validate', {
      token: partner,
      body: caseBody(partner, { productData: { imei: '35-209900-176148-1-234' } }),
    });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual({ 'productData.imei': ['Must be at most 20 characters'] });
  });
});

describe('ContactData', () => {
  it('takes type as the documented Boolean, and as 0 or 1 or their digits', async () => {
    const company = { organizationName: 'Acme AS', organizationNumber: '912345678' };
    for (const [type, names] of [
      [true, company],
      [1, company],
      ['1', company],
      [false, {}],
      [0, {}],
      ['0', {}],
    ] as const) {
      const booked = await bookCase(hub, partner, { customer: { type, ...names } });
      const read = await hub.request('GET', `/api/v3/case?guid=${booked}`, { token: partner });
      expect({ type, customer: read.body.customer }).toMatchObject({ type, customer: { firstName: 'Kari', ...names } });
    }
    // A company without its name and number is refused as one, whichever form says it is one.
    const refused = await hub.request('POST', '/api/v3/case/validate', {
      token: partner,
      body: caseBody(partner, { customer: { type: true } }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({
      'customer.organizationName': ['Field is required'],
      'customer.organizationNumber': ['Field is required'],
    });
  });

  it('answers every documented contact field', async () => {
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    expect(read.status).toBe(200);
    expectShape(read.body.customer, CONTACT_DATA);
    expect(read.body.customer).toMatchObject({ firstName: 'Kari', lastName: 'Nordmann', countryCode: 'NO' });
  });
});

describe('FileType', () => {
  // The page's list of allowed values (`- other (default value)`).
  const DOCUMENTED_TYPES = section(readPage('Data types and structures'), 'FileType')
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).split(' ')[0]);

  it('reads the documented list', () => {
    expect(DOCUMENTED_TYPES).toContain('other');
    expect(DOCUMENTED_TYPES.length).toBeGreaterThan(1);
  });

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
