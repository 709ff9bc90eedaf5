/**
 * A tag's cases within a partner's or a provider's scope, in case id order, from the index alone
 * (issue 17): a `tags` search reads only the entries of its scope, and when they are few it
 * looks the cases up by id (see case-search.ts). Built concurrently, taking writes meanwhile.
 */
import type { Knex } from 'knex';
import { createIndexesConcurrently, dropIndexesConcurrently } from '@hub/shared';

export const config = { transaction: false };

const INDEXES: Record<string, string> = {
  case_tags_partner: 'booking.case_tags (tag_id, partner_id, case_id)',
  case_tags_provider: 'booking.case_tags (tag_id, service_provider_id, case_id)',
};

export async function up(knex: Knex): Promise<void> {
  await createIndexesConcurrently(knex, 'booking', INDEXES);
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexesConcurrently(knex, 'booking', Object.keys(INDEXES));
}
