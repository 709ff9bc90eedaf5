import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const schema = () => knex.schema.withSchema('catalog');
  for (const name of ['manufacturers', 'service_types', 'product_types', 'service_locations']) {
    await schema().createTable(name, (table) => {
      table.integer('id').primary();
      table.string('name', 255).notNullable();
      table.jsonb('aliases').notNullable().defaultTo('[]');
      table.jsonb('properties').notNullable().defaultTo('{}');
      table.jsonb('external_data');
    });
  }
  await schema().createTable('accessories', (table) => {
    table.integer('id').primary();
    table.string('name', 255).notNullable();
    table.jsonb('product_types').notNullable().defaultTo('[]');
  });
  await schema().createTable('shipping_methods', (table) => {
    table.integer('id').primary();
    table.string('name', 255).notNullable();
    table.jsonb('properties').notNullable();
    table.boolean('require_weight').notNullable().defaultTo(false);
    table.boolean('require_volume').notNullable().defaultTo(false);
    table.jsonb('calendar');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'shipping_methods',
    'accessories',
    'service_locations',
    'product_types',
    'service_types',
    'manufacturers',
  ]) {
    await knex.schema.withSchema('catalog').dropTableIfExists(table);
  }
}
