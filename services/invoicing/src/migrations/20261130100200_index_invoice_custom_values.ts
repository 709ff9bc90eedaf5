/**
 * The kept customData values by scope, key, value and created_at (issue 17): the count of one
 * key's value in a date range, and the part of it before a cursor, read from the index alone.
 * Built concurrently, so the invoices keep taking writes meanwhile.
 */
import type { Knex } from 'knex';
import { createIndexesConcurrently, dropIndexesConcurrently } from '@hub/shared';

export const config = { transaction: false };

const INDEXES: Record<string, string> = {
  invoice_custom_values_partner: 'invoicing.invoice_custom_values (partner_id, key, value, created_at, invoice_id)',
  invoice_custom_values_provider: 'invoicing.invoice_custom_values (provider_id, key, value, created_at, invoice_id)',
};

export async function up(knex: Knex): Promise<void> {
  await createIndexesConcurrently(knex, 'invoicing', INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexesConcurrently(knex, 'invoicing', Object.keys(INDEXES));
}
