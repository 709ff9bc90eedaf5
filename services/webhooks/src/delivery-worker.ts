/**
 * The delivery worker of one webhooks instance: it stores ingested webhooks with a delivery for
 * each subscription that takes them, claims due deliveries (and takes those its stores lease it)
 * into a lane per subscription, attempts them over HTTP or AMQP within each
 * subscription's in-flight limit, and records the attempts in batches. The service creates one
 * when it starts and stops it when it stops; its state lives here, not on the service.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type { Logger } from 'moleculer';
import type { HubConfig } from '@hub/shared';
import { AmqpChannels } from './amqp-sender';
import { type AddressedWebhook, partyKey, takersOf } from './addressing';
import { ADDRESSED_FROM_OLD_SUBSCRIPTIONS, storeAndLease, storeWebhooks, type WebhookToStore } from './feed.store';
import { HttpSender } from './http-sender';
import type { AttemptOutcome } from './outcome';
import { nextDelayMs } from './schedule';
import { claimLeaseMs, DELIVERY_SETTINGS } from './settings';
import { signatureHeader } from './signature';
import { allowList, TargetResolver } from './target-safety';
import {
  type AddressingView,
  type AttemptRecord,
  claimDue,
  type ClaimedDelivery,
  forgetWorker,
  type HeldLeases,
  readAddressing,
  recordAttempts,
  releaseLeases,
} from './webhooks.store';

export interface Lane {
  queue: ClaimedDelivery[];
  running: number;
  /** The attempts it may have in flight, as of its last claim (`claimDue`). */
  cap: number;
  /** Whether its last claim took fewer than it had room for: nothing more of it could go then. */
  claimedAll: boolean;
}

/**
 * What woke the worker: news that deliveries may be due (an ingest, the poll, a subscription
 * made active), or its own work (an attempt that finished, attempts recorded).
 */
type PumpCause = 'news' | 'ownWork';

export type DeliveryConfig = Pick<
  HubConfig,
  'webhookRetryScheduleMs' | 'webhookAttemptTimeoutMs' | 'webhookAllowedNetworks'
>;

/** Its state is public for the tests that hold a worker to its limits; nothing else reads it. */
export class DeliveryWorker {
  /** Whose leases a claim counts (`claimDue`); new with each worker, as a worker's leases do not outlive it. */
  readonly id = randomUUID();
  timer?: NodeJS.Timeout;
  /** A claim, or a store that leases, under way: they take turns (`storeAndWake`). */
  claiming?: Promise<void>;
  claimAgain = false;
  /** Stores waiting for the claim under way to lease: the claim's loop ends for them. */
  storesWaiting = 0;
  recording?: Promise<void>;
  /** Wakes the recording when the oldest finished attempt has waited `recordWaitMs`. */
  recordTimer?: NodeJS.Timeout;
  stopping = false;
  /** Attempts running now, by their delivery. */
  readonly inFlight = new Map<ClaimedDelivery, Promise<void>>();
  /** Per subscription: what was claimed ahead and waits for a place, and the attempts it may and does have running. */
  readonly lanes = new Map<number, Lane>();
  /** Attempts that finished and wait for the next record. */
  finished: AttemptRecord[] = [];
  /** Attempts being recorded right now. */
  beingRecorded: AttemptRecord[] = [];
  /** The subscriptions stores address webhooks from, kept while their version is current. */
  private addressing?: AddressingView;
  private readonly http: HttpSender;
  private readonly amqp: AmqpChannels;

  constructor(
    private readonly knex: Knex,
    private readonly config: DeliveryConfig,
    private readonly logger: Logger,
  ) {
    // Checks and keeps the addresses of target hosts, for both kinds of target.
    const resolver = new TargetResolver(
      allowList(config.webhookAllowedNetworks),
      DELIVERY_SETTINGS.resolvedHostKeptMs,
      DELIVERY_SETTINGS.resolvedHostsKept,
    );
    this.http = new HttpSender(resolver);
    this.amqp = new AmqpChannels(resolver);
  }

  /** Polls for due deliveries from now on, and looks at once. */
  start(): void {
    this.timer = setInterval(() => this.pump(), DELIVERY_SETTINGS.pollIntervalMs);
    this.timer.unref();
    this.pump();
  }

