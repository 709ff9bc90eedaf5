/**
 * The relays' claims read the cases in flight through an index that the index of pending events
 * cannot stand in for (`indexLeasesByCase`, shared outbox.ts). Built concurrently, so the outbox
 * keeps taking events meanwhile.
 */
import type { Knex } from 'knex';
import { indexLeasesByCase, unindexLeasesByCase } from '@hub/shared';

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await indexLeasesByCase(knex, 'invoicing');
}

export async function down(knex: Knex): Promise<void> {
  await unindexLeasesByCase(knex, 'invoicing');
}
