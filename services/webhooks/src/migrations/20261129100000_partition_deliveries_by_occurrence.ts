import type { Knex } from 'knex';
import { up as createClaimFunction } from './20261126100000_create_claim_function';

/**
 * Deliveries and their attempts become tables partitioned by range of the event's time
 * (docs/retention.md), so the retention job drops a whole span of them at once instead of
 * deleting them row by row. The partition key is the event's `occurred_at` because a repeated
 * hand-over of an event carries the same one: the key that makes its deliveries unique can then
 * hold it, as a partitioned table's unique keys must. Attempts carry their delivery's time and
 * go into the partition of the same span, so both tables' partitions are dropped together.
 *
 * Partitions for spans are created ahead by the service (`partitionsAhead`); rows of no such span
 * (those written before this migration, and a stray event far from now) go to the default
 * partitions, where the retention rules remove them row by row as before. The rows already
 * stored are copied once, with their ids; the ids go on from the same sequences.
 */
const DELIVERY_COLUMNS = `id, event_id, webhook_id, subscription_id, event_type, case_guid, payload, occurred_at, state,
  attempts, cycle_attempts, next_attempt_at, lease_until, last_error, created_at, finished_at, case_sequence`;
const ATTEMPT_COLUMNS = `id, delivery_id, attempt, started_at, latency_ms, ok, status_code, error_kind, error, response_excerpt`;

export async function up(knex: Knex): Promise<void> {
  await setAside(knex, ['deliveries', 'attempts']);
  await knex.raw(`
    create table webhooks.deliveries (
      id bigint not null default nextval('webhooks.deliveries_id_seq'),
      event_id uuid not null,
      webhook_id varchar(64) not null,
      subscription_id integer not null references webhooks.subscriptions (id),
      event_type varchar(64) not null,
      case_guid uuid,
      payload jsonb not null,
      occurred_at timestamptz not null,
      -- pending | succeeded | dead
      state varchar(16) not null default 'pending',
      attempts integer not null default 0,
      -- Attempts since the delivery was created or last redelivered; picks the next retry delay.
      cycle_attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      lease_until timestamptz,
      last_error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      case_sequence integer,
      constraint deliveries_pkey primary key (id, occurred_at),
      constraint deliveries_event_unique unique (event_id, subscription_id, event_type, occurred_at)
    ) partition by range (occurred_at)`);
  await knex.raw('create table webhooks.deliveries_default partition of webhooks.deliveries default');
  await knex.raw(
    `create index deliveries_due_per_subscription on webhooks.deliveries (subscription_id, next_attempt_at, id) where state = 'pending'`,
  );
  await knex.raw(
    `create index deliveries_leased on webhooks.deliveries (subscription_id, lease_until) where state = 'pending' and lease_until is not null`,
  );
  await knex.raw(
    `create index deliveries_case_order on webhooks.deliveries (subscription_id, case_guid, id) where state = 'pending'`,
  );
  await knex.raw('create index deliveries_subscription on webhooks.deliveries (subscription_id, id)');
  await knex.raw(
    `create index deliveries_finished on webhooks.deliveries (finished_at) where state in ('succeeded', 'dead')`,
  );

  await knex.raw(`
    create table webhooks.attempts (
      id bigint not null default nextval('webhooks.attempts_id_seq'),
      delivery_id bigint not null,
      delivery_occurred_at timestamptz not null,
      attempt integer not null,
      started_at timestamptz not null,
      latency_ms integer not null,
      ok boolean not null,
      status_code integer,
      error_kind varchar(32),
      error text,
      response_excerpt text,
      constraint attempts_pkey primary key (id, delivery_occurred_at),
      constraint attempts_delivery_foreign foreign key (delivery_id, delivery_occurred_at)
        references webhooks.deliveries (id, occurred_at) on delete cascade
    ) partition by range (delivery_occurred_at)`);
  await knex.raw('create table webhooks.attempts_default partition of webhooks.attempts default');
  await knex.raw('create index attempts_delivery on webhooks.attempts (delivery_id, id)');

  await knex.raw(
    `insert into webhooks.deliveries (${DELIVERY_COLUMNS}) select ${DELIVERY_COLUMNS} from webhooks.deliveries_unpartitioned`,
  );
  await knex.raw(`
    insert into webhooks.attempts (${ATTEMPT_COLUMNS}, delivery_occurred_at)
    select ${prefixed('a', ATTEMPT_COLUMNS)}, d.occurred_at
      from webhooks.attempts_unpartitioned a join webhooks.deliveries d on d.id = a.delivery_id`);
  await knex.raw('alter sequence webhooks.deliveries_id_seq owned by webhooks.deliveries.id');
  await knex.raw('alter sequence webhooks.attempts_id_seq owned by webhooks.attempts.id');
  await knex.raw('drop table webhooks.attempts_unpartitioned');
  await knex.raw('drop table webhooks.deliveries_unpartitioned');
  await leaseByPartition(knex);
}

