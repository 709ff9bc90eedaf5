import type { Knex } from 'knex';

/** Partner status mappings and blacklists: reference data, so a partner's view needs only the catalog. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('catalog').createTable('status_mappings', (table) => {
    table.integer('partner_id').notNullable();
    table.string('provider_key', 64).notNullable();
    table.string('partner_key', 64).notNullable();
    table.primary(['partner_id', 'provider_key']);
  });
  await knex.schema.withSchema('catalog').createTable('status_blacklists', (table) => {
    table.integer('partner_id').notNullable();
    table.string('key', 64).notNullable();
    table.primary(['partner_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('catalog').dropTableIfExists('status_blacklists');
  await knex.schema.withSchema('catalog').dropTableIfExists('status_mappings');
}
