import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Expired Idempotency-Keys are swept by age.
  await knex.schema.withSchema('booking').alterTable('idempotency_keys', (table) => {
    table.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('booking').alterTable('idempotency_keys', (table) => {
    table.dropIndex(['created_at']);
  });
}
