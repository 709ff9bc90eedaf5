import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Who changed a case, what and when: one row per write, its changed fields with their values
  // before and after (`[{ field, before, after }]`), kept as long as the case.
  await knex.schema.withSchema('booking').createTable('case_history', (table) => {
    table.bigIncrements('id');
    table.bigInteger('case_id').notNullable().references('id').inTable('booking.cases').onDelete('CASCADE');
    // The time of the write itself, taken after the case's lock, so entries follow their ids.
    table.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    table.string('action', 32).notNullable();
    // The account that made the change (null where the hub does not know it), its name then,
    // and the party it acted for.
    table.integer('account_id');
    table.string('account_name', 255);
    table.string('party_type', 16);
    table.integer('party_id');
    table.jsonb('changes').notNullable().defaultTo('[]');
    table.index(['case_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('booking').dropTableIfExists('case_history');
}
