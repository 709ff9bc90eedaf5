import type { Knex } from 'knex';
import { createOutboxTable, dropOutboxTable } from '@hub/shared';

export async function up(knex: Knex): Promise<void> {
  const schema = () => knex.schema.withSchema('invoicing');
  await schema().createTable('invoice_statuses', (table) => {
    table.integer('provider_id').notNullable();
    table.string('key', 255).notNullable();
    table.string('name', 255);
    table.boolean('send_to_client').notNullable();
    table.primary(['provider_id', 'key']);
  });
  await schema().createTable('invoices', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').notNullable();
    table.uuid('guid').notNullable();
    // The case's parties when the invoice was saved: find scopes by them in SQL.
    table.integer('partner_id').notNullable();
    table.integer('provider_id').notNullable();
    table.string('external_id', 255).notNullable();
    table.string('type', 16).notNullable().defaultTo('invoice');
    table.jsonb('custom_data').notNullable().defaultTo('{}');
    table.decimal('price_net', null);
    table.string('currency', 3);
    table.boolean('is_active').notNullable().defaultTo(true);
    table.boolean('is_sent').notNullable().defaultTo(false);
    table.boolean('is_paid').notNullable().defaultTo(false);
    table.date('due_date');
    table.string('status', 255);
    table.jsonb('details').notNullable().defaultTo('[]');
    table.bigInteger('linked_invoice_id').references('id').inTable('invoicing.invoices');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['provider_id', 'external_id']);
    table.index(['guid']);
    // find pages in created order within the caller's scope.
    table.index(['partner_id', 'created_at', 'id']);
    table.index(['provider_id', 'created_at', 'id']);
  });
  await knex.raw('create index invoices_custom_data on invoicing.invoices using gin (custom_data jsonb_path_ops)');
  await knex.raw('create index invoices_details on invoicing.invoices using gin (details jsonb_path_ops)');
  await createOutboxTable(knex, 'invoicing');
}

export async function down(knex: Knex): Promise<void> {
  await dropOutboxTable(knex, 'invoicing');
  await knex.schema.withSchema('invoicing').dropTableIfExists('invoices');
  await knex.schema.withSchema('invoicing').dropTableIfExists('invoice_statuses');
}
