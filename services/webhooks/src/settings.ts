/**
 * Delivery settings of the webhooks service. The retry schedule, the attempt timeout and the
 * allowed networks come from the environment (see shared config: WEBHOOK_RETRY_SCHEDULE,
 * WEBHOOK_ATTEMPT_TIMEOUT_MS, WEBHOOK_ALLOWED_NETWORKS); the rest are fixed here.
 */
export const DELIVERY_SETTINGS = {
  /** Each retry delay is stretched by a random share of itself up to this, so failed receivers are not hit in lockstep. */
  retryJitter: 0.2,
  /** The longest `Retry-After` (429/503) honoured; a longer one is cut to this. */
  maxRetryAfterMs: 24 * 3_600_000,
  /** Attempts in flight at once per subscription unless the subscription names its own limit. */
  defaultMaxInFlight: 4,
  /** Attempts in flight at once in one process, over all subscriptions. */
  workerConcurrency: 64,
  /** How often a worker looks for due deliveries when no ingest nudged it. */
  pollIntervalMs: 250,
  /**
   * Deliveries claimed per look. A claim walks and locks up to its room of each subscription
   * (`claimAhead` times its limit) before it keeps the most overdue of them, so a batch below
   * that room walks rows it leaves, costing the database CPU for nothing: this takes the whole
   * room of four subscriptions at the default limit.
   */
  claimBatch: 128,
  /**
   * How many times its in-flight limit a worker holds of a subscription's deliveries: the rest
   * waits in the worker's memory for a place, so a place that frees does not wait for a claim.
   */
  claimAhead: 8,
  /**
   * How many times its in-flight limit a worker may hold of a subscription's deliveries leased as
   * they are stored (feed.store.ts, `storeAndLease`): deeper than a claim, so a burst's hand-overs
   * go out without claims while the receiver keeps up. What waits longer than its lease allows is
   * dropped and claimed again, as with a claim.
   */
  storeAhead: 512,
  /**
   * The most unfinished deliveries (queued or in flight) a worker's stores lease it, payloads and
   * all; claims add at most `claimAhead` times `workerConcurrency` of other subscriptions.
   */
  maxHeld: 8192,
  /**
   * Rounds of attempts a lease covers: the delivery's own and the ones queued before it. A
   * delivery that waits longer (its receiver hangs to the timeout) is dropped from the queue and
   * claimed again once its lease ends, so a worker that dies gives its deliveries up within a few
   * attempt timeouts, however deep it claims.
   */
  leaseRounds: 2,
  /** The lease a queued delivery must have left to be attempted: its attempt's timeout and this, for its record. */
  recordReserveMs: 10_000,
  /**
   * Finished attempts recorded at once without waiting for more, when others are still in flight.
   * A record has a fixed cost in the database and in this process whatever its size, so larger
   * records mean fewer statements and more deliveries a second in a burst.
   */
  recordBatch: 256,
  /**
   * How long a finished attempt waits for others to be recorded with it, when others are in
   * flight: a record costs much the same for one attempt as for thirty, in the database and in
   * this process, which in an HTTP burst is what limits the rate; a shorter wait gathers fewer,
   * and a failing receiver's records then cost the others more of their rate.
   * The wait holds the attempt's lease and its case's next delivery back by as much.
   */
  recordWaitMs: 10,
  /** Finished attempts a worker may hold unrecorded (still leased) before it stops claiming until they are recorded. */
  maxUnrecorded: 1024,
  /** How long beyond its attempts a claim lasts before another worker may take the delivery (a crashed worker's claims). */
  leaseMarginMs: 15_000,
  /**
   * How long a target host's checked addresses serve its attempts before it is looked up again.
   * A receiver that moves to another address is reached there within this: connections are kept
   * per address (http-sender.ts).
   */
  resolvedHostKeptMs: 30_000,
  /** How long a target's kept HTTP connections outlast its last attempt before they are closed. */
  idlePoolMs: 60_000,
  /** HTTP connections kept to one target at most (the subscriptions' in-flight limits bound them first). */
  connectionsPerTarget: 256,
  /** Hosts whose addresses a worker keeps at most; past this the one looked up longest ago goes. */
  resolvedHostsKept: 10_000,
  /** Bytes of a receiver's answer kept in the attempt log. */
  responseExcerptBytes: 1024,
  /** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
  secretRotationGraceMs: 24 * 3_600_000,
};

/** How long a claim leases a delivery: `leaseRounds` attempt timeouts and the margin. */
export function claimLeaseMs(attemptTimeoutMs: number): number {
  return attemptTimeoutMs * DELIVERY_SETTINGS.leaseRounds + DELIVERY_SETTINGS.leaseMarginMs;
}

/** The header (HTTP) and message header (AMQP) of a webhook's number in its case, when it has a case. */
export const CASE_SEQUENCE_HEADER = 'hub-case-sequence';

/** Headers a subscription's custom headers cannot set. */
export const RESERVED_HEADERS = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'webhook-event-type',
  CASE_SEQUENCE_HEADER,
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'user-agent',
];

export const USER_AGENT = 'service-hub-webhooks/1';