export async function down(knex: Knex): Promise<void> {
  await setAside(knex, ['deliveries', 'attempts']);
  await knex.raw(`
    create table webhooks.deliveries (
      id bigint primary key default nextval('webhooks.deliveries_id_seq'),
      event_id uuid not null,
      webhook_id varchar(64) not null,
      subscription_id integer not null references webhooks.subscriptions (id),
      event_type varchar(64) not null,
      case_guid uuid,
      payload jsonb not null,
      occurred_at timestamptz not null,
      state varchar(16) not null default 'pending',
      attempts integer not null default 0,
      cycle_attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      lease_until timestamptz,
      last_error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      case_sequence integer,
      constraint deliveries_event_id_subscription_id_event_type_unique unique (event_id, subscription_id, event_type)
    )`);
  await knex.raw(
    `create index deliveries_due_per_subscription on webhooks.deliveries (subscription_id, next_attempt_at, id) where state = 'pending'`,
  );
  await knex.raw(
    `create index deliveries_leased on webhooks.deliveries (subscription_id, lease_until) where state = 'pending' and lease_until is not null`,
  );
  await knex.raw(
    `create index deliveries_case_order on webhooks.deliveries (subscription_id, case_guid, id) where state = 'pending'`,
  );
  await knex.raw('create index deliveries_subscription on webhooks.deliveries (subscription_id, id)');
  await knex.raw(
    `create index deliveries_finished on webhooks.deliveries (finished_at) where state in ('succeeded', 'dead')`,
  );
  await knex.raw(`
    create table webhooks.attempts (
      id bigint primary key default nextval('webhooks.attempts_id_seq'),
      delivery_id bigint not null
        constraint attempts_delivery_id_foreign references webhooks.deliveries (id) on delete cascade,
      attempt integer not null,
      started_at timestamptz not null,
      latency_ms integer not null,
      ok boolean not null,
      status_code integer,
      error_kind varchar(32),
      error text,
      response_excerpt text
    )`);
  await knex.raw('create index attempts_delivery on webhooks.attempts (delivery_id, id)');
  await knex.raw(
    `insert into webhooks.deliveries (${DELIVERY_COLUMNS}) select ${DELIVERY_COLUMNS} from webhooks.deliveries_unpartitioned`,
  );
  await knex.raw(
    `insert into webhooks.attempts (${ATTEMPT_COLUMNS}) select ${ATTEMPT_COLUMNS} from webhooks.attempts_unpartitioned`,
  );
  await knex.raw('alter sequence webhooks.deliveries_id_seq owned by webhooks.deliveries.id');
  await knex.raw('alter sequence webhooks.attempts_id_seq owned by webhooks.attempts.id');
  await knex.raw('drop table webhooks.attempts_unpartitioned cascade');
  await knex.raw('drop table webhooks.deliveries_unpartitioned cascade');
  await knex.raw('drop function webhooks.claim_due(jsonb, integer, integer)');
  await createClaimFunction(knex);
}

/**
 * Renames the tables and their indexes out of the way of their successors, and frees their id
 * sequences from them, so that the successors take over the names and the sequences.
 */
async function setAside(knex: Knex, tables: string[]): Promise<void> {
  for (const table of tables) {
    const indexes = await knex.raw('select indexname from pg_indexes where schemaname = ? and tablename = ?', [
      'webhooks',
      table,
    ]);
    for (const { indexname } of indexes.rows as Array<{ indexname: string }>)
      await knex.raw('alter index ?? rename to ??', [`webhooks.${indexname}`, `${indexname}_unpartitioned`]);
    await knex.raw(`alter sequence webhooks.${table}_id_seq owned by none`);
    await knex.raw('alter table ?? rename to ??', [`webhooks.${table}`, `${table}_unpartitioned`]);
  }
}

function prefixed(alias: string, columns: string): string {
  return columns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');
}

/**
 * The claim as in migration 20261126100000, but for how it finds the chosen deliveries again to
 * lease them: with the event's time beside the id, each is looked up in its own partition.
 */
export async function leaseByPartition(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function webhooks.claim_due(unrecorded jsonb, max_count integer, lease_ms integer)
    returns setof jsonb
    language plpgsql volatile
    as $$
    begin
      perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));
      return query
      with finished as (
        select * from jsonb_to_recordset(unrecorded) as u(id bigint, attempts integer)
      ),
      room as (
        select s.id, s.max_in_flight - (select count(*) from webhooks.deliveries leased
                                         where leased.subscription_id = s.id and leased.state = 'pending' and leased.lease_until > now()
                                           and not exists (select 1 from finished f
                                                            where f.id = leased.id and f.attempts = leased.attempts)) as free
          from webhooks.subscriptions s
         where s.state = 'active'
      ),
      chosen as (
        select due.id, due.occurred_at, room.id as subscription_id from room
         cross join lateral (
           select d.id, d.occurred_at, d.next_attempt_at from webhooks.deliveries d
            where d.subscription_id = room.id and d.state = 'pending' and d.next_attempt_at <= now()
              and (d.lease_until is null or d.lease_until < now())
              and not exists (select 1 from webhooks.deliveries e
                               where e.subscription_id = d.subscription_id and e.case_guid = d.case_guid
                                 and e.state = 'pending' and e.id < d.id)
            order by d.next_attempt_at, d.id
            limit greatest(room.free, 0)
            for update of d skip locked
         ) due
         order by due.next_attempt_at, due.id
         limit max_count
      )
      update webhooks.deliveries d set lease_until = now() + (lease_ms * interval '1 millisecond')
        from chosen join webhooks.subscriptions s on s.id = chosen.subscription_id
       where d.id = chosen.id and d.occurred_at = chosen.occurred_at
       returning to_jsonb(d) || jsonb_build_object('subscription', to_jsonb(s));
    end
    $$`);
}
