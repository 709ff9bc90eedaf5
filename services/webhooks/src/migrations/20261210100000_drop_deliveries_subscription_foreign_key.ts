import type { Knex } from 'knex';

/**
 * Deliveries no longer reference their subscription by a foreign key. Its check ran for every
 * delivery stored and locked the subscription's row for each: the ingests storing a burst for one
 * party at once shared those locks, four stores of 100 events took 1,600 of them. A subscription
 * is never deleted (it is marked removed and keeps its history), and a store writes only the
 * subscriptions it was addressed from, as of a version still current when it stores (migration
 * 20261207100000), so no delivery can name a subscription that is not there.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table webhooks.deliveries drop constraint deliveries_subscription_id_fkey');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table webhooks.deliveries add constraint deliveries_subscription_id_fkey foreign key (subscription_id)
       references webhooks.subscriptions (id)`,
  );
}
