/**
 * Booking demo cases through HTTP, for suites that need a case to work on. A hub that books
 * needs the services 'catalog', 'routing', 'booking' and 'gateway' (BOOKING_SERVICES).
 *
 * With the demo world, Elkjøp's and Power's default case (an Apple laptop, paid repair, dropped
 * off at the workshop) goes to provider 10 (Nordic Repair Center, token DEMO_TOKENS.nrc); Trygg's
 * (the same laptop, insurance repair) goes to provider 20 (Svea, DEMO_TOKENS.svea).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { DbService, ServiceName } from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub } from './hub';

export const BOOKING_SERVICES: ServiceName[] = ['catalog', 'routing', 'booking', 'gateway'];

/** A well-formed guid no case has. */
export const UNKNOWN_GUID = '0f9c7a1e-8d4b-4c3a-9e2f-5a6b7c8d9e0f';

type Body = Record<string, any>;

/** A booking the demo world accepts from Elkjøp and Power, also what README's example sends. */
const DEMO_CASE_FILE = path.resolve(__dirname, '../../world/demo-case.json');

/** A valid case/create body for the demo partner behind the token (world/demo-case.json, insured for Trygg). */
export function demoCaseBody(partnerToken: string): Body {
  const body = JSON.parse(fs.readFileSync(DEMO_CASE_FILE, 'utf8')) as Body;
  if (partnerToken !== DEMO_TOKENS.trygg) return body;
  return {
    ...body,
    serviceType: 3,
    productData: { ...body.productData, insuranceNumber: 'POL-778899', insuranceCompany: 'Trygg Forsikring' },
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
  const response = await hub.request('POST', '/api/v3/case/create', {
    token: partnerToken,
    body: caseBody(partnerToken, overrides),
  });
  if (response.status !== 200 || typeof response.body?.guid !== 'string') {
    throw new Error(`Booking a demo case failed with ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body.guid;
}

/**
 * The hub of a suite for a service that hangs records on cases (messages, invoices): booking and
 * that service on a fresh database (`infra`: the Postgres server with NATS and Redis), the
 * service's own knex, and one demo case booked per partner token, in the order given.
 */
export async function startCaseRecordsHub(
  service: ServiceName,
  infra: boolean,
  partnerTokens: string[],
): Promise<{ hub: TestHub; knex: Knex; cases: string[] }> {
  const hub = await startTestHub({ services: [...BOOKING_SERVICES, service], infra });
  const knex = (hub.broker.getLocalService(service) as unknown as DbService).db.knex;
  const cases: string[] = [];
  for (const token of partnerTokens) cases.push(await bookCase(hub, token));
  return { hub, knex, cases };
}
