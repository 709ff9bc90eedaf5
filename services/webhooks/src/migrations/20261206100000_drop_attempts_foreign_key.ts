import type { Knex } from 'knex';

/**
 * Attempts no longer reference their delivery by a foreign key. The check ran for every attempt
 * recorded, and against the partitioned deliveries Postgres plans it afresh each time (a custom
 * plan prunes to one partition, which the generic plan's cost never beats): in a burst it took a
 * fifth of the server's CPU. An attempt is only ever written by the statement that moves its
 * delivery on (`recordAttempts`), and retention removes a delivery's attempts in the statement
 * that removes the delivery (retention.ts), which is what the cascade did.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table webhooks.attempts drop constraint attempts_delivery_foreign');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table webhooks.attempts add constraint attempts_delivery_foreign foreign key (delivery_id, delivery_occurred_at)
       references webhooks.deliveries (id, occurred_at) on delete cascade`,
  );
}
