import type { Knex } from 'knex';

/** A table of notes and an outbox as every service's schema holds one. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table probe.notes (id serial primary key, text varchar(255) not null);
    create table probe.outbox (
      id bigserial primary key,
      event_id uuid not null,
      type varchar(64) not null,
      case_guid uuid,
      audience jsonb not null,
      payload jsonb not null,
      occurred_at timestamptz default current_timestamp not null,
      lease_until timestamptz,
      published_at timestamptz,
      constraint outbox_event_id_unique unique (event_id)
    );
    create index outbox_leases on probe.outbox (case_guid) where (lease_until is not null);
    create index outbox_pending on probe.outbox (id) where (published_at is null);
    create index outbox_relayed on probe.outbox (published_at) where (published_at is not null);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists probe.outbox, probe.notes');
}
