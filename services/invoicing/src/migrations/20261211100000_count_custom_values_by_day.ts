/**
 * The kept customData values (20261130100000) counted per scope, key, value and UTC day, so
 * invoices/find counts the matches of a key's value over whole days by summing a row a day
 * instead of reading an index entry per invoice (8,639 entries were 6 ms of a 2,000,000-invoice
 * find's 8 on a slow server), and reads entries only for the partial days at a range's ends.
 *
 * Writes to the invoices wait for this migration to commit, so the count taken here cannot miss
 * or double a write: a few seconds at 2,000,000 invoices, as the kept values' backfill per batch.
 */
import type { Knex } from 'knex';
import { keepCounts, type KeptCounts, stopKeepingCounts } from '@hub/shared';
import { CUSTOM_VALUE_DAYS, CUSTOM_VALUES, DAY_OF_CREATED_AT } from '../custom-values.store';

const DAY_COUNTS: KeptCounts = {
  table: CUSTOM_VALUE_DAYS,
  count: 'invoices',
  functions: 'invoicing.count_custom_values',
  columns: [
    { name: 'partner_id', nullable: false },
    { name: 'provider_id', nullable: false },
    { name: 'key', nullable: false },
    { name: 'value', nullable: false },
    { name: 'day', nullable: false, of: DAY_OF_CREATED_AT },
  ],
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`lock table ${CUSTOM_VALUES} in share row exclusive mode`);
  await knex.raw(`
    create table ${CUSTOM_VALUE_DAYS} (
      partner_id integer not null,
      provider_id integer not null,
      key text not null,
      value jsonb not null,
      day date not null,
      invoices bigint not null
    )`);
  await keepCounts(knex, CUSTOM_VALUES, 'custom_values_counted', DAY_COUNTS);
  // A write finds a row of its values by the first; a provider's count reads the second.
  await knex.raw(`create index custom_value_days_partner on ${CUSTOM_VALUE_DAYS} (partner_id, key, value, day)`);
  await knex.raw(`create index custom_value_days_provider on ${CUSTOM_VALUE_DAYS} (provider_id, key, value, day)`);
}

export async function down(knex: Knex): Promise<void> {
  await stopKeepingCounts(knex, CUSTOM_VALUES, 'custom_values_counted', DAY_COUNTS);
  await knex.raw(`drop table ${CUSTOM_VALUE_DAYS}`);
}
