/**
 * Status mappings and blacklists moved from the webhooks schema to the catalog's: the hand-over
 * both services' migrations run loses no rule in either order, and a new database keeps no
 * leftover table.
 */
import path from 'node:path';
import { type Database, loadConfig, migrateSchema, moveStatusRulesToCatalog, openDatabase } from '../src';

const CATALOG_MIGRATIONS = path.resolve(__dirname, '../../services/catalog/src/migrations');

let database: Database;
beforeEach(async () => {
  database = await openDatabase(loadConfig({}), {});
});
afterEach(() => database.close());

/** The webhooks schema as it was before the move, holding one partner's rules when `withRules`. */
async function formerWebhooksTables(withRules: boolean): Promise<void> {
  const { knex } = database;
  await knex.raw('create schema webhooks');
  await knex.raw(
    'create table webhooks.status_mappings (partner_id integer, provider_key varchar(64), partner_key varchar(64), primary key (partner_id, provider_key))',
  );
  await knex.raw(
    'create table webhooks.blacklists (partner_id integer, key varchar(64), primary key (partner_id, key))',
  );
  if (!withRules) return;
  await knex('webhooks.status_mappings').insert({ partner_id: 1, provider_key: 'in_repair', partner_key: 'repairing' });
  await knex('webhooks.blacklists').insert({ partner_id: 2, key: 'diagnosed' });
}

const exists = async (table: string) =>
  (await database.knex.raw('select to_regclass(?) as found', [table])).rows[0].found !== null;

async function expectMoved(): Promise<void> {
  const { knex } = database;
  expect(await knex('catalog.status_mappings').select()).toEqual([
    { partner_id: 1, provider_key: 'in_repair', partner_key: 'repairing' },
  ]);
  expect(await knex('catalog.status_blacklists').select()).toEqual([{ partner_id: 2, key: 'diagnosed' }]);
  expect(await exists('webhooks.status_mappings')).toBe(false);
  expect(await exists('webhooks.blacklists')).toBe(false);
}

it('keeps the rules where they are while the catalog has no tables for them, and the catalog moves them', async () => {
  await formerWebhooksTables(true);
  await moveStatusRulesToCatalog(database.knex);
  expect(await database.knex('webhooks.status_mappings').select()).toHaveLength(1);
  await migrateSchema(database, 'catalog', CATALOG_MIGRATIONS);
  await expectMoved();
});

it('moves the rules when the catalog migrated first', async () => {
  await migrateSchema(database, 'catalog', CATALOG_MIGRATIONS);
  await formerWebhooksTables(true);
  await moveStatusRulesToCatalog(database.knex);
  await expectMoved();
});

it('drops empty former tables of a new database before the catalog migrated', async () => {
  await formerWebhooksTables(false);
  await moveStatusRulesToCatalog(database.knex);
  expect(await exists('webhooks.status_mappings')).toBe(false);
  expect(await exists('webhooks.blacklists')).toBe(false);
});
