/**
 * A client typed from the API reference talks to the hub. `npm run openapi` generates the types
 * (openapi-typescript) from the document the gateway serves, and `npm run lint` type-checks this
 * file against them: a field these calls read that the document no longer declares, a parameter
 * it no longer takes or a body it refuses fails the lint, and the calls below check at run time
 * that the answers are what the types promise.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../openapi/schema';
import { ALL_SERVICES } from '../../shared/src';
import { serviceSchemaOf } from '../../cli/src';
import { caseBody, UNKNOWN_GUID } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ALL_SERVICES.filter((name) => name === 'gateway' || serviceSchemaOf(name)) });
});
afterAll(() => hub.stop());

/** The typed client of one account. */
const clientOf = (token: string) =>
  createClient<paths>({ baseUrl: `${hub.url}/api`, headers: { 'X-Hub-Api-Token': token } });

it('books, reads and searches a case, and looks up what can be booked', async () => {
  const partner = clientOf(DEMO_TOKENS.elkjop);

  const manufacturers = await partner.GET('/v3/manufacturers', {
    params: { query: { originatorType: 'private', bookingType: 'companyToPrivate' } },
  });
  expect(manufacturers.response.status).toBe(200);
  expect(manufacturers.data?.map((manufacturer) => manufacturer.name)).toContain('Apple');

  const created = await partner.POST('/v3/case/create', { body: caseBody(DEMO_TOKENS.elkjop) });
  expect(created.response.status).toBe(200);
  const guid = created.data!.guid;

  const read = await partner.GET('/v3/case', { params: { query: { guid } } });
  expect(read.response.status).toBe(200);
  expect(read.data?.guid).toBe(guid);
  expect(read.data?.servicePartner?.name).toBe('Elkjøp Nordic');
  expect(read.data?.caseStatuses.map((status) => status.key)).toEqual([read.data?.currentStatus]);

  const found = await partner.POST('/v3/search-cases', {
    body: { filters: { guid }, pagination: { limit: 5 } },
  });
  expect(found.response.status).toBe(200);
  expect(found.data?.pagination.count).toBe(1);
  expect(found.data?.data[0].guid).toBe(guid);
});

it('acts for a provider named in X-Service-Provider and answers its errors in the documented envelope', async () => {
  const partner = clientOf(DEMO_TOKENS.elkjop);
  const provider = clientOf(DEMO_TOKENS.nrc);
  const { data } = await partner.POST('/v3/case/create', { body: caseBody(DEMO_TOKENS.elkjop) });

  const exported = await provider.GET('/v3/case/export', {
    params: { query: { guid: data!.guid }, header: { 'X-Service-Provider': 10 } },
  });
  expect(exported.response.status).toBe(200);
  expect(exported.data?.serviceProviderId).toBe(10);

  const unknown = await partner.GET('/v3/case', { params: { query: { guid: UNKNOWN_GUID } } });
  expect(unknown.response.status).toBe(404);
  expect(unknown.data).toBeUndefined();
  expect(unknown.error?.error).toEqual({ message: expect.any(String) });

  const refused = await partner.POST('/v3/case/validate', {
    body: { ...caseBody(DEMO_TOKENS.elkjop), clientPostalCode: '' },
  });
  expect(refused.response.status).toBe(400);
  // A 400 is the validation envelope or routing's `Not enough data` (whose `error` is text).
  const envelope = refused.error?.error;
  const details = typeof envelope === 'object' && 'details' in envelope ? envelope.details : undefined;
  expect(details).toEqual({ clientPostalCode: expect.any(Array) });
});
