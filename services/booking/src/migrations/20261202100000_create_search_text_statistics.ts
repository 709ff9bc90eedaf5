/**
 * Statistics on the trigrams of each text a commonSearch reads through a trigram index, so it can
 * tell which trigrams of its text nearly every row holds (the keys of the JSON, common names):
 * ANALYZE keeps the most common trigrams of a sample with the share of rows holding each (see
 * search-pieces.ts and commonSearchPieces in case-search.ts; issue 17). Creating them blocks no
 * write, and they cost nothing until ANALYZE (autovacuum's, on the server) fills them.
 */
import type { Knex } from 'knex';

export const TEXT_STATISTICS = {
  contacts: { name: 'case_contacts_text_trigrams', on: 'show_trgm(data::text)', table: 'booking.case_contacts' },
  orderData: { name: 'cases_order_data_trigrams', on: 'show_trgm(order_data::text)', table: 'booking.cases' },
  productData: { name: 'cases_product_data_trigrams', on: 'show_trgm(product_data::text)', table: 'booking.cases' },
} as const;

export async function up(knex: Knex): Promise<void> {
  for (const { name, on, table } of Object.values(TEXT_STATISTICS))
    await knex.raw(`create statistics booking.${name} on (${on}) from ${table}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const { name } of Object.values(TEXT_STATISTICS)) await knex.raw(`drop statistics if exists booking.${name}`);
}
