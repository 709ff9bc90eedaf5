create table cost_proposals.idempotency_keys (
  account_id integer not null,
  action varchar(128) not null,
  key varchar(255) not null,
  request_hash varchar(64) not null,
  status smallint,
  answer json,
  created_at timestamptz default current_timestamp not null,
  primary key (account_id, action, key)
);

create index idempotency_keys_created_at_index on cost_proposals.idempotency_keys (created_at);

create table cost_proposals.outbox (
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

create index outbox_leases on cost_proposals.outbox (case_guid) where (lease_until is not null);

create index outbox_pending on cost_proposals.outbox (id) where (published_at is null);

create index outbox_relayed on cost_proposals.outbox (published_at) where (published_at is not null);

create table cost_proposals.proposals (
  id bigserial primary key,
  case_guid uuid not null,
  service_provider_id integer not null,
  external_id jsonb,
  external_key text,
  name varchar(255),
  price_net numeric(14,2),
  currency varchar(3),
  time_stamp varchar(23),
  is_active boolean default true not null,
  reaction varchar(16),
  reaction_date timestamptz,
  reaction_name varchar(255),
  comment text,
  date_valid_until date,
  details jsonb,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  constraint proposals_reaction check (reaction in ('approved', 'rejected'))
);

create index proposals_case on cost_proposals.proposals (case_guid, id);

create unique index proposals_external_key on cost_proposals.proposals (service_provider_id, external_key, coalesce(name, ''::varchar)) where (external_key is not null);

create unique index proposals_one_approved on cost_proposals.proposals (case_guid) where reaction = 'approved';

create table cost_proposals.retention_runs (
  rule varchar(64) primary key,
  table_name varchar(128) not null,
  ran_at timestamptz not null,
  removed bigint not null,
  removed_total bigint not null
);
