/**
 * The kept case counts (20261129100100) without a write ever waiting for another's: a write adds
 * its change to a row of its pair that no other transaction holds (`skip locked`), or to a new
 * row when every one is held. Striped by backend pid, a write waited for whichever transaction
 * held its stripe: a booking process stopped mid-transaction (paused, or stalled on its machine)
 * kept its stripe until it went on, and each booking of the pair on another process that drew the
 * same stripe waited with it, past the call timeout. A pair now has as many rows as its writes
 * ever overlapped; search-cases sums them.
 */
import type { Knex } from 'knex';
import { createStripedCountFunctions, EVENTS } from './20261129100100_count_cases_by_scope';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table booking.case_counts drop column stripe');
  await knex.raw('create index case_counts_partner on booking.case_counts (partner_id)');
  for (const [event, { changes }] of Object.entries(EVENTS)) {
    await knex.raw(`
      create or replace function booking.count_cases_on_${event}() returns trigger language plpgsql as $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, service_provider_id, sum(change) as change from (${changes}) as pairs
           group by partner_id, service_provider_id having sum(change) <> 0
        loop
          select ctid into free from booking.case_counts
           where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id
           limit 1 for update skip locked;
          if found then
            update booking.case_counts set cases = cases + changed.change where ctid = free;
          else
            insert into booking.case_counts (partner_id, service_provider_id, cases)
            values (changed.partner_id, changed.service_provider_id, changed.change);
          end if;
        end loop;
        return null;
      end $$`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index booking.case_counts_partner');
  await knex.raw(
    'create temporary table summed_case_counts on commit drop as select partner_id, service_provider_id, sum(cases) as cases from booking.case_counts group by 1, 2',
  );
  await knex.raw('delete from booking.case_counts');
  await knex.raw('alter table booking.case_counts add column stripe smallint not null default 0');
  await knex.raw('alter table booking.case_counts alter column stripe drop default');
  await knex.raw(
    'insert into booking.case_counts (partner_id, service_provider_id, stripe, cases) select partner_id, service_provider_id, 0, cases from summed_case_counts',
  );
  await knex.raw(
    'alter table booking.case_counts add constraint case_counts_pair unique nulls not distinct (partner_id, service_provider_id, stripe)',
  );
  await createStripedCountFunctions(knex);
}
