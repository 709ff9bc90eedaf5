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
-- Name: webhooks; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA webhooks;


--
-- Name: claim_due(uuid, jsonb, integer, integer, integer); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.claim_due(worker uuid, held jsonb, max_count integer, lease_ms integer, depth integer) RETURNS SETOF jsonb
    LANGUAGE plpgsql
    AS $$
  declare
    enable_seqscan_before text := current_setting('enable_seqscan');
    jit_before text := current_setting('jit');
  begin
    perform set_config('synchronous_commit', 'off', true);
    perform set_config('enable_seqscan', 'off', true);
    perform set_config('jit', 'off', true);
    perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));
    -- The counts of workers that died: their leases have all run out.
    delete from webhooks.held_leases where until < now();
    return query
    with mine as (
      select * from jsonb_to_recordset(held) as m(subscription_id integer, leases integer, unfinished integer)
    ),
    room as (
      select s.id, s.max_in_flight - others.leases as cap,
             depth * (s.max_in_flight - others.leases) - coalesce(m.unfinished, 0) as free
        from webhooks.subscriptions s
        left join mine m on m.subscription_id = s.id
       cross join lateral (select coalesce(sum(h.leases), 0) as leases from webhooks.held_leases h
                            where h.subscription_id = s.id and h.worker_id <> worker) others
       where s.state = 'active'
    ),

      chosen as (
        select due.id, due.occurred_at, room.id as subscription_id, room.cap from room
         cross join lateral (
           select d.id, d.occurred_at, d.next_attempt_at from webhooks.deliveries d
            where d.subscription_id = room.id and d.state = 'pending' and d.next_attempt_at <= now()
              and (d.lease_until is null or d.lease_until < now())
              and not exists (select 1 from webhooks.deliveries e
                               where e.case_guid = d.case_guid and e.subscription_id + 0 = d.subscription_id
                                 and e.state = 'pending' and e.id + 0 < d.id offset 0)
            order by d.next_attempt_at, d.id
            limit greatest(room.free, 0)
            for update of d skip locked
         ) due
         order by due.next_attempt_at, due.id
         limit max_count
      ),
      leased as (
        update webhooks.deliveries d set lease_until = now() + (lease_ms * interval '1 millisecond')
          from chosen
         where d.id = chosen.id and d.occurred_at = chosen.occurred_at
         returning d.id, d.event_id, d.webhook_id, d.subscription_id, d.event_type, d.case_sequence, d.payload,
                   d.occurred_at, d.attempts, d.cycle_attempts, d.lease_until, chosen.cap
      ),
    holding as (
      select subscription_id, sum(leases) as leases from (
        select subscription_id, leases from mine
        union all
        select subscription_id, 1 from leased
      ) every_lease group by subscription_id
    ),
    leases_counted as (
      insert into webhooks.held_leases as h (worker_id, subscription_id, leases, until)
      select worker, subscription_id, leases, now() + (lease_ms * interval '1 millisecond') from holding
      on conflict (worker_id, subscription_id) do update set leases = excluded.leases, until = excluded.until
    ),
    let_go as (
      delete from webhooks.held_leases h
       where h.worker_id = worker and h.subscription_id not in (select subscription_id from holding)
    )

      select to_jsonb(leased) from leased
      union all
      select jsonb_build_object('subscription', to_jsonb(s)) from webhooks.subscriptions s
       where s.id in (select subscription_id from leased);
    perform set_config('enable_seqscan', enable_seqscan_before, true);
    perform set_config('jit', jit_before, true);
  end
  $$;


--
-- Name: count_subscription_change(); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.count_subscription_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      update webhooks.subscription_changes set version = version + 1;
      return null;
    end
    $$;


