create function webhooks.store_addressed_webhooks(given jsonb, first_delay_ms integer, addressed_at bigint) returns integer
  language plpgsql
  as $$
  begin
    if addressed_at is distinct from (select version from webhooks.subscription_changes) then
      raise exception 'The subscriptions changed after version % that addressed these webhooks', addressed_at
        using errcode = 'WH001';
    end if;
    return webhooks.store_webhooks(given, first_delay_ms);
  end
$$;
