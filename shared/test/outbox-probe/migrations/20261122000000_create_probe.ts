import type { Knex } from 'knex';
import { createOutboxTable, dropOutboxTable } from '../../../src/outbox';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('probe').createTable('notes', (table) => {
    table.increments('id');
    table.string('text').notNullable();
  });
  await createOutboxTable(knex, 'probe');
}

export async function down(knex: Knex): Promise<void> {
  await dropOutboxTable(knex, 'probe');
  await knex.schema.withSchema('probe').dropTable('notes');
}
