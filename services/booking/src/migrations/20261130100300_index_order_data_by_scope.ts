/**
 * orderData with the partner's or the provider's id in one GIN index (btree_gin), so an
 * `orderData.<key>` search finds the candidates of its containment test within the caller's
 * scope in one index scan (issue 17). With the document alone indexed, the planner flipped
 * between runs on the same data: the 5,000 candidates checked for the scope on each row (4 ms),
 * or a BitmapAnd with the 333,334 entries of the partner's btree (26 ms). The unscoped index
 * stays for an admin. Built concurrently, taking writes meanwhile; a small pending list as the
 * other GIN indexes have (20261128100000).
 */
import type { Knex } from 'knex';
import { createIndexesConcurrently, dropIndexesConcurrently } from '@hub/shared';

export const config = { transaction: false };

const INDEXES: Record<string, string> = {
  cases_partner_order_data:
    'booking.cases using gin (partner_id, order_data jsonb_path_ops) with (gin_pending_list_limit = 64)',
  cases_provider_order_data:
    'booking.cases using gin (service_provider_id, order_data jsonb_path_ops) with (gin_pending_list_limit = 64)',
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists btree_gin');
  await createIndexesConcurrently(knex, 'booking', INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexesConcurrently(knex, 'booking', Object.keys(INDEXES));
}
