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
import { createStripedCountFunctions } from './20261129100100_count_cases_by_scope';

/** A column the counts are kept by; a nullable one is matched with `is not distinct from`. */
export interface CountedColumn {
  name: string;
  nullable: boolean;
}

/** The counts' columns as this migration keeps them: a case's partner and provider. */
export const PAIR: CountedColumn[] = [
  { name: 'partner_id', nullable: false },
  { name: 'service_provider_id', nullable: true },
];

/**
 * The count triggers' functions, keeping one count per value of `columns`: each trigger event's
 * rows change their values' counts (+1 added, -1 removed), and each change goes to a row of those
 * values that no other transaction holds, or to a new row.
 */
export async function createSkipLockedCountFunctions(knex: Knex, columns: CountedColumn[]): Promise<void> {
  const list = columns.map(({ name }) => name).join(', ');
  const changesOn = {
    insert: `select ${list}, 1 as change from added`,
    delete: `select ${list}, -1 as change from removed`,
    update: `select ${list}, -1 as change from removed union all select ${list}, 1 from added`,
  };
  const matching = (nullSafe: boolean) =>
    columns
      .map(({ name, nullable }) => `${name} ${nullable && nullSafe ? 'is not distinct from' : '='} changed.${name}`)
      .join(' and ');
  const present = columns
    .filter(({ nullable }) => nullable)
    .map(({ name }) => `changed.${name} is not null`)
    .join(' and ');
  // Equality where every value is there (nearly always), so an index on the columns finds the row.
  const freeRow = (nullSafe: boolean) =>
    `select ctid into free from booking.case_counts where ${matching(nullSafe)} limit 1 for update skip locked;`;
  for (const [event, changes] of Object.entries(changesOn)) {
    await knex.raw(`
      create or replace function booking.count_cases_on_${event}() returns trigger language plpgsql as $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select ${list}, sum(change) as change from (${changes}) as written
           group by ${list} having sum(change) <> 0
        loop
          if ${present || 'true'} then
            ${freeRow(false)}
          else
            ${freeRow(true)}
          end if;
          if found then
            update booking.case_counts set cases = cases + changed.change where ctid = free;
          else
            insert into booking.case_counts (${list}, cases)
            values (${columns.map(({ name }) => `changed.${name}`).join(', ')}, changed.change);
          end if;
        end loop;
        return null;
      end $$`);
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table booking.case_counts drop column stripe');
  await knex.raw('create index case_counts_partner on booking.case_counts (partner_id)');
  await createSkipLockedCountFunctions(knex, PAIR);
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
