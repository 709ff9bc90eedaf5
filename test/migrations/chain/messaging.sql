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
-- Name: messaging; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA messaging;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: idempotency_keys; Type: TABLE; Schema: messaging; Owner: -
--

CREATE TABLE messaging.idempotency_keys (
    account_id integer NOT NULL,
    action character varying(128) NOT NULL,
    key character varying(255) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status smallint,
    answer json,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: knex_migrations; Type: TABLE; Schema: messaging; Owner: -
--

CREATE TABLE messaging.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: messaging; Owner: -
--

CREATE SEQUENCE messaging.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: messaging; Owner: -
--

ALTER SEQUENCE messaging.knex_migrations_id_seq OWNED BY messaging.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: messaging; Owner: -
--

CREATE TABLE messaging.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: messaging; Owner: -
--

CREATE SEQUENCE messaging.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: messaging; Owner: -
--

ALTER SEQUENCE messaging.knex_migrations_lock_index_seq OWNED BY messaging.knex_migrations_lock.index;


--
-- Name: messages; Type: TABLE; Schema: messaging; Owner: -
--

CREATE TABLE messaging.messages (
    id bigint NOT NULL,
    case_id bigint NOT NULL,
    guid uuid NOT NULL,
    partner_id integer NOT NULL,
    provider_id integer,
    sender_account_id integer NOT NULL,
    sender_type character varying(16),
    content text,
    type character varying(32) NOT NULL,
    external_id character varying(512),
    parent_message_id bigint,
    user_email character varying(512),
    user_name character varying(512),
    is_internal boolean DEFAULT false NOT NULL,
    declared_at timestamp with time zone NOT NULL,
    confirmed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: messages_id_seq; Type: SEQUENCE; Schema: messaging; Owner: -
--

CREATE SEQUENCE messaging.messages_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: messages_id_seq; Type: SEQUENCE OWNED BY; Schema: messaging; Owner: -
--

ALTER SEQUENCE messaging.messages_id_seq OWNED BY messaging.messages.id;


--
-- Name: outbox; Type: TABLE; Schema: messaging; Owner: -
--

CREATE TABLE messaging.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: messaging; Owner: -
--

CREATE SEQUENCE messaging.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: messaging; Owner: -
--

ALTER SEQUENCE messaging.outbox_id_seq OWNED BY messaging.outbox.id;


--
-- Name: retention_runs; Type: TABLE; Schema: messaging; Owner: -
--

CREATE TABLE messaging.retention_runs (
    rule character varying(64) NOT NULL,
    table_name character varying(128) NOT NULL,
    ran_at timestamp with time zone NOT NULL,
    removed bigint NOT NULL,
    removed_total bigint NOT NULL
);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.knex_migrations ALTER COLUMN id SET DEFAULT nextval('messaging.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('messaging.knex_migrations_lock_index_seq'::regclass);


--
-- Name: messages id; Type: DEFAULT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.messages ALTER COLUMN id SET DEFAULT nextval('messaging.messages_id_seq'::regclass);


--
-- Name: outbox id; Type: DEFAULT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.outbox ALTER COLUMN id SET DEFAULT nextval('messaging.outbox_id_seq'::regclass);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, action, key);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: retention_runs retention_runs_pkey; Type: CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.retention_runs
    ADD CONSTRAINT retention_runs_pkey PRIMARY KEY (rule);


--
-- Name: idempotency_keys_created_at_index; Type: INDEX; Schema: messaging; Owner: -
--

CREATE INDEX idempotency_keys_created_at_index ON messaging.idempotency_keys USING btree (created_at);


--
-- Name: messages_guid_id_index; Type: INDEX; Schema: messaging; Owner: -
--

CREATE INDEX messages_guid_id_index ON messaging.messages USING btree (guid, id);


--
-- Name: outbox_leases; Type: INDEX; Schema: messaging; Owner: -
--

CREATE INDEX outbox_leases ON messaging.outbox USING btree (case_guid) WHERE (lease_until IS NOT NULL);


--
-- Name: outbox_pending; Type: INDEX; Schema: messaging; Owner: -
--

CREATE INDEX outbox_pending ON messaging.outbox USING btree (id) WHERE (published_at IS NULL);


--
-- Name: outbox_relayed; Type: INDEX; Schema: messaging; Owner: -
--

CREATE INDEX outbox_relayed ON messaging.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);


--
-- Name: messages messages_parent_message_id_foreign; Type: FK CONSTRAINT; Schema: messaging; Owner: -
--

ALTER TABLE ONLY messaging.messages
    ADD CONSTRAINT messages_parent_message_id_foreign FOREIGN KEY (parent_message_id) REFERENCES messaging.messages(id);


--
-- PostgreSQL database dump complete
--


