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
import { type CountedColumn, createSkipLockedCountFunctions, type KeptCounts } from '@hub/shared';
import { createStripedCountFunctions } from './20261129100100_count_cases_by_scope';

/** The counts' columns as this migration keeps them: a case's partner and provider. */
export const PAIR: CountedColumn[] = [
  { name: 'partner_id', nullable: false },
  { name: 'service_provider_id', nullable: true },
];

/** The kept case counts by `columns`. */
export function caseCounts(columns: CountedColumn[]): KeptCounts {
  return { table: 'booking.case_counts', count: 'cases', functions: 'booking.count_cases', columns };
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table booking.case_counts drop column stripe');
  await knex.raw('create index case_counts_partner on booking.case_counts (partner_id)');
  await createSkipLockedCountFunctions(knex, caseCounts(PAIR));
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
