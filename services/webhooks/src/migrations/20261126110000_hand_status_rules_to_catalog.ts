import type { Knex } from 'knex';
import { moveStatusRulesToCatalog } from '@hub/shared';

/** Status mappings and blacklists now belong to the catalog (see moveStatusRulesToCatalog). */
export async function up(knex: Knex): Promise<void> {
  await moveStatusRulesToCatalog(knex);
}

/** The tables come back empty: the rules stay with the catalog, which owns them now. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').createTable('status_mappings', (table) => {
    table.integer('partner_id').notNullable();
    table.string('provider_key', 64).notNullable();
    table.string('partner_key', 64).notNullable();
    table.primary(['partner_id', 'provider_key']);
  });
  await knex.schema.withSchema('webhooks').createTable('blacklists', (table) => {
    table.integer('partner_id').notNullable();
    table.string('key', 64).notNullable();
    table.primary(['partner_id', 'key']);
  });
}
