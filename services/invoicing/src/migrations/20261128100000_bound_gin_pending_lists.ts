/**
 * The invoices' GIN indexes merge their pending lists at 64 kB, as booking's do (its migration of
 * the same name says why): the embedded database has no autovacuum to merge them.
 */
import type { Knex } from 'knex';

const GIN_INDEXES = ['invoices_custom_data', 'invoices_details'];

export async function up(knex: Knex): Promise<void> {
  for (const name of GIN_INDEXES) {
    await knex.raw(`alter index invoicing.${name} set (gin_pending_list_limit = 64)`);
    await knex.raw('select gin_clean_pending_list(?::regclass)', [`invoicing.${name}`]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const name of GIN_INDEXES) await knex.raw(`alter index invoicing.${name} reset (gin_pending_list_limit)`);
}