--
-- Name: record_attempts(uuid, jsonb); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.record_attempts(worker uuid, outcomes jsonb) RETURNS void
    LANGUAGE plpgsql
    SET enable_hashjoin TO 'off'
    SET enable_mergejoin TO 'off'
    SET enable_seqscan TO 'off'
    SET jit TO 'off'
    AS $$
  begin
    perform set_config('synchronous_commit', 'off', true);
    with outcome as (
      select * from jsonb_to_recordset(outcomes) as o(
        delivery_id bigint, delivery_occurred_at timestamptz, subscription_id integer, attempt integer,
        cycle_attempts integer, started_at timestamptz, latency_ms integer, ok boolean, status_code integer,
        error_kind text, error text, response_excerpt text, state text, retry_in_ms integer)
    ),
    logged as (
      insert into webhooks.attempts (delivery_id, delivery_occurred_at, attempt, started_at, latency_ms, ok,
                                     status_code, error_kind, error, response_excerpt)
      select delivery_id, delivery_occurred_at, attempt, started_at, latency_ms, ok, status_code, error_kind,
             error, response_excerpt
        from outcome
    ),
    moved as (
      update webhooks.deliveries d
         set attempts = o.attempt, cycle_attempts = o.cycle_attempts, lease_until = null, state = o.state,
             last_error = case when o.ok then null else o.error end,
             next_attempt_at = case when o.state = 'pending' then now() + (o.retry_in_ms * interval '1 millisecond')
                                    else d.next_attempt_at end,
             finished_at = case when o.state = 'pending' then d.finished_at else now() end
        from outcome o
       where d.id = o.delivery_id and d.occurred_at = o.delivery_occurred_at
    ),
    released as (
      update webhooks.held_leases h set leases = greatest(h.leases - r.recorded, 0)
        from (select subscription_id, count(*) as recorded from outcome group by subscription_id) r
       where h.worker_id = worker and h.subscription_id = r.subscription_id
    )
    update webhooks.subscriptions s
       set state = 'disabled', state_reason = 'The receiver answered 410 Gone', updated_at = now()
      from outcome o
     where o.error_kind = 'gone' and s.id = o.subscription_id and s.state = 'active';
  end
  $$;


--
-- Name: store_addressed_webhooks(jsonb, integer, bigint); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.store_addressed_webhooks(given jsonb, first_delay_ms integer, addressed_at bigint) RETURNS integer
    LANGUAGE plpgsql
    AS $$
    begin
      if addressed_at is distinct from (select version from webhooks.subscription_changes) then
        raise exception 'The subscriptions changed after version % that addressed these webhooks', addressed_at
          using errcode = 'WH001';
      end if;
      return webhooks.store_webhooks(given, first_delay_ms);
    end
    $$;