  /**
   * Claims nothing more, gives back what waited in the lanes, lets the attempts in flight end and
   * records them, then closes the connections to receivers.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.claiming;
    // What waited in the lanes goes back at once rather than when its lease ends.
    const queued = [...this.lanes.values()].flatMap(({ queue }) => queue.splice(0).map(({ delivery }) => delivery));
    await releaseLeases(this.knex, queued).catch((err: Error) =>
      this.logger.warn(`Giving back ${queued.length} claimed deliveries failed (${err.message}); their leases run out`),
    );
    await Promise.all([...this.inFlight.values()]);
    // A stopping worker records what finished at once, until none is left.
    while (this.recording || this.finished.length > 0) {
      this.recordFinished();
      await this.recording;
    }
    await forgetWorker(this.knex, this.id).catch((err: Error) =>
      this.logger.warn(`Forgetting this worker's leases failed (${err.message}); they count until they run out`),
    );
    await Promise.all([this.http.closeAll(), this.amqp.closeAll()]);
  }

  /**
   * Stores the webhooks, each with a delivery for every subscription of its party that takes
   * it, addressed from the subscriptions this service holds. The feed and the deliveries of a
   * webhook commit together, so a webhook sent is always in the feed. Subscriptions that changed
   * since they were read make the store refuse them (feed.store.ts); they are read again then.
   */
  async storeAddressed(webhooks: AddressedWebhook[]): Promise<number> {
    for (let tries = 1; ; tries++) {
      const addressing = (this.addressing ??= await readAddressing(this.knex));
      try {
        return await this.storeAndWake(
          webhooks.map((webhook) => ({
            ...webhook,
            subscriptionIds: takersOf(webhook, addressing.byParty.get(partyKey(webhook.party)) ?? []),
          })),
          addressing.version,
        );
      } catch (err) {
        // Subscriptions changing under three reads in a row fail the ingest; the relay hands the events over again.
        if ((err as { code?: string }).code !== ADDRESSED_FROM_OLD_SUBSCRIPTIONS || tries >= 3) throw err;
        if (this.addressing === addressing) this.addressing = undefined;
      }
    }
  }

  /**
   * Stores the webhooks and sets the worker on their deliveries, leasing them to it in the
   * store's insert as far as it has room (`storeAndLease`): they are sent as the store answers,
   * without a claim's round trip, and in a burst the database does not find, lock and rewrite
   * each delivery again to lease it. Whatever the store did not lease (no room, a case with an
   * earlier delivery pending, a first delay) is claimed as before.
   *
   * A lease sets the worker's count of leases as a claim does, from what the worker holds as it
   * asks, so a store that leases waits for a claim under way and claims wait for it: a store
   * arriving during a claim ends the claim's loop, which goes on after the store.
   */
  async storeAndWake(webhooks: WebhookToStore[], addressedAt: string): Promise<number> {
    const firstDelayMs = this.config.webhookRetryScheduleMs[0] ?? 0;
    const storeAlone = async () => {
      const stored = await storeWebhooks(this.knex, webhooks, firstDelayMs, addressedAt);
      if (stored > 0) this.pump();
      return stored;
    };
    if (this.stopping || firstDelayMs > 0 || webhooks.every(({ subscriptionIds }) => !subscriptionIds.length))
      return storeAlone();
    this.storesWaiting += 1;
    try {
      while (this.claiming) await this.claiming;
    } finally {
      this.storesWaiting -= 1;
    }
    this.dropUnattemptable();
    const held = this.heldLeases();
    const room = this.storeRoom(held);
    if (room <= 0) return storeAlone();
    const storing = storeAndLease(this.knex, webhooks, firstDelayMs, addressedAt, {
      workerId: this.id,
      limit: room,
      leaseMs: claimLeaseMs(this.config.webhookAttemptTimeoutMs),
      held,
      depth: DELIVERY_SETTINGS.storeAhead,
    });
    this.claiming = storing
      .then(({ stored, leased }) => {
        this.queueLeased(leased);
        if (leased.length < stored) this.claimAgain = true;
      })
      .catch(() => undefined)
      .finally(() => {
        this.claiming = undefined;
        if (this.claimAgain) this.pump();
      });
    try {
      return (await storing).stored;
    } catch (err) {
      if ((err as { code?: string }).code === ADDRESSED_FROM_OLD_SUBSCRIPTIONS) throw err;
      // The lease fails the store with it; the webhooks must not wait on it.
      this.logger.warn(`Leasing with a store failed (${(err as Error).message}); storing alone`);
      return storeAlone();
    }
  }

