/**
 * The kept case counts (20261129100100, 20261202100100) by current status too, so search-cases
 * answers the exact count of a search by status alone (the commonest one) by summing a few rows
 * instead of reading an index entry per match (37,878 matches of a partner's 333,334 cases took
 * 7 ms that way on the server, about as long as the rest of the search). Issue 17.
 *
 * Writes to the cases wait for this migration to commit, so the recount cannot miss or double a
 * write; at a million cases that is about a second, as the first count was.
 */
import type { Knex } from 'knex';
import { type CountedColumn, createSkipLockedCountFunctions } from '@hub/shared';
import { caseCounts, PAIR } from './20261202100100_count_cases_without_waiting';

const BY_STATUS: CountedColumn[] = [...PAIR, { name: 'current_status', nullable: true }];

async function recount(knex: Knex, columns: CountedColumn[]): Promise<void> {
  const list = columns.map(({ name }) => name).join(', ');
  await knex.raw('delete from booking.case_counts');
  await knex.raw(
    `insert into booking.case_counts (${list}, cases) select ${list}, count(*) from booking.cases group by ${list}`,
  );
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('lock table booking.cases in share row exclusive mode');
  await knex.raw('alter table booking.case_counts add column current_status varchar(64)');
  // A write finds a row of its values by this index: a partner has a row per provider and status.
  await knex.raw('drop index booking.case_counts_partner');
  await knex.raw(
    'create index case_counts_values on booking.case_counts (partner_id, service_provider_id, current_status)',
  );
  await createSkipLockedCountFunctions(knex, caseCounts(BY_STATUS));
  await recount(knex, BY_STATUS);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('lock table booking.cases in share row exclusive mode');
  await createSkipLockedCountFunctions(knex, caseCounts(PAIR));
  await knex.raw('drop index booking.case_counts_values');
  await knex.raw('create index case_counts_partner on booking.case_counts (partner_id)');
  await knex.raw('alter table booking.case_counts drop column current_status');
  await recount(knex, PAIR);
}
