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
import { createSkipLockedCountFunctions, type KeptCounts } from '@hub/shared';
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

const REFERENCING = {
  insert: 'new table as added',
  update: 'old table as removed new table as added',
  delete: 'old table as removed',
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
  await createSkipLockedCountFunctions(knex, DAY_COUNTS);
  for (const [event, referencing] of Object.entries(REFERENCING)) {
    await knex.raw(
      `create trigger custom_values_counted_on_${event} after ${event} on ${CUSTOM_VALUES} referencing ${referencing}
         for each statement execute function invoicing.count_custom_values_on_${event}()`,
    );
  }
  await knex.raw(`
    create function invoicing.count_custom_values_on_truncate() returns trigger language plpgsql as $$
    begin
      truncate ${CUSTOM_VALUE_DAYS};
      return null;
    end $$`);
  await knex.raw(
    `create trigger custom_values_counted_on_truncate after truncate on ${CUSTOM_VALUES}
       for each statement execute function invoicing.count_custom_values_on_truncate()`,
  );
  await knex.raw(`
    insert into ${CUSTOM_VALUE_DAYS} (partner_id, provider_id, key, value, day, invoices)
    select partner_id, provider_id, key, value, ${DAY_OF_CREATED_AT}, count(*) from ${CUSTOM_VALUES} group by 1, 2, 3, 4, 5`);
  // A write finds a row of its values by the first; a provider's count reads the second.
  await knex.raw(`create index custom_value_days_partner on ${CUSTOM_VALUE_DAYS} (partner_id, key, value, day)`);
  await knex.raw(`create index custom_value_days_provider on ${CUSTOM_VALUE_DAYS} (provider_id, key, value, day)`);
}

export async function down(knex: Knex): Promise<void> {
  for (const event of [...Object.keys(REFERENCING), 'truncate']) {
    await knex.raw(`drop trigger custom_values_counted_on_${event} on ${CUSTOM_VALUES}`);
    await knex.raw(`drop function invoicing.count_custom_values_on_${event}()`);
  }
  await knex.raw(`drop table ${CUSTOM_VALUE_DAYS}`);
}