--
-- Name: store_and_lease(jsonb, integer, bigint, uuid, jsonb, integer, integer, integer); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.store_and_lease(given jsonb, first_delay_ms integer, addressed_at bigint, worker uuid, held jsonb, max_count integer, lease_ms integer, depth integer) RETURNS SETOF jsonb
    LANGUAGE plpgsql
    AS $$
    begin
      if addressed_at is distinct from (select version from webhooks.subscription_changes) then
        raise exception 'The subscriptions changed after version % that addressed these webhooks', addressed_at
          using errcode = 'WH001';
      end if;
      -- Heads first, in one order, each made on its party's first webhook.
      insert into webhooks.feed_heads (party_kind, party_id)
      select distinct p.party_kind, p.party_id from jsonb_to_recordset(given) as p(party_kind text, party_id integer)
       order by p.party_kind, p.party_id
      on conflict (party_kind, party_id) do update set last_position = webhooks.feed_heads.last_position;
      -- Leases take turns with claims across instances: each counts the others' leases (migration 20261208100000).
      perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));

      -- A statement of its own, so its snapshot holds every webhook stored before the heads were ours.
      return query
      with given_webhooks as (
        select * from rows from (jsonb_to_recordset(given) as (
          party_kind text, party_id integer, event_id uuid, webhook_id text, event_type text, case_guid uuid,
          payload jsonb, occurred_at timestamptz, subscriptions integer[])
        ) with ordinality as w(party_kind, party_id, event_id, webhook_id, event_type, case_guid, payload, occurred_at, subscriptions, ord)
      ),
      fresh as (
        -- A correlated NOT IN stays a lookup per webhook, by its id alone, whatever the statistics.
        select * from given_webhooks w
         where (w.party_kind, w.party_id) not in (select f.party_kind, f.party_id from webhooks.feed f
                                                   where f.webhook_id = w.webhook_id)
      ),
      case_events as (
        -- A case's events in the order of their first webhooks; the webhooks of one event share its number.
        select party_kind, party_id, case_guid, event_id,
               row_number() over (partition by party_kind, party_id, case_guid order by min(ord)) as nth,
               count(*) over (partition by party_kind, party_id, case_guid) as events
          from fresh where case_guid is not null
         group by party_kind, party_id, case_guid, event_id
      ),
      counted as (
        insert into webhooks.case_sequences as s (party_kind, party_id, case_guid, last_sequence)
        select distinct party_kind, party_id, case_guid, events from case_events
        on conflict (party_kind, party_id, case_guid) do update set last_sequence = s.last_sequence + excluded.last_sequence
        returning party_kind, party_id, case_guid, last_sequence
      ),
      case_numbered as materialized (
        select w.*, c.last_sequence - e.events + e.nth as case_sequence
          from fresh w
          left join case_events e
            on e.party_kind = w.party_kind and e.party_id = w.party_id and e.case_guid = w.case_guid and e.event_id = w.event_id
          left join counted c on c.party_kind = w.party_kind and c.party_id = w.party_id and c.case_guid = w.case_guid
      ),
      numbered as (
        select w.*, h.last_position + row_number() over (partition by w.party_kind, w.party_id order by w.ord) as position
          from case_numbered w
          join webhooks.feed_heads h on h.party_kind = w.party_kind and h.party_id = w.party_id
      ),
      numbered_payloads as (
        -- The number goes in the payload too, so the feed, the body and the header say the same.
        select n.*, case when n.case_sequence is null then n.payload
                         else n.payload || jsonb_build_object('caseSequence', n.case_sequence) end as sent
          from numbered n
      ),
      filed as (
        -- clock_timestamp(): positions and times rise together (feed.store.ts).
        insert into webhooks.feed (party_kind, party_id, position, event_id, webhook_id, event_type, case_guid,
                                   case_sequence, payload, occurred_at, created_at)
        select party_kind, party_id, position, event_id, webhook_id, event_type, case_guid, case_sequence, sent,
               occurred_at, clock_timestamp()
          from numbered_payloads order by party_kind, party_id, position
      ),
      moved as (
        update webhooks.feed_heads h set last_position = h.last_position + n.webhooks
          from (select party_kind, party_id, count(*) as webhooks from fresh group by party_kind, party_id) n
         where h.party_kind = n.party_kind and h.party_id = n.party_id
      ),
      mine as (
      select * from jsonb_to_recordset(held) as m(subscription_id integer, leases integer, unfinished integer)
    ),
    room as (
      select s.id, s.max_in_flight - others.leases as cap,
             depth * (s.max_in_flight - others.leases) - coalesce(m.unfinished, 0) as free
        from webhooks.subscriptions s
        left join mine m on m.subscription_id = s.id
       cross join lateral (select coalesce(sum(h.leases), 0) as leases from webhooks.held_leases h
                            where h.subscription_id = s.id and h.worker_id <> worker) others
       where s.state = 'active'
    ),
      addressed as (
        select n.*, s.id as subscription_id, s.nth,
               row_number() over (partition by s.id, n.case_guid order by n.ord, s.nth) as nth_of_case
          from numbered_payloads n cross join unnest(n.subscriptions) with ordinality as s(id, nth)
      ),
      leasable as (
        select a.ord, a.nth, room.free,
               row_number() over (partition by a.subscription_id order by a.ord, a.nth) as place
          from addressed a join room on room.id = a.subscription_id
         where first_delay_ms <= 0
           and (a.case_guid is null
                or a.nth_of_case = 1
                   and not exists (select 1 from webhooks.deliveries e
                                    where e.case_guid = a.case_guid and e.subscription_id + 0 = a.subscription_id
                                      and e.state = 'pending' offset 0))
      ),
      leasing as (
        select ord, nth from (
          select l.*, row_number() over (order by l.ord, l.nth) as overall from leasable l where l.place <= l.free
        ) within_room
         where overall <= max_count
      ),
      delivered as (
        -- In the order of the webhooks, so the ids of a case's deliveries rise with its numbers.
        -- Milliseconds, as the row's time travels through JavaScript to find its partition again.
        insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, case_guid, case_sequence,
                                         payload, occurred_at, next_attempt_at, lease_until)
        select a.event_id, a.webhook_id, a.subscription_id, a.event_type, a.case_guid, a.case_sequence, a.sent,
               date_trunc('milliseconds', a.occurred_at), now() + (first_delay_ms * interval '1 millisecond'),
               case when l.ord is null then null else now() + (lease_ms * interval '1 millisecond') end
          from addressed a left join leasing l on l.ord = a.ord and l.nth = a.nth
         order by a.ord, a.nth
        returning id, event_id, webhook_id, subscription_id, event_type, case_sequence, payload, occurred_at,
                  attempts, cycle_attempts, lease_until
      ),
      leased as (
        select d.* from delivered d where d.lease_until is not null
      ),
    holding as (
      select subscription_id, sum(leases) as leases from (
        select subscription_id, leases from mine
        union all
        select subscription_id, 1 from leased
      ) every_lease group by subscription_id
    ),
    leases_counted as (
      insert into webhooks.held_leases as h (worker_id, subscription_id, leases, until)
      select worker, subscription_id, leases, now() + (lease_ms * interval '1 millisecond') from holding
      on conflict (worker_id, subscription_id) do update set leases = excluded.leases, until = excluded.until
    ),
    let_go as (
      delete from webhooks.held_leases h
       where h.worker_id = worker and h.subscription_id not in (select subscription_id from holding)
    )
      select jsonb_build_object('stored', (select count(*) from delivered))
      union all
      select jsonb_build_object('subscription', to_jsonb(s), 'cap', room.cap)
        from webhooks.subscriptions s join room on room.id = s.id
       where s.id in (select subscription_id from leased)
      union all
      select jsonb_build_object('event_id', event_id, 'webhook_id', webhook_id, 'event_type', event_type,
                                'case_sequence', case_sequence, 'payload', payload, 'occurred_at', occurred_at,
                                'attempts', attempts, 'cycle_attempts', cycle_attempts, 'lease_until', lease_until,
                                'deliveries', jsonb_agg(jsonb_build_array(id, subscription_id)))
        from leased
       group by event_id, webhook_id, event_type, case_sequence, payload, occurred_at, attempts, cycle_attempts,
                lease_until;
    end
    $$;