  /**
   * Wakes the two loops of the worker: one claims due deliveries while there is room and
   * starts their attempts, the other records the attempts that finished. Each runs one at a
   * time, so what piles up while it works goes in its next statement: the busier the worker,
   * the larger its claims and records. A stopping worker still records, but claims nothing.
   *
   * A claim or a record costs much the same whether it carries a few deliveries or many, and
   * on a fast connection a claim after every attempt fills only the places freed since the
   * one before, so a burst goes out in many small claims and records. So, woken by its own
   * work, the worker claims only once a lane runs low, and a record waits a little for attempts
   * finishing close together.
   * `subscriptionIds` are those whose attempts were recorded.
   */
  pump(wokenBy: PumpCause = 'news', subscriptionIds: number[] = []) {
    const claims = !this.stopping && (wokenBy === 'news' || this.lanesRunLow(subscriptionIds));
    if (claims && this.claiming) this.claimAgain = true;
    else if (claims)
      this.claiming = this.claim()
        .catch((err: Error) => this.logger.warn(`Claiming deliveries failed: ${err.message}`))
        .finally(() => {
          this.claiming = undefined;
        });
    this.recordFinished();
  }

  /**
   * Whether a claim is worth its cost: some lane whose last claim may have left deliveries
   * behind holds less than half of what it may hold ahead, so it still has work for its places
   * while the claim runs; or one of the given subscriptions, whose attempts were just recorded,
   * holds nothing or had all it could take, so its next deliveries (a case's next, once its
   * earlier one is recorded) may be due. Deliveries due by other news wake the worker themselves.
   */
  lanesRunLow(subscriptionIds: number[]) {
    const lanes = this.lanes;
    if (subscriptionIds.some((id) => lanes.get(id)?.claimedAll ?? true)) return true;
    for (const lane of lanes.values())
      if (!lane.claimedAll && lane.running + lane.queue.length < (lane.cap * DELIVERY_SETTINGS.claimAhead) / 2)
        return true;
    return false;
  }

  /**
   * Records the finished attempts once `recordBatch` of them wait, the oldest has waited
   * `recordWaitMs`, no other attempt is in flight (a lone attempt waits for nothing) or the
   * worker stops; until then a timer keeps the wait short.
   */
  recordFinished() {
    if (this.recording || this.finished.length === 0) return;
    const oldest = this.finished[0];
    const waitLeftMs = oldest.startedAt.getTime() + oldest.latencyMs + DELIVERY_SETTINGS.recordWaitMs - Date.now();
    const due =
      waitLeftMs <= 0 ||
      this.finished.length >= DELIVERY_SETTINGS.recordBatch ||
      this.inFlight.size === 0 ||
      this.stopping;
    if (!due) {
      this.recordTimer ??= setTimeout(() => {
        this.recordTimer = undefined;
        this.recordFinished();
      }, Math.ceil(waitLeftMs));
      return;
    }
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    let recorded: number[] = [];
    this.recording = this.record()
      .then((subscriptionIds) => {
        recorded = subscriptionIds;
      })
      .finally(() => {
        this.recording = undefined;
        // Recorded attempts free the room another instance sees, and their cases' next deliveries.
        this.pump('ownWork', recorded);
      });
  }

  /**
   * Claims while this worker holds less than it may: up to `claimAhead` times the attempts it
   * may run, so each subscription's next deliveries wait in its lane when a place frees.
   */
  async claim() {
    const leaseMs = claimLeaseMs(this.config.webhookAttemptTimeoutMs);
    do {
      this.claimAgain = false;
      for (;;) {
        if (this.storesWaiting > 0) {
          this.claimAgain = true;
          return;
        }
        this.dropUnattemptable();
        const held = this.heldLeases();
        const room = this.claimRoom(held);
        if (room <= 0) break;
        const claimed = await claimDue(this.knex, this.id, room, leaseMs, held, DELIVERY_SETTINGS.claimAhead);
        this.queueClaimed(claimed, room, held);
        // A short claim took every delivery that may go now.
        if (claimed.length < room) break;
      }
    } while (this.claimAgain);
  }

  /** How many more deliveries a store may lease, given the leases the worker holds: up to `maxHeld` unfinished. */
  storeRoom(held: HeldLeases[]) {
    if (this.leasesHeldBack()) return 0;
    return DELIVERY_SETTINGS.maxHeld - held.reduce((sum, ofSubscription) => sum + ofSubscription.unfinished, 0);
  }

