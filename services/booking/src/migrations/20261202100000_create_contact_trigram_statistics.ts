/**
 * Statistics on the trigrams of each contact's text, so a commonSearch can tell which trigrams of
 * its text nearly every contact holds (the keys of the contacts' JSON, common names): ANALYZE
 * keeps the most common trigrams of a sample with the share of contacts holding each (see
 * commonSearchPieces in case-search.ts; issue 17). Creating them blocks no write, and they cost
 * nothing until ANALYZE (autovacuum's, on the server) fills them.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create statistics booking.case_contacts_text_trigrams on (show_trgm(data::text)) from booking.case_contacts',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop statistics if exists booking.case_contacts_text_trigrams');
}
