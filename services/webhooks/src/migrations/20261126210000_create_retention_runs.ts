import type { Knex } from 'knex';
import { createRetentionRunsTable, dropRetentionRunsTable } from '@hub/shared';

/** Each retention run is recorded for the storage figures (docs/retention.md). */
export async function up(knex: Knex): Promise<void> {
  await createRetentionRunsTable(knex, 'webhooks');
}

export async function down(knex: Knex): Promise<void> {
  await dropRetentionRunsTable(knex, 'webhooks');
}
