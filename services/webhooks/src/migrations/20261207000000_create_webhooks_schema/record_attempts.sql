create function webhooks.record_attempts(worker uuid, outcomes jsonb) returns void
  language plpgsql
  set enable_hashjoin to 'off'
  set enable_mergejoin to 'off'
  set enable_seqscan to 'off'
  set jit to 'off'
  as $$
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
