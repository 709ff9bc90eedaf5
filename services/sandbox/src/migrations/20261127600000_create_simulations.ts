import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The world's simulated providers: which account the sandbox acts as, and the delays of their steps.
  await knex.schema.withSchema('sandbox').createTable('simulated_providers', (table) => {
    table.integer('provider_id').primary();
    table.integer('account_id').notNullable();
    table.string('account_name', 255).notNullable();
    table.jsonb('delays').notNullable().defaultTo('{}');
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // One row per case a simulated provider works: the step it takes next and when, stored so a
  // restart goes on where it stopped.
  await knex.schema.withSchema('sandbox').createTable('simulations', (table) => {
    table.uuid('case_guid').primary();
    table.integer('provider_id').notNullable();
    table.string('state', 16).notNullable().defaultTo('running');
    table.string('step', 16).notNullable();
    table.string('outcome', 16);
    table.timestamp('due_at', { useTz: true }).notNullable();
    table.timestamp('lease_until', { useTz: true });
    table.integer('failures').notNullable().defaultTo(0);
    table.text('stopped_reason');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`create index simulations_due on sandbox.simulations (due_at) where state = 'running'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('sandbox').dropTableIfExists('simulations');
  await knex.schema.withSchema('sandbox').dropTableIfExists('simulated_providers');
}
