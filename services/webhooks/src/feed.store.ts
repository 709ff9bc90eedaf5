/**
 * The event feed: every webhook each party receives (addressing.ts), stored when the hub takes
 * the event whether or not the party has a subscription, so a party can read what it missed.
 *
 * Each party's feed has its own positions, 1, 2, 3, ... with no gap, and each party numbers the
 * events of each case it sees, 1, 2, 3, ... (`caseSequence`). Both are given out under a lock on
 * the party's head row, held until the transaction that stores the webhooks commits, so:
 * - two ingests for one party (two webhooks instances, two producers' relays) take turns, and a
 *   number is never given twice or skipped;
 * - a position commits only after every lower one of the party, so a reader that has seen
 *   position N has seen all before it, and a cursor never passes a webhook still being stored;
 * - a repeated ingest finds its webhooks stored and numbers nothing again.
 * Heads are locked in one order (kind, id) in every transaction, so two ingests never deadlock.
 */
import type { Knex } from 'knex';
import { type AddressedWebhook, type Party, partyKey } from './addressing';
import {
  type ClaimedDelivery,
  type HeldLeases,
  type LeasedDelivery,
  type SubscriptionJson,
  subscriptionFromJson,
  type SubscriptionRow,
} from './webhooks.store';

export interface FeedRow {
  party_kind: Party['kind'];
  party_id: number;
  position: number;
  event_id: string;
  webhook_id: string;
  event_type: string;
  case_guid: string | null;
  case_sequence: number | null;
  payload: Record<string, unknown>;
  occurred_at: Date;
  created_at: Date;
}

/** A webhook to store, and the subscriptions it is sent to (addressing.ts, `takersOf`). */
export interface WebhookToStore extends AddressedWebhook {
  subscriptionIds: number[];
}

/** The SQLSTATE of a store whose webhooks were addressed from subscriptions that have changed since. */
export const ADDRESSED_FROM_OLD_SUBSCRIPTIONS = 'WH001';

/**
 * Stores the webhooks in their parties' feeds, numbered, and a delivery for each of their
 * subscriptions, in one statement and so one transaction (store_addressed_webhooks.sql and
 * store_webhooks.sql); the webhooks of an event already in a party's feed are left out. Answers the
 * deliveries stored. One round trip: the heads stay locked only while the database works, never
 * while this process waits for an answer.
 *
 * `addressedAt` is the version of the subscriptions the webhooks were addressed from
 * (`readAddressing`); if the subscriptions have changed since, nothing is stored and the error
 * has the code `ADDRESSED_FROM_OLD_SUBSCRIPTIONS`.
 */
export async function storeWebhooks(
  knex: Knex,
  given: WebhookToStore[],
  firstDelayMs: number,
  addressedAt: string,
): Promise<number> {
  const rows = feedRows(given);
  if (rows.length === 0) return 0;
  const result = await knex
    .raw('select webhooks.store_addressed_webhooks(?::jsonb, ?, ?::bigint) as stored', [
      JSON.stringify(rows),
      firstDelayMs,
      addressedAt,
    ])
    .options({ name: 'webhooks-store-webhooks' });
  return (result.rows as Array<{ stored: number }>)[0].stored;
}

/** What a worker leases with: as a claim (webhooks.store.ts, `claimDue`), `depth` times each subscription's limit. */
export interface LeaseRequest {
  workerId: string;
  limit: number;
  leaseMs: number;
  held: HeldLeases[];
  depth: number;
}

/**
 * Stores the webhooks as `storeWebhooks` does and leases the deliveries it makes to the worker
 * as far as it has room, in the insert that makes them (store_and_lease.sql): those are
 * answered as a claim answers them, their webhook's payload once for all its deliveries,
 * and the rest wait for a claim. The store waits for the log as it
 * does alone.
 */
