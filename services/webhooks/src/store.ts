/**
 * The webhooks schema: subscriptions, status rules, deliveries and their attempt log. Claims use
 * `FOR UPDATE SKIP LOCKED` with a lease so several workers share the queue and a crashed
 * worker's deliveries are taken again when the lease runs out.
 */
import type { Knex } from 'knex';
import type { AddressableSubscription, PlannedDelivery, StatusRules, StatusTransitionRule } from './addressing';
import type { AttemptOutcome } from './outcome';

export type SubscriptionState = 'active' | 'paused' | 'disabled' | 'removed';

export interface SubscriptionRow {
  id: number;
  account_id: number;
  partner_id: number | null;
  provider_id: number | null;
  event_types: string[];
  kind: 'http' | 'amqp';
  url: string;
  method: string | null;
  headers: Record<string, string>;
  queue: string | null;
  status_transitions: StatusTransitionRule[];
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  state: SubscriptionState;
  state_reason: string | null;
  max_in_flight: number;
  origin: 'world' | 'admin';
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: number;
  event_id: string;
  webhook_id: string;
  subscription_id: number;
  event_type: string;
  case_guid: string | null;
  payload: Record<string, unknown>;
  occurred_at: Date;
  state: 'pending' | 'succeeded' | 'dead';
  attempts: number;
  cycle_attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export function addressable(row: SubscriptionRow): AddressableSubscription {
  return { id: row.id, partnerId: row.partner_id, providerId: row.provider_id, eventTypes: row.event_types, statusTransitions: row.status_transitions };
}

/** Subscriptions that take new deliveries (a paused one keeps them for later) in these audiences. */
export async function subscriptionsInAudience(knex: Knex, partnerIds: number[], providerIds: number[]): Promise<SubscriptionRow[]> {
  if (partnerIds.length === 0 && providerIds.length === 0) return [];
  return knex('webhooks.subscriptions')
    .whereIn('state', ['active', 'paused'])
    .andWhere((where) => {
      if (partnerIds.length) where.orWhereIn('partner_id', partnerIds);
      if (providerIds.length) where.orWhereIn('provider_id', providerIds);
    });
}

export async function statusRules(knex: Knex, partnerIds: number[]): Promise<Map<number, StatusRules>> {
  const rules = new Map<number, StatusRules>(partnerIds.map((id) => [id, { mappings: {}, blacklist: [] }]));
  if (partnerIds.length === 0) return rules;
  const [mappings, blacklist] = await Promise.all([
    knex('webhooks.status_mappings').whereIn('partner_id', partnerIds).orderBy(['partner_id', 'provider_key']),
    knex('webhooks.blacklists').whereIn('partner_id', partnerIds).orderBy(['partner_id', 'key']),
  ]);
  for (const row of mappings as Array<{ partner_id: number; provider_key: string; partner_key: string }>) rules.get(row.partner_id)!.mappings[row.provider_key] = row.partner_key;
  for (const row of blacklist as Array<{ partner_id: number; key: string }>) rules.get(row.partner_id)!.blacklist.push(row.key);
  return rules;
}

/** Stores planned deliveries; a delivery already stored (a repeated ingest) is left as it is. */
export async function insertDeliveries(knex: Knex, planned: PlannedDelivery[], firstDelayMs: number): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < planned.length; start += 500) {
    const rows = planned.slice(start, start + 500).map((item) => ({
      event_id: item.eventId,
      webhook_id: item.webhookId,
      subscription_id: item.subscriptionId,
      event_type: item.eventType,
      case_guid: item.caseGuid,
      payload: JSON.stringify(item.payload),
      occurred_at: item.occurredAt,
      next_attempt_at: knex.raw(`now() + (? * interval '1 millisecond')`, [firstDelayMs]),
    }));
    const result = await knex('webhooks.deliveries').insert(rows).onConflict(['event_id', 'subscription_id', 'event_type']).ignore().returning('id');
    inserted += result.length;
  }
  return inserted;
}

