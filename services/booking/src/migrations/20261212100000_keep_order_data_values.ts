/**
 * The kept orderData values of cases (order-values.ts says what they are for), written by
 * triggers in the transaction of every write to booking.cases, so a search read from them finds
 * exactly the case versions its snapshot sees. Inserts keep their cases' values once per
 * statement, over its transition table, so a bulk insert keeps them in one insert. An update
 * rewrites the values of a case only when its orderData, partner or provider changed: that
 * trigger is per row with a condition, so the status posts and other updates of a case do not
 * run it. A deleted case's values go with it (the foreign key). Creating the triggers waits for
 * the writes in progress, so every case written after this migration has its values; the next
 * migration fills in those before it.
 */
import type { Knex } from 'knex';
import { keptOrderValuesOf, ORDER_VALUE_COLUMNS, ORDER_VALUES } from '../order-values';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table ${ORDER_VALUES} (
      case_id bigint not null references booking.cases (id) on delete cascade,
      partner_id integer not null,
      service_provider_id integer,
      key text not null,
      value text not null,
      primary key (case_id, key)
    )`);
  await knex.raw(`
    create function booking.keep_order_values_on_insert() returns trigger language plpgsql as $$
    begin
      insert into ${ORDER_VALUES} ${ORDER_VALUE_COLUMNS} ${keptOrderValuesOf('added')};
      return null;
    end $$`);
  await knex.raw(`
    create trigger order_values_kept_on_insert after insert on booking.cases referencing new table as added
      for each statement execute function booking.keep_order_values_on_insert()`);
  await knex.raw(`
    create function booking.keep_order_values_on_update() returns trigger language plpgsql as $$
    begin
      delete from ${ORDER_VALUES} where case_id = old.id;
      insert into ${ORDER_VALUES} ${ORDER_VALUE_COLUMNS} ${keptOrderValuesOf('(select new.*)')};
      return null;
    end $$`);
  await knex.raw(`
    create trigger order_values_kept_on_update after update of order_data, partner_id, service_provider_id
      on booking.cases for each row
      when (old.order_data is distinct from new.order_data or old.partner_id is distinct from new.partner_id or old.service_provider_id is distinct from new.service_provider_id)
      execute function booking.keep_order_values_on_update()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger order_values_kept_on_update on booking.cases');
  await knex.raw('drop function booking.keep_order_values_on_update()');
  await knex.raw('drop trigger order_values_kept_on_insert on booking.cases');
  await knex.raw('drop function booking.keep_order_values_on_insert()');
  await knex.raw(`drop table ${ORDER_VALUES}`);
}
