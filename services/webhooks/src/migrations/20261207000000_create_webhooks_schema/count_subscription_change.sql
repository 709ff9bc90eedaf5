create function webhooks.count_subscription_change() returns trigger
  language plpgsql
  as $$
  begin
    update webhooks.subscription_changes set version = version + 1;
    return null;
  end
$$;
