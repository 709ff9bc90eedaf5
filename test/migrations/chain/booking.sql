--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: booking; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA booking;


--
-- Name: count_cases_on_delete(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.count_cases_on_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, service_provider_id, current_status, sum(change) as change from (select partner_id, service_provider_id, current_status, -1 as change from removed) as written
           group by partner_id, service_provider_id, current_status having sum(change) <> 0
        loop
          if changed.service_provider_id is not null and changed.current_status is not null then
            select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id = changed.service_provider_id and current_status = changed.current_status limit 1 for update skip locked;
          else
            select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id and current_status is not distinct from changed.current_status limit 1 for update skip locked;
          end if;
          if found then
            update booking.case_counts set cases = cases + changed.change where ctid = free;
          else
            insert into booking.case_counts (partner_id, service_provider_id, current_status, cases)
            values (changed.partner_id, changed.service_provider_id, changed.current_status, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_cases_on_insert(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.count_cases_on_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, service_provider_id, current_status, sum(change) as change from (select partner_id, service_provider_id, current_status, 1 as change from added) as written
           group by partner_id, service_provider_id, current_status having sum(change) <> 0
        loop
          if changed.service_provider_id is not null and changed.current_status is not null then
            select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id = changed.service_provider_id and current_status = changed.current_status limit 1 for update skip locked;
          else
            select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id and current_status is not distinct from changed.current_status limit 1 for update skip locked;
          end if;
          if found then
            update booking.case_counts set cases = cases + changed.change where ctid = free;
          else
            insert into booking.case_counts (partner_id, service_provider_id, current_status, cases)
            values (changed.partner_id, changed.service_provider_id, changed.current_status, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_cases_on_truncate(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.count_cases_on_truncate() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      delete from booking.case_counts;
      return null;
    end $$;


--
-- Name: count_cases_on_update(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.count_cases_on_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, service_provider_id, current_status, sum(change) as change from (select partner_id, service_provider_id, current_status, -1 as change from removed union all select partner_id, service_provider_id, current_status, 1 from added) as written
           group by partner_id, service_provider_id, current_status having sum(change) <> 0
        loop
          if changed.service_provider_id is not null and changed.current_status is not null then
            select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id = changed.service_provider_id and current_status = changed.current_status limit 1 for update skip locked;
          else
            select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id and current_status is not distinct from changed.current_status limit 1 for update skip locked;
          end if;
          if found then
            update booking.case_counts set cases = cases + changed.change where ctid = free;
          else
            insert into booking.case_counts (partner_id, service_provider_id, current_status, cases)
            values (changed.partner_id, changed.service_provider_id, changed.current_status, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: keep_order_values_on_insert(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.keep_order_values_on_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
    begin
      insert into booking.case_order_values (case_id, partner_id, service_provider_id, key, value) select r.id, r.partner_id, r.service_provider_id, v.key, v.value #>> '{}'
    from added as r,
         jsonb_each(case when jsonb_typeof(r.order_data) = 'object' then r.order_data else '{}' end) as v
   where v.key ~ '^[A-Za-z0-9_-]{1,64}$'
     and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
     and char_length(v.value #>> '{}') <= 255;
      return null;
    end $_$;


--
-- Name: keep_order_values_on_update(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.keep_order_values_on_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
    begin
      delete from booking.case_order_values where case_id = old.id;
      insert into booking.case_order_values (case_id, partner_id, service_provider_id, key, value) select r.id, r.partner_id, r.service_provider_id, v.key, v.value #>> '{}'
    from (select new.*) as r,
         jsonb_each(case when jsonb_typeof(r.order_data) = 'object' then r.order_data else '{}' end) as v
   where v.key ~ '^[A-Za-z0-9_-]{1,64}$'
     and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
     and char_length(v.value #>> '{}') <= 255;
      return null;
    end $_$;


--
-- Name: move_case_tags(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.move_case_tags() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      update booking.case_tags set partner_id = new.partner_id, service_provider_id = new.service_provider_id
       where case_id = new.id;
      return null;
    end $$;


--
-- Name: scope_case_tag(); Type: FUNCTION; Schema: booking; Owner: -
--

CREATE FUNCTION booking.scope_case_tag() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      select c.partner_id, c.service_provider_id into new.partner_id, new.service_provider_id
        from booking.cases c where c.id = new.case_id for share;
      return new;
    end $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: case_contacts; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_contacts (
    id bigint NOT NULL,
    case_id bigint NOT NULL,
    role character varying(16) NOT NULL,
    type smallint,
    data jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: case_contacts_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.case_contacts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: case_contacts_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.case_contacts_id_seq OWNED BY booking.case_contacts.id;


--
-- Name: case_counts; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_counts (
    partner_id integer NOT NULL,
    service_provider_id integer,
    cases bigint NOT NULL,
    current_status character varying(64)
);


--
-- Name: case_files; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_files (
    id bigint NOT NULL,
    case_id bigint NOT NULL,
    name character varying(255) NOT NULL,
    type character varying(32) NOT NULL,
    url text,
    storage_key character varying(255),
    content_type character varying(128),
    size integer,
    uploaded_by character varying(16) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: case_files_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.case_files_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: case_files_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.case_files_id_seq OWNED BY booking.case_files.id;


--
-- Name: case_history; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_history (
    id bigint NOT NULL,
    case_id bigint NOT NULL,
    at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    action character varying(32) NOT NULL,
    account_id integer,
    account_name character varying(255),
    party_type character varying(16),
    party_id integer,
    changes jsonb DEFAULT '[]'::jsonb NOT NULL
);


--
-- Name: case_history_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.case_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: case_history_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.case_history_id_seq OWNED BY booking.case_history.id;


--
-- Name: case_order_values; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_order_values (
    case_id bigint NOT NULL,
    partner_id integer NOT NULL,
    service_provider_id integer,
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: case_statuses; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_statuses (
    id bigint NOT NULL,
    case_id bigint NOT NULL,
    key character varying(64) NOT NULL,
    name character varying(255) NOT NULL,
    declared_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: case_statuses_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.case_statuses_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: case_statuses_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.case_statuses_id_seq OWNED BY booking.case_statuses.id;


--
-- Name: case_tags; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.case_tags (
    case_id bigint NOT NULL,
    tag_id integer NOT NULL,
    partner_id integer,
    service_provider_id integer
);


--
-- Name: cases; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.cases (
    id bigint NOT NULL,
    guid uuid NOT NULL,
    partner_id integer NOT NULL,
    service_provider_id integer,
    service_provider_department_id integer,
    manufacturer_id integer NOT NULL,
    product_type_id integer NOT NULL,
    service_type_id integer NOT NULL,
    service_location_id integer NOT NULL,
    shipping_method_id integer,
    country character varying(2),
    current_status character varying(64),
    order_data jsonb DEFAULT '{}'::jsonb NOT NULL,
    product_data jsonb DEFAULT '{}'::jsonb NOT NULL,
    spare_parts jsonb DEFAULT '[]'::jsonb NOT NULL,
    freight_trackings jsonb DEFAULT '[]'::jsonb NOT NULL,
    manufacturer jsonb,
    product_type jsonb,
    service_type jsonb,
    service_location jsonb,
    shipping_method jsonb,
    service_partner jsonb,
    service_provider jsonb,
    service_provider_department jsonb,
    service_provider_competence jsonb,
    accepted boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    accepted_at timestamp with time zone,
    cancelled_at timestamp with time zone,
    cancel_reason text,
    finished_at timestamp with time zone
);


--
-- Name: cases_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.cases_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: cases_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.cases_id_seq OWNED BY booking.cases.id;


--
-- Name: external_requests; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.external_requests (
    id bigint NOT NULL,
    case_id bigint,
    partner_id integer,
    provider_id integer,
    account_id integer NOT NULL,
    type character varying(64) NOT NULL,
    status character varying(64) NOT NULL,
    url text,
    meta jsonb DEFAULT '{}'::jsonb NOT NULL,
    tracking_id character varying(255),
    request text,
    response text,
    message text,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: external_requests_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.external_requests_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: external_requests_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.external_requests_id_seq OWNED BY booking.external_requests.id;


--
-- Name: idempotency_keys; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.idempotency_keys (
    account_id integer NOT NULL,
    action character varying(128) NOT NULL,
    key character varying(255) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status smallint,
    answer json,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: knex_migrations; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.knex_migrations_id_seq OWNED BY booking.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.knex_migrations_lock_index_seq OWNED BY booking.knex_migrations_lock.index;


--
-- Name: outbox; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.outbox (
    id bigint NOT NULL,
    event_id uuid NOT NULL,
    type character varying(64) NOT NULL,
    case_guid uuid,
    audience jsonb NOT NULL,
    payload jsonb NOT NULL,
    occurred_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    lease_until timestamp with time zone,
    published_at timestamp with time zone
);


--
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.outbox_id_seq OWNED BY booking.outbox.id;


--
-- Name: retention_runs; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.retention_runs (
    rule character varying(64) NOT NULL,
    table_name character varying(128) NOT NULL,
    ran_at timestamp with time zone NOT NULL,
    removed bigint NOT NULL,
    removed_total bigint NOT NULL
);


--
-- Name: status_keys; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.status_keys (
    provider_id integer NOT NULL,
    key character varying(64) NOT NULL,
    name character varying(255) NOT NULL,
    "position" integer NOT NULL,
    description text,
    sms_available boolean DEFAULT false NOT NULL,
    email_available boolean DEFAULT false NOT NULL
);


--
-- Name: tags; Type: TABLE; Schema: booking; Owner: -
--

CREATE TABLE booking.tags (
    id integer NOT NULL,
    name character varying(255) NOT NULL
);


--
-- Name: tags_id_seq; Type: SEQUENCE; Schema: booking; Owner: -
--

CREATE SEQUENCE booking.tags_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: tags_id_seq; Type: SEQUENCE OWNED BY; Schema: booking; Owner: -
--

ALTER SEQUENCE booking.tags_id_seq OWNED BY booking.tags.id;


--
-- Name: case_contacts id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_contacts ALTER COLUMN id SET DEFAULT nextval('booking.case_contacts_id_seq'::regclass);


--
-- Name: case_files id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_files ALTER COLUMN id SET DEFAULT nextval('booking.case_files_id_seq'::regclass);


--
-- Name: case_history id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_history ALTER COLUMN id SET DEFAULT nextval('booking.case_history_id_seq'::regclass);


--
-- Name: case_statuses id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_statuses ALTER COLUMN id SET DEFAULT nextval('booking.case_statuses_id_seq'::regclass);


--
-- Name: cases id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.cases ALTER COLUMN id SET DEFAULT nextval('booking.cases_id_seq'::regclass);


--
-- Name: external_requests id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.external_requests ALTER COLUMN id SET DEFAULT nextval('booking.external_requests_id_seq'::regclass);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.knex_migrations ALTER COLUMN id SET DEFAULT nextval('booking.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('booking.knex_migrations_lock_index_seq'::regclass);


--
-- Name: outbox id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.outbox ALTER COLUMN id SET DEFAULT nextval('booking.outbox_id_seq'::regclass);


--
-- Name: tags id; Type: DEFAULT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.tags ALTER COLUMN id SET DEFAULT nextval('booking.tags_id_seq'::regclass);


--
-- Name: case_contacts case_contacts_case_id_role_unique; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_contacts
    ADD CONSTRAINT case_contacts_case_id_role_unique UNIQUE (case_id, role);


--
-- Name: case_contacts case_contacts_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_contacts
    ADD CONSTRAINT case_contacts_pkey PRIMARY KEY (id);


--
-- Name: case_files case_files_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_files
    ADD CONSTRAINT case_files_pkey PRIMARY KEY (id);


--
-- Name: case_history case_history_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_history
    ADD CONSTRAINT case_history_pkey PRIMARY KEY (id);


--
-- Name: case_order_values case_order_values_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_order_values
    ADD CONSTRAINT case_order_values_pkey PRIMARY KEY (case_id, key);


--
-- Name: case_statuses case_statuses_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_statuses
    ADD CONSTRAINT case_statuses_pkey PRIMARY KEY (id);


--
-- Name: case_tags case_tags_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_tags
    ADD CONSTRAINT case_tags_pkey PRIMARY KEY (case_id, tag_id);


--
-- Name: cases cases_guid_unique; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.cases
    ADD CONSTRAINT cases_guid_unique UNIQUE (guid);


--
-- Name: cases cases_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.cases
    ADD CONSTRAINT cases_pkey PRIMARY KEY (id);


--
-- Name: external_requests external_requests_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.external_requests
    ADD CONSTRAINT external_requests_pkey PRIMARY KEY (id);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, action, key);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: retention_runs retention_runs_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.retention_runs
    ADD CONSTRAINT retention_runs_pkey PRIMARY KEY (rule);


--
-- Name: status_keys status_keys_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.status_keys
    ADD CONSTRAINT status_keys_pkey PRIMARY KEY (provider_id, key);


--
-- Name: tags tags_name_unique; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.tags
    ADD CONSTRAINT tags_name_unique UNIQUE (name);


--
-- Name: tags tags_pkey; Type: CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.tags
    ADD CONSTRAINT tags_pkey PRIMARY KEY (id);


--
-- Name: case_contacts_data_trgm; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_contacts_data_trgm ON booking.case_contacts USING gin (((data)::text) public.gin_trgm_ops) WITH (gin_pending_list_limit='64');


--
-- Name: case_counts_provider; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_counts_provider ON booking.case_counts USING btree (service_provider_id);


--
-- Name: case_counts_values; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_counts_values ON booking.case_counts USING btree (partner_id, service_provider_id, current_status);


--
-- Name: case_files_case_id_id_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_files_case_id_id_index ON booking.case_files USING btree (case_id, id);


--
-- Name: case_history_case_id_id_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_history_case_id_id_index ON booking.case_history USING btree (case_id, id);


--
-- Name: case_order_values_partner; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_order_values_partner ON booking.case_order_values USING btree (partner_id, key, value, case_id);


--
-- Name: case_order_values_provider; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_order_values_provider ON booking.case_order_values USING btree (service_provider_id, key, value, case_id);


--
-- Name: case_statuses_case_id_id_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_statuses_case_id_id_index ON booking.case_statuses USING btree (case_id, id);


--
-- Name: case_tags_partner; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_tags_partner ON booking.case_tags USING btree (tag_id, partner_id, case_id);


--
-- Name: case_tags_provider; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_tags_provider ON booking.case_tags USING btree (tag_id, service_provider_id, case_id);


--
-- Name: case_tags_tag; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX case_tags_tag ON booking.case_tags USING btree (tag_id, case_id);


--
-- Name: cases_guid_trgm; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_guid_trgm ON booking.cases USING gin (((guid)::text) public.gin_trgm_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_order_data; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_order_data ON booking.cases USING gin (order_data jsonb_path_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_order_data_trgm; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_order_data_trgm ON booking.cases USING gin (((order_data)::text) public.gin_trgm_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_partner_created; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_partner_created ON booking.cases USING btree (partner_id, created_at, id);


--
-- Name: cases_partner_id; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_partner_id ON booking.cases USING btree (partner_id, id);


--
-- Name: cases_partner_order_data; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_partner_order_data ON booking.cases USING gin (partner_id, order_data jsonb_path_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_partner_status; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_partner_status ON booking.cases USING btree (partner_id, current_status, id);


--
-- Name: cases_product_data; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_product_data ON booking.cases USING gin (product_data jsonb_path_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_product_data_trgm; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_product_data_trgm ON booking.cases USING gin (((product_data)::text) public.gin_trgm_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_provider_created; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_provider_created ON booking.cases USING btree (service_provider_id, created_at, id);


--
-- Name: cases_provider_id; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_provider_id ON booking.cases USING btree (service_provider_id, id);


--
-- Name: cases_provider_order_data; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_provider_order_data ON booking.cases USING gin (service_provider_id, order_data jsonb_path_ops) WITH (gin_pending_list_limit='64');


--
-- Name: cases_provider_status; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_provider_status ON booking.cases USING btree (service_provider_id, current_status, id);


--
-- Name: cases_service_provider_id_accepted_id_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX cases_service_provider_id_accepted_id_index ON booking.cases USING btree (service_provider_id, accepted, id);


--
-- Name: external_requests_age; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX external_requests_age ON booking.external_requests USING btree (created_at);


--
-- Name: external_requests_case_id_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX external_requests_case_id_index ON booking.external_requests USING btree (case_id);


--
-- Name: external_requests_tracking_id_partner_id_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX external_requests_tracking_id_partner_id_index ON booking.external_requests USING btree (tracking_id, partner_id);


--
-- Name: idempotency_keys_created_at_index; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX idempotency_keys_created_at_index ON booking.idempotency_keys USING btree (created_at);


--
-- Name: outbox_leases; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX outbox_leases ON booking.outbox USING btree (case_guid) WHERE (lease_until IS NOT NULL);


--
-- Name: outbox_pending; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX outbox_pending ON booking.outbox USING btree (id) WHERE (published_at IS NULL);


--
-- Name: outbox_relayed; Type: INDEX; Schema: booking; Owner: -
--

CREATE INDEX outbox_relayed ON booking.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);


--
-- Name: case_contacts_text_trigrams; Type: STATISTICS; Schema: booking; Owner: -
--

CREATE STATISTICS booking.case_contacts_text_trigrams ON public.show_trgm(data::text) FROM booking.case_contacts;


--
-- Name: cases_order_data_trigrams; Type: STATISTICS; Schema: booking; Owner: -
--

CREATE STATISTICS booking.cases_order_data_trigrams ON public.show_trgm(order_data::text) FROM booking.cases;


--
-- Name: cases_product_data_trigrams; Type: STATISTICS; Schema: booking; Owner: -
--

CREATE STATISTICS booking.cases_product_data_trigrams ON public.show_trgm(product_data::text) FROM booking.cases;


--
-- Name: case_tags case_tags_scoped; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER case_tags_scoped BEFORE INSERT OR UPDATE OF case_id ON booking.case_tags FOR EACH ROW EXECUTE FUNCTION booking.scope_case_tag();


--
-- Name: cases cases_counted_on_delete; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER cases_counted_on_delete AFTER DELETE ON booking.cases REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION booking.count_cases_on_delete();


--
-- Name: cases cases_counted_on_insert; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER cases_counted_on_insert AFTER INSERT ON booking.cases REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION booking.count_cases_on_insert();


--
-- Name: cases cases_counted_on_truncate; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER cases_counted_on_truncate AFTER TRUNCATE ON booking.cases FOR EACH STATEMENT EXECUTE FUNCTION booking.count_cases_on_truncate();


--
-- Name: cases cases_counted_on_update; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER cases_counted_on_update AFTER UPDATE ON booking.cases REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION booking.count_cases_on_update();


--
-- Name: cases cases_tags_moved; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER cases_tags_moved AFTER UPDATE OF partner_id, service_provider_id ON booking.cases FOR EACH ROW WHEN (((old.partner_id IS DISTINCT FROM new.partner_id) OR (old.service_provider_id IS DISTINCT FROM new.service_provider_id))) EXECUTE FUNCTION booking.move_case_tags();


--
-- Name: cases order_values_kept_on_insert; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER order_values_kept_on_insert AFTER INSERT ON booking.cases REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION booking.keep_order_values_on_insert();


--
-- Name: cases order_values_kept_on_update; Type: TRIGGER; Schema: booking; Owner: -
--

CREATE TRIGGER order_values_kept_on_update AFTER UPDATE OF order_data, partner_id, service_provider_id ON booking.cases FOR EACH ROW WHEN (((old.order_data IS DISTINCT FROM new.order_data) OR (old.partner_id IS DISTINCT FROM new.partner_id) OR (old.service_provider_id IS DISTINCT FROM new.service_provider_id))) EXECUTE FUNCTION booking.keep_order_values_on_update();


--
-- Name: case_contacts case_contacts_case_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_contacts
    ADD CONSTRAINT case_contacts_case_id_foreign FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE CASCADE;


--
-- Name: case_files case_files_case_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_files
    ADD CONSTRAINT case_files_case_id_foreign FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE CASCADE;


--
-- Name: case_history case_history_case_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_history
    ADD CONSTRAINT case_history_case_id_foreign FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE CASCADE;


--
-- Name: case_order_values case_order_values_case_id_fkey; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_order_values
    ADD CONSTRAINT case_order_values_case_id_fkey FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE CASCADE;


--
-- Name: case_statuses case_statuses_case_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_statuses
    ADD CONSTRAINT case_statuses_case_id_foreign FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE CASCADE;


--
-- Name: case_tags case_tags_case_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_tags
    ADD CONSTRAINT case_tags_case_id_foreign FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE CASCADE;


--
-- Name: case_tags case_tags_tag_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.case_tags
    ADD CONSTRAINT case_tags_tag_id_foreign FOREIGN KEY (tag_id) REFERENCES booking.tags(id);


--
-- Name: external_requests external_requests_case_id_foreign; Type: FK CONSTRAINT; Schema: booking; Owner: -
--

ALTER TABLE ONLY booking.external_requests
    ADD CONSTRAINT external_requests_case_id_foreign FOREIGN KEY (case_id) REFERENCES booking.cases(id) ON DELETE SET NULL;


--
-- PostgreSQL database dump complete
--