--
-- Name: store_webhooks(jsonb, integer); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.store_webhooks(given jsonb, first_delay_ms integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
    declare
      stored integer;
    begin
      -- Heads first, in one order, each made on its party's first webhook.
      insert into webhooks.feed_heads (party_kind, party_id)
      select distinct p.party_kind, p.party_id from jsonb_to_recordset(given) as p(party_kind text, party_id integer)
       order by p.party_kind, p.party_id
      on conflict (party_kind, party_id) do update set last_position = webhooks.feed_heads.last_position;

      -- A statement of its own, so its snapshot holds every webhook stored before the heads were ours.
      with given_webhooks as (
        select * from rows from (jsonb_to_recordset(given) as (
          party_kind text, party_id integer, event_id uuid, webhook_id text, event_type text, case_guid uuid,
          payload jsonb, occurred_at timestamptz, subscriptions integer[])
        ) with ordinality as w(party_kind, party_id, event_id, webhook_id, event_type, case_guid, payload, occurred_at, subscriptions, ord)
      ),
      fresh as (
        -- A correlated NOT IN stays a lookup per webhook, by its id alone, whatever the statistics.
        select * from given_webhooks w
         where (w.party_kind, w.party_id) not in (select f.party_kind, f.party_id from webhooks.feed f
                                                   where f.webhook_id = w.webhook_id)
      ),
      case_events as (
        -- A case's events in the order of their first webhooks; the webhooks of one event share its number.
        select party_kind, party_id, case_guid, event_id,
               row_number() over (partition by party_kind, party_id, case_guid order by min(ord)) as nth,
               count(*) over (partition by party_kind, party_id, case_guid) as events
          from fresh where case_guid is not null
         group by party_kind, party_id, case_guid, event_id
      ),
      counted as (
        insert into webhooks.case_sequences as s (party_kind, party_id, case_guid, last_sequence)
        select distinct party_kind, party_id, case_guid, events from case_events
        on conflict (party_kind, party_id, case_guid) do update set last_sequence = s.last_sequence + excluded.last_sequence
        returning party_kind, party_id, case_guid, last_sequence
      ),
      case_numbered as materialized (
        select w.*, c.last_sequence - e.events + e.nth as case_sequence
          from fresh w
          left join case_events e
            on e.party_kind = w.party_kind and e.party_id = w.party_id and e.case_guid = w.case_guid and e.event_id = w.event_id
          left join counted c on c.party_kind = w.party_kind and c.party_id = w.party_id and c.case_guid = w.case_guid
      ),
      numbered as (
        select w.*, h.last_position + row_number() over (partition by w.party_kind, w.party_id order by w.ord) as position
          from case_numbered w
          join webhooks.feed_heads h on h.party_kind = w.party_kind and h.party_id = w.party_id
      ),
      numbered_payloads as (
        -- The number goes in the payload too, so the feed, the body and the header say the same.
        select n.*, case when n.case_sequence is null then n.payload
                         else n.payload || jsonb_build_object('caseSequence', n.case_sequence) end as sent
          from numbered n
      ),
      filed as (
        -- clock_timestamp(): positions and times rise together (feed.store.ts).
        insert into webhooks.feed (party_kind, party_id, position, event_id, webhook_id, event_type, case_guid,
                                   case_sequence, payload, occurred_at, created_at)
        select party_kind, party_id, position, event_id, webhook_id, event_type, case_guid, case_sequence, sent,
               occurred_at, clock_timestamp()
          from numbered_payloads order by party_kind, party_id, position
      ),
      moved as (
        update webhooks.feed_heads h set last_position = h.last_position + n.webhooks
          from (select party_kind, party_id, count(*) as webhooks from fresh group by party_kind, party_id) n
         where h.party_kind = n.party_kind and h.party_id = n.party_id
      ),
      delivered as (
        -- In the order of the webhooks, so the ids of a case's deliveries rise with its numbers.
        -- Milliseconds, as the row's time travels through JavaScript to find its partition again.
        insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, case_guid, case_sequence,
                                         payload, occurred_at, next_attempt_at)
        select n.event_id, n.webhook_id, s.id, n.event_type, n.case_guid, n.case_sequence, n.sent,
               date_trunc('milliseconds', n.occurred_at), now() + (first_delay_ms * interval '1 millisecond')
          from numbered_payloads n cross join unnest(n.subscriptions) with ordinality as s(id, nth)
         order by n.ord, s.nth
        returning 1
      )
      select count(*) into stored from delivered;
      return stored;
    end
    $$;


