import type { Knex } from 'knex';
import { createOutboxTable, dropOutboxTable } from '@hub/shared';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('messaging').createTable('messages', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').notNullable();
    table.uuid('guid').notNullable();
    // The case's parties when the message was written: the audience of its events.
    table.integer('partner_id').notNullable();
    table.integer('provider_id');
    table.integer('sender_account_id').notNullable();
    table.string('sender_type', 16);
    table.text('content');
    table.string('type', 32).notNullable();
    table.string('external_id', 512);
    table.bigInteger('parent_message_id').references('id').inTable('messaging.messages');
    table.string('user_email', 512);
    table.string('user_name', 512);
    table.boolean('is_internal').notNullable().defaultTo(false);
    table.timestamp('declared_at', { useTz: true }).notNullable();
    table.timestamp('confirmed_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['guid', 'id']);
  });
  await createOutboxTable(knex, 'messaging');
}

export async function down(knex: Knex): Promise<void> {
  await dropOutboxTable(knex, 'messaging');
  await knex.schema.withSchema('messaging').dropTableIfExists('messages');
}
