create function webhooks.claim_due(worker uuid, held jsonb, max_count integer, lease_ms integer, depth integer) returns setof jsonb
  language plpgsql
  as $$
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
