import type { Knex } from 'knex';
import { indexLeasesByCase, unindexLeasesByCase } from '../../../src/outbox';

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await indexLeasesByCase(knex, 'probe');
}

export async function down(knex: Knex): Promise<void> {
  await unindexLeasesByCase(knex, 'probe');
}
