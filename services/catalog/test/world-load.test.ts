/**
 * A world load through the gateway is checked as a whole before any service writes its part:
 * models may name manufacturers and product types of the same file or ones loaded before, and a
 * file whose model names neither is refused with nothing written.
 */
import type { DbService } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'models', 'booking', 'gateway'] });
});
afterAll(() => hub.stop());

const load = (world: unknown) => hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
const storedManufacturer = (id: number) =>
  (hub.broker.getLocalService('catalog') as unknown as DbService).db
    .knex('catalog.manufacturers')
    .where({ id })
    .first();
const models = async (name: string) => {
  const res = await hub.request('GET', `/api/v3/models?model=${encodeURIComponent(name)}`, {
    token: DEMO_TOKENS.elkjop,
  });
  expect(res.status).toBe(200);
  return res.body as Array<{ name: string; manufacturer: { id: number }; productType: { id: number } }>;
};

it('refuses a file whose model names an unknown product type, naming the entry and field, with nothing written', async () => {
  const res = await load({
    manufacturers: [{ id: 70, name: 'Nokla' }],
    models: [
      { manufacturer: 'Nokla', productType: 'TV', name: 'Nokla Frame', mpn: 'NF-1' },
      { manufacturer: 'Nokla', productType: 'Fridge', name: 'Nokla Cold', mpn: 'NC-1' },
      { manufacturer: 404, productType: 3, name: 'Nobody', mpn: 'NB-1' },
    ],
  });
  expect(res.status).toBe(400);
  expect(res.body.error.details).toEqual({
    'models[1].productType': ['product type "Fridge" is neither in the file nor in the catalog'],
    'models[2].manufacturer': ['manufacturer 404 is neither in the file nor in the catalog'],
  });
  expect(await storedManufacturer(70)).toBeUndefined();
  expect(await models('Nokla')).toEqual([]);
});

it("loads models naming the file's own manufacturer and a product type the catalog already holds", async () => {
  const res = await load({
    manufacturers: [{ id: 71, name: 'Fernseh', aliases: ['Fernseh GmbH'] }],
    models: [{ manufacturer: 'fernseh gmbh', productType: 'TV', name: 'Fernseh One', mpn: 'FO-1' }],
  });
  expect(res.status).toBe(200);
  expect(await storedManufacturer(71)).toMatchObject({ name: 'Fernseh' });
  expect(await models('Fernseh One')).toEqual([
    expect.objectContaining({ name: 'Fernseh One', manufacturer: expect.objectContaining({ id: 71 }) }),
  ]);
});

it('refuses a file whose model clashes with a stored model, before the catalog writes its part', async () => {
  // Galaxy S24 (mpn SM-S921B) is a stored demo model of Samsung (manufacturer 2).
  const res = await load({
    manufacturers: [{ id: 72, name: 'Renamed on a refused load' }],
    models: [
      { manufacturer: 2, productType: 1, name: 'Galaxy Copy', mpn: 'SM-S921B' },
      { manufacturer: 72, productType: 1, name: 'Twin', mpn: 'TW-1' },
      { manufacturer: 72, productType: 1, name: 'twin', mpn: 'TW-2', aliases: null },
    ],
  });
  expect(res.status).toBe(400);
  expect(Object.keys(res.body.error.details).sort()).toEqual(['models[0].mpn', 'models[2].name']);
  expect(await storedManufacturer(72)).toBeUndefined();
  expect(await models('Galaxy Copy')).toEqual([]);
});

it('refuses a tag whose name a stored tag of another id keeps, before any part is written', async () => {
  // The demo world's tag 1 is 'VIP'.
  const res = await load({
    manufacturers: [{ id: 73, name: 'Not on a refused load' }],
    tags: [{ id: 62, name: 'vip' }],
  });
  expect(res.status).toBe(400);
  expect(res.body.error.details).toEqual({ 'tags[0].name': ['tag 1 has this name'] });
  expect(await storedManufacturer(73)).toBeUndefined();
  // Renaming the stored one in the same file frees the name.
  expect(
    (
      await load({
        tags: [
          { id: 1, name: 'Very important' },
          { id: 62, name: 'VIP' },
        ],
      })
    ).status,
  ).toBe(200);
});
