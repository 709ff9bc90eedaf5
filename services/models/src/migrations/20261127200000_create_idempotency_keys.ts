import type { Knex } from 'knex';
import {
  createIdempotencyKeysTable,
  createRetentionRunsTable,
  dropIdempotencyKeysTable,
  dropRetentionRunsTable,
} from '@hub/shared';

/**
 * The Idempotency-Keys of model upserts, recorded in each upsert's transaction; expired keys are
 * the first rows of this schema the retention job removes, so it records its runs here now.
 */
export async function up(knex: Knex): Promise<void> {
  await createIdempotencyKeysTable(knex, 'models');
  await createRetentionRunsTable(knex, 'models');
}

export async function down(knex: Knex): Promise<void> {
  await dropRetentionRunsTable(knex, 'models');
  await dropIdempotencyKeysTable(knex, 'models');
}
