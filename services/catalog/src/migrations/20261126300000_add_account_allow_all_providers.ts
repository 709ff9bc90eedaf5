import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // "Allow all service providers": a provider account that chooses, per request, the provider it acts for.
  await knex.schema.withSchema('catalog').alterTable('accounts', (table) => {
    table.boolean('allow_all_providers').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('catalog').alterTable('accounts', (table) => {
    table.dropColumn('allow_all_providers');
  });
}
