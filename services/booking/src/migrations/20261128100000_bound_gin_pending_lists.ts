/**
 * A GIN index takes new entries into a pending list that every search reads whole, until a
 * vacuum or the list's limit (4 MB by default) merges it into the index. The embedded database
 * runs no autovacuum, so there the list only grew: after 3,000 bookings a `commonSearch` read
 * some 1,400 pending pages and took 120 ms instead of 9, and the planner, pricing those pages,
 * turned to scanning every case. A limit of 64 kB (the least allowed) has the writer merge a few
 * entries at a time; on the server, autovacuum merges before that anyway. The lists pending now
 * are merged here. Changing the limit takes no lock that stops reads or writes.
 */
import type { Knex } from 'knex';

const GIN_INDEXES = [
  'cases_order_data',
  'cases_product_data',
  'cases_guid_trgm',
  'cases_order_data_trgm',
  'cases_product_data_trgm',
  'case_contacts_data_trgm',
];

export async function up(knex: Knex): Promise<void> {
  for (const name of GIN_INDEXES) {
    await knex.raw(`alter index booking.${name} set (gin_pending_list_limit = 64)`);
    await knex.raw('select gin_clean_pending_list(?::regclass)', [`booking.${name}`]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const name of GIN_INDEXES) await knex.raw(`alter index booking.${name} reset (gin_pending_list_limit)`);
}
