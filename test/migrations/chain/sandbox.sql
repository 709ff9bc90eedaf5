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
-- Name: sandbox; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA sandbox;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: knex_migrations; Type: TABLE; Schema: sandbox; Owner: -
--

CREATE TABLE sandbox.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: sandbox; Owner: -
--

CREATE SEQUENCE sandbox.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: sandbox; Owner: -
--

ALTER SEQUENCE sandbox.knex_migrations_id_seq OWNED BY sandbox.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: sandbox; Owner: -
--

CREATE TABLE sandbox.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: sandbox; Owner: -
--

CREATE SEQUENCE sandbox.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: sandbox; Owner: -
--

ALTER SEQUENCE sandbox.knex_migrations_lock_index_seq OWNED BY sandbox.knex_migrations_lock.index;


--
-- Name: simulated_providers; Type: TABLE; Schema: sandbox; Owner: -
--

CREATE TABLE sandbox.simulated_providers (
    provider_id integer NOT NULL,
    account_id integer NOT NULL,
    account_name character varying(255) NOT NULL,
    delays jsonb DEFAULT '{}'::jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: simulations; Type: TABLE; Schema: sandbox; Owner: -
--

CREATE TABLE sandbox.simulations (
    case_guid uuid NOT NULL,
    provider_id integer NOT NULL,
    state character varying(16) DEFAULT 'running'::character varying NOT NULL,
    step character varying(16) NOT NULL,
    outcome character varying(16),
    due_at timestamp with time zone NOT NULL,
    lease_until timestamp with time zone,
    failures integer DEFAULT 0 NOT NULL,
    stopped_reason text,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: sandbox; Owner: -
--

ALTER TABLE ONLY sandbox.knex_migrations ALTER COLUMN id SET DEFAULT nextval('sandbox.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: sandbox; Owner: -
--

ALTER TABLE ONLY sandbox.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('sandbox.knex_migrations_lock_index_seq'::regclass);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: sandbox; Owner: -
--

ALTER TABLE ONLY sandbox.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: sandbox; Owner: -
--

ALTER TABLE ONLY sandbox.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: simulated_providers simulated_providers_pkey; Type: CONSTRAINT; Schema: sandbox; Owner: -
--

ALTER TABLE ONLY sandbox.simulated_providers
    ADD CONSTRAINT simulated_providers_pkey PRIMARY KEY (provider_id);


--
-- Name: simulations simulations_pkey; Type: CONSTRAINT; Schema: sandbox; Owner: -
--

ALTER TABLE ONLY sandbox.simulations
    ADD CONSTRAINT simulations_pkey PRIMARY KEY (case_guid);


--
-- Name: simulations_due; Type: INDEX; Schema: sandbox; Owner: -
--

CREATE INDEX simulations_due ON sandbox.simulations USING btree (due_at) WHERE ((state)::text = 'running'::text);


--
-- PostgreSQL database dump complete
--


