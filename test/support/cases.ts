/**
 * Booking demo cases through HTTP, for suites that need a case to work on. A hub that books
 * needs the services 'catalog', 'routing', 'booking' and 'gateway' (BOOKING_SERVICES).
 *
 * With the demo world, Elkjøp's and Power's default case (an Apple laptop, paid repair, dropped
 * off at the workshop) goes to provider 10 (Nordic Repair Center, token DEMO_TOKENS.nrc); Trygg's
 * (the same laptop, insurance repair) goes to provider 20 (Svea, DEMO_TOKENS.svea).
 */
import type { ServiceName } from '../../shared/src';
import { DEMO_TOKENS, type TestHub } from './hub';

export const BOOKING_SERVICES: ServiceName[] = ['catalog', 'routing', 'booking', 'gateway'];

type Body = Record<string, any>;

/** A valid case/create body for the demo partner behind the token. */
export function demoCaseBody(partnerToken: string): Body {
  const insurance = partnerToken === DEMO_TOKENS.trygg;
  return {
    serviceType: insurance ? 3 : 2,
    manufacturer: 1,
    productType: 2,
    location: 1,
    shipping: 3,
    clientPostalCode: '0150',
    originatorType: 'private',
    bookingType: 'companyToPrivate',
    acceptConditions: true,
    customer: {
      type: 0,
      firstName: 'Kari',
      lastName: 'Nordmann',
      address: 'Storgata 1',
      postalCode: '0150',
      city: 'Oslo',
      countryCode: 'NO',
      email: 'kari@example.com',
      phone: '+4790000000',
    },
    orderData: { refNo: 'REF-1001' },
    productData: {
      model: 'MacBook Air',
      serial: 'C02XK0AAJG5H',
      password: '1234',
      problemText: 'Does not start',
      ...(insurance ? { insuranceNumber: 'POL-778899', insuranceCompany: 'Trygg Forsikring' } : {}),
    },
  };
}

/**
 * The demo body with `overrides` applied: top-level keys replace, while orderData, productData
 * and customer are merged one level deep (a key set to undefined is removed).
 */
export function caseBody(partnerToken: string, overrides: Body = {}): Body {
  const base = demoCaseBody(partnerToken);
  const merged: Body = { ...base, ...overrides };
  for (const key of ['orderData', 'productData', 'customer']) {
    if (overrides[key] && typeof overrides[key] === 'object') merged[key] = { ...base[key], ...overrides[key] };
  }
  const strip = (value: Body) => Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));
  for (const key of ['orderData', 'productData', 'customer']) if (merged[key]) merged[key] = strip(merged[key]);
  return strip(merged);
}

/** Books a valid demo case through POST /api/v3/case/create and answers its guid. */
export async function bookCase(hub: TestHub, partnerToken: string, overrides: Body = {}): Promise<string> {
  const response = await hub.request('POST', '/api/v3/case/create', { token: partnerToken, body: caseBody(partnerToken, overrides) });
  if (response.status !== 200 || typeof response.body?.guid !== 'string') {
    throw new Error(`Booking a demo case failed with ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body.guid;
}
