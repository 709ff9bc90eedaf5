import type { Knex } from 'knex';

/**
 * An ingest addresses its webhooks from the subscriptions it holds in memory, read once and
 * kept while they do not change, instead of reading its audience's subscriptions before every
 * store (a statement of 2 to 3 ms on the embedded database, on the path of every paced event).
 *
 * Every change to a subscription, by whatever statement, moves `subscription_changes.version`
 * on (a trigger), and the store takes the version its subscriptions were read at: one that is
 * no longer current stores nothing and fails with SQLSTATE WH001, so the ingest reads the
 * subscriptions again and stores with them. A store therefore never uses subscriptions older
 * than the last change committed before it began.
 */
/** A store's check that the subscriptions its webhooks were addressed from (`addressed_at`) are still current. */
export const ADDRESSED_AT_CURRENT = `if addressed_at is distinct from (select version from webhooks.subscription_changes) then
        raise exception 'The subscriptions changed after version % that addressed these webhooks', addressed_at
          using errcode = 'WH001';
      end if;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhooks.subscription_changes (
      one boolean primary key default true check (one),
      version bigint not null
    )`);
  await knex.raw('insert into webhooks.subscription_changes (version) values (0)');
  await knex.raw(`
    create function webhooks.count_subscription_change()
    returns trigger
    language plpgsql
    as $$
    begin
      update webhooks.subscription_changes set version = version + 1;
      return null;
    end
    $$`);
  await knex.raw(`
    create trigger subscriptions_counted
    after insert or update or delete on webhooks.subscriptions
    for each row execute function webhooks.count_subscription_change()`);
  await knex.raw(`
    create function webhooks.store_addressed_webhooks(given jsonb, first_delay_ms integer, addressed_at bigint)
    returns integer
    language plpgsql volatile
    as $$
    begin
      ${ADDRESSED_AT_CURRENT}
      return webhooks.store_webhooks(given, first_delay_ms);
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function webhooks.store_addressed_webhooks(jsonb, integer, bigint)');
  await knex.raw('drop trigger subscriptions_counted on webhooks.subscriptions');
  await knex.raw('drop function webhooks.count_subscription_change()');
  await knex.raw('drop table webhooks.subscription_changes');
}
