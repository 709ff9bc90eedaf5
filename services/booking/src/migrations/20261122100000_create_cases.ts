import type { Knex } from 'knex';
import { createOutboxTable, dropOutboxTable } from '@hub/shared';

export async function up(knex: Knex): Promise<void> {
  const schema = () => knex.schema.withSchema('booking');

  // Status keys per provider, from the world file; a new case gets its provider's first key.
  await schema().createTable('status_keys', (table) => {
    table.integer('provider_id').notNullable();
    table.string('key', 64).notNullable();
    table.string('name', 255).notNullable();
    table.integer('position').notNullable();
    table.primary(['provider_id', 'key']);
  });

  await schema().createTable('cases', (table) => {
    table.bigIncrements('id');
    table.uuid('guid').notNullable().unique();
    table.integer('partner_id').notNullable();
    table.integer('service_provider_id');
    table.integer('service_provider_department_id');
    table.integer('manufacturer_id').notNullable();
    table.integer('product_type_id').notNullable();
    table.integer('service_type_id').notNullable();
    table.integer('service_location_id').notNullable();
    table.integer('shipping_method_id');
    table.string('country', 2);
    table.string('current_status', 64);
    table.jsonb('order_data').notNullable().defaultTo('{}');
    table.jsonb('product_data').notNullable().defaultTo('{}');
    table.jsonb('spare_parts').notNullable().defaultTo('[]');
    table.jsonb('freight_trackings').notNullable().defaultTo('[]');
    // Reference records as they were when the case was booked ({ id, name, ... }), so a case
    // reads back whole without asking the catalog for every row.
    table.jsonb('manufacturer');
    table.jsonb('product_type');
    table.jsonb('service_type');
    table.jsonb('service_location');
    table.jsonb('shipping_method');
    table.jsonb('service_partner');
    table.jsonb('service_provider');
    table.jsonb('service_provider_department');
    table.jsonb('service_provider_competence');
    table.boolean('accepted').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['partner_id', 'created_at']);
    table.index(['service_provider_id', 'created_at']);
  });

  // sender, receiver, customer, consumer, pickupDst, returnDst: one row each, so a contact
  // has the id and createdAt of the spec's ContactData.
  await schema().createTable('case_contacts', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').notNullable().references('id').inTable('booking.cases').onDelete('CASCADE');
    table.string('role', 16).notNullable();
    table.smallint('type');
    table.jsonb('data').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['case_id', 'role']);
  });

  await schema().createTable('case_statuses', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').notNullable().references('id').inTable('booking.cases').onDelete('CASCADE');
    table.string('key', 64).notNullable();
    table.string('name', 255).notNullable();
    table.timestamp('declared_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['case_id', 'id']);
  });

  await schema().createTable('tags', (table) => {
    table.increments('id');
    table.string('name', 255).notNullable().unique();
  });
  await schema().createTable('case_tags', (table) => {
    table.bigInteger('case_id').notNullable().references('id').inTable('booking.cases').onDelete('CASCADE');
    table.integer('tag_id').notNullable().references('id').inTable('booking.tags');
    table.primary(['case_id', 'tag_id']);
  });

  // External requests: the request log (`requests/log`) and tracked booking attempts.
  await schema().createTable('external_requests', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').references('id').inTable('booking.cases').onDelete('SET NULL');
    table.integer('partner_id');
    table.integer('provider_id');
    table.integer('account_id').notNullable();
    table.string('type', 64).notNullable();
    table.string('status', 64).notNullable();
    table.text('url');
    table.jsonb('meta').notNullable().defaultTo('{}');
    table.string('tracking_id', 255);
    table.text('request');
    table.text('response');
    table.text('message');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['tracking_id', 'partner_id']);
    table.index(['case_id']);
  });

  // A retried create with the same Idempotency-Key answers the case it made the first time.
  await schema().createTable('idempotency_keys', (table) => {
    table.integer('partner_id').notNullable();
    table.string('key', 255).notNullable();
    table.string('request_hash', 64).notNullable();
    table.uuid('case_guid').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['partner_id', 'key']);
  });

  await createOutboxTable(knex, 'booking');
}

export async function down(knex: Knex): Promise<void> {
  await dropOutboxTable(knex, 'booking');
  for (const table of [
    'idempotency_keys',
    'external_requests',
    'case_tags',
    'tags',
    'case_statuses',
    'case_contacts',
    'cases',
    'status_keys',
  ]) {
    await knex.schema.withSchema('booking').dropTableIfExists(table);
  }
}
