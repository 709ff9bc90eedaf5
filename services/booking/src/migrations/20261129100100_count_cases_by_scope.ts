/**
 * The number of cases of each partner and provider, kept by triggers in the transaction of every
 * write to booking.cases, so search-cases answers the exact count of a caller's whole scope by
 * summing a few rows instead of reading an index entry per case (a partner of 333,334 cases took
 * 26 to 35 ms that way on an idle server). Issue 17; the spec requires an exact count, and this
 * one is: a statement sees the counts of exactly the writes its snapshot sees.
 *
 * Each (partner, provider) pair has a row per stripe, the backend's pid modulo STRIPES: a write
 * locks its pair's row until it commits, and stripes let concurrent bookings of one partner lock
 * different rows. The triggers run once per statement over its transition tables, so a bulk
 * insert adds its counts in one upsert. Creating the triggers locks writes to booking.cases until
 * this migration commits, which is how the counts taken here cannot miss or double a write: that
 * is the time to count the table once (about a second at a million cases).
 */
import type { Knex } from 'knex';

const STRIPES = 8;

/** Per event: its transition tables, and the change each written row makes to its pair's count. */
const EVENTS = {
  insert: {
    referencing: 'new table as added',
    changes: 'select partner_id, service_provider_id, 1 as change from added',
  },
  delete: {
    referencing: 'old table as removed',
    changes: 'select partner_id, service_provider_id, -1 as change from removed',
  },
  update: {
    referencing: 'old table as removed new table as added',
    changes:
      'select partner_id, service_provider_id, -1 as change from removed union all select partner_id, service_provider_id, 1 from added',
  },
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table booking.case_counts (
      partner_id integer not null,
      service_provider_id integer,
      stripe smallint not null,
      cases bigint not null,
      constraint case_counts_pair unique nulls not distinct (partner_id, service_provider_id, stripe)
    )`);
  await knex.raw('create index case_counts_provider on booking.case_counts (service_provider_id)');
  await createStripedCountFunctions(knex);
  for (const [event, { referencing }] of Object.entries(EVENTS)) {
    await knex.raw(
      `create trigger cases_counted_on_${event} after ${event} on booking.cases referencing ${referencing}
         for each statement execute function booking.count_cases_on_${event}()`,
    );
  }
  await knex.raw(`
    create function booking.count_cases_on_truncate() returns trigger language plpgsql as $$
    begin
      delete from booking.case_counts;
      return null;
    end $$`);
  await knex.raw(
    'create trigger cases_counted_on_truncate after truncate on booking.cases for each statement execute function booking.count_cases_on_truncate()',
  );
  await knex.raw(`
    insert into booking.case_counts (partner_id, service_provider_id, stripe, cases)
    select partner_id, service_provider_id, 0, count(*) from booking.cases group by partner_id, service_provider_id`);
}

/** The count triggers' functions as this migration made them (20261202100100 replaced them). */
export async function createStripedCountFunctions(knex: Knex): Promise<void> {
  for (const [event, { changes }] of Object.entries(EVENTS)) {
    // In pair order, so two writes of several pairs lock their rows in one order.
    await knex.raw(`
      create or replace function booking.count_cases_on_${event}() returns trigger language plpgsql as $$
      begin
        insert into booking.case_counts as counted (partner_id, service_provider_id, stripe, cases)
        select partner_id, service_provider_id, pg_backend_pid() % ${STRIPES}, sum(change)
          from (${changes}) as changed
         group by partner_id, service_provider_id
        having sum(change) <> 0
         order by partner_id, service_provider_id
        on conflict (partner_id, service_provider_id, stripe) do update set cases = counted.cases + excluded.cases;
        return null;
      end $$`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const event of [...Object.keys(EVENTS), 'truncate']) {
    await knex.raw(`drop trigger cases_counted_on_${event} on booking.cases`);
    await knex.raw(`drop function booking.count_cases_on_${event}()`);
  }
  await knex.raw('drop table booking.case_counts');
}
