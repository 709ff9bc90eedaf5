/**
 * The webhooks schema: subscriptions, status rules, deliveries and their attempt log. Claims use
 * `FOR UPDATE SKIP LOCKED` with a lease so several workers share the queue and a crashed
 * worker's deliveries are taken again when the lease runs out; they take turns across instances
 * so that per-subscription limits hold over all of them.
 */
import type { Knex } from 'knex';
import { type AddressableSubscription, partyKey, partyOfSubscription, type StatusTransitionRule } from './addressing';
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
  /** The party's number for the event in its case (feed.store.ts); null for an event of no case. */
  case_sequence: number | null;
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

/** What addressing reads of a subscription. */
type AddressingColumns = Pick<
  SubscriptionRow,
  'id' | 'partner_id' | 'provider_id' | 'event_types' | 'status_transitions'
>;

function addressable(row: AddressingColumns): AddressableSubscription {
  return {
    id: row.id,
    partnerId: row.partner_id,
    providerId: row.provider_id,
    eventTypes: row.event_types,
    statusTransitions: row.status_transitions,
  };
}

/**
 * Every subscription that takes new deliveries (a paused one keeps them for later), as of a
 * version of the subscriptions: a store checks that version is still current
 * (store_addressed_webhooks.sql), so an ingest may keep these while they are.
 */
export interface AddressingView {
  version: string;
  /** By their party (`partyKey`), so a webhook is matched against its own party's alone. */
  byParty: Map<string, AddressableSubscription[]>;
}

/** Reads the subscriptions that take new deliveries and their version, in one statement so they agree. */
export async function readAddressing(knex: Knex): Promise<AddressingView> {
  const result = await knex.raw(
    `select c.version::text as version, s.id, s.partner_id, s.provider_id, s.event_types, s.status_transitions
       from webhooks.subscription_changes c
       left join webhooks.subscriptions s on s.state in ('active', 'paused')
      order by s.id`,
  );
  const rows = result.rows as Array<AddressingColumns & { version: string }>;
  const byParty = new Map<string, AddressableSubscription[]>();
  for (const row of rows) {
    if (row.id === null) continue;
    const subscription = addressable(row);
    const party = partyOfSubscription(subscription);
    if (!party) continue;
    const key = partyKey(party);
    const ofParty = byParty.get(key);
    if (ofParty) ofParty.push(subscription);
    else byParty.set(key, [subscription]);
  }
  return { version: rows[0].version, byParty };
}

/** The leases a worker holds of one subscription's deliveries. */
export interface HeldLeases {
  subscription_id: number;
  /** Every one: queued, in flight, or finished and not recorded yet. */
  leases: number;
  /** Those whose attempts have not ended (queued or in flight): a finished one's place is free. */
  unfinished: number;
}

/**
 * Claims due deliveries. The claim walks each active subscription's due deliveries (most overdue
 * first) up to its free room, and takes only the oldest pending one of each (subscription, case),
 * so a case reaches a receiver in event order. Every step reads an index of pending deliveries,
 * so a claim costs the same whatever the backlog and history. Each delivery comes with its
 * subscription as it is at the claim (secrets rotate, targets change).
 *
 * A worker claims ahead: it may hold `depth` times the attempts it may have in flight per
 * subscription, queued in its own memory, so a place that frees is filled at once rather than
 * after the next claim's round trip. What it may have in flight, the delivery's `cap`, is the
 * subscription's limit less the leases the other workers hold, whether their attempts are queued,
 * in flight or finished, as each counted them at its last claim less what it recorded since
 * (claim_due.sql): a worker's count only falls between its claims, so together they
 * never exceed the limit. The worker's own finished attempts do not count against it: their
 * place is free the moment they end, so recording is off the path of the next attempt.
 *
 * Claims take turns under one advisory lock: a claim running beside another would count the
 * others' leases without the other's. The lock is taken in a statement of its own, so the claim's
 * snapshot comes after the last claim's commit: both are statements of the function
 * `webhooks.claim_due`, so that a claim is one round trip.
 */
export async function claimDue(
  knex: Knex,
  workerId: string,
  limit: number,
  leaseMs: number,
  held: HeldLeases[],
  depth: number,
): Promise<ClaimedDelivery[]> {
  const result = await knex
    .raw('select webhooks.claim_due(?::uuid, ?::jsonb, ?, ?, ?) as claimed', [
      workerId,
      JSON.stringify(held),
      limit,
      leaseMs,
      depth,
    ])
    .options({ name: 'webhooks-claim-due' });
  return claimedFromRows((result.rows as Array<{ claimed: unknown }>).map(({ claimed }) => claimed));
}

/** The deliveries a claim leased, each with its subscription, in the order of their ids, from the rows `webhooks.claim_due` answers. */
function claimedFromRows(rows: unknown[]): ClaimedDelivery[] {
  const subscriptions = new Map<number, SubscriptionRow>();
  const leased: LeasedJson[] = [];
  for (const claimed of rows as Array<LeasedJson | { subscription: SubscriptionJson }>) {
    if ('subscription' in claimed)
      subscriptions.set(claimed.subscription.id, subscriptionFromJson(claimed.subscription));
    else leased.push(claimed);
  }
  return leased
    .map(({ cap, ...delivery }) => ({
      delivery: leasedFromJson(delivery),
      subscription: subscriptions.get(delivery.subscription_id)!,
      cap,
    }))
    .sort((a, b) => a.delivery.id - b.delivery.id);
}

