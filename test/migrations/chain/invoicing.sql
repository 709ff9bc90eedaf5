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
-- Name: invoicing; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA invoicing;


--
-- Name: count_custom_values_on_delete(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_custom_values_on_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, provider_id, key, value, day, sum(change) as change from (select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, -1 as change from removed) as written
           group by partner_id, provider_id, key, value, day having sum(change) <> 0
        loop
          if true then
            select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
          else
            select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
          end if;
          if found then
            update invoicing.custom_value_days set invoices = invoices + changed.change where ctid = free;
          else
            insert into invoicing.custom_value_days (partner_id, provider_id, key, value, day, invoices)
            values (changed.partner_id, changed.provider_id, changed.key, changed.value, changed.day, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_custom_values_on_insert(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_custom_values_on_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, provider_id, key, value, day, sum(change) as change from (select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, 1 as change from added) as written
           group by partner_id, provider_id, key, value, day having sum(change) <> 0
        loop
          if true then
            select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
          else
            select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
          end if;
          if found then
            update invoicing.custom_value_days set invoices = invoices + changed.change where ctid = free;
          else
            insert into invoicing.custom_value_days (partner_id, provider_id, key, value, day, invoices)
            values (changed.partner_id, changed.provider_id, changed.key, changed.value, changed.day, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_custom_values_on_truncate(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_custom_values_on_truncate() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      truncate invoicing.custom_value_days;
      return null;
    end $$;


--
-- Name: count_custom_values_on_update(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_custom_values_on_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, provider_id, key, value, day, sum(change) as change from (select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, -1 as change from removed union all select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, 1 from added) as written
           group by partner_id, provider_id, key, value, day having sum(change) <> 0
        loop
          if true then
            select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
          else
            select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
          end if;
          if found then
            update invoicing.custom_value_days set invoices = invoices + changed.change where ctid = free;
          else
            insert into invoicing.custom_value_days (partner_id, provider_id, key, value, day, invoices)
            values (changed.partner_id, changed.provider_id, changed.key, changed.value, changed.day, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_invoices_on_delete(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_invoices_on_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, provider_id, day, sum(change) as change from (select partner_id, provider_id, (created_at at time zone 'UTC')::date as day, -1 as change from removed) as written
           group by partner_id, provider_id, day having sum(change) <> 0
        loop
          if true then
            select ctid into free from invoicing.invoice_days where partner_id = changed.partner_id and provider_id = changed.provider_id and day = changed.day limit 1 for update skip locked;
          else
            select ctid into free from invoicing.invoice_days where partner_id = changed.partner_id and provider_id = changed.provider_id and day = changed.day limit 1 for update skip locked;
          end if;
          if found then
            update invoicing.invoice_days set invoices = invoices + changed.change where ctid = free;
          else
            insert into invoicing.invoice_days (partner_id, provider_id, day, invoices)
            values (changed.partner_id, changed.provider_id, changed.day, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_invoices_on_insert(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_invoices_on_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, provider_id, day, sum(change) as change from (select partner_id, provider_id, (created_at at time zone 'UTC')::date as day, 1 as change from added) as written
           group by partner_id, provider_id, day having sum(change) <> 0
        loop
          if true then
            select ctid into free from invoicing.invoice_days where partner_id = changed.partner_id and provider_id = changed.provider_id and day = changed.day limit 1 for update skip locked;
          else
            select ctid into free from invoicing.invoice_days where partner_id = changed.partner_id and provider_id = changed.provider_id and day = changed.day limit 1 for update skip locked;
          end if;
          if found then
            update invoicing.invoice_days set invoices = invoices + changed.change where ctid = free;
          else
            insert into invoicing.invoice_days (partner_id, provider_id, day, invoices)
            values (changed.partner_id, changed.provider_id, changed.day, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: count_invoices_on_truncate(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_invoices_on_truncate() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      truncate invoicing.invoice_days;
      return null;
    end $$;


--
-- Name: count_invoices_on_update(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.count_invoices_on_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select partner_id, provider_id, day, sum(change) as change from (select partner_id, provider_id, (created_at at time zone 'UTC')::date as day, -1 as change from removed union all select partner_id, provider_id, (created_at at time zone 'UTC')::date as day, 1 from added) as written
           group by partner_id, provider_id, day having sum(change) <> 0
        loop
          if true then
            select ctid into free from invoicing.invoice_days where partner_id = changed.partner_id and provider_id = changed.provider_id and day = changed.day limit 1 for update skip locked;
          else
            select ctid into free from invoicing.invoice_days where partner_id = changed.partner_id and provider_id = changed.provider_id and day = changed.day limit 1 for update skip locked;
          end if;
          if found then
            update invoicing.invoice_days set invoices = invoices + changed.change where ctid = free;
          else
            insert into invoicing.invoice_days (partner_id, provider_id, day, invoices)
            values (changed.partner_id, changed.provider_id, changed.day, changed.change);
          end if;
        end loop;
        return null;
      end $$;


--
-- Name: keep_custom_values_on_delete(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.keep_custom_values_on_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      begin
        delete from invoicing.invoice_custom_values as kept using removed where kept.invoice_id = removed.id;
        return null;
      end $$;


--
-- Name: keep_custom_values_on_insert(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.keep_custom_values_on_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      begin
        insert into invoicing.invoice_custom_values (invoice_id, partner_id, provider_id, key, value, created_at) select r.id, r.partner_id, r.provider_id, v.key, v.value, r.created_at
    from added as r,
         jsonb_each(case when jsonb_typeof(r.custom_data) = 'object' then r.custom_data else '{}' end) as v
   where octet_length(v.key) <= 1000
     and case jsonb_typeof(v.value)
           when 'string' then octet_length(v.value #>> '{}') <= 1000
           when 'object' then false
           when 'array' then false
           else true
         end;
        return null;
      end $$;


--
-- Name: keep_custom_values_on_truncate(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.keep_custom_values_on_truncate() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      truncate invoicing.invoice_custom_values;
      return null;
    end $$;


--
-- Name: keep_custom_values_on_update(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.keep_custom_values_on_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      begin
        delete from invoicing.invoice_custom_values as kept
        using (select id, partner_id, provider_id, custom_data, created_at from removed except select id, partner_id, provider_id, custom_data, created_at from added) as changed
        where kept.invoice_id = changed.id;
insert into invoicing.invoice_custom_values (invoice_id, partner_id, provider_id, key, value, created_at)
       select r.id, r.partner_id, r.provider_id, v.key, v.value, r.created_at
    from (select id, partner_id, provider_id, custom_data, created_at from added except select id, partner_id, provider_id, custom_data, created_at from removed) as r,
         jsonb_each(case when jsonb_typeof(r.custom_data) = 'object' then r.custom_data else '{}' end) as v
   where octet_length(v.key) <= 1000
     and case jsonb_typeof(v.value)
           when 'string' then octet_length(v.value #>> '{}') <= 1000
           when 'object' then false
           when 'array' then false
           else true
         end;
        return null;
      end $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: custom_value_days; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.custom_value_days (
    partner_id integer NOT NULL,
    provider_id integer NOT NULL,
    key text NOT NULL,
    value jsonb NOT NULL,
    day date NOT NULL,
    invoices bigint NOT NULL
);


--
-- Name: idempotency_keys; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.idempotency_keys (
    account_id integer NOT NULL,
    action character varying(128) NOT NULL,
    key character varying(255) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status smallint,
    answer json,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: invoice_custom_values; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.invoice_custom_values (
    invoice_id bigint NOT NULL,
    partner_id integer NOT NULL,
    provider_id integer NOT NULL,
    key text NOT NULL,
    value jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: invoice_days; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.invoice_days (
    partner_id integer NOT NULL,
    provider_id integer NOT NULL,
    day date NOT NULL,
    invoices bigint NOT NULL
);


--
-- Name: invoice_statuses; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.invoice_statuses (
    provider_id integer NOT NULL,
    key character varying(255) NOT NULL,
    name character varying(255),
    send_to_client boolean NOT NULL
);


--
-- Name: invoices; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.invoices (
    id bigint NOT NULL,
    case_id bigint NOT NULL,
    guid uuid NOT NULL,
    partner_id integer NOT NULL,
    provider_id integer NOT NULL,
    external_id character varying(255) NOT NULL,
    type character varying(16) DEFAULT 'invoice'::character varying NOT NULL,
    custom_data jsonb DEFAULT '{}'::jsonb NOT NULL,
    price_net numeric,
    currency character varying(3),
    is_active boolean DEFAULT true NOT NULL,
    is_sent boolean DEFAULT false NOT NULL,
    is_paid boolean DEFAULT false NOT NULL,
    due_date date,
    status character varying(255),
    details jsonb DEFAULT '[]'::jsonb NOT NULL,
    linked_invoice_id bigint,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: invoices_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.invoices_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: invoices_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.invoices_id_seq OWNED BY invoicing.invoices.id;


--
-- Name: knex_migrations; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.knex_migrations_id_seq OWNED BY invoicing.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.knex_migrations_lock_index_seq OWNED BY invoicing.knex_migrations_lock.index;


--
-- Name: outbox; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.outbox_id_seq OWNED BY invoicing.outbox.id;


--
-- Name: retention_runs; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.retention_runs (
    rule character varying(64) NOT NULL,
    table_name character varying(128) NOT NULL,
    ran_at timestamp with time zone NOT NULL,
    removed bigint NOT NULL,
    removed_total bigint NOT NULL
);


--
-- Name: invoices id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices ALTER COLUMN id SET DEFAULT nextval('invoicing.invoices_id_seq'::regclass);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.knex_migrations ALTER COLUMN id SET DEFAULT nextval('invoicing.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('invoicing.knex_migrations_lock_index_seq'::regclass);


--
-- Name: outbox id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.outbox ALTER COLUMN id SET DEFAULT nextval('invoicing.outbox_id_seq'::regclass);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, action, key);


--
-- Name: invoice_custom_values invoice_custom_values_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoice_custom_values
    ADD CONSTRAINT invoice_custom_values_pkey PRIMARY KEY (invoice_id, key);


--
-- Name: invoice_statuses invoice_statuses_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoice_statuses
    ADD CONSTRAINT invoice_statuses_pkey PRIMARY KEY (provider_id, key);


--
-- Name: invoices invoices_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);


--
-- Name: invoices invoices_provider_id_external_id_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices
    ADD CONSTRAINT invoices_provider_id_external_id_unique UNIQUE (provider_id, external_id);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: retention_runs retention_runs_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.retention_runs
    ADD CONSTRAINT retention_runs_pkey PRIMARY KEY (rule);


--
-- Name: custom_value_days_partner; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX custom_value_days_partner ON invoicing.custom_value_days USING btree (partner_id, key, value, day);


--
-- Name: custom_value_days_provider; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX custom_value_days_provider ON invoicing.custom_value_days USING btree (provider_id, key, value, day);


--
-- Name: idempotency_keys_created_at_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX idempotency_keys_created_at_index ON invoicing.idempotency_keys USING btree (created_at);


--
-- Name: invoice_custom_values_partner; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoice_custom_values_partner ON invoicing.invoice_custom_values USING btree (partner_id, key, value, created_at, invoice_id);


--
-- Name: invoice_custom_values_provider; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoice_custom_values_provider ON invoicing.invoice_custom_values USING btree (provider_id, key, value, created_at, invoice_id);


--
-- Name: invoice_days_partner; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoice_days_partner ON invoicing.invoice_days USING btree (partner_id, day);


--
-- Name: invoice_days_provider; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoice_days_provider ON invoicing.invoice_days USING btree (provider_id, day);


--
-- Name: invoices_custom_data; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_custom_data ON invoicing.invoices USING gin (custom_data jsonb_path_ops) WITH (gin_pending_list_limit='64');


--
-- Name: invoices_details; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_details ON invoicing.invoices USING gin (details jsonb_path_ops) WITH (gin_pending_list_limit='64');


--
-- Name: invoices_guid_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_guid_index ON invoicing.invoices USING btree (guid);


--
-- Name: invoices_partner_id_created_at_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_partner_id_created_at_id_index ON invoicing.invoices USING btree (partner_id, created_at, id);


--
-- Name: invoices_provider_id_created_at_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_provider_id_created_at_id_index ON invoicing.invoices USING btree (provider_id, created_at, id);


--
-- Name: outbox_leases; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX outbox_leases ON invoicing.outbox USING btree (case_guid) WHERE (lease_until IS NOT NULL);


--
-- Name: outbox_pending; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX outbox_pending ON invoicing.outbox USING btree (id) WHERE (published_at IS NULL);


--
-- Name: outbox_relayed; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX outbox_relayed ON invoicing.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);


--
-- Name: invoice_custom_values custom_values_counted_on_delete; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_counted_on_delete AFTER DELETE ON invoicing.invoice_custom_values REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_custom_values_on_delete();


--
-- Name: invoice_custom_values custom_values_counted_on_insert; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_counted_on_insert AFTER INSERT ON invoicing.invoice_custom_values REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_custom_values_on_insert();


--
-- Name: invoice_custom_values custom_values_counted_on_truncate; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_counted_on_truncate AFTER TRUNCATE ON invoicing.invoice_custom_values FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_custom_values_on_truncate();


--
-- Name: invoice_custom_values custom_values_counted_on_update; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_counted_on_update AFTER UPDATE ON invoicing.invoice_custom_values REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_custom_values_on_update();


--
-- Name: invoices custom_values_kept_on_delete; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_kept_on_delete AFTER DELETE ON invoicing.invoices REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION invoicing.keep_custom_values_on_delete();


--
-- Name: invoices custom_values_kept_on_insert; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_kept_on_insert AFTER INSERT ON invoicing.invoices REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION invoicing.keep_custom_values_on_insert();


--
-- Name: invoices custom_values_kept_on_truncate; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_kept_on_truncate AFTER TRUNCATE ON invoicing.invoices FOR EACH STATEMENT EXECUTE FUNCTION invoicing.keep_custom_values_on_truncate();


--
-- Name: invoices custom_values_kept_on_update; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER custom_values_kept_on_update AFTER UPDATE ON invoicing.invoices REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION invoicing.keep_custom_values_on_update();


--
-- Name: invoices invoices_counted_on_delete; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER invoices_counted_on_delete AFTER DELETE ON invoicing.invoices REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_invoices_on_delete();


--
-- Name: invoices invoices_counted_on_insert; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER invoices_counted_on_insert AFTER INSERT ON invoicing.invoices REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_invoices_on_insert();


--
-- Name: invoices invoices_counted_on_truncate; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER invoices_counted_on_truncate AFTER TRUNCATE ON invoicing.invoices FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_invoices_on_truncate();


--
-- Name: invoices invoices_counted_on_update; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER invoices_counted_on_update AFTER UPDATE ON invoicing.invoices REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION invoicing.count_invoices_on_update();


--
-- Name: invoices invoices_linked_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices
    ADD CONSTRAINT invoices_linked_invoice_id_foreign FOREIGN KEY (linked_invoice_id) REFERENCES invoicing.invoices(id);


--
-- PostgreSQL database dump complete
--


