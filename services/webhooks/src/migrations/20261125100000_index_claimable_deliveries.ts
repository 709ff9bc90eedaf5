import type { Knex } from 'knex';

/**
 * The claim walks each subscription's due deliveries and counts its leased ones; without these
 * indexes both read every pending delivery of the subscription, and the walk by id read its
 * finished ones too, so a claim grew with the backlog and the history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create index deliveries_due_per_subscription on webhooks.deliveries (subscription_id, next_attempt_at, id) where state = 'pending'`,
  );
  await knex.raw(
    `create index deliveries_leased on webhooks.deliveries (subscription_id, lease_until) where state = 'pending' and lease_until is not null`,
  );
  await knex.raw('drop index webhooks.deliveries_due');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`create index deliveries_due on webhooks.deliveries (next_attempt_at, id) where state = 'pending'`);
  await knex.raw('drop index webhooks.deliveries_leased');
  await knex.raw('drop index webhooks.deliveries_due_per_subscription');
}