SET default_tablespace = '';

--
-- Name: attempts; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.attempts (
    id bigint NOT NULL,
    delivery_id bigint NOT NULL,
    delivery_occurred_at timestamp with time zone NOT NULL,
    attempt integer NOT NULL,
    started_at timestamp with time zone NOT NULL,
    latency_ms integer NOT NULL,
    ok boolean NOT NULL,
    status_code integer,
    error_kind character varying(32),
    error text,
    response_excerpt text
)
PARTITION BY RANGE (delivery_occurred_at);
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN delivery_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN delivery_occurred_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN attempt SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN started_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN latency_ms SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN ok SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN status_code SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN error_kind SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN error SET STATISTICS 0;
ALTER TABLE ONLY webhooks.attempts ALTER COLUMN response_excerpt SET STATISTICS 0;


--
-- Name: attempts_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: attempts_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.attempts_id_seq OWNED BY webhooks.attempts.id;


SET default_table_access_method = heap;

--
-- Name: attempts_default; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.attempts_default (
    id bigint DEFAULT nextval('webhooks.attempts_id_seq'::regclass) NOT NULL,
    delivery_id bigint NOT NULL,
    delivery_occurred_at timestamp with time zone NOT NULL,
    attempt integer NOT NULL,
    started_at timestamp with time zone NOT NULL,
    latency_ms integer NOT NULL,
    ok boolean NOT NULL,
    status_code integer,
    error_kind character varying(32),
    error text,
    response_excerpt text
);
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN delivery_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN delivery_occurred_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN attempt SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN started_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN latency_ms SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN ok SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN status_code SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN error_kind SET STATISTICS 10;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN error SET STATISTICS 0;
ALTER TABLE ONLY webhooks.attempts_default ALTER COLUMN response_excerpt SET STATISTICS 0;


--
-- Name: case_sequences; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.case_sequences (
    party_kind character varying(8) NOT NULL,
    party_id integer NOT NULL,
    case_guid uuid NOT NULL,
    last_sequence integer NOT NULL
);


