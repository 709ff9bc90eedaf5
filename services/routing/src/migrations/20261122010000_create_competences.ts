import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('routing').createTable('competences', (table) => {
    table.integer('id').primary();
    table.integer('partner_id').notNullable().index();
    // The rule as the world file states it; routing reads a partner's rules whole.
    table.jsonb('rule').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('routing').dropTableIfExists('competences');
}
