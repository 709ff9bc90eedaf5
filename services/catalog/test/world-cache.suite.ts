/**
 * Lookups and routing are cached through the Moleculer cacher; loading a world clears the
 * cache on every node, so the loaded change is visible at once. Written once, run on the
 * memory cacher (embedded) and on Redis with NATS and the Postgres server (infra).
 */
import { databaseOf, readWorld, DEMO_WORLD_FILE, type World } from '../../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';

const manufacturers = '/api/v3/manufacturers?originatorType=private&bookingType=companyToPrivate';
const routeQuery =
  '/api/v3/routing?originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=1&productType=1&serviceLocation=1';
const names = (body: Array<{ name: string }>) => body.map((record) => record.name);

export function worldCacheSuite(infra: boolean): void {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({
      services: ['catalog', 'routing', 'gateway'],
      env: { RATE_LIMIT_PER_MINUTE: '100000' },
      infra,
    });
  });
  afterAll(() => hub.stop());

  it('answers a repeated lookup from the cache, not the table', async () => {
    const first = await hub.request('GET', manufacturers, { token: DEMO_TOKENS.power });
    expect(first.status).toBe(200);
    expect(names(first.body)).toContain('Electrolux');
    const { knex } = await databaseOf(hub.broker);
    await knex('catalog.manufacturers').where({ id: 5 }).update({ name: 'Changed behind the cache' });
    const again = await hub.request('GET', manufacturers, { token: DEMO_TOKENS.power });
    expect(again.status).toBe(200);
    expect(names(again.body)).toContain('Electrolux');
  });

  it('shows a loaded world at once in lookups and routing', async () => {
    expect((await hub.request('GET', routeQuery, { token: DEMO_TOKENS.power })).status).toBe(200);

    const world: World = readWorld(DEMO_WORLD_FILE);
    world.manufacturers = world.manufacturers!.map((entry) =>
      entry.id === 5 ? { ...entry, name: 'Electrolux Group' } : entry,
    );
    // The competence list is replaced: Power's fallback to Nordic Repair Center is withdrawn.
    world.competences = world.competences!.filter((entry) => entry.id !== 5);
    const load = await hub.request('POST', '/api/admin/world', {
      token: DEMO_TOKENS.admin,
      body: { world, skipUnowned: true },
    });
    expect(load.status).toBe(200);

    const after = await hub.request('GET', manufacturers, { token: DEMO_TOKENS.power });
    expect(after.status).toBe(200);
    expect(names(after.body)).toEqual(['HP', 'Electrolux Group', 'Sony']);
    const routed = await hub.request('GET', routeQuery, { token: DEMO_TOKENS.power });
    expect(routed.status).toBe(404);
    expect(routed.body).toEqual({ error: { message: "Can't process this case" }, data: null });
  });
}
