create extension if not exists pg_trgm;

create extension if not exists btree_gin;

create table booking.cases (
  id bigserial primary key,
  guid uuid not null,
  partner_id integer not null,
  service_provider_id integer,
  service_provider_department_id integer,
  manufacturer_id integer not null,
  product_type_id integer not null,
  service_type_id integer not null,
  service_location_id integer not null,
  shipping_method_id integer,
  country varchar(2),
  current_status varchar(64),
  order_data jsonb default '{}'::jsonb not null,
  product_data jsonb default '{}'::jsonb not null,
  spare_parts jsonb default '[]'::jsonb not null,
  freight_trackings jsonb default '[]'::jsonb not null,
  manufacturer jsonb,
  product_type jsonb,
  service_type jsonb,
  service_location jsonb,
  shipping_method jsonb,
  service_partner jsonb,
  service_provider jsonb,
  service_provider_department jsonb,
  service_provider_competence jsonb,
  accepted boolean default false not null,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  accepted_at timestamptz,
  cancelled_at timestamptz,
  cancel_reason text,
  finished_at timestamptz,
  constraint cases_guid_unique unique (guid)
);

create index cases_guid_trgm on booking.cases using gin (((guid)::text) public.gin_trgm_ops) with (gin_pending_list_limit='64');

create index cases_order_data on booking.cases using gin (order_data jsonb_path_ops) with (gin_pending_list_limit='64');

create index cases_order_data_trgm on booking.cases using gin (((order_data)::text) public.gin_trgm_ops) with (gin_pending_list_limit='64');

create index cases_partner_created on booking.cases (partner_id, created_at, id);

create index cases_partner_id on booking.cases (partner_id, id);

create index cases_partner_order_data on booking.cases using gin (partner_id, order_data jsonb_path_ops) with (gin_pending_list_limit='64');

create index cases_partner_status on booking.cases (partner_id, current_status, id);

create index cases_product_data on booking.cases using gin (product_data jsonb_path_ops) with (gin_pending_list_limit='64');

create index cases_product_data_trgm on booking.cases using gin (((product_data)::text) public.gin_trgm_ops) with (gin_pending_list_limit='64');

create index cases_provider_created on booking.cases (service_provider_id, created_at, id);

create index cases_provider_id on booking.cases (service_provider_id, id);

create index cases_provider_order_data on booking.cases using gin (service_provider_id, order_data jsonb_path_ops) with (gin_pending_list_limit='64');

create index cases_provider_status on booking.cases (service_provider_id, current_status, id);

create index cases_service_provider_id_accepted_id_index on booking.cases (service_provider_id, accepted, id);

create table booking.case_contacts (
  id bigserial primary key,
  case_id bigint not null,
  role varchar(16) not null,
  type smallint,
  data jsonb not null,
  created_at timestamptz default current_timestamp not null,
  constraint case_contacts_case_id_role_unique unique (case_id, role),
  constraint case_contacts_case_id_foreign foreign key (case_id) references booking.cases(id) on delete cascade
);

create index case_contacts_data_trgm on booking.case_contacts using gin (((data)::text) public.gin_trgm_ops) with (gin_pending_list_limit='64');

create table booking.case_counts (
  partner_id integer not null,
  service_provider_id integer,
  cases bigint not null,
  current_status varchar(64)
);

create index case_counts_provider on booking.case_counts (service_provider_id);

create index case_counts_values on booking.case_counts (partner_id, service_provider_id, current_status);

create table booking.case_files (
  id bigserial primary key,
  case_id bigint not null,
  name varchar(255) not null,
  type varchar(32) not null,
  url text,
  storage_key varchar(255),
  content_type varchar(128),
  size integer,
  uploaded_by varchar(16) not null,
  created_at timestamptz default current_timestamp not null,
  constraint case_files_case_id_foreign foreign key (case_id) references booking.cases(id) on delete cascade
);

create index case_files_case_id_id_index on booking.case_files (case_id, id);

