import type { Knex } from 'knex';
import { createIdempotencyKeysTable, dropIdempotencyKeysTable } from '@hub/shared';

/**
 * Every write of a partner or provider takes an Idempotency-Key now, not case/create alone, and a
 * key belongs to an account, no longer to a partner: the keys of case/create made so far named a
 * partner and a case, which the new table cannot hold. They are forgotten; a key lives a day.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('booking').dropTable('idempotency_keys');
  await createIdempotencyKeysTable(knex, 'booking');
}

export async function down(knex: Knex): Promise<void> {
  await dropIdempotencyKeysTable(knex, 'booking');
  await knex.schema.withSchema('booking').createTable('idempotency_keys', (table) => {
    table.integer('partner_id').notNullable();
    table.string('key', 255).notNullable();
    table.string('request_hash', 64).notNullable();
    table.uuid('case_guid').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['partner_id', 'key']);
    table.index(['created_at']);
  });
}
