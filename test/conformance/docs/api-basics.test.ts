/**
 * The documentation's "Api basics" page and the input forms its other pages accept: query names
 * in any notation, an unknown query parameter answered with a validation error, integers sent
 * as their digits (`"serviceType": "2"`), and the `X-Service-Provider` header with which an
 * account that has "Allow all service providers" chooses the provider a request is for.
 */
import { DEMO_WORLD_FILE, readWorld } from '../../../shared/src';
import { bookCase, caseBody } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, sendDocumented, startDocsHub, useDocsHub } from './documented';

let hub: TestHub;
useDocsHub((started) => {
  hub = started;
});

const partner = DEMO_TOKENS.elkjop;
const MANUFACTURERS = [{ id: 1006, name: 'Acer', externalData: ANY }];

describe('query parameters', () => {
  it('are notation indifferent: camelCase, snake_case and kebab-case name the same parameter', async () => {
    const answers = [];
    for (const query of [
      'originatorType=private&bookingType=companyToPrivate&clientPostalCode=0150',
      'originator_type=private&booking_type=companyToPrivate&client_postal_code=0150',
      'originator-type=private&booking-type=companyToPrivate&client-postal-code=0150',
    ]) {
      const res = await sendDocumented(
        hub,
        { method: 'GET', path: `/api/v3/manufacturers?${query}`, token: partner },
        { status: 200, shape: MANUFACTURERS },
      );
      answers.push(res.body);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0].length).toBeGreaterThan(0);
  });

  it('takes the token in any notation too', async () => {
    const res = await hub.request('GET', `/api/v3/accessory?product_type=2&access_token=${partner}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.arrayContaining([{ id: 1, name: 'Charger' }]));
  });

  it('answers an unrecognized parameter with a validation error naming it, and a known one as before', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/accessory?productType=2&colour=red', token: partner },
      {
        status: 400,
        shape: { error: { message: 'Fields validation failed', details: { colour: ['Field is not accepted'] } } },
      },
    );
    const known = await hub.request('GET', '/api/v3/accessory?productType=2', { token: partner });
    expect(known.status).toBe(200);
  });
});

describe('integers sent as their digits', () => {
  it('books with "serviceType": "2" and the other ids as text, as an integrator sends them', async () => {
    const body = { ...caseBody(partner), serviceType: '2', manufacturer: '1', productType: '2', location: '1' };
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case/create', token: partner, body: { ...body, shipping: '3' } },
      { status: 200, shape: { guid: '69b0e17f-eeb9-4834-b809-60b015054c0d' } },
    );
    const read = await hub.request('GET', `/api/v3/case?guid=${res.body.guid}`, { token: partner });
    expect(read.body).toMatchObject({ serviceTypeId: 2, manufacturerId: 1, productTypeId: 2, serviceLocationId: 1 });
  });

  it('still refuses text that is not an integer where one belongs', async () => {
    for (const serviceType of ['2.5', 'two', '']) {
      const res = await hub.request('POST', '/api/v3/case/validate', {
        token: partner,
        body: { ...caseBody(partner), serviceType },
      });
      expect({ serviceType, status: res.status, details: res.body.error?.details?.serviceType }).toEqual({
        serviceType,
        status: 400,
        details: ['Wrong format'],
      });
    }
  });
});

describe('X-Service-Provider', () => {
  /** A provider account of Nordic Repair Center (10) with "Allow all service providers". */
  const MEDIATOR = { id: 90, token: 'docs-mediator-token-000000000001' };
  const as = (provider: string) => ({ 'X-Service-Provider': provider });
  let mediatorHub: TestHub;
  let nrcCase: string;
  let sveaCase: string;
  beforeAll(async () => {
    const demo = readWorld(DEMO_WORLD_FILE);
    mediatorHub = await startDocsHub({
      world: {
        ...demo,
        accounts: [
          ...(demo.accounts ?? []),
          {
            id: MEDIATOR.id,
            name: 'Mediator',
            role: 'provider',
            providerId: 10,
            token: MEDIATOR.token,
            allowAllProviders: true,
          },
        ],
      },
    });
    // Elkjøp's demo case goes to Nordic Repair Center (10), Trygg's to Svea (20).
    nrcCase = await bookCase(mediatorHub, DEMO_TOKENS.elkjop);
    sveaCase = await bookCase(mediatorHub, DEMO_TOKENS.trygg);
  });
  afterAll(() => mediatorHub?.stop());
  it('lets an account with "Allow all service providers" act for the provider it names', async () => {
    const read = await sendDocumented(
      mediatorHub,
      { method: 'GET', path: `/api/v3/case?guid=${sveaCase}`, token: MEDIATOR.token, headers: as('20') },
      { status: 200 },
    );
    expect(read.body.serviceProviderId).toBe(20);
    // Svea's own status keys, written as Svea.
    const status = await mediatorHub.request('POST', '/api/v3/case/status', {
      token: MEDIATOR.token,
      headers: as('20'),
      body: { guid: sveaCase, key: 'in_repair' },
    });
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ guid: sveaCase, key: 'in_repair' });
  });

  it("acts for the account's own provider without the header, or when the header names it", async () => {
    expect((await mediatorHub.request('GET', `/api/v3/case?guid=${sveaCase}`, { token: MEDIATOR.token })).status).toBe(
      404,
    );
    expect((await mediatorHub.request('GET', `/api/v3/case?guid=${nrcCase}`, { token: MEDIATOR.token })).status).toBe(
      200,
    );
    expect(
      (await mediatorHub.request('GET', `/api/v3/case?guid=${nrcCase}`, { token: MEDIATOR.token, headers: as('20') }))
        .status,
    ).toBe(404);
    const own = await mediatorHub.request('GET', `/api/v3/case?guid=${nrcCase}`, {
      token: DEMO_TOKENS.nrc,
      headers: as('10'),
    });
    expect(own.status).toBe(200);
  });

  it('is a 403 for an account without the option naming another provider, a partner included', async () => {
    for (const token of [DEMO_TOKENS.nrc, DEMO_TOKENS.elkjop]) {
      const res = await mediatorHub.request('GET', `/api/v3/case?guid=${sveaCase}`, { token, headers: as('20') });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/X-Service-Provider/);
    }
  });

  it('names the header in a 400 for a provider that does not exist or a malformed value', async () => {
    const unknown = await mediatorHub.request('GET', `/api/v3/case?guid=${sveaCase}`, {
      token: MEDIATOR.token,
      headers: as('999'),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual({ 'X-Service-Provider': ['Value is not present in possible options'] });
    for (const value of ['abc', '0', '-3', '99999999999', '10,20']) {
      const malformed = await mediatorHub.request('GET', `/api/v3/case?guid=${sveaCase}`, {
        token: MEDIATOR.token,
        headers: as(value),
      });
      expect({ value, status: malformed.status, details: malformed.body.error?.details }).toEqual({
        value,
        status: 400,
        details: { 'X-Service-Provider': ['Wrong format'] },
      });
    }
  });
});
