/**
 * The kept orderData values by the caller's scope, key and value, with the case id, so a search by
 * one orderData key alone reads its matches, in id order within a value, from the index alone
 * (order-values.ts). Built concurrently, taking writes meanwhile.
 */
import type { Knex } from 'knex';
import { createIndexesConcurrently, dropIndexesConcurrently } from '@hub/shared';
import { ORDER_VALUES } from '../order-values';

export const config = { transaction: false };

const INDEXES: Record<string, string> = {
  case_order_values_partner: `${ORDER_VALUES} (partner_id, key, value, case_id)`,
  case_order_values_provider: `${ORDER_VALUES} (service_provider_id, key, value, case_id)`,
};

export async function up(knex: Knex): Promise<void> {
  await createIndexesConcurrently(knex, 'booking', INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexesConcurrently(knex, 'booking', Object.keys(INDEXES));
}
