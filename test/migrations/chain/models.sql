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
-- Name: models; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA models;


--
-- Name: keep_search_suffixes(); Type: FUNCTION; Schema: models; Owner: -
--

CREATE FUNCTION models.keep_search_suffixes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      if tg_op = 'INSERT' then
        insert into models.search_suffixes (suffix, model_id, manufacturer_id)
          select x.suffix, n.id, n.manufacturer_id from new_rows n, models.suffixes_of(n.search_text) as x(suffix);
      elsif tg_op = 'DELETE' then
        delete from models.search_suffixes s
          using (select o.id, x.suffix from old_rows o, models.suffixes_of(o.search_text) as x(suffix)) gone
          where s.suffix = gone.suffix and s.model_id = gone.id;
      else
        delete from models.search_suffixes s
          using (select o.id, x.suffix from old_rows o join new_rows n on n.id = o.id, models.suffixes_of(o.search_text) as x(suffix)
                  where n.search_text <> o.search_text or n.manufacturer_id <> o.manufacturer_id) gone
          where s.suffix = gone.suffix and s.model_id = gone.id;
        -- A conflict only with a suffix the first fill wrote from a model's earlier row.
        insert into models.search_suffixes (suffix, model_id, manufacturer_id)
          select x.suffix, n.id, n.manufacturer_id from new_rows n join old_rows o on o.id = n.id, models.suffixes_of(n.search_text) as x(suffix)
          where n.search_text <> o.search_text or n.manufacturer_id <> o.manufacturer_id
          on conflict (suffix, model_id) do update set manufacturer_id = excluded.manufacturer_id;
      end if;
      return null;
    end $$;


--
-- Name: keep_search_trigrams(); Type: FUNCTION; Schema: models; Owner: -
--

CREATE FUNCTION models.keep_search_trigrams() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      if tg_op = 'UPDATE' and new.search_text is not distinct from old.search_text then
        new.search_trigrams := old.search_trigrams;
      else
        new.search_trigrams := models.trigram_ids(new.search_text);
      end if;
      return new;
    end $$;


--
-- Name: lowered(text[]); Type: FUNCTION; Schema: models; Owner: -
--

