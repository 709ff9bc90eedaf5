import type { Knex } from 'knex';
import { dropLeasedEventsIndex, indexLeasedEvents } from '@hub/shared';

/** A relay skips the later events of a case whose earlier one another relay holds (shared outbox.ts). */
export async function up(knex: Knex): Promise<void> {
  await indexLeasedEvents(knex, 'messaging');
}

export async function down(knex: Knex): Promise<void> {
  await dropLeasedEventsIndex(knex, 'messaging');
}