/**
 * Claims due deliveries: only the oldest pending one of each (subscription, case), so a case
 * reaches a receiver in event order, and no more per subscription than its in-flight limit.
 */
export async function claimDue(knex: Knex, limit: number, leaseMs: number): Promise<DeliveryRow[]> {
  const result = await knex.raw(
    `update webhooks.deliveries d set lease_until = now() + (? * interval '1 millisecond')
       from (
         select ranked.id from (
           select c.id, c.max_in_flight,
                  row_number() over (partition by c.subscription_id order by c.id) as position,
                  (select count(*) from webhooks.deliveries f
                    where f.subscription_id = c.subscription_id and f.state = 'pending' and f.lease_until > now()) as busy
             from (
               select d.id, d.subscription_id, s.max_in_flight
                 from webhooks.deliveries d
                 join webhooks.subscriptions s on s.id = d.subscription_id
                where d.state = 'pending' and s.state = 'active' and d.next_attempt_at <= now()
                  and (d.lease_until is null or d.lease_until < now())
                  and not exists (select 1 from webhooks.deliveries e
                                   where e.subscription_id = d.subscription_id and e.case_guid = d.case_guid
                                     and e.state = 'pending' and e.id < d.id)
                order by d.id
                limit ?
                for update of d skip locked
             ) c
         ) ranked
         where ranked.position + ranked.busy <= ranked.max_in_flight
         order by ranked.id
         limit ?
       ) chosen
      where d.id = chosen.id
      returning d.*`,
    [leaseMs, limit * 4, limit],
  );
  return (result.rows as DeliveryRow[]).sort((a, b) => a.id - b.id);
}

export async function subscriptionsById(knex: Knex, ids: number[]): Promise<Map<number, SubscriptionRow>> {
  if (ids.length === 0) return new Map();
  const rows = (await knex('webhooks.subscriptions').whereIn('id', ids)) as SubscriptionRow[];
  return new Map(rows.map((row) => [row.id, row]));
}

export interface AttemptRecord {
  delivery: DeliveryRow;
  startedAt: Date;
  latencyMs: number;
  outcome: AttemptOutcome;
  /** In how long the next attempt is due; absent means the schedule is used up (dead letter). */
  retryInMs?: number;
}

/** Logs one attempt and moves the delivery on, in one transaction. */
export async function recordAttempt(knex: Knex, record: AttemptRecord): Promise<void> {
  const { delivery, outcome } = record;
  await knex.transaction(async (trx) => {
    await trx('webhooks.attempts').insert({
      delivery_id: delivery.id,
      attempt: delivery.attempts + 1,
      started_at: record.startedAt,
      latency_ms: Math.round(record.latencyMs),
      ok: outcome.ok,
      status_code: outcome.statusCode ?? null,
      error_kind: outcome.errorKind ?? null,
      error: outcome.error ?? null,
      response_excerpt: outcome.responseExcerpt ?? null,
    });
    const common = { attempts: delivery.attempts + 1, cycle_attempts: delivery.cycle_attempts + 1, lease_until: null };
    if (outcome.ok) {
      await trx('webhooks.deliveries').where({ id: delivery.id }).update({ ...common, state: 'succeeded', finished_at: trx.fn.now(), last_error: null });
    } else if (record.retryInMs !== undefined) {
      const nextAttemptAt = trx.raw(`now() + (? * interval '1 millisecond')`, [Math.round(record.retryInMs)]);
      await trx('webhooks.deliveries').where({ id: delivery.id }).update({ ...common, next_attempt_at: nextAttemptAt, last_error: outcome.error ?? null });
    } else {
      await trx('webhooks.deliveries').where({ id: delivery.id }).update({ ...common, state: 'dead', finished_at: trx.fn.now(), last_error: outcome.error ?? null });
    }
    if (outcome.errorKind === 'gone') {
      await trx('webhooks.subscriptions')
        .where({ id: delivery.subscription_id, state: 'active' })
        .update({ state: 'disabled', state_reason: 'The receiver answered 410 Gone', updated_at: trx.fn.now() });
    }
  });
}