CREATE FUNCTION models.lowered(items text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ select array(select lower(item) from unnest(items) as item) $$;


--
-- Name: suffixes_of(text); Type: FUNCTION; Schema: models; Owner: -
--

CREATE FUNCTION models.suffixes_of(search_text text) RETURNS SETOF text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ select distinct substr(word, start) from unnest(string_to_array(search_text, ' ')) as word,
                 generate_series(1, length(word) - 1) as start $$;


--
-- Name: trigram_ids(text); Type: FUNCTION; Schema: models; Owner: -
--

CREATE FUNCTION models.trigram_ids(search_text text) RETURNS integer[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ select coalesce(array_agg(id order by id), '{}') from (
            select distinct case when length(trigram) = 3
                                 then (get_byte(bytes, 0) << 16) | (get_byte(bytes, 1) << 8) | get_byte(bytes, 2)
                                 else ('x' || substr(trigram, 3))::bit(24)::int end as id
              from unnest(show_trgm(search_text)) as trigram,
                   convert_to(trigram, getdatabaseencoding()) as bytes) ids $$;


--
-- Name: trigram_similarity(integer[], integer[]); Type: FUNCTION; Schema: models; Owner: -
--

CREATE FUNCTION models.trigram_similarity(kept integer[], query integer[]) RETURNS real
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select case when cardinality(kept) = 0 or cardinality(query) = 0 then 0::real
                      else cardinality(kept operator(models.&) query)::real
                           / (cardinality(kept) + cardinality(query) - cardinality(kept operator(models.&) query))::real end $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: idempotency_keys; Type: TABLE; Schema: models; Owner: -
--

CREATE TABLE models.idempotency_keys (
    account_id integer NOT NULL,
    action character varying(128) NOT NULL,
    key character varying(255) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status smallint,
    answer json,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: knex_migrations; Type: TABLE; Schema: models; Owner: -
--

CREATE TABLE models.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: models; Owner: -
--

CREATE SEQUENCE models.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: models; Owner: -
--

ALTER SEQUENCE models.knex_migrations_id_seq OWNED BY models.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: models; Owner: -
--

CREATE TABLE models.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: models; Owner: -
--

CREATE SEQUENCE models.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: models; Owner: -
--

ALTER SEQUENCE models.knex_migrations_lock_index_seq OWNED BY models.knex_migrations_lock.index;


--
-- Name: models; Type: TABLE; Schema: models; Owner: -
--

CREATE TABLE models.models (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    mpn character varying(255) NOT NULL,
    manufacturer_id integer NOT NULL,
    product_type_id integer NOT NULL,
    aliases text[] DEFAULT '{}'::text[] NOT NULL,
    tags jsonb DEFAULT '[]'::jsonb NOT NULL,
    country_of_origin character varying(255),
    taric_se character varying(64),
    taric_no character varying(64),
    value numeric(12,2),
    weight numeric(12,2),
    search_text text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    search_trigrams integer[],
    CONSTRAINT search_trigrams_kept CHECK ((search_trigrams IS NOT NULL))
);


--
-- Name: models_id_seq; Type: SEQUENCE; Schema: models; Owner: -
--

CREATE SEQUENCE models.models_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: models_id_seq; Type: SEQUENCE OWNED BY; Schema: models; Owner: -
--

ALTER SEQUENCE models.models_id_seq OWNED BY models.models.id;


--
-- Name: retention_runs; Type: TABLE; Schema: models; Owner: -
--

CREATE TABLE models.retention_runs (
    rule character varying(64) NOT NULL,
    table_name character varying(128) NOT NULL,
    ran_at timestamp with time zone NOT NULL,
    removed bigint NOT NULL,
    removed_total bigint NOT NULL
);


--
-- Name: search_suffixes; Type: TABLE; Schema: models; Owner: -
--

CREATE TABLE models.search_suffixes (
    suffix text NOT NULL COLLATE pg_catalog."C",
    model_id integer NOT NULL,
    manufacturer_id integer NOT NULL
);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.knex_migrations ALTER COLUMN id SET DEFAULT nextval('models.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('models.knex_migrations_lock_index_seq'::regclass);


--
-- Name: models id; Type: DEFAULT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.models ALTER COLUMN id SET DEFAULT nextval('models.models_id_seq'::regclass);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (account_id, action, key);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: models models_pkey; Type: CONSTRAINT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.models
    ADD CONSTRAINT models_pkey PRIMARY KEY (id);


--
-- Name: retention_runs retention_runs_pkey; Type: CONSTRAINT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.retention_runs
    ADD CONSTRAINT retention_runs_pkey PRIMARY KEY (rule);


--
-- Name: search_suffixes search_suffixes_pkey; Type: CONSTRAINT; Schema: models; Owner: -
--

ALTER TABLE ONLY models.search_suffixes
    ADD CONSTRAINT search_suffixes_pkey PRIMARY KEY (suffix, model_id);


--
-- Name: idempotency_keys_created_at_index; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX idempotency_keys_created_at_index ON models.idempotency_keys USING btree (created_at);


--
-- Name: models_aliases_lowered; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX models_aliases_lowered ON models.models USING gin (models.lowered(aliases));


--
-- Name: models_manufacturer_name; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX models_manufacturer_name ON models.models USING btree (manufacturer_id, lower((name)::text) COLLATE "C", id);


--
-- Name: models_mpn_manufacturer; Type: INDEX; Schema: models; Owner: -
--

CREATE UNIQUE INDEX models_mpn_manufacturer ON models.models USING btree (lower((mpn)::text), manufacturer_id);


--
-- Name: models_mpn_prefix; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX models_mpn_prefix ON models.models USING btree (lower((mpn)::text) COLLATE "C", id);


--
-- Name: models_name_manufacturer; Type: INDEX; Schema: models; Owner: -
--

CREATE UNIQUE INDEX models_name_manufacturer ON models.models USING btree (lower((name)::text), manufacturer_id);


--
-- Name: models_name_prefix; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX models_name_prefix ON models.models USING btree (lower((name)::text) COLLATE "C", id);


--
-- Name: models_product_type_name; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX models_product_type_name ON models.models USING btree (product_type_id, lower((name)::text) COLLATE "C", id);


--
-- Name: models_search_trgm; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX models_search_trgm ON models.models USING gin (search_text public.gin_trgm_ops) WITH (gin_pending_list_limit='256');


--
-- Name: search_suffixes_manufacturer; Type: INDEX; Schema: models; Owner: -
--

CREATE INDEX search_suffixes_manufacturer ON models.search_suffixes USING btree (manufacturer_id, suffix, model_id);


--
-- Name: models search_suffixes_delete; Type: TRIGGER; Schema: models; Owner: -
--

CREATE TRIGGER search_suffixes_delete AFTER DELETE ON models.models REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION models.keep_search_suffixes();


--
-- Name: models search_suffixes_insert; Type: TRIGGER; Schema: models; Owner: -
--

CREATE TRIGGER search_suffixes_insert AFTER INSERT ON models.models REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION models.keep_search_suffixes();


--
-- Name: models search_suffixes_update; Type: TRIGGER; Schema: models; Owner: -
--

CREATE TRIGGER search_suffixes_update AFTER UPDATE ON models.models REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION models.keep_search_suffixes();


--
-- Name: models search_trigrams; Type: TRIGGER; Schema: models; Owner: -
--

CREATE TRIGGER search_trigrams BEFORE INSERT OR UPDATE OF search_text ON models.models FOR EACH ROW EXECUTE FUNCTION models.keep_search_trigrams();


--
-- PostgreSQL database dump complete
--


