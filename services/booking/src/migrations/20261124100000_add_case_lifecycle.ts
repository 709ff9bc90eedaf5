import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The provider's intake and the partner's finish; a cancelled case takes no further changes.
  await knex.schema.withSchema('booking').alterTable('cases', (table) => {
    table.timestamp('accepted_at', { useTz: true });
    table.timestamp('cancelled_at', { useTz: true });
    table.text('cancel_reason');
    table.timestamp('finished_at', { useTz: true });
    table.index(['service_provider_id', 'accepted', 'id']);
  });

  // Uploaded files: `storage_key` names the stored bytes; a file sent as a url has none.
  await knex.schema.withSchema('booking').createTable('case_files', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').notNullable().references('id').inTable('booking.cases').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('type', 32).notNullable();
    table.text('url');
    table.string('storage_key', 255);
    table.string('content_type', 128);
    table.integer('size');
    table.string('uploaded_by', 16).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['case_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('booking').dropTableIfExists('case_files');
  await knex.schema.withSchema('booking').alterTable('cases', (table) => {
    table.dropIndex(['service_provider_id', 'accepted', 'id']);
    table.dropColumns('accepted_at', 'cancelled_at', 'cancel_reason', 'finished_at');
  });
}
