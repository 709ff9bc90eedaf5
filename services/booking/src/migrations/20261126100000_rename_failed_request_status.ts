import type { Knex } from 'knex';

// Tracked booking attempts that failed were stored as 'failed'; the documented status is 'error'.
export async function up(knex: Knex): Promise<void> {
  await knex('booking.external_requests').where({ type: 'caseCreated', status: 'failed' }).update({ status: 'error' });
}

export async function down(knex: Knex): Promise<void> {
  await knex('booking.external_requests').where({ type: 'caseCreated', status: 'error' }).update({ status: 'failed' });
}
