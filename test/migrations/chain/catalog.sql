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
-- Name: catalog; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA catalog;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: accessories; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.accessories (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    product_types jsonb DEFAULT '[]'::jsonb NOT NULL
);


--
-- Name: accounts; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.accounts (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    role character varying(16) NOT NULL,
    partner_id integer,
    provider_id integer,
    token_sha256 character varying(64) NOT NULL,
    can_force_provider boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    allow_all_providers boolean DEFAULT false NOT NULL,
    CONSTRAINT accounts_role_owner CHECK (((((role)::text = 'partner'::text) AND (partner_id IS NOT NULL) AND (provider_id IS NULL)) OR (((role)::text = 'provider'::text) AND (provider_id IS NOT NULL) AND (partner_id IS NULL)) OR (((role)::text = 'admin'::text) AND (partner_id IS NULL) AND (provider_id IS NULL))))
);


--
-- Name: accounts_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.accounts_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: accounts_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.accounts_id_seq OWNED BY catalog.accounts.id;


--
-- Name: contacts; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.contacts (
    id integer NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: contacts_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.contacts_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: contacts_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.contacts_id_seq OWNED BY catalog.contacts.id;


--
-- Name: departments; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.departments (
    id integer NOT NULL,
    provider_id integer NOT NULL,
    name character varying(255) NOT NULL,
    external_data jsonb,
    contact_id integer
);


--
-- Name: knex_migrations; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.knex_migrations_id_seq OWNED BY catalog.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.knex_migrations_lock_index_seq OWNED BY catalog.knex_migrations_lock.index;


--
-- Name: manufacturers; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.manufacturers (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    aliases jsonb DEFAULT '[]'::jsonb NOT NULL,
    properties jsonb DEFAULT '{}'::jsonb NOT NULL,
    external_data jsonb
);


--
-- Name: partners; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.partners (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    contact_id integer,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL
);


--
-- Name: product_types; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.product_types (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    aliases jsonb DEFAULT '[]'::jsonb NOT NULL,
    properties jsonb DEFAULT '{}'::jsonb NOT NULL,
    external_data jsonb
);


--
-- Name: providers; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.providers (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    contact_id integer
);


--
-- Name: service_locations; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.service_locations (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    aliases jsonb DEFAULT '[]'::jsonb NOT NULL,
    properties jsonb DEFAULT '{}'::jsonb NOT NULL,
    external_data jsonb
);


--
-- Name: service_types; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.service_types (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    aliases jsonb DEFAULT '[]'::jsonb NOT NULL,
    properties jsonb DEFAULT '{}'::jsonb NOT NULL,
    external_data jsonb
);


--
-- Name: shipping_methods; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.shipping_methods (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    properties jsonb NOT NULL,
    require_weight boolean DEFAULT false NOT NULL,
    require_volume boolean DEFAULT false NOT NULL,
    calendar jsonb
);


--
-- Name: status_blacklists; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.status_blacklists (
    partner_id integer NOT NULL,
    key character varying(64) NOT NULL
);


--
-- Name: status_mappings; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.status_mappings (
    partner_id integer NOT NULL,
    provider_key character varying(64) NOT NULL,
    partner_key character varying(64) NOT NULL
);


--
-- Name: accounts id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.accounts ALTER COLUMN id SET DEFAULT nextval('catalog.accounts_id_seq'::regclass);


--
-- Name: contacts id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.contacts ALTER COLUMN id SET DEFAULT nextval('catalog.contacts_id_seq'::regclass);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.knex_migrations ALTER COLUMN id SET DEFAULT nextval('catalog.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('catalog.knex_migrations_lock_index_seq'::regclass);


--
-- Name: accessories accessories_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.accessories
    ADD CONSTRAINT accessories_pkey PRIMARY KEY (id);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: accounts accounts_token_sha256_unique; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.accounts
    ADD CONSTRAINT accounts_token_sha256_unique UNIQUE (token_sha256);


--
-- Name: contacts contacts_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.contacts
    ADD CONSTRAINT contacts_pkey PRIMARY KEY (id);


--
-- Name: departments departments_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.departments
    ADD CONSTRAINT departments_pkey PRIMARY KEY (id);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: manufacturers manufacturers_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.manufacturers
    ADD CONSTRAINT manufacturers_pkey PRIMARY KEY (id);


--
-- Name: partners partners_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.partners
    ADD CONSTRAINT partners_pkey PRIMARY KEY (id);


--
-- Name: product_types product_types_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.product_types
    ADD CONSTRAINT product_types_pkey PRIMARY KEY (id);


--
-- Name: providers providers_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.providers
    ADD CONSTRAINT providers_pkey PRIMARY KEY (id);


--
-- Name: service_locations service_locations_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.service_locations
    ADD CONSTRAINT service_locations_pkey PRIMARY KEY (id);


--
-- Name: service_types service_types_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.service_types
    ADD CONSTRAINT service_types_pkey PRIMARY KEY (id);


--
-- Name: shipping_methods shipping_methods_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.shipping_methods
    ADD CONSTRAINT shipping_methods_pkey PRIMARY KEY (id);


--
-- Name: status_blacklists status_blacklists_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.status_blacklists
    ADD CONSTRAINT status_blacklists_pkey PRIMARY KEY (partner_id, key);


--
-- Name: status_mappings status_mappings_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.status_mappings
    ADD CONSTRAINT status_mappings_pkey PRIMARY KEY (partner_id, provider_key);


--
-- Name: accounts accounts_partner_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.accounts
    ADD CONSTRAINT accounts_partner_id_foreign FOREIGN KEY (partner_id) REFERENCES catalog.partners(id);


--
-- Name: accounts accounts_provider_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.accounts
    ADD CONSTRAINT accounts_provider_id_foreign FOREIGN KEY (provider_id) REFERENCES catalog.providers(id);


--
-- Name: departments departments_contact_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.departments
    ADD CONSTRAINT departments_contact_id_foreign FOREIGN KEY (contact_id) REFERENCES catalog.contacts(id);


--
-- Name: departments departments_provider_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.departments
    ADD CONSTRAINT departments_provider_id_foreign FOREIGN KEY (provider_id) REFERENCES catalog.providers(id);


--
-- Name: partners partners_contact_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.partners
    ADD CONSTRAINT partners_contact_id_foreign FOREIGN KEY (contact_id) REFERENCES catalog.contacts(id);


--
-- Name: providers providers_contact_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.providers
    ADD CONSTRAINT providers_contact_id_foreign FOREIGN KEY (contact_id) REFERENCES catalog.contacts(id);


--
-- PostgreSQL database dump complete
--


