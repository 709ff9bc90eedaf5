/**
 * The kept customData values of invoices (custom-values.store.ts says what they are for), written
 * by triggers in the transaction of every write to invoicing.invoices so a count read from them
 * is exact: a statement sees the values of exactly the invoice versions its snapshot sees. The
 * triggers run once per statement over its transition tables, so a bulk insert keeps its values
 * in one insert. An update rewrites the values only of invoices whose customData, scope or
 * created_at changed. Creating the triggers waits for the writes in progress, so every invoice
 * written after this migration has its values; the next migration fills in those before it.
 */
import type { Knex } from 'knex';
import { CUSTOM_VALUE_COLUMNS, CUSTOM_VALUES, keptValuesOf } from '../custom-values.store';

/** What a kept value depends on: an update that changes none of these leaves them. */
const KEPT_FROM = 'id, partner_id, provider_id, custom_data, created_at';

/** Per event: its transition tables, and the statements that keep the values in step. */
const EVENTS = {
  insert: {
    referencing: 'new table as added',
    statements: [`insert into ${CUSTOM_VALUES} ${CUSTOM_VALUE_COLUMNS} ${keptValuesOf('added')}`],
  },
  delete: {
    referencing: 'old table as removed',
    statements: [`delete from ${CUSTOM_VALUES} as kept using removed where kept.invoice_id = removed.id`],
  },
  update: {
    referencing: 'old table as removed new table as added',
    statements: [
      `delete from ${CUSTOM_VALUES} as kept
        using (select ${KEPT_FROM} from removed except select ${KEPT_FROM} from added) as changed
        where kept.invoice_id = changed.id`,
      `insert into ${CUSTOM_VALUES} ${CUSTOM_VALUE_COLUMNS}
       ${keptValuesOf(`(select ${KEPT_FROM} from added except select ${KEPT_FROM} from removed)`)}`,
    ],
  },
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table ${CUSTOM_VALUES} (
      invoice_id bigint not null,
      partner_id integer not null,
      provider_id integer not null,
      key text not null,
      value jsonb not null,
      created_at timestamptz not null,
      primary key (invoice_id, key)
    )`);
  for (const [event, { referencing, statements }] of Object.entries(EVENTS)) {
    await knex.raw(`
      create function invoicing.keep_custom_values_on_${event}() returns trigger language plpgsql as $$
      begin
        ${statements.map((statement) => `${statement};`).join('\n')}
        return null;
      end $$`);
    await knex.raw(
      `create trigger custom_values_kept_on_${event} after ${event} on invoicing.invoices referencing ${referencing}
         for each statement execute function invoicing.keep_custom_values_on_${event}()`,
    );
  }
  await knex.raw(`
    create function invoicing.keep_custom_values_on_truncate() returns trigger language plpgsql as $$
    begin
      truncate ${CUSTOM_VALUES};
      return null;
    end $$`);
  await knex.raw(
    'create trigger custom_values_kept_on_truncate after truncate on invoicing.invoices for each statement execute function invoicing.keep_custom_values_on_truncate()',
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const event of [...Object.keys(EVENTS), 'truncate']) {
    await knex.raw(`drop trigger custom_values_kept_on_${event} on invoicing.invoices`);
    await knex.raw(`drop function invoicing.keep_custom_values_on_${event}()`);
  }
  await knex.raw(`drop table ${CUSTOM_VALUES}`);
}