  /**
   * How many deliveries the next claim may take, given the leases the worker holds: up to
   * `claimAhead` times the attempts it may run, each subscription counted only up to what a
   * claim gives it (`claimAhead` times its cap), so that a subscription whose receiver keeps
   * the deep leases of its stores waiting never keeps another's deliveries from being claimed.
   */
  claimRoom(held: HeldLeases[]) {
    if (this.leasesHeldBack()) return 0;
    const counted = held.reduce((sum, { subscription_id, unfinished }) => {
      const cap = this.lanes.get(subscription_id)?.cap ?? DELIVERY_SETTINGS.defaultMaxInFlight;
      return sum + Math.min(unfinished, DELIVERY_SETTINGS.claimAhead * cap);
    }, 0);
    return Math.min(
      DELIVERY_SETTINGS.workerConcurrency * DELIVERY_SETTINGS.claimAhead - counted,
      DELIVERY_SETTINGS.claimBatch,
    );
  }

  /**
   * Whether the worker leases nothing for now: it stops, or its recording falls behind (the
   * leases of attempts made but not recorded then stay few and short).
   */
  leasesHeldBack() {
    return this.stopping || this.beingRecorded.length + this.finished.length >= DELIVERY_SETTINGS.maxUnrecorded;
  }

  /**
   * Queues what a claim of up to `limit` deliveries leased in its subscriptions' lanes, and
   * starts what may go now. `held` is what the claim was told the worker held.
   */
  queueClaimed(claimed: ClaimedDelivery[], limit: number, held: HeldLeases[]) {
    const taken = this.queueLeased(claimed);
    const unfinished = new Map(held.map((ofOne) => [ofOne.subscription_id, ofOne.unfinished]));
    for (const [id, lane] of this.lanes) {
      // The room the claim gave the subscription (migration 20261208100000); a claim cut short by its limit took what it could.
      const room = DELIVERY_SETTINGS.claimAhead * lane.cap - (unfinished.get(id) ?? 0);
      lane.claimedAll = claimed.length < limit && (taken.get(id) ?? 0) < room;
    }
  }

  /** Queues leased deliveries in their subscriptions' lanes and starts what may go now; answers how many each lane took. */
  queueLeased(leased: ClaimedDelivery[]) {
    const taken = new Map<number, number>();
    for (const one of leased) {
      const id = one.subscription.id;
      let lane = this.lanes.get(id);
      if (!lane) this.lanes.set(id, (lane = { queue: [], running: 0, cap: one.cap, claimedAll: false }));
      lane.cap = one.cap;
      lane.queue.push(one);
      taken.set(id, (taken.get(id) ?? 0) + 1);
    }
    for (const id of taken.keys()) this.dispatch(this.lanes.get(id)!);
    return taken;
  }

  /** The leases this worker holds of each subscription: queued in a lane, in flight, or finished and not recorded. */
  heldLeases(): HeldLeases[] {
    const bySubscription = new Map<number, HeldLeases>();
    const count = (id: number, leases: number, finished: boolean) => {
      let held = bySubscription.get(id);
      if (!held) bySubscription.set(id, (held = { subscription_id: id, leases: 0, unfinished: 0 }));
      held.leases += leases;
      if (!finished) held.unfinished += leases;
    };
    // A lane queues one subscription's deliveries, thousands of them after a burst's stores.
    for (const [id, { queue }] of this.lanes) if (queue.length > 0) count(id, queue.length, false);
    for (const { delivery } of this.inFlight.keys()) count(delivery.subscription_id, 1, false);
    for (const { delivery } of [...this.beingRecorded, ...this.finished]) count(delivery.subscription_id, 1, true);
    return [...bySubscription.values()];
  }

  /**
   * Whether a queued delivery's lease still outlasts its attempt and record. One that does not
   * is left to expire and be claimed again, never sent beside another worker's attempt.
   */
  attemptable({ delivery }: ClaimedDelivery) {
    const leaseLeftMs = (delivery.lease_until?.getTime() ?? 0) - Date.now();
    return leaseLeftMs >= this.config.webhookAttemptTimeoutMs + DELIVERY_SETTINGS.recordReserveMs;
  }

