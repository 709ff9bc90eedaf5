import type { Knex } from 'knex';
import {
  createRetentionRunsTable,
  dropRelayedEventsIndex,
  dropRetentionRunsTable,
  indexRelayedEvents,
} from '@hub/shared';

/**
 * Relayed events and the request log are removed by age (docs/retention.md); each run is
 * recorded for the figures.
 */
export async function up(knex: Knex): Promise<void> {
  await indexRelayedEvents(knex, 'booking');
  await knex.raw('create index external_requests_age on booking.external_requests (created_at)');
  await createRetentionRunsTable(knex, 'booking');
}

export async function down(knex: Knex): Promise<void> {
  await dropRetentionRunsTable(knex, 'booking');
  await knex.raw('drop index booking.external_requests_age');
  await dropRelayedEventsIndex(knex, 'booking');
}
