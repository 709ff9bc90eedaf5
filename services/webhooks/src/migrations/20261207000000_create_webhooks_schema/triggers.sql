create trigger subscriptions_counted after insert or delete or update on webhooks.subscriptions
  for each row execute function webhooks.count_subscription_change();