  /**
   * Forgets queued deliveries that may no longer be attempted (a lane whose places others took
   * held them too long), so that their leases, once expired and taken by another worker, are
   * not counted as this worker's. A lane's leases end in its queue's order (its claims and
   * stores take turns, each leasing from its own moment), so those are at its front; `dispatch`
   * checks each delivery it starts anyway.
   */
  dropUnattemptable() {
    for (const [subscriptionId, lane] of this.lanes) {
      let expired = 0;
      while (expired < lane.queue.length && !this.attemptable(lane.queue[expired])) expired += 1;
      if (expired > 0) lane.queue.splice(0, expired);
      if (lane.queue.length === 0 && lane.running === 0) this.lanes.delete(subscriptionId);
    }
  }

  /** Starts the lane's next attempts while it has places. */
  dispatch(lane: Lane) {
    while (lane.running < lane.cap && this.inFlight.size < DELIVERY_SETTINGS.workerConcurrency) {
      const next = lane.queue.shift();
      if (!next) break;
      if (this.attemptable(next)) this.startAttempt(next, lane);
    }
  }

  /** Records the attempts that finished, together; answers the subscriptions they were for. */
  async record(): Promise<number[]> {
    this.beingRecorded = this.finished.splice(0);
    try {
      await recordAttempts(this.knex, this.id, this.beingRecorded);
    } catch {
      // One at a time, so a record the database refuses costs only its own delivery (taken again when its lease runs out).
      for (const record of this.beingRecorded) {
        await recordAttempts(this.knex, this.id, [record]).catch((err: Error) =>
          this.logger.warn(`Delivery ${record.delivery.id} attempt could not be recorded: ${err.message}`),
        );
      }
    }
    const recorded = [...new Set(this.beingRecorded.map(({ delivery }) => delivery.subscription_id))];
    this.beingRecorded = [];
    return recorded;
  }

  /**
   * Runs the attempt in a lane's place. An attempt is a chain of few promises on purpose (one
   * for its send, one here): it is the path of every delivery, and each promise also costs the
   * hook that keeps request ids for the log.
   */
  startAttempt(claimed: ClaimedDelivery, lane: Lane) {
    lane.running += 1;
    const ended = () => {
      this.inFlight.delete(claimed);
      lane.running -= 1;
      // The place it frees goes to its own lane first, then to lanes held back by the process's limit.
      this.dispatch(lane);
      for (const other of this.lanes.values()) if (other.queue.length > 0) this.dispatch(other);
      if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(claimed.subscription.id);
      // Its case's next delivery waits for its record, which wakes the worker again.
      this.pump('ownWork');
    };
    const running = this.attempt(claimed).then(
      (record) => {
        this.finished.push(record);
        ended();
      },
      (err: Error) => {
        this.logger.warn(`Delivery ${claimed.delivery.id} attempt failed to run: ${err.message}`);
        ended();
      },
    );
    this.inFlight.set(claimed, running);
  }

  attempt({ delivery, subscription }: ClaimedDelivery): Promise<AttemptRecord> {
    const startedAt = new Date();
    const started = performance.now();
    const recorded = (outcome: AttemptOutcome): AttemptRecord => {
      const latencyMs = performance.now() - started;
      const retryInMs = outcome.ok
        ? undefined
        : nextDelayMs(this.config.webhookRetryScheduleMs, delivery.cycle_attempts + 1, outcome.retryAfterMs);
      return { delivery, startedAt, latencyMs, outcome, retryInMs };
    };
    let send: Promise<AttemptOutcome>;
    try {
      const body = JSON.stringify(delivery.payload);
      const timestampSeconds = Math.floor(Date.now() / 1000);
      const message = {
        webhookId: delivery.webhook_id,
        eventType: delivery.event_type,
        timestampSeconds,
        body,
        caseSequence: delivery.case_sequence,
        signature: signatureHeader(
          {
            secret: subscription.secret,
            previousSecret: subscription.previous_secret,
            previousSecretUntil: subscription.previous_secret_until,
          },
          delivery.webhook_id,
          timestampSeconds,
          body,
        ),
      };
      const timeoutMs = this.config.webhookAttemptTimeoutMs;
      send =
        subscription.kind === 'http'
          ? this.http.send(
              { url: subscription.url, method: subscription.method ?? 'POST', headers: subscription.headers },
              message,
              timeoutMs,
            )
          : this.amqp.publish({ url: subscription.url, queue: subscription.queue ?? '' }, message, timeoutMs);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    // A send that fails outright instead of answering an outcome is a failed attempt like any
    // other: retried, then dead-lettered, never left leased for ever.
    return send.then(recorded, (err: Error) => recorded({ ok: false, errorKind: 'connection', error: err.message }));
  }
}