create table booking.case_history (
  id bigserial primary key,
  case_id bigint not null,
  at timestamptz default clock_timestamp() not null,
  action varchar(32) not null,
  account_id integer,
  account_name varchar(255),
  party_type varchar(16),
  party_id integer,
  changes jsonb default '[]'::jsonb not null,
  constraint case_history_case_id_foreign foreign key (case_id) references booking.cases(id) on delete cascade
);

create index case_history_case_id_id_index on booking.case_history (case_id, id);

create table booking.case_order_values (
  case_id bigint not null,
  partner_id integer not null,
  service_provider_id integer,
  key text not null,
  value text not null,
  primary key (case_id, key),
  constraint case_order_values_case_id_fkey foreign key (case_id) references booking.cases(id) on delete cascade
);

create index case_order_values_partner on booking.case_order_values (partner_id, key, value, case_id);

create index case_order_values_provider on booking.case_order_values (service_provider_id, key, value, case_id);

create table booking.case_statuses (
  id bigserial primary key,
  case_id bigint not null,
  key varchar(64) not null,
  name varchar(255) not null,
  declared_at timestamptz default current_timestamp not null,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  constraint case_statuses_case_id_foreign foreign key (case_id) references booking.cases(id) on delete cascade
);

create index case_statuses_case_id_id_index on booking.case_statuses (case_id, id);

create table booking.tags (
  id serial primary key,
  name varchar(255) not null,
  constraint tags_name_unique unique (name)
);

create table booking.case_tags (
  case_id bigint not null,
  tag_id integer not null,
  partner_id integer,
  service_provider_id integer,
  primary key (case_id, tag_id),
  constraint case_tags_case_id_foreign foreign key (case_id) references booking.cases(id) on delete cascade,
  constraint case_tags_tag_id_foreign foreign key (tag_id) references booking.tags(id)
);

create index case_tags_partner on booking.case_tags (tag_id, partner_id, case_id);

create index case_tags_provider on booking.case_tags (tag_id, service_provider_id, case_id);

create index case_tags_tag on booking.case_tags (tag_id, case_id);

create table booking.external_requests (
  id bigserial primary key,
  case_id bigint,
  partner_id integer,
  provider_id integer,
  account_id integer not null,
  type varchar(64) not null,
  status varchar(64) not null,
  url text,
  meta jsonb default '{}'::jsonb not null,
  tracking_id varchar(255),
  request text,
  response text,
  message text,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  constraint external_requests_case_id_foreign foreign key (case_id) references booking.cases(id) on delete set null
);

create index external_requests_age on booking.external_requests (created_at);

create index external_requests_case_id_index on booking.external_requests (case_id);

create index external_requests_tracking_id_partner_id_index on booking.external_requests (tracking_id, partner_id);

create table booking.idempotency_keys (
  account_id integer not null,
  action varchar(128) not null,
  key varchar(255) not null,
  request_hash varchar(64) not null,
  status smallint,
  answer json,
  created_at timestamptz default current_timestamp not null,
  primary key (account_id, action, key)
);

create index idempotency_keys_created_at_index on booking.idempotency_keys (created_at);

create table booking.outbox (
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

create index outbox_leases on booking.outbox (case_guid) where (lease_until is not null);

create index outbox_pending on booking.outbox (id) where (published_at is null);

create index outbox_relayed on booking.outbox (published_at) where (published_at is not null);

create table booking.retention_runs (
  rule varchar(64) primary key,
  table_name varchar(128) not null,
  ran_at timestamptz not null,
  removed bigint not null,
  removed_total bigint not null
);

create table booking.status_keys (
  provider_id integer not null,
  key varchar(64) not null,
  name varchar(255) not null,
  "position" integer not null,
  description text,
  sms_available boolean default false not null,
  email_available boolean default false not null,
  primary key (provider_id, key)
);

create statistics booking.case_contacts_text_trigrams on public.show_trgm(data::text) from booking.case_contacts;

create statistics booking.cases_order_data_trigrams on public.show_trgm(order_data::text) from booking.cases;

create statistics booking.cases_product_data_trigrams on public.show_trgm(product_data::text) from booking.cases;
