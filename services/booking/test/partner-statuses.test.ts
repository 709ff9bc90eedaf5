/**
 * Statuses as a partner sees them, with the real webhooks service holding the demo world's status
 * configuration (Elkjøp maps `in_repair` and `awaiting_parts` to `repairing`, Power hides
 * `diagnosed`): reads and search-cases through the gateway answer and match the partner's keys,
 * and those of a world loaded since.
 */
import { DEMO_WORLD_FILE, readWorld } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';

let hub: TestHub;
let elkjopCase: string;
let powerCase: string;

const search = (token: string, currentStatus: unknown) =>
  hub.request('POST', '/api/v3/search-cases', { token, body: { filters: { currentStatus } } });
const guidsOf = (response: { body: { data: Array<{ guid: string }> } }) =>
  response.body.data.map((found) => found.guid);

beforeAll(async () => {
  hub = await startTestHub({ services: [...BOOKING_SERVICES, 'webhooks'] });
  elkjopCase = await bookCase(hub, DEMO_TOKENS.elkjop);
  powerCase = await bookCase(hub, DEMO_TOKENS.power);
  for (const [guid, key] of [
    [elkjopCase, 'awaiting_parts'],
    [powerCase, 'diagnosed'],
  ]) {
    expect(
      (await hub.request('POST', '/api/v3/case/status', { token: DEMO_TOKENS.nrc, body: { guid, key } })).status,
    ).toBe(200);
  }
});
afterAll(() => hub.stop());

it("finds a partner's case by its mapped key, not by the provider's key, and the provider by its own", async () => {
  const mapped = await search(DEMO_TOKENS.elkjop, 'repairing');
  expect(mapped.status).toBe(200);
  expect(guidsOf(mapped)).toEqual([elkjopCase]);
  expect(mapped.body.data[0].currentStatus).toBe('repairing');
  expect(guidsOf(await search(DEMO_TOKENS.elkjop, ['repairing', 'shipped']))).toEqual([elkjopCase]);
  expect(guidsOf(await search(DEMO_TOKENS.elkjop, 'awaiting_parts'))).toEqual([]);
  expect(guidsOf(await search(DEMO_TOKENS.nrc, 'awaiting_parts'))).toEqual([elkjopCase]);
  expect(guidsOf(await search(DEMO_TOKENS.nrc, 'repairing'))).toEqual([]);
});

it('finds a case whose current status is hidden from the partner by the status the partner sees', async () => {
  const read = await hub.request('GET', `/api/v3/case?guid=${powerCase}`, { token: DEMO_TOKENS.power });
  expect(read.body.currentStatus).toBe('registered');
  expect(guidsOf(await search(DEMO_TOKENS.power, 'registered'))).toEqual([powerCase]);
  expect(guidsOf(await search(DEMO_TOKENS.power, 'diagnosed'))).toEqual([]);
  expect(guidsOf(await search(DEMO_TOKENS.nrc, 'diagnosed'))).toEqual([powerCase]);
});

it("reads and finds a partner's cases in the mapping of a world loaded since, at once", async () => {
  const readStatus = async () =>
    (await hub.request('GET', `/api/v3/case?guid=${elkjopCase}`, { token: DEMO_TOKENS.elkjop })).body.currentStatus;
  // The partner's rules are kept per world: read once before the load so they are.
  expect(await readStatus()).toBe('repairing');
  const demo = readWorld(DEMO_WORLD_FILE);
  const loadMappings = async (statusMappings: unknown[]) => {
    const world = { ...demo, webhooks: { ...demo.webhooks, statusMappings } };
    const load = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world, skipUnowned: true },
    });
    expect(load.status).toBe(200);
  };
  await loadMappings([{ partnerId: 1, providerKey: 'awaiting_parts', partnerKey: 'waiting_for_parts' }]);
  try {
    expect(await readStatus()).toBe('waiting_for_parts');
    expect(guidsOf(await search(DEMO_TOKENS.elkjop, 'waiting_for_parts'))).toEqual([elkjopCase]);
    expect(guidsOf(await search(DEMO_TOKENS.elkjop, 'repairing'))).toEqual([]);
  } finally {
    await loadMappings(demo.webhooks?.statusMappings ?? []);
  }
  expect(await readStatus()).toBe('repairing');
});
