create table sandbox.simulated_providers (
  provider_id integer primary key,
  account_id integer not null,
  account_name varchar(255) not null,
  delays jsonb default '{}'::jsonb not null,
  updated_at timestamptz default current_timestamp not null
);

create table sandbox.simulations (
  case_guid uuid primary key,
  provider_id integer not null,
  state varchar(16) default 'running'::varchar not null,
  step varchar(16) not null,
  outcome varchar(16),
  due_at timestamptz not null,
  lease_until timestamptz,
  failures integer default 0 not null,
  stopped_reason text,
  created_at timestamptz default current_timestamp not null,
  updated_at timestamptz default current_timestamp not null
);

create index simulations_due on sandbox.simulations (due_at) where state = 'running';
