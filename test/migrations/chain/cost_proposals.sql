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
-- Name: cost_proposals; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA cost_proposals;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: idempotency_keys; Type: TABLE; Schema: cost_proposals; Owner: -
--

CREATE TABLE cost_proposals.idempotency_keys (
    account_id integer NOT NULL,
    action character varying(128) NOT NULL,
    key character varying(255) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status smallint,
    answer json,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: knex_migrations; Type: TABLE; Schema: cost_proposals; Owner: -
--

CREATE TABLE cost_proposals.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: cost_proposals; Owner: -
--

CREATE SEQUENCE cost_proposals.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: cost_proposals; Owner: -
--

ALTER SEQUENCE cost_proposals.knex_migrations_id_seq OWNED BY cost_proposals.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: cost_proposals; Owner: -
--

CREATE TABLE cost_proposals.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: cost_proposals; Owner: -
--

CREATE SEQUENCE cost_proposals.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: cost_proposals; Owner: -
--

ALTER SEQUENCE cost_proposals.knex_migrations_lock_index_seq OWNED BY cost_proposals.knex_migrations_lock.index;


--
-- Name: outbox; Type: TABLE; Schema: cost_proposals; Owner: -
--

CREATE TABLE cost_proposals.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: cost_proposals; Owner: -
--

CREATE SEQUENCE cost_proposals.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: cost_proposals; Owner: -
--

ALTER SEQUENCE cost_proposals.outbox_id_seq OWNED BY cost_proposals.outbox.id;


--
-- Name: proposals; Type: TABLE; Schema: cost_proposals; Owner: -
--

CREATE TABLE cost_proposals.proposals (
    id bigint NOT NULL,
    case_guid uuid NOT NULL,
    service_provider_id integer NOT NULL,
    external_id jsonb,
    external_key text,
    name character varying(255),
    price_net numeric(14,2),
    currency character varying(3),
    time_stamp character varying(23),
    is_active boolean DEFAULT true NOT NULL,
    reaction character varying(16),
    reaction_date timestamp with time zone,
    reaction_name character varying(255),
    comment text,
    date_valid_until date,
    details jsonb,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT proposals_reaction CHECK (((reaction)::text = ANY ((ARRAY['approved'::character varying, 'rejected'::character varying])::text[])))
);


--
-- Name: proposals_id_seq; Type: SEQUENCE; Schema: cost_proposals; Owner: -
--

CREATE SEQUENCE cost_proposals.proposals_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: proposals_id_seq; Type: SEQUENCE OWNED BY; Schema: cost_proposals; Owner: -
--

ALTER SEQUENCE cost_proposals.proposals_id_seq OWNED BY cost_proposals.proposals.id;


--
-- Name: retention_runs; Type: TABLE; Schema: cost_proposals; Owner: -
--

CREATE TABLE cost_proposals.retention_runs (
    rule character varying(64) NOT NULL,
    table_name character varying(128) NOT NULL,
    ran_at timestamp with time zone NOT NULL,
    removed bigint NOT NULL,
    removed_total bigint NOT NULL
);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.knex_migrations ALTER COLUMN id SET DEFAULT nextval('cost_proposals.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('cost_proposals.knex_migrations_lock_index_seq'::regclass);


--
-- Name: outbox id; Type: DEFAULT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.outbox ALTER COLUMN id SET DEFAULT nextval('cost_proposals.outbox_id_seq'::regclass);


--
-- Name: proposals id; Type: DEFAULT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.proposals ALTER COLUMN id SET DEFAULT nextval('cost_proposals.proposals_id_seq'::regclass);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, action, key);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: proposals proposals_pkey; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.proposals
    ADD CONSTRAINT proposals_pkey PRIMARY KEY (id);


--
-- Name: retention_runs retention_runs_pkey; Type: CONSTRAINT; Schema: cost_proposals; Owner: -
--

ALTER TABLE ONLY cost_proposals.retention_runs
    ADD CONSTRAINT retention_runs_pkey PRIMARY KEY (rule);


--
-- Name: idempotency_keys_created_at_index; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE INDEX idempotency_keys_created_at_index ON cost_proposals.idempotency_keys USING btree (created_at);


--
-- Name: outbox_leases; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE INDEX outbox_leases ON cost_proposals.outbox USING btree (case_guid) WHERE (lease_until IS NOT NULL);


--
-- Name: outbox_pending; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE INDEX outbox_pending ON cost_proposals.outbox USING btree (id) WHERE (published_at IS NULL);


--
-- Name: outbox_relayed; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE INDEX outbox_relayed ON cost_proposals.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);


--
-- Name: proposals_case; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE INDEX proposals_case ON cost_proposals.proposals USING btree (case_guid, id);


--
-- Name: proposals_external_key; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE UNIQUE INDEX proposals_external_key ON cost_proposals.proposals USING btree (service_provider_id, external_key, COALESCE(name, ''::character varying)) WHERE (external_key IS NOT NULL);


--
-- Name: proposals_one_approved; Type: INDEX; Schema: cost_proposals; Owner: -
--

CREATE UNIQUE INDEX proposals_one_approved ON cost_proposals.proposals USING btree (case_guid) WHERE ((reaction)::text = 'approved'::text);


--
-- PostgreSQL database dump complete
--


