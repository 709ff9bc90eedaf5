create table invoicing.custom_value_days (
  partner_id integer not null,
  provider_id integer not null,
  key text not null,
  value jsonb not null,
  day date not null,
  invoices bigint not null
);

create index custom_value_days_partner on invoicing.custom_value_days (partner_id, key, value, day);

create index custom_value_days_provider on invoicing.custom_value_days (provider_id, key, value, day);

create table invoicing.idempotency_keys (
  account_id integer not null,
  action varchar(128) not null,
  key varchar(255) not null,
  request_hash varchar(64) not null,
  status smallint,
  answer json,
  created_at timestamptz default current_timestamp not null,
  primary key (account_id, action, key)
);

create index idempotency_keys_created_at_index on invoicing.idempotency_keys (created_at);

create table invoicing.invoice_custom_values (
  invoice_id bigint not null,
  partner_id integer not null,
  provider_id integer not null,
  key text not null,
  value jsonb not null,
  created_at timestamptz not null,
  primary key (invoice_id, key)
);

create index invoice_custom_values_partner on invoicing.invoice_custom_values (partner_id, key, value, created_at, invoice_id);

create index invoice_custom_values_provider on invoicing.invoice_custom_values (provider_id, key, value, created_at, invoice_id);

create table invoicing.invoice_days (
  partner_id integer not null,
  provider_id integer not null,
  day date not null,
  invoices bigint not null
);

create index invoice_days_partner on invoicing.invoice_days (partner_id, day);

create index invoice_days_provider on invoicing.invoice_days (provider_id, day);

create table invoicing.invoice_statuses (
  provider_id integer not null,
  key varchar(255) not null,
  name varchar(255),
  send_to_client boolean not null,
  primary key (provider_id, key)
);

create table invoicing.invoices (
  id bigserial primary key,
  case_id bigint not null,
  guid uuid not null,
  partner_id integer not null,
  provider_id integer not null,
  external_id varchar(255) not null,
  type varchar(16) default 'invoice'::varchar not null,
  custom_data jsonb default '{}'::jsonb not null,
  price_net numeric,
  currency varchar(3),
  is_active boolean default true not null,
  is_sent boolean default false not null,
  is_paid boolean default false not null,
  due_date date,
  status varchar(255),
  details jsonb default '[]'::jsonb not null,
  linked_invoice_id bigint,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  constraint invoices_provider_id_external_id_unique unique (provider_id, external_id),
  constraint invoices_linked_invoice_id_foreign foreign key (linked_invoice_id) references invoicing.invoices(id)
);

create index invoices_custom_data on invoicing.invoices using gin (custom_data jsonb_path_ops) with (gin_pending_list_limit='64');

create index invoices_details on invoicing.invoices using gin (details jsonb_path_ops) with (gin_pending_list_limit='64');

create index invoices_guid_index on invoicing.invoices (guid);

create index invoices_partner_id_created_at_id_index on invoicing.invoices (partner_id, created_at, id);

create index invoices_provider_id_created_at_id_index on invoicing.invoices (provider_id, created_at, id);

create table invoicing.outbox (
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

create index outbox_leases on invoicing.outbox (case_guid) where (lease_until is not null);

create index outbox_pending on invoicing.outbox (id) where (published_at is null);

create index outbox_relayed on invoicing.outbox (published_at) where (published_at is not null);

create table invoicing.retention_runs (
  rule varchar(64) primary key,
  table_name varchar(128) not null,
  ran_at timestamptz not null,
  removed bigint not null,
  removed_total bigint not null
);
