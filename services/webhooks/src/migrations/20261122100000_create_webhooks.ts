import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').createTable('subscriptions', (table) => {
    table.integer('id').primary();
    table.integer('account_id').notNullable();
    table.integer('partner_id');
    table.integer('provider_id');
    table.jsonb('event_types').notNullable();
    table.string('kind', 8).notNullable();
    table.text('url').notNullable();
    table.string('method', 8);
    table.jsonb('headers').notNullable().defaultTo('{}');
    table.string('queue', 255);
    table.jsonb('status_transitions').notNullable().defaultTo('[]');
    table.string('secret', 128).notNullable();
    table.string('previous_secret', 128);
    table.timestamp('previous_secret_until', { useTz: true });
    // active | paused (deliveries wait) | disabled (the receiver answered 410) | removed (left out of a world)
    table.string('state', 16).notNullable().defaultTo('active');
    table.text('state_reason');
    table.integer('max_in_flight').notNullable();
    table.string('origin', 8).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index subscriptions_partner on webhooks.subscriptions (partner_id)');
  await knex.raw('create index subscriptions_provider on webhooks.subscriptions (provider_id)');
  // Admin-created subscriptions take ids above every world id.
  await knex.raw('create sequence webhooks.subscription_ids start 1000000');

  await knex.schema.withSchema('webhooks').createTable('status_mappings', (table) => {
    table.integer('partner_id').notNullable();
    table.string('provider_key', 64).notNullable();
    table.string('partner_key', 64).notNullable();
    table.primary(['partner_id', 'provider_key']);
  });
  await knex.schema.withSchema('webhooks').createTable('blacklists', (table) => {
    table.integer('partner_id').notNullable();
    table.string('key', 64).notNullable();
    table.primary(['partner_id', 'key']);
  });

  await knex.schema.withSchema('webhooks').createTable('deliveries', (table) => {
    table.bigIncrements('id');
    table.uuid('event_id').notNullable();
    table.string('webhook_id', 64).notNullable();
    table.integer('subscription_id').notNullable().references('id').inTable('webhooks.subscriptions');
    table.string('event_type', 64).notNullable();
    table.uuid('case_guid');
    table.jsonb('payload').notNullable();
    table.timestamp('occurred_at', { useTz: true }).notNullable();
    // pending | succeeded | dead
    table.string('state', 16).notNullable().defaultTo('pending');
    table.integer('attempts').notNullable().defaultTo(0);
    // Attempts since the delivery was created or last redelivered; picks the next retry delay.
    table.integer('cycle_attempts').notNullable().defaultTo(0);
    table.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('lease_until', { useTz: true });
    table.text('last_error');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('finished_at', { useTz: true });
    table.unique(['event_id', 'subscription_id', 'event_type']);
  });
  await knex.raw(`create index deliveries_due on webhooks.deliveries (next_attempt_at, id) where state = 'pending'`);
  await knex.raw(
    `create index deliveries_case_order on webhooks.deliveries (subscription_id, case_guid, id) where state = 'pending'`,
  );
  await knex.raw('create index deliveries_subscription on webhooks.deliveries (subscription_id, id)');

  await knex.schema.withSchema('webhooks').createTable('attempts', (table) => {
    table.bigIncrements('id');
    table.bigInteger('delivery_id').notNullable().references('id').inTable('webhooks.deliveries');
    table.integer('attempt').notNullable();
    table.timestamp('started_at', { useTz: true }).notNullable();
    table.integer('latency_ms').notNullable();
    table.boolean('ok').notNullable();
    table.integer('status_code');
    table.string('error_kind', 32);
    table.text('error');
    table.text('response_excerpt');
  });
  await knex.raw('create index attempts_delivery on webhooks.attempts (delivery_id, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').dropTableIfExists('attempts');
  await knex.schema.withSchema('webhooks').dropTableIfExists('deliveries');
  await knex.schema.withSchema('webhooks').dropTableIfExists('blacklists');
  await knex.schema.withSchema('webhooks').dropTableIfExists('status_mappings');
  await knex.raw('drop sequence if exists webhooks.subscription_ids');
  await knex.schema.withSchema('webhooks').dropTableIfExists('subscriptions');
}
