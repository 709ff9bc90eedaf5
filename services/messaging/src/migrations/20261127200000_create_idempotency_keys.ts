import type { Knex } from 'knex';
import { createIdempotencyKeysTable, dropIdempotencyKeysTable } from '@hub/shared';

/** The Idempotency-Keys of this service's writes, recorded in each write's transaction. */
export async function up(knex: Knex): Promise<void> {
  await createIdempotencyKeysTable(knex, 'messaging');
}

export async function down(knex: Knex): Promise<void> {
  await dropIdempotencyKeysTable(knex, 'messaging');
}
