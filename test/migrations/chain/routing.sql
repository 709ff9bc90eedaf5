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
-- Name: routing; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA routing;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: competences; Type: TABLE; Schema: routing; Owner: -
--

CREATE TABLE routing.competences (
    id integer NOT NULL,
    partner_id integer NOT NULL,
    rule jsonb NOT NULL
);


--
-- Name: knex_migrations; Type: TABLE; Schema: routing; Owner: -
--

CREATE TABLE routing.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: routing; Owner: -
--

CREATE SEQUENCE routing.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: routing; Owner: -
--

ALTER SEQUENCE routing.knex_migrations_id_seq OWNED BY routing.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: routing; Owner: -
--

CREATE TABLE routing.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: routing; Owner: -
--

CREATE SEQUENCE routing.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: routing; Owner: -
--

ALTER SEQUENCE routing.knex_migrations_lock_index_seq OWNED BY routing.knex_migrations_lock.index;


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: routing; Owner: -
--

ALTER TABLE ONLY routing.knex_migrations ALTER COLUMN id SET DEFAULT nextval('routing.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: routing; Owner: -
--

ALTER TABLE ONLY routing.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('routing.knex_migrations_lock_index_seq'::regclass);


--
-- Name: competences competences_pkey; Type: CONSTRAINT; Schema: routing; Owner: -
--

ALTER TABLE ONLY routing.competences
    ADD CONSTRAINT competences_pkey PRIMARY KEY (id);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: routing; Owner: -
--

ALTER TABLE ONLY routing.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: routing; Owner: -
--

ALTER TABLE ONLY routing.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: competences_partner_id_index; Type: INDEX; Schema: routing; Owner: -
--

CREATE INDEX competences_partner_id_index ON routing.competences USING btree (partner_id);


--
-- PostgreSQL database dump complete
--


