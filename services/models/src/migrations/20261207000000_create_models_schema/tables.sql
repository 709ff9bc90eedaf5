create table models.idempotency_keys (
  account_id integer not null,
  action varchar(128) not null,
  key varchar(255) not null,
  request_hash varchar(64) not null,
  status smallint,
  answer json,
  created_at timestamptz default current_timestamp not null,
  primary key (account_id, action, key)
);

create index idempotency_keys_created_at_index on models.idempotency_keys (created_at);

create table models.models (
  id serial primary key,
  name varchar(255) not null,
  mpn varchar(255) not null,
  manufacturer_id integer not null,
  product_type_id integer not null,
  aliases text[] default '{}'::text[] not null,
  tags jsonb default '[]'::jsonb not null,
  country_of_origin varchar(255),
  taric_se varchar(64),
  taric_no varchar(64),
  value numeric(12,2),
  weight numeric(12,2),
  search_text text not null,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null,
  search_trigrams integer[],
  constraint search_trigrams_kept check ((search_trigrams is not null))
);

create index models_aliases_lowered on models.models using gin (models.lowered(aliases));

create index models_manufacturer_name on models.models (manufacturer_id, lower((name)::text) collate "C", id);

create unique index models_mpn_manufacturer on models.models (lower((mpn)::text), manufacturer_id);

create index models_mpn_prefix on models.models (lower((mpn)::text) collate "C", id);

create unique index models_name_manufacturer on models.models (lower((name)::text), manufacturer_id);

create index models_name_prefix on models.models (lower((name)::text) collate "C", id);

create index models_product_type_name on models.models (product_type_id, lower((name)::text) collate "C", id);

create index models_search_trgm on models.models using gin (search_text public.gin_trgm_ops) with (gin_pending_list_limit='256');

create table models.retention_runs (
  rule varchar(64) primary key,
  table_name varchar(128) not null,
  ran_at timestamptz not null,
  removed bigint not null,
  removed_total bigint not null
);

create table models.search_suffixes (
  suffix text not null collate pg_catalog."C",
  model_id integer not null,
  manufacturer_id integer not null,
  primary key (suffix, model_id)
);

create index search_suffixes_manufacturer on models.search_suffixes (manufacturer_id, suffix, model_id);
