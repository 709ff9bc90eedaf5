import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  const schema = () => knex.schema.withSchema('catalog');
  await schema().createTable('contacts', (table) => {
    table.increments('id');
    table.jsonb('data').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await schema().createTable('partners', (table) => {
    table.integer('id').primary();
    table.string('name', 255).notNullable();
    table.integer('contact_id').references('id').inTable('catalog.contacts');
    table.jsonb('settings').notNullable().defaultTo('{}');
  });
  await schema().createTable('providers', (table) => {
    table.integer('id').primary();
    table.string('name', 255).notNullable();
    table.integer('contact_id').references('id').inTable('catalog.contacts');
  });
  await schema().createTable('departments', (table) => {
    table.integer('id').primary();
    table.integer('provider_id').notNullable().references('id').inTable('catalog.providers');
    table.string('name', 255).notNullable();
    table.jsonb('external_data');
    table.integer('contact_id').references('id').inTable('catalog.contacts');
  });
  await schema().createTable('accounts', (table) => {
    table.increments('id');
    table.string('name', 255).notNullable();
    table.string('role', 16).notNullable();
    table.integer('partner_id').references('id').inTable('catalog.partners');
    table.integer('provider_id').references('id').inTable('catalog.providers');
    table.string('token_sha256', 64).notNullable().unique();
    table.boolean('can_force_provider').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table catalog.accounts add constraint accounts_role_owner check (
    (role = 'partner' and partner_id is not null and provider_id is null) or
    (role = 'provider' and provider_id is not null and partner_id is null) or
    (role = 'admin' and partner_id is null and provider_id is null))`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['accounts', 'departments', 'providers', 'partners', 'contacts']) {
    await knex.schema.withSchema('catalog').dropTableIfExists(table);
  }
}
