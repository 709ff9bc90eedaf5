import type { Knex } from 'knex';
import { indexLeasesByCase, unindexLeasesByCase } from '@hub/shared';

/** A relay's claim finds the cases of leased events by an index no other query shape can take (shared outbox.ts). */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await indexLeasesByCase(knex, 'booking');
}

export async function down(knex: Knex): Promise<void> {
  await unindexLeasesByCase(knex, 'booking');
}
