create sequence webhooks.subscription_ids start with 1000000 increment by 1 no minvalue no maxvalue cache 1;

create table webhooks.deliveries (
  id bigserial,
  event_id uuid not null,
  webhook_id varchar(64) not null,
  subscription_id integer not null,
  event_type varchar(64) not null,
  case_guid uuid,
  payload jsonb not null,
  occurred_at timestamptz not null,
  state varchar(16) default 'pending'::varchar not null,
  attempts integer default 0 not null,
  cycle_attempts integer default 0 not null,
  next_attempt_at timestamptz default now() not null,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz default now() not null,
  finished_at timestamptz,
  case_sequence integer,
  primary key (id, occurred_at)
) partition by range (occurred_at);

-- Indexes whose partitions take their names from the parent's columns.
create index deliveries_finished on webhooks.deliveries (finished_at) where state in ('succeeded', 'dead');

create index deliveries_subscription on webhooks.deliveries (subscription_id, id);

-- Rows outside every partition made ahead, and the rows kept when their span's partition goes.
create table webhooks.deliveries_default partition of webhooks.deliveries default with (fillfactor = 50);

-- Indexes whose partitions are named for what they serve.
create index deliveries_due on only webhooks.deliveries (subscription_id, next_attempt_at, id) where (state = 'pending' and (next_attempt_at is not null));
create index deliveries_default_due on webhooks.deliveries_default (subscription_id, next_attempt_at, id) where (state = 'pending' and (next_attempt_at is not null));
alter index webhooks.deliveries_due attach partition webhooks.deliveries_default_due;

create index deliveries_earlier_of_case on only webhooks.deliveries (case_guid, ((subscription_id + 0)), ((id + 0))) where state = 'pending';
create index deliveries_default_earlier_of_case on webhooks.deliveries_default (case_guid, ((subscription_id + 0)), ((id + 0))) where state = 'pending';
alter index webhooks.deliveries_earlier_of_case attach partition webhooks.deliveries_default_earlier_of_case;
alter index webhooks.deliveries_earlier_of_case alter column 2 set statistics 0, alter column 3 set statistics 0;
alter index webhooks.deliveries_default_earlier_of_case alter column 2 set statistics 0, alter column 3 set statistics 0;

create index deliveries_event on only webhooks.deliveries (event_id);
create index deliveries_default_event on webhooks.deliveries_default (event_id);
alter index webhooks.deliveries_event attach partition webhooks.deliveries_default_event;

-- Set on the parent after its default partition, so both take them.
alter table webhooks.deliveries
  alter column id set statistics 10,
  alter column event_id set statistics 10,
  alter column webhook_id set statistics 10,
  alter column subscription_id set statistics 10,
  alter column event_type set statistics 10,
  alter column case_guid set statistics 10,
  alter column payload set statistics 0,
  alter column occurred_at set statistics 10,
  alter column state set statistics 10,
  alter column attempts set statistics 10,
  alter column cycle_attempts set statistics 10,
  alter column next_attempt_at set statistics 10,
  alter column lease_until set statistics 10,
  alter column last_error set statistics 0,
  alter column created_at set statistics 10,
  alter column finished_at set statistics 10,
  alter column case_sequence set statistics 10;

create table webhooks.attempts (
  id bigserial,
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
  primary key (id, delivery_occurred_at)
) partition by range (delivery_occurred_at);

create index attempts_delivery on webhooks.attempts (delivery_id, id);

create table webhooks.attempts_default partition of webhooks.attempts default;

alter table webhooks.attempts
  alter column id set statistics 10,
  alter column delivery_id set statistics 10,
  alter column delivery_occurred_at set statistics 10,
  alter column attempt set statistics 10,
  alter column started_at set statistics 10,
  alter column latency_ms set statistics 10,
  alter column ok set statistics 10,
  alter column status_code set statistics 10,
  alter column error_kind set statistics 10,
  alter column error set statistics 0,
  alter column response_excerpt set statistics 0;

create table webhooks.case_sequences (
  party_kind varchar(8) not null,
  party_id integer not null,
  case_guid uuid not null,
  last_sequence integer not null,
  primary key (party_kind, party_id, case_guid)
);

create table webhooks.feed (
  party_kind varchar(8) not null,
  party_id integer not null,
  "position" bigint not null,
  event_id uuid not null,
  webhook_id varchar(64) not null,
  event_type varchar(64) not null,
  case_guid uuid,
  case_sequence integer,
  payload jsonb not null,
  occurred_at timestamptz not null,
  created_at timestamptz not null,
  primary key (party_kind, party_id, "position"),
  constraint feed_webhook_id_party_unique unique (webhook_id, party_kind, party_id)
);

alter table webhooks.feed
  alter column party_kind set statistics 10,
  alter column party_id set statistics 10,
  alter column "position" set statistics 10,
  alter column event_id set statistics 10,
  alter column webhook_id set statistics 10,
  alter column event_type set statistics 10,
  alter column case_guid set statistics 10,
  alter column case_sequence set statistics 10,
  alter column payload set statistics 0,
  alter column occurred_at set statistics 10,
  alter column created_at set statistics 10;

create index feed_created on webhooks.feed (created_at);

create table webhooks.feed_heads (
  party_kind varchar(8) not null,
  party_id integer not null,
  last_position bigint default '0'::bigint not null,
  primary key (party_kind, party_id)
);

create table webhooks.held_leases (
  worker_id uuid not null,
  subscription_id integer not null,
  leases integer not null,
  until timestamptz not null,
  primary key (worker_id, subscription_id)
);

create table webhooks.retention_runs (
  rule varchar(64) primary key,
  table_name varchar(128) not null,
  ran_at timestamptz not null,
  removed bigint not null,
  removed_total bigint not null
);

create table webhooks.subscription_changes (
  one boolean default true primary key,
  version bigint not null,
  constraint subscription_changes_one_check check (one)
);

create table webhooks.subscriptions (
  id integer primary key,
  account_id integer not null,
  partner_id integer,
  provider_id integer,
  event_types jsonb not null,
  kind varchar(8) not null,
  url text not null,
  method varchar(8),
  headers jsonb default '{}'::jsonb not null,
  queue varchar(255),
  status_transitions jsonb default '[]'::jsonb not null,
  secret varchar(128) not null,
  previous_secret varchar(128),
  previous_secret_until timestamptz,
  state varchar(16) default 'active'::varchar not null,
  state_reason text,
  max_in_flight integer not null,
  origin varchar(8) not null,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null
);

create index subscriptions_partner on webhooks.subscriptions (partner_id);

create index subscriptions_provider on webhooks.subscriptions (provider_id);

-- The version of the subscriptions that addressed a webhook; one row, counted up by a trigger.
insert into webhooks.subscription_changes (version) values (0);
