/**
 * The scope's cases by creation time with their ids (issue 17), in place of the (scope,
 * created_at) indexes of the first migration: a createdAt range then finds its cases' ids from
 * the index alone, for the count and for the page, which search-cases sorts by id from them
 * when they are few (see case-search.ts). The older indexes are the new ones' prefixes, so
 * nothing else loses an index. Built and dropped concurrently, taking writes meanwhile.
 */
import type { Knex } from 'knex';
import { createIndexesConcurrently, dropIndexesConcurrently } from '@hub/shared';

export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await createIndexesConcurrently(knex, 'booking', {
    cases_partner_created: 'booking.cases (partner_id, created_at, id)',
    cases_provider_created: 'booking.cases (service_provider_id, created_at, id)',
  });
  await dropIndexesConcurrently(knex, 'booking', [
    'cases_partner_id_created_at_index',
    'cases_service_provider_id_created_at_index',
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await createIndexesConcurrently(knex, 'booking', {
    cases_partner_id_created_at_index: 'booking.cases (partner_id, created_at)',
    cases_service_provider_id_created_at_index: 'booking.cases (service_provider_id, created_at)',
  });
  await dropIndexesConcurrently(knex, 'booking', ['cases_partner_created', 'cases_provider_created']);
}
