import type { Knex } from 'knex';
import { dropLeasedEventsIndex, indexLeasedEvents } from '../../../src/outbox';

export async function up(knex: Knex): Promise<void> {
  await indexLeasedEvents(knex, 'probe');
}

export async function down(knex: Knex): Promise<void> {
  await dropLeasedEventsIndex(knex, 'probe');
}
