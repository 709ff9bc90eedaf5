/**
 * How long the webhooks service keeps finished deliveries, with their attempts (which go with
 * them by foreign key): succeeded ones for the delivered-webhooks period, dead letters for
 * theirs unless redelivered (a redelivered one is pending again, and stays while it is).
 * Pending deliveries are never removed. The parties' event feeds keep each webhook for their
 * own period from when the hub took it; their heads and case numbers stay, so positions and
 * numbers never start again.
 */
import type { RetentionPolicy, RetentionSettings } from '@hub/shared';

const DELIVERIES = 'webhooks.deliveries';
const FEED = 'webhooks.feed';

export function deliveryRetention(settings: RetentionSettings): RetentionPolicy {
  const finished = { table: DELIVERIES, key: ['id'], ageColumn: 'finished_at', cascadesTo: ['webhooks.attempts'] };
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
      { table: 'webhooks.attempts', column: 'started_at', orderBy: 'id' },
    ],
  };
}
