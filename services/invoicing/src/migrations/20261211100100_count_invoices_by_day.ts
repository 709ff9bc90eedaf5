/**
 * The invoices counted per scope and UTC day of created_at, so invoices/find without filters, or
 * filtered by createdAt alone (a partner's listing), counts its matches by summing a row a day
 * instead of reading an index entry per invoice (a partner of 1,000,000 invoices would read them
 * all), as the kept values' day counts do for a customData value (20261211100000).
 *
 * Writes to the invoices wait for this migration to commit, so the count taken here cannot miss
 * or double a write.
 */
import type { Knex } from 'knex';
import { keepCounts, type KeptCounts, stopKeepingCounts } from '@hub/shared';
import { DAY_OF_CREATED_AT } from '../custom-values.store';
import { INVOICE_DAYS, INVOICES } from '../invoices.store';

const DAY_COUNTS: KeptCounts = {
  table: INVOICE_DAYS,
  count: 'invoices',
  functions: 'invoicing.count_invoices',
  columns: [
    { name: 'partner_id', nullable: false },
    { name: 'provider_id', nullable: false },
    { name: 'day', nullable: false, of: DAY_OF_CREATED_AT },
  ],
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`lock table ${INVOICES} in share row exclusive mode`);
  await knex.raw(`
    create table ${INVOICE_DAYS} (
      partner_id integer not null,
      provider_id integer not null,
      day date not null,
      invoices bigint not null
    )`);
  await keepCounts(knex, INVOICES, 'invoices_counted', DAY_COUNTS);
  // A write finds a row of its values by the first; a provider's count reads the second.
  await knex.raw(`create index invoice_days_partner on ${INVOICE_DAYS} (partner_id, day)`);
  await knex.raw(`create index invoice_days_provider on ${INVOICE_DAYS} (provider_id, day)`);
}

export async function down(knex: Knex): Promise<void> {
  await stopKeepingCounts(knex, INVOICES, 'invoices_counted', DAY_COUNTS);
  await knex.raw(`drop table ${INVOICE_DAYS}`);
}
