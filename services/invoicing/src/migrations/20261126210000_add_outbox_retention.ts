import type { Knex } from 'knex';
import {
  createRetentionRunsTable,
  dropRelayedEventsIndex,
  dropRetentionRunsTable,
  indexRelayedEvents,
} from '@hub/shared';

/** Relayed events are removed by age (docs/retention.md); each run is recorded for the figures. */
export async function up(knex: Knex): Promise<void> {
  await indexRelayedEvents(knex, 'invoicing');
  await createRetentionRunsTable(knex, 'invoicing');
}

export async function down(knex: Knex): Promise<void> {
  await dropRetentionRunsTable(knex, 'invoicing');
  await dropRelayedEventsIndex(knex, 'invoicing');
}
