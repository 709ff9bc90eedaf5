/**
 * commonSearch reads what the product's Working with cases page lists, through the gateway: the
 * values of orderData and productData but the keys it leaves out, the case's manufacturer,
 * product type and service type names (as the world names them now), and the contacts' listed
 * fields; never a key, and never a value only a left-out field holds.
 */
import { DEMO_WORLD_FILE, readWorld } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { BOOKING_SERVICES, bookCase } from '../../../test/support/cases';

let hub: TestHub;
let guid: string;

const found = async (commonSearch: string, token = DEMO_TOKENS.elkjop) => {
  const res = await hub.request('POST', '/api/v3/search-cases', { token, body: { filters: { commonSearch } } });
  expect(res.status).toBe(200);
  return res.body.data.map((entry: { guid: string }) => entry.guid);
};

beforeAll(async () => {
  hub = await startTestHub({ services: BOOKING_SERVICES });
  // The demo case: an Apple Laptop for Paid repair, customer Kari Nordmann, password 1234, problem "Does not start".
  guid = await bookCase(hub, DEMO_TOKENS.elkjop, {
    orderData: { refNo: 'REF-CS-1', partnerSpecific: { elkjop: { internalReference: 3112312312 } } },
  });
});
afterAll(() => hub.stop());

it('finds a case by a value of orderData at any depth, of productData and of a listed contact field', async () => {
  expect(await found('ref-cs')).toEqual([guid]);
  expect(await found('3112312')).toEqual([guid]);
  expect(await found('c02xk0aa')).toEqual([guid]);
  expect(await found('NORDMANN')).toEqual([guid]);
  expect(await found('storgata')).toEqual([]);
});

it('finds a case by the names of its manufacturer, product type and service type', async () => {
  expect(await found('appl')).toEqual([guid]);
  expect(await found('LAPTOP')).toEqual([guid]);
  expect(await found('paid rep')).toEqual([guid]);
  // Another partner's case is never found, whatever it names.
  expect(await found('appl', DEMO_TOKENS.power)).toEqual([]);
});

it('reads no key and none of the fields the product leaves out', async () => {
  for (const text of ['refNo', 'model', 'problemText', 'Does not start', '1234', 'firstName'])
    expect({ text, found: await found(text) }).toEqual({ text, found: [] });
});

it('reads the lookup names of a world loaded since, at once', async () => {
  // Kept per world: searched once before the load so they are.
  expect(await found('appl')).toEqual([guid]);
  const demo = readWorld(DEMO_WORLD_FILE);
  const demoManufacturers = demo.manufacturers ?? [];
  const load = async (manufacturers: typeof demoManufacturers) => {
    const res = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world: { ...demo, manufacturers }, skipUnowned: true },
    });
    expect(res.status).toBe(200);
  };
  await load(demoManufacturers.map((entry) => (entry.id === 1 ? { ...entry, name: 'Pomme' } : entry)));
  try {
    expect(await found('pomme')).toEqual([guid]);
    expect(await found('appl')).toEqual([]);
  } finally {
    await load(demoManufacturers);
  }
  expect(await found('appl')).toEqual([guid]);
});