--
-- Name: deliveries; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.deliveries (
    id bigint NOT NULL,
    event_id uuid NOT NULL,
    webhook_id character varying(64) NOT NULL,
    subscription_id integer NOT NULL,
    event_type character varying(64) NOT NULL,
    case_guid uuid,
    payload jsonb NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    state character varying(16) DEFAULT 'pending'::character varying NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    cycle_attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    case_sequence integer
)
PARTITION BY RANGE (occurred_at);
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN event_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN webhook_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN subscription_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN event_type SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN case_guid SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN payload SET STATISTICS 0;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN occurred_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN state SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN attempts SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN cycle_attempts SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN next_attempt_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN lease_until SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN last_error SET STATISTICS 0;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN created_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN finished_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN case_sequence SET STATISTICS 10;


--
-- Name: deliveries_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: deliveries_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.deliveries_id_seq OWNED BY webhooks.deliveries.id;


--
-- Name: deliveries_default; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.deliveries_default (
    id bigint DEFAULT nextval('webhooks.deliveries_id_seq'::regclass) NOT NULL,
    event_id uuid NOT NULL,
    webhook_id character varying(64) NOT NULL,
    subscription_id integer NOT NULL,
    event_type character varying(64) NOT NULL,
    case_guid uuid,
    payload jsonb NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    state character varying(16) DEFAULT 'pending'::character varying NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    cycle_attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    case_sequence integer
)
WITH (fillfactor='50');
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN event_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN webhook_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN subscription_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN event_type SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN case_guid SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN payload SET STATISTICS 0;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN occurred_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN state SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN attempts SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN cycle_attempts SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN next_attempt_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN lease_until SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN last_error SET STATISTICS 0;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN created_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN finished_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.deliveries_default ALTER COLUMN case_sequence SET STATISTICS 10;


