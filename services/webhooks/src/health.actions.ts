/**
 * Delivery health for operators (the gateway's metrics and console): deliveries waiting,
 * failing and dead-lettered, in total and per receiver, with each receiver's attempts per hour.
 */
import type { ActionSchema, Context } from 'moleculer';
import type { WebhooksThis } from './types';

export interface HourlyAttempts {
  /** The hour's start, ISO 8601. */
  hour: string;
  succeeded: number;
  failed: number;
}

const HOUR_MS = 3_600_000;

/** One bucket per hour of the last `hours` (the current one last), empty hours included. */
export function hourlyBuckets(
  rows: Array<{ hour: Date; ok: boolean; count: number }>,
  hours: number,
  now: Date,
): HourlyAttempts[] {
  const current = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const buckets = new Map<number, HourlyAttempts>();
  for (let i = hours - 1; i >= 0; i--) {
    const start = current - i * HOUR_MS;
    buckets.set(start, { hour: new Date(start).toISOString(), succeeded: 0, failed: 0 });
  }
  for (const row of rows) {
    const bucket = buckets.get(Math.floor(row.hour.getTime() / HOUR_MS) * HOUR_MS);
    if (!bucket) continue;
    if (row.ok) bucket.succeeded += row.count;
    else bucket.failed += row.count;
  }
  return [...buckets.values()];
}

interface CountRow {
  subscription_id: number;
  pending: number;
  failing: number;
  dead: number;
}

export const healthActions: Record<string, ActionSchema<WebhooksThis>> = {
  /** Internal. `failing`: pending deliveries whose last attempt failed (retrying). */
  deliveryHealth: {
    visibility: 'public',
    params: { hours: { type: 'number', integer: true, min: 1, max: 168, default: 24 } },
    async handler(this: WebhooksThis, ctx: Context<{ hours: number }>) {
      const { knex } = this.db;
      const now = new Date();
      const since = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (ctx.params.hours - 1) * HOUR_MS);
      const counts = (await knex('webhooks.deliveries')
        .whereIn('state', ['pending', 'dead'])
        .groupBy('subscription_id')
        .select(
          'subscription_id',
          knex.raw("count(*) filter (where state = 'pending')::int as pending"),
          knex.raw("count(*) filter (where state = 'pending' and attempts > 0)::int as failing"),
          knex.raw("count(*) filter (where state = 'dead')::int as dead"),
        )) as CountRow[];
      const attempts = (await knex('webhooks.attempts as a')
        .join('webhooks.deliveries as d', 'd.id', 'a.delivery_id')
        .where('a.started_at', '>=', since)
        .groupBy('d.subscription_id', 'hour', 'a.ok')
        .select(
          'd.subscription_id',
          knex.raw("date_trunc('hour', a.started_at) as hour"),
          'a.ok',
          knex.raw('count(*)::int as count'),
        )) as Array<{
        subscription_id: number;
        hour: Date;
        ok: boolean;
        count: number;
      }>;
      const subscriptions = (await knex('webhooks.subscriptions')
        .whereNot({ state: 'removed' })
        .orWhereIn('id', [...counts.map((row) => row.subscription_id), ...attempts.map((row) => row.subscription_id)])
        .orderBy('id')
        .select('id', 'kind', 'url', 'queue', 'state')) as Array<{
        id: number;
        kind: string;
        url: string;
        queue: string | null;
        state: string;
      }>;
      const countsById = new Map(counts.map((row) => [row.subscription_id, row]));
      const receivers = subscriptions.map((subscription) => {
        const count = countsById.get(subscription.id);
        return {
          subscriptionId: subscription.id,
          target: subscription.kind === 'amqp' ? `${subscription.queue} (AMQP)` : subscription.url,
          state: subscription.state,
          pending: count?.pending ?? 0,
          failing: count?.failing ?? 0,
          dead: count?.dead ?? 0,
          hourly: hourlyBuckets(
            attempts.filter((row) => row.subscription_id === subscription.id),
            ctx.params.hours,
            now,
          ),
        };
      });
      const total = (key: 'pending' | 'failing' | 'dead') => counts.reduce((sum, row) => sum + row[key], 0);
      return {
        hours: ctx.params.hours,
        totals: { pending: total('pending'), failing: total('failing'), dead: total('dead') },
        receivers,
      };
    },
  },
};
