create function webhooks.store_and_lease(given jsonb, first_delay_ms integer, addressed_at bigint, worker uuid, held jsonb, max_count integer, lease_ms integer, depth integer) returns setof jsonb
  language plpgsql
  as $$
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
    -- Leases take turns with claims across instances: each counts the others' leases (claim_due.sql).
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
