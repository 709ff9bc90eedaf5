create table messaging.idempotency_keys (
  account_id integer not null,
  action varchar(128) not null,
  key varchar(255) not null,
  request_hash varchar(64) not null,
  status smallint,
  answer json,
  created_at timestamptz default current_timestamp not null,
  primary key (account_id, action, key)
);

create index idempotency_keys_created_at_index on messaging.idempotency_keys (created_at);

create table messaging.messages (
  id bigserial primary key,
  case_id bigint not null,
  guid uuid not null,
  partner_id integer not null,
  provider_id integer,
  sender_account_id integer not null,
  sender_type varchar(16),
  content text,
  type varchar(32) not null,
  external_id varchar(512),
  parent_message_id bigint,
  user_email varchar(512),
  user_name varchar(512),
  is_internal boolean default false not null,
  declared_at timestamptz not null,
  confirmed_at timestamptz,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  constraint messages_parent_message_id_foreign foreign key (parent_message_id) references messaging.messages(id)
);

create index messages_guid_id_index on messaging.messages (guid, id);

create table messaging.outbox (
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

create index outbox_leases on messaging.outbox (case_guid) where (lease_until is not null);

create index outbox_pending on messaging.outbox (id) where (published_at is null);

create index outbox_relayed on messaging.outbox (published_at) where (published_at is not null);

create table messaging.retention_runs (
  rule varchar(64) primary key,
  table_name varchar(128) not null,
  ran_at timestamptz not null,
  removed bigint not null,
  removed_total bigint not null
);