--
-- Name: feed; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.feed (
    party_kind character varying(8) NOT NULL,
    party_id integer NOT NULL,
    "position" bigint NOT NULL,
    event_id uuid NOT NULL,
    webhook_id character varying(64) NOT NULL,
    event_type character varying(64) NOT NULL,
    case_guid uuid,
    case_sequence integer,
    payload jsonb NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY webhooks.feed ALTER COLUMN party_kind SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN party_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN "position" SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN event_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN webhook_id SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN event_type SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN case_guid SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN case_sequence SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN payload SET STATISTICS 0;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN occurred_at SET STATISTICS 10;
ALTER TABLE ONLY webhooks.feed ALTER COLUMN created_at SET STATISTICS 10;


--
-- Name: feed_heads; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.feed_heads (
    party_kind character varying(8) NOT NULL,
    party_id integer NOT NULL,
    last_position bigint DEFAULT '0'::bigint NOT NULL
);


--
-- Name: held_leases; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.held_leases (
    worker_id uuid NOT NULL,
    subscription_id integer NOT NULL,
    leases integer NOT NULL,
    until timestamp with time zone NOT NULL
);


--
-- Name: knex_migrations; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.knex_migrations (
    id integer NOT NULL,
    name character varying(255),
    batch integer,
    migration_time timestamp with time zone
);


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.knex_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.knex_migrations_id_seq OWNED BY webhooks.knex_migrations.id;


--
-- Name: knex_migrations_lock; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.knex_migrations_lock (
    index integer NOT NULL,
    is_locked integer
);


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.knex_migrations_lock_index_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: knex_migrations_lock_index_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.knex_migrations_lock_index_seq OWNED BY webhooks.knex_migrations_lock.index;


--
-- Name: retention_runs; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.retention_runs (
    rule character varying(64) NOT NULL,
    table_name character varying(128) NOT NULL,
    ran_at timestamp with time zone NOT NULL,
    removed bigint NOT NULL,
    removed_total bigint NOT NULL
);


--
-- Name: subscription_changes; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.subscription_changes (
    one boolean DEFAULT true NOT NULL,
    version bigint NOT NULL,
    CONSTRAINT subscription_changes_one_check CHECK (one)
);


--
-- Name: subscription_ids; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.subscription_ids
    START WITH 1000000
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: subscriptions; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.subscriptions (
    id integer NOT NULL,
    account_id integer NOT NULL,
    partner_id integer,
    provider_id integer,
    event_types jsonb NOT NULL,
    kind character varying(8) NOT NULL,
    url text NOT NULL,
    method character varying(8),
    headers jsonb DEFAULT '{}'::jsonb NOT NULL,
    queue character varying(255),
    status_transitions jsonb DEFAULT '[]'::jsonb NOT NULL,
    secret character varying(128) NOT NULL,
    previous_secret character varying(128),
    previous_secret_until timestamp with time zone,
    state character varying(16) DEFAULT 'active'::character varying NOT NULL,
    state_reason text,
    max_in_flight integer NOT NULL,
    origin character varying(8) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: attempts_default; Type: TABLE ATTACH; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.attempts ATTACH PARTITION webhooks.attempts_default DEFAULT;


--
-- Name: deliveries_default; Type: TABLE ATTACH; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries ATTACH PARTITION webhooks.deliveries_default DEFAULT;


--
-- Name: attempts id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.attempts ALTER COLUMN id SET DEFAULT nextval('webhooks.attempts_id_seq'::regclass);


--
-- Name: deliveries id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN id SET DEFAULT nextval('webhooks.deliveries_id_seq'::regclass);


--
-- Name: knex_migrations id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.knex_migrations ALTER COLUMN id SET DEFAULT nextval('webhooks.knex_migrations_id_seq'::regclass);


--
-- Name: knex_migrations_lock index; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.knex_migrations_lock ALTER COLUMN index SET DEFAULT nextval('webhooks.knex_migrations_lock_index_seq'::regclass);


--
-- Name: attempts attempts_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.attempts
    ADD CONSTRAINT attempts_pkey PRIMARY KEY (id, delivery_occurred_at);


--
-- Name: attempts_default attempts_default_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.attempts_default
    ADD CONSTRAINT attempts_default_pkey PRIMARY KEY (id, delivery_occurred_at);


--
-- Name: case_sequences case_sequences_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.case_sequences
    ADD CONSTRAINT case_sequences_pkey PRIMARY KEY (party_kind, party_id, case_guid);


--
-- Name: deliveries deliveries_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries
    ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id, occurred_at);


--
-- Name: deliveries_default deliveries_default_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries_default
    ADD CONSTRAINT deliveries_default_pkey PRIMARY KEY (id, occurred_at);


--
-- Name: feed_heads feed_heads_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.feed_heads
    ADD CONSTRAINT feed_heads_pkey PRIMARY KEY (party_kind, party_id);


--
-- Name: feed feed_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.feed
    ADD CONSTRAINT feed_pkey PRIMARY KEY (party_kind, party_id, "position");


--
-- Name: feed feed_webhook_id_party_unique; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.feed
    ADD CONSTRAINT feed_webhook_id_party_unique UNIQUE (webhook_id, party_kind, party_id);


--
-- Name: held_leases held_leases_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.held_leases
    ADD CONSTRAINT held_leases_pkey PRIMARY KEY (worker_id, subscription_id);


--
-- Name: knex_migrations_lock knex_migrations_lock_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.knex_migrations_lock
    ADD CONSTRAINT knex_migrations_lock_pkey PRIMARY KEY (index);


--
-- Name: knex_migrations knex_migrations_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.knex_migrations
    ADD CONSTRAINT knex_migrations_pkey PRIMARY KEY (id);


--
-- Name: retention_runs retention_runs_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.retention_runs
    ADD CONSTRAINT retention_runs_pkey PRIMARY KEY (rule);


--
-- Name: subscription_changes subscription_changes_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.subscription_changes
    ADD CONSTRAINT subscription_changes_pkey PRIMARY KEY (one);


--
-- Name: subscriptions subscriptions_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (id);


--
-- Name: attempts_delivery; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX attempts_delivery ON ONLY webhooks.attempts USING btree (delivery_id, id);


--
-- Name: attempts_default_delivery_id_id_idx; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX attempts_default_delivery_id_id_idx ON webhooks.attempts_default USING btree (delivery_id, id);


--
-- Name: deliveries_due; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_due ON ONLY webhooks.deliveries USING btree (subscription_id, next_attempt_at, id) WHERE (((state)::text = 'pending'::text) AND (next_attempt_at IS NOT NULL));


--
-- Name: deliveries_default_due; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_default_due ON webhooks.deliveries_default USING btree (subscription_id, next_attempt_at, id) WHERE (((state)::text = 'pending'::text) AND (next_attempt_at IS NOT NULL));


--
-- Name: deliveries_earlier_of_case; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_earlier_of_case ON ONLY webhooks.deliveries USING btree (case_guid, ((subscription_id + 0)), ((id + 0))) WHERE ((state)::text = 'pending'::text);
ALTER INDEX webhooks.deliveries_earlier_of_case ALTER COLUMN 2 SET STATISTICS 0;
ALTER INDEX webhooks.deliveries_earlier_of_case ALTER COLUMN 3 SET STATISTICS 0;


--
-- Name: deliveries_default_earlier_of_case; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_default_earlier_of_case ON webhooks.deliveries_default USING btree (case_guid, ((subscription_id + 0)), ((id + 0))) WHERE ((state)::text = 'pending'::text);
ALTER INDEX webhooks.deliveries_default_earlier_of_case ALTER COLUMN 2 SET STATISTICS 0;
ALTER INDEX webhooks.deliveries_default_earlier_of_case ALTER COLUMN 3 SET STATISTICS 0;


--
-- Name: deliveries_event; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_event ON ONLY webhooks.deliveries USING btree (event_id);


--
-- Name: deliveries_default_event; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_default_event ON webhooks.deliveries_default USING btree (event_id);


--
-- Name: deliveries_finished; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_finished ON ONLY webhooks.deliveries USING btree (finished_at) WHERE ((state)::text = ANY ((ARRAY['succeeded'::character varying, 'dead'::character varying])::text[]));


--
-- Name: deliveries_default_finished_at_idx; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_default_finished_at_idx ON webhooks.deliveries_default USING btree (finished_at) WHERE ((state)::text = ANY ((ARRAY['succeeded'::character varying, 'dead'::character varying])::text[]));


--
-- Name: deliveries_subscription; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_subscription ON ONLY webhooks.deliveries USING btree (subscription_id, id);


--
-- Name: deliveries_default_subscription_id_id_idx; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_default_subscription_id_id_idx ON webhooks.deliveries_default USING btree (subscription_id, id);


--
-- Name: feed_created; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX feed_created ON webhooks.feed USING btree (created_at);


--
-- Name: subscriptions_partner; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX subscriptions_partner ON webhooks.subscriptions USING btree (partner_id);


--
-- Name: subscriptions_provider; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX subscriptions_provider ON webhooks.subscriptions USING btree (provider_id);


--
-- Name: attempts_default_delivery_id_id_idx; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.attempts_delivery ATTACH PARTITION webhooks.attempts_default_delivery_id_id_idx;


--
-- Name: attempts_default_pkey; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.attempts_pkey ATTACH PARTITION webhooks.attempts_default_pkey;


--
-- Name: deliveries_default_due; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.deliveries_due ATTACH PARTITION webhooks.deliveries_default_due;


--
-- Name: deliveries_default_earlier_of_case; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.deliveries_earlier_of_case ATTACH PARTITION webhooks.deliveries_default_earlier_of_case;


--
-- Name: deliveries_default_event; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.deliveries_event ATTACH PARTITION webhooks.deliveries_default_event;


--
-- Name: deliveries_default_finished_at_idx; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.deliveries_finished ATTACH PARTITION webhooks.deliveries_default_finished_at_idx;


--
-- Name: deliveries_default_pkey; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.deliveries_pkey ATTACH PARTITION webhooks.deliveries_default_pkey;


--
-- Name: deliveries_default_subscription_id_id_idx; Type: INDEX ATTACH; Schema: webhooks; Owner: -
--

ALTER INDEX webhooks.deliveries_subscription ATTACH PARTITION webhooks.deliveries_default_subscription_id_id_idx;


--
-- Name: subscriptions subscriptions_counted; Type: TRIGGER; Schema: webhooks; Owner: -
--

CREATE TRIGGER subscriptions_counted AFTER INSERT OR DELETE OR UPDATE ON webhooks.subscriptions FOR EACH ROW EXECUTE FUNCTION webhooks.count_subscription_change();


--
-- PostgreSQL database dump complete
--