export async function storeAndLease(
  knex: Knex,
  given: WebhookToStore[],
  firstDelayMs: number,
  addressedAt: string,
  lease: LeaseRequest,
): Promise<{ stored: number; leased: ClaimedDelivery[] }> {
  const rows = feedRows(given);
  if (rows.length === 0) return { stored: 0, leased: [] };
  const result = await knex
    .raw('select webhooks.store_and_lease(?::jsonb, ?, ?::bigint, ?::uuid, ?::jsonb, ?, ?, ?) as row', [
      JSON.stringify(rows),
      firstDelayMs,
      addressedAt,
      lease.workerId,
      JSON.stringify(lease.held),
      lease.limit,
      lease.leaseMs,
      lease.depth,
    ])
    .options({ name: 'webhooks-store-and-lease' });
  return leasedByWebhook((result.rows as Array<{ row: StoreAnswerRow }>).map(({ row }) => row));
}

/** A webhook whose deliveries a store leased: what they share, and each one's id and subscription. */
interface LeasedWebhookJson extends Omit<LeasedDelivery, 'id' | 'subscription_id' | 'occurred_at' | 'lease_until'> {
  occurred_at: string;
  lease_until: string;
  deliveries: Array<[id: number, subscriptionId: number]>;
}

type StoreAnswerRow = { stored: number } | { subscription: SubscriptionJson; cap: number } | LeasedWebhookJson;

/** The deliveries a store leased, each with its subscription and cap, in the order of their ids. */
function leasedByWebhook(rows: StoreAnswerRow[]): { stored: number; leased: ClaimedDelivery[] } {
  let stored = 0;
  const subscriptions = new Map<number, { subscription: SubscriptionRow; cap: number }>();
  const webhooks: LeasedWebhookJson[] = [];
  for (const row of rows) {
    if ('stored' in row) stored = row.stored;
    else if ('subscription' in row)
      subscriptions.set(row.subscription.id, { subscription: subscriptionFromJson(row.subscription), cap: row.cap });
    else webhooks.push(row);
  }
  const leased: ClaimedDelivery[] = [];
  for (const webhook of webhooks) {
    const occurredAt = new Date(webhook.occurred_at);
    const leaseUntil = new Date(webhook.lease_until);
    for (const [id, subscriptionId] of webhook.deliveries) {
      const { subscription, cap } = subscriptions.get(subscriptionId)!;
      // Spelled out rather than spread: one shape for every delivery, made thousands of times a burst.
      const delivery: LeasedDelivery = {
        id,
        event_id: webhook.event_id,
        webhook_id: webhook.webhook_id,
        subscription_id: subscriptionId,
        event_type: webhook.event_type,
        case_sequence: webhook.case_sequence,
        payload: webhook.payload,
        occurred_at: occurredAt,
        attempts: webhook.attempts,
        cycle_attempts: webhook.cycle_attempts,
        lease_until: leaseUntil,
      };
      leased.push({ delivery, subscription, cap });
    }
  }
  leased.sort((a, b) => a.delivery.id - b.delivery.id);
  return { stored, leased };
}

/** The feed's rows of the webhooks; a batch that names an event twice stores it once. */
function feedRows(given: WebhookToStore[]) {
  const webhooks = [
    ...new Map(given.map((webhook) => [`${partyKey(webhook.party)}:${webhook.webhookId}`, webhook])).values(),
  ];
  return webhooks.map((webhook) => ({
    party_kind: webhook.party.kind,
    party_id: webhook.party.id,
    event_id: webhook.event.id,
    webhook_id: webhook.webhookId,
    event_type: webhook.eventType,
    case_guid: webhook.event.caseGuid,
    payload: webhook.payload,
    occurred_at: webhook.event.occurredAt,
    subscriptions: webhook.subscriptionIds,
  }));
}

/** The party's last position (0 before its first webhook) and up to `limit` webhooks after `after`, oldest first. */
export async function readFeed(
  knex: Knex,
  party: Party,
  after: number,
  limit: number,
): Promise<{ head: number; rows: FeedRow[] }> {
  const head = (await knex('webhooks.feed_heads')
    .where({ party_kind: party.kind, party_id: party.id })
    .first('last_position')) as { last_position: number } | undefined;
  const rows = (await knex('webhooks.feed')
    .where({ party_kind: party.kind, party_id: party.id })
    .andWhere('position', '>', after)
    .orderBy('position')
    .limit(limit)) as FeedRow[];
  return { head: head?.last_position ?? 0, rows };
}
