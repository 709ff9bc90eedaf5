import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // What case/notifications documents for each key: its description and the channels it can go out by.
  await knex.schema.withSchema('booking').alterTable('status_keys', (table) => {
    table.text('description');
    table.boolean('sms_available').notNullable().defaultTo(false);
    table.boolean('email_available').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('booking').alterTable('status_keys', (table) => {
    table.dropColumns('description', 'sms_available', 'email_available');
  });
}
