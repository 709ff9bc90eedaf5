create table catalog.accessories (
  id integer primary key,
  name varchar(255) not null,
  product_types jsonb default '[]'::jsonb not null
);

create table catalog.contacts (
  id serial primary key,
  data jsonb not null,
  created_at timestamptz default current_timestamp not null
);

create table catalog.partners (
  id integer primary key,
  name varchar(255) not null,
  contact_id integer,
  settings jsonb default '{}'::jsonb not null,
  constraint partners_contact_id_foreign foreign key (contact_id) references catalog.contacts(id)
);

create table catalog.providers (
  id integer primary key,
  name varchar(255) not null,
  contact_id integer,
  constraint providers_contact_id_foreign foreign key (contact_id) references catalog.contacts(id)
);

create table catalog.accounts (
  id serial primary key,
  name varchar(255) not null,
  role varchar(16) not null,
  partner_id integer,
  provider_id integer,
  token_sha256 varchar(64) not null,
  can_force_provider boolean default false not null,
  created_at timestamptz default current_timestamp not null,
  allow_all_providers boolean default false not null,
  constraint accounts_role_owner check (((role = 'partner' and (partner_id is not null) and (provider_id is null)) or (role = 'provider' and (provider_id is not null) and (partner_id is null)) or (role = 'admin' and (partner_id is null) and (provider_id is null)))),
  constraint accounts_token_sha256_unique unique (token_sha256),
  constraint accounts_partner_id_foreign foreign key (partner_id) references catalog.partners(id),
  constraint accounts_provider_id_foreign foreign key (provider_id) references catalog.providers(id)
);

create table catalog.departments (
  id integer primary key,
  provider_id integer not null,
  name varchar(255) not null,
  external_data jsonb,
  contact_id integer,
  constraint departments_contact_id_foreign foreign key (contact_id) references catalog.contacts(id),
  constraint departments_provider_id_foreign foreign key (provider_id) references catalog.providers(id)
);

create table catalog.manufacturers (
  id integer primary key,
  name varchar(255) not null,
  aliases jsonb default '[]'::jsonb not null,
  properties jsonb default '{}'::jsonb not null,
  external_data jsonb
);

create table catalog.product_types (
  id integer primary key,
  name varchar(255) not null,
  aliases jsonb default '[]'::jsonb not null,
  properties jsonb default '{}'::jsonb not null,
  external_data jsonb
);

create table catalog.service_locations (
  id integer primary key,
  name varchar(255) not null,
  aliases jsonb default '[]'::jsonb not null,
  properties jsonb default '{}'::jsonb not null,
  external_data jsonb
);

create table catalog.service_types (
  id integer primary key,
  name varchar(255) not null,
  aliases jsonb default '[]'::jsonb not null,
  properties jsonb default '{}'::jsonb not null,
  external_data jsonb
);

create table catalog.shipping_methods (
  id integer primary key,
  name varchar(255) not null,
  properties jsonb not null,
  require_weight boolean default false not null,
  require_volume boolean default false not null,
  calendar jsonb
);

create table catalog.status_blacklists (
  partner_id integer not null,
  key varchar(64) not null,
  primary key (partner_id, key)
);

create table catalog.status_mappings (
  partner_id integer not null,
  provider_key varchar(64) not null,
  partner_key varchar(64) not null,
  primary key (partner_id, provider_key)
);
