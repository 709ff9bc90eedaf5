import type { Knex } from 'knex';

/** A delivery carries its party's number for the event in its case, sent as `Hub-Case-Sequence`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').alterTable('deliveries', (table) => {
    table.integer('case_sequence');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').alterTable('deliveries', (table) => {
    table.dropColumn('case_sequence');
  });
}