/** Forgets what a worker that stops counted as its leases, so the others' room is whole at once. */
export async function forgetWorker(knex: Knex, workerId: string): Promise<void> {
  await knex('webhooks.held_leases').where({ worker_id: workerId }).delete();
}

/** Gives up leases of deliveries not attempted (a stopping worker's queue), so any worker may take them now. */
export async function releaseLeases(knex: Knex, deliveries: LeasedDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  const leases = JSON.stringify(
    deliveries.map(({ id, occurred_at, attempts }) => ({ id, occurred_at: occurred_at.toISOString(), attempts })),
  );
  await knex.raw(
    `update webhooks.deliveries d set lease_until = null
       from jsonb_to_recordset(?::jsonb) as l(id bigint, occurred_at timestamptz, attempts integer)
      where d.id = l.id and d.occurred_at = l.occurred_at and d.attempts = l.attempts and d.state = 'pending'`,
    [leases],
  );
}

/** What a worker holds of a delivery it leased: what its attempt sends and its record moves on. */
export type LeasedDelivery = Pick<
  DeliveryRow,
  | 'id'
  | 'event_id'
  | 'webhook_id'
  | 'subscription_id'
  | 'event_type'
  | 'case_sequence'
  | 'payload'
  | 'occurred_at'
  | 'attempts'
  | 'cycle_attempts'
  | 'lease_until'
>;

export interface ClaimedDelivery {
  delivery: LeasedDelivery;
  subscription: SubscriptionRow;
  /** How many attempts of the subscription this worker may have in flight, as of this claim. */
  cap: number;
}

type LeasedJson = Omit<LeasedDelivery, 'occurred_at' | 'lease_until'> & {
  occurred_at: string;
  lease_until: string | null;
  cap: number;
};

function leasedFromJson(json: Omit<LeasedJson, 'cap'>): LeasedDelivery {
  return {
    ...json,
    occurred_at: new Date(json.occurred_at),
    lease_until: json.lease_until === null ? null : new Date(json.lease_until),
  };
}

export type SubscriptionJson = Omit<SubscriptionRow, 'previous_secret_until' | 'created_at' | 'updated_at'> & {
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
};

export function subscriptionFromJson(json: SubscriptionJson): SubscriptionRow {
  return {
    ...json,
    previous_secret_until: json.previous_secret_until === null ? null : new Date(json.previous_secret_until),
    created_at: new Date(json.created_at),
    updated_at: new Date(json.updated_at),
  };
}

export interface AttemptRecord {
  delivery: LeasedDelivery;
  startedAt: Date;
  latencyMs: number;
  outcome: AttemptOutcome;
  /** In how long the next attempt is due; absent means the schedule is used up (dead letter). */
  retryInMs?: number;
}

/**
 * Logs attempts, moves their deliveries on and takes them off the worker's count of leases, in
 * one statement (so atomically) whatever their number: a worker records the attempts that
 * finished meanwhile together, as one commit (record_attempts.sql). The deliveries are found by
 * a lookup of each one's key, the only plan the function lets the planner make: left to choose,
 * it read a burst's deliveries whole and hashed them (new, so without statistics: every row of the
 * burst for a few attempts), and a lookup that also matched an array of the record's ids sorted that array for
 * every attempt.
 */
export async function recordAttempts(knex: Knex, workerId: string, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map(({ delivery, outcome, startedAt, latencyMs, retryInMs }) => ({
    delivery_id: delivery.id,
    delivery_occurred_at: delivery.occurred_at.toISOString(),
    subscription_id: delivery.subscription_id,
    attempt: delivery.attempts + 1,
    cycle_attempts: delivery.cycle_attempts + 1,
    started_at: startedAt.toISOString(),
    latency_ms: Math.round(latencyMs),
    ok: outcome.ok,
    status_code: outcome.statusCode ?? null,
    error_kind: outcome.errorKind ?? null,
    error: storableText(outcome.error),
    response_excerpt: storableText(outcome.responseExcerpt),
    state: outcome.ok ? 'succeeded' : retryInMs === undefined ? 'dead' : 'pending',
    retry_in_ms: retryInMs === undefined ? null : Math.round(retryInMs),
  }));
  await knex
    .raw('select webhooks.record_attempts(?::uuid, ?::jsonb)', [workerId, JSON.stringify(rows)])
    .options({ name: 'webhooks-record-attempts' });
}

/**
 * A text of the receiver's making, without the NUL that Postgres text cannot hold: its answer,
 * and the errors that quote it. The rest of a record is the hub's own.
 */
function storableText(text: string | undefined): string | null {
  return text === undefined ? null : text.replaceAll('\0', '');
}
