import type { Knex } from 'knex';

/**
 * Finished deliveries are removed by the age of their end (docs/retention.md): this index finds
 * them without reading pending ones, and their attempts go with them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create index deliveries_finished on webhooks.deliveries (finished_at) where state in ('succeeded', 'dead')`,
  );
  await knex.raw('alter table webhooks.attempts drop constraint attempts_delivery_id_foreign');
  await knex.raw(
    `alter table webhooks.attempts add constraint attempts_delivery_id_foreign
       foreign key (delivery_id) references webhooks.deliveries (id) on delete cascade`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table webhooks.attempts drop constraint attempts_delivery_id_foreign');
  await knex.raw(
    `alter table webhooks.attempts add constraint attempts_delivery_id_foreign
       foreign key (delivery_id) references webhooks.deliveries (id)`,
  );
  await knex.raw('drop index webhooks.deliveries_finished');
}
