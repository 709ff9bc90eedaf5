create function webhooks.store_webhooks(given jsonb, first_delay_ms integer) returns integer
  language plpgsql
  as $$
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
