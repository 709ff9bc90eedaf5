/**
 * How long the webhooks service keeps finished deliveries, with their attempts (removed in the
 * statement that removes their delivery): succeeded ones for the delivered-webhooks period, dead
 * letters for theirs unless redelivered (a redelivered one is pending again, and stays while it
 * is). Pending deliveries are never removed. Deliveries and attempts are partitioned by the
 * event's time: a span's partitions go whole once its deliveries are past the delivered period,
 * the deliveries still kept moving to the default partitions first. The parties' event feeds keep
 * each webhook for their own period from when the hub took it; their heads and case numbers stay,
 * so positions and numbers never start again.
 */
import type { DependentTable, RetentionPolicy, RetentionSettings } from '@hub/shared';

const DELIVERIES = 'webhooks.deliveries';
const ATTEMPTS = 'webhooks.attempts';
const FEED = 'webhooks.feed';
const ATTEMPTS_OF_DELIVERY: DependentTable = {
  table: ATTEMPTS,
  references: [
    ['delivery_id', 'id'],
    ['delivery_occurred_at', 'occurred_at'],
  ],
};

export function deliveryRetention(settings: RetentionSettings): RetentionPolicy {
  const finished = { table: DELIVERIES, key: ['id'], ageColumn: 'finished_at', dependents: [ATTEMPTS_OF_DELIVERY] };
  return {
    rules: [
      { ...finished, name: 'delivered webhooks', where: "state = 'succeeded'", keepMs: settings.deliveredMs },
      { ...finished, name: 'dead letters', where: "state = 'dead'", keepMs: settings.deadLettersMs },
      {
        name: 'event feed',
        table: FEED,
        key: ['party_kind', 'party_id', 'position'],
        ageColumn: 'created_at',
        keepMs: settings.eventFeedMs,
      },
    ],
    aged: [
      { table: FEED, column: 'created_at', orderBy: 'created_at' },
      { table: DELIVERIES, column: 'created_at', orderBy: 'id' },
      { table: ATTEMPTS, column: 'started_at', orderBy: 'id' },
    ],
    partitioned: [
      {
        table: DELIVERIES,
        column: 'occurred_at',
        spanMs: settings.partitionSpanMs,
        dependents: [ATTEMPTS_OF_DELIVERY],
      },
    ],
  };
}
