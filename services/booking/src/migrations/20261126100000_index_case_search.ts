/**
 * Indexes for search-cases at production size (issue 17): each common search reads its matches
 * through an index inside the caller's scope instead of scanning the scope's cases.
 * - (scope, id): the page in id order, and the exact count, read from the index alone;
 * - (scope, current_status, id): a current-status search;
 * - (tag_id, case_id): cases holding a tag;
 * - GIN (jsonb_path_ops) on orderData and productData: the cases that may hold a key's value;
 * - trigram indexes on the texts `commonSearch` reads (guid, orderData, productData, contacts).
 *
 * Built concurrently so a hub holding millions of cases keeps taking writes while they build.
 */
import type { Knex } from 'knex';
import { createIndexesConcurrently, dropIndexesConcurrently } from '@hub/shared';

export const config = { transaction: false };

const INDEXES: Record<string, string> = {
  cases_partner_id: 'booking.cases (partner_id, id)',
  cases_provider_id: 'booking.cases (service_provider_id, id)',
  cases_partner_status: 'booking.cases (partner_id, current_status, id)',
  cases_provider_status: 'booking.cases (service_provider_id, current_status, id)',
  case_tags_tag: 'booking.case_tags (tag_id, case_id)',
  cases_order_data: 'booking.cases using gin (order_data jsonb_path_ops)',
  cases_product_data: 'booking.cases using gin (product_data jsonb_path_ops)',
  cases_guid_trgm: 'booking.cases using gin ((guid::text) gin_trgm_ops)',
  cases_order_data_trgm: 'booking.cases using gin ((order_data::text) gin_trgm_ops)',
  cases_product_data_trgm: 'booking.cases using gin ((product_data::text) gin_trgm_ops)',
  case_contacts_data_trgm: 'booking.case_contacts using gin ((data::text) gin_trgm_ops)',
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await createIndexesConcurrently(knex, 'booking', INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexesConcurrently(knex, 'booking', Object.keys(INDEXES));
}
