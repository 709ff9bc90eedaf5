import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The directions a shipping method ships in (null: every direction).
  await knex.schema.withSchema('catalog').alterTable('shipping_methods', (table) => {
    table.jsonb('action_types');
  });
  // Which shipping methods a provider, a department or a case tag allows (null: any). Tags are
  // kept here by name too, so a lookup can read the tags a partner names without the booking service.
  await knex.schema.withSchema('catalog').createTable('shipping_method_rules', (table) => {
    table.string('kind', 16).notNullable();
    table.integer('owner_id').notNullable();
    table.string('name', 255);
    table.jsonb('shipping_methods');
    table.primary(['kind', 'owner_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('catalog').dropTableIfExists('shipping_method_rules');
  await knex.schema.withSchema('catalog').alterTable('shipping_methods', (table) => {
    table.dropColumn('action_types');
  });
}
