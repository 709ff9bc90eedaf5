import type { Knex } from 'knex';
import { createOutboxTable, dropOutboxTable } from '@hub/shared';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('cost_proposals').createTable('proposals', (table) => {
    table.bigIncrements('id');
    table.uuid('case_guid').notNullable();
    table.integer('service_provider_id').notNullable();
    table.jsonb('external_id');
    // The externalId array as one comparable value, so (externalId, name) can be a unique key.
    table.text('external_key');
    table.string('name', 255);
    table.decimal('price_net', 14, 2);
    table.string('currency', 3);
    // Kept as the provider wrote it (`YYYY-MM-DD HH:mm:ss.SSS`, no zone): it is their clock.
    table.string('time_stamp', 23);
    table.boolean('is_active').notNullable().defaultTo(true);
    table.string('reaction', 16);
    table.timestamp('reaction_date', { useTz: true });
    table.string('reaction_name', 255);
    table.text('comment');
    table.date('date_valid_until');
    table.jsonb('details');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['case_guid', 'id'], 'proposals_case');
  });
  await knex.raw(`alter table cost_proposals.proposals
    add constraint proposals_reaction check (reaction in ('approved', 'rejected'))`);
  await knex.raw(`create unique index proposals_external_key on cost_proposals.proposals
    (service_provider_id, external_key, coalesce(name, '')) where external_key is not null`);
  // The spec's limit of one accepted proposal per case, held by the database itself.
  await knex.raw(`create unique index proposals_one_approved on cost_proposals.proposals
    (case_guid) where reaction = 'approved'`);
  await createOutboxTable(knex, 'cost_proposals');
}

export async function down(knex: Knex): Promise<void> {
  await dropOutboxTable(knex, 'cost_proposals');
  await knex.schema.withSchema('cost_proposals').dropTableIfExists('proposals');
}
