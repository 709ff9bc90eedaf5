create table sandbox.simulated_providers (
  provider_id integer primary key,
  account_id integer not null,
  account_name character varying(255) not null,
  delays jsonb default '{}'::jsonb not null,
  updated_at timestamp with time zone default current_timestamp not null
);

create table sandbox.simulations (
  case_guid uuid primary key,
  provider_id integer not null,
  state character varying(16) default 'running'::character varying not null,
  step character varying(16) not null,
  outcome character varying(16),
  due_at timestamp with time zone not null,
  lease_until timestamp with time zone,
  failures integer default 0 not null,
  stopped_reason text,
  created_at timestamp with time zone default current_timestamp not null,
  updated_at timestamp with time zone default current_timestamp not null
);

create index simulations_due on sandbox.simulations (due_at) where ((state)::text = 'running'::text);
