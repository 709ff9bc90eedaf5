import type { Knex } from 'knex';

/**
 * The event feed (feed.store.ts): every webhook each party receives, its position in the party's
 * feed and the party's number for the event in its case. A head per party hands out positions
 * under its row lock; a counter per party and case hands out the case's numbers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').createTable('feed_heads', (table) => {
    table.string('party_kind', 8).notNullable();
    table.integer('party_id').notNullable();
    table.bigInteger('last_position').notNullable().defaultTo(0);
    table.primary(['party_kind', 'party_id']);
  });
  await knex.schema.withSchema('webhooks').createTable('case_sequences', (table) => {
    table.string('party_kind', 8).notNullable();
    table.integer('party_id').notNullable();
    table.uuid('case_guid').notNullable();
    table.integer('last_sequence').notNullable();
    table.primary(['party_kind', 'party_id', 'case_guid']);
  });
  await knex.schema.withSchema('webhooks').createTable('feed', (table) => {
    table.string('party_kind', 8).notNullable();
    table.integer('party_id').notNullable();
    table.bigInteger('position').notNullable();
    table.uuid('event_id').notNullable();
    table.string('webhook_id', 64).notNullable();
    table.string('event_type', 64).notNullable();
    table.uuid('case_guid');
    table.integer('case_sequence');
    table.jsonb('payload').notNullable();
    table.timestamp('occurred_at', { useTz: true }).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable();
    table.primary(['party_kind', 'party_id', 'position']);
    table.unique(['party_kind', 'party_id', 'webhook_id']);
  });
  // Retention removes the feed by age (docs/retention.md).
  await knex.raw('create index feed_created on webhooks.feed (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').dropTableIfExists('feed');
  await knex.schema.withSchema('webhooks').dropTableIfExists('case_sequences');
  await knex.schema.withSchema('webhooks').dropTableIfExists('feed_heads');
}
