/**
 * webhooks: turns the other services' domain events into signed deliveries to the receivers'
 * HTTP endpoints and AMQP queues, at least once. Producers' outbox relays call `ingest`, which
 * stores every webhook in its party's event feed and every resulting delivery before it answers;
 * workers in every instance then claim due deliveries and attempt them on the retry schedule,
 * logging each attempt. Parties read their feeds through `GET /api/v3/events`.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  configOf,
  DbMixin,
  type DbService,
  type DomainEvent,
  FieldsValidationError,
  type HubConfig,
  inTransaction,
  type StatusRules,
  type World,
  WorldCacheMixin,
  RetentionMixin,
} from '@hub/shared';
import { adminActions } from './admin.actions';
import { feedActions } from './feed.actions';
import { healthActions } from './health.actions';
import { deliveryRetention } from './retention';
import { type AddressedWebhook, partiesOf, partyKey, takersOf, webhooksOf } from './addressing';
import { ADDRESSED_FROM_OLD_SUBSCRIPTIONS, storeAndLease, storeWebhooks, type WebhookToStore } from './feed.store';
import { AmqpChannels } from './amqp-sender';
import { HttpSender } from './http-sender';
import type { AttemptOutcome } from './outcome';
import { nextDelayMs } from './schedule';
import { claimLeaseMs, DELIVERY_SETTINGS } from './settings';
import { signatureHeader } from './signature';
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
  type SubscriptionRow,
} from './webhooks.store';
import { ACCOUNT_FIXED, type AccountOut, applyWebhooksWorld, MADE_BY_API } from './subscriptions';
import { allowList, TargetResolver } from './target-safety';

export interface IngestParams {
  events: DomainEvent[];
}

interface Lane {
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

export type WebhooksThis = Service &
  DbService & {
    config: HubConfig;
    /** Checks and keeps the addresses of target hosts, for both kinds of target. */
    resolver: TargetResolver;
    http: HttpSender;
    amqp: AmqpChannels;
    /** The subscriptions ingests address webhooks from, kept while their version is current. */
    addressing?: AddressingView;
    worker: {
      /** Whose leases a claim counts (`claimDue`); new with each start, as a worker's leases do not outlive it. */
      id: string;
      timer?: NodeJS.Timeout;
      /** A claim, or a store that leases, under way: they take turns (`storeAndWake`). */
      claiming?: Promise<void>;
      claimAgain: boolean;
      /** Stores waiting for the claim under way to lease: the claim's loop ends for them. */
      storesWaiting: number;
      recording?: Promise<void>;
      /** Wakes the recording when the oldest finished attempt has waited `recordWaitMs`. */
      recordTimer?: NodeJS.Timeout;
      stopping: boolean;
      /** Attempts running now, by their delivery. */
      inFlight: Map<ClaimedDelivery, Promise<void>>;
      /** Per subscription: what was claimed ahead and waits for a place, and the attempts it may and does have running. */
      lanes: Map<number, Lane>;
      /** Attempts that finished and wait for the next record. */
      finished: AttemptRecord[];
      /** Attempts being recorded right now. */
      beingRecorded: AttemptRecord[];
    };
    storeAddressed(webhooks: AddressedWebhook[]): Promise<number>;
    storeAndWake(webhooks: WebhookToStore[], addressedAt: string): Promise<number>;
    pump(wokenBy?: PumpCause, subscriptionIds?: number[]): void;
    lanesRunLow(subscriptionIds: number[]): boolean;
    recordFinished(): void;
    claim(): Promise<void>;
    storeRoom(held: HeldLeases[]): number;
    claimRoom(held: HeldLeases[]): number;
    leasesHeldBack(): boolean;
    queueClaimed(claimed: ClaimedDelivery[], limit: number, held: HeldLeases[]): void;
    queueLeased(leased: ClaimedDelivery[]): Map<number, number>;
    heldLeases(): HeldLeases[];
    attemptable(claimed: ClaimedDelivery): boolean;
    dropUnattemptable(): void;
    dispatch(lane: Lane): void;
    record(): Promise<number[]>;
    start(claimed: ClaimedDelivery, lane: Lane): void;
    attempt(claimed: ClaimedDelivery): Promise<AttemptRecord>;
    accountsById(ctx: Context, ids: number[]): Promise<Map<number, AccountOut>>;
  };

const WebhooksService: ServiceSchema<ServiceSettingSchema, WebhooksThis> = {
  name: 'webhooks',
  // Mixins start last to first: the schema is current before retention makes partitions ahead.
  mixins: [
    RetentionMixin('webhooks', ({ retention }) => deliveryRetention(retention)),
    WorldCacheMixin,
    DbMixin('webhooks', path.join(__dirname, 'migrations')),
  ],
  settings: { rest: '' },
  metadata: {
    description: 'Webhook subscriptions of receivers, and their deliveries, attempts and dead letters (admin).',
  },

  actions: {
    /**
     * Internal: where outbox relays hand their events. Every feed entry and delivery is stored
     * before the answer, so the answer is the acknowledgement; a repeated event adds nothing.
     */
    ingest: {
      visibility: 'public',
      params: {
        events: {
          type: 'array',
          items: {
            type: 'object',
            props: {
              id: { type: 'uuid' },
              type: { type: 'string', min: 1, max: 64 },
              source: { type: 'string', optional: true },
              occurredAt: { type: 'string', min: 1 },
              caseGuid: { type: 'uuid', optional: true, nullable: true },
              audience: {
                type: 'object',
                props: {
                  partnerId: { type: 'number', integer: true, optional: true, nullable: true },
                  providerId: { type: 'number', integer: true, optional: true, nullable: true },
                },
              },
              payload: { type: 'object' },
            },
          },
        },
      },
      async handler(this: WebhooksThis, ctx: Context<IngestParams>) {
        const { events } = ctx.params;
        const partnerIds = [
          ...new Set(
            events
              .flatMap(partiesOf)
              .filter(({ kind }) => kind === 'partner')
              .map(({ id }) => id),
          ),
        ];
        // Status mappings and blacklists are the catalog's reference data. Asked before the
        // transaction: embedded mode has one connection, which catalog needs too.
        const rules = partnerIds.length
          ? await ctx.call<Record<number, StatusRules>, { partnerIds: number[] }>('catalog.statusRules', { partnerIds })
          : {};
        const stored = await this.storeAddressed(
          events.flatMap((event) =>
            webhooksOf(event, (partnerId) => rules[partnerId] ?? { mappings: {}, blacklist: [] }),
          ),
        );
        return { events: events.length, deliveries: stored };
      },
    },

    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: WebhooksThis, ctx: Context<{ world: World }>) {
        const part = ctx.params.world.webhooks;
        if (!part) return true;
        // Asked before the transaction: embedded mode has one connection, which catalog needs too.
        const accounts = await this.accountsById(ctx, [
          ...new Set((part.subscriptions ?? []).map((subscription) => subscription.accountId)),
        ]);
        await inTransaction(this.db.knex, (trx) => applyWebhooksWorld(trx, part, accounts));
        this.pump();
        return true;
      },
    },

    /**
     * Internal: whether the world's subscriptions would load, asked before any part of a world
     * is written: a file may not take over a subscription made through the admin API, nor move
     * one to another account (its queued deliveries would reach another party).
     */
    checkWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: WebhooksThis, ctx: Context<{ world: World }>) {
        const subscriptions = ctx.params.world.webhooks?.subscriptions ?? [];
        const stored = new Map(
          (
            (await this.db.knex('webhooks.subscriptions').whereIn(
              'id',
              subscriptions.map((subscription) => subscription.id),
            )) as SubscriptionRow[]
          ).map((row) => [row.id, row]),
        );
        const details: Record<string, string[]> = {};
        subscriptions.forEach((subscription, index) => {
          const row = stored.get(subscription.id);
          if (row?.origin === 'admin') details[`webhooks.subscriptions[${index}].id`] = [MADE_BY_API];
          else if (row && row.account_id !== subscription.accountId)
            details[`webhooks.subscriptions[${index}].accountId`] = [ACCOUNT_FIXED];
        });
        if (Object.keys(details).length) throw new FieldsValidationError(details);
        return true;
      },
    },

    ...feedActions,
    ...adminActions,
    ...healthActions,
  },

  methods: {
    /**
     * Stores the webhooks, each with a delivery for every subscription of its party that takes
     * it, addressed from the subscriptions this service holds. The feed and the deliveries of a
     * webhook commit together, so a webhook sent is always in the feed. Subscriptions that changed
     * since they were read make the store refuse them (feed.store.ts); they are read again then.
     */
    async storeAddressed(this: WebhooksThis, webhooks: AddressedWebhook[]): Promise<number> {
      for (let tries = 1; ; tries++) {
        const addressing = (this.addressing ??= await readAddressing(this.db.knex));
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
    },

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
    async storeAndWake(this: WebhooksThis, webhooks: WebhookToStore[], addressedAt: string): Promise<number> {
      const worker = this.worker;
      const firstDelayMs = this.config.webhookRetryScheduleMs[0] ?? 0;
      const storeAlone = async () => {
        const stored = await storeWebhooks(this.db.knex, webhooks, firstDelayMs, addressedAt);
        if (stored > 0) this.pump();
        return stored;
      };
      if (worker.stopping || firstDelayMs > 0 || webhooks.every(({ subscriptionIds }) => !subscriptionIds.length))
        return storeAlone();
      worker.storesWaiting += 1;
      try {
        while (worker.claiming) await worker.claiming;
      } finally {
        worker.storesWaiting -= 1;
      }
      this.dropUnattemptable();
      const held = this.heldLeases();
      const room = this.storeRoom(held);
      if (room <= 0) return storeAlone();
      const storing = storeAndLease(this.db.knex, webhooks, firstDelayMs, addressedAt, {
        workerId: worker.id,
        limit: room,
        leaseMs: claimLeaseMs(this.config.webhookAttemptTimeoutMs),
        held,
        depth: DELIVERY_SETTINGS.storeAhead,
      });
      worker.claiming = storing
        .then(({ stored, leased }) => {
          this.queueLeased(leased);
          if (leased.length < stored) worker.claimAgain = true;
        })
        .catch(() => undefined)
        .finally(() => {
          worker.claiming = undefined;
          if (worker.claimAgain) this.pump();
        });
      try {
        return (await storing).stored;
      } catch (err) {
        if ((err as { code?: string }).code === ADDRESSED_FROM_OLD_SUBSCRIPTIONS) throw err;
        // The lease fails the store with it; the webhooks must not wait on it.
        this.logger.warn(`Leasing with a store failed (${(err as Error).message}); storing alone`);
        return storeAlone();
      }
    },

    async accountsById(this: WebhooksThis, ctx: Context, ids: number[]): Promise<Map<number, AccountOut>> {
      if (ids.length === 0) return new Map();
      const accounts = await ctx.call<AccountOut[], { ids: number[] }>('catalog.accounts', { ids });
      return new Map(accounts.map((account) => [account.id, account]));
    },

    /**
     * Wakes the two loops of the worker: one claims due deliveries while there is room and
     * starts their attempts, the other records the attempts that finished. Each runs one at a
     * time, so what piles up while it works goes in its next statement: the busier the worker,
     * the larger its claims and records. A stopping worker still records, but claims nothing.
     *
     * A claim or a record costs much the same whether it carries a few deliveries or many, and
     * on a fast connection a claim after every attempt fills only the places freed since the
     * one before, so a burst goes out in many small claims and records. So, woken by its own
     * work, the worker claims only once a lane
     * runs low, and a record waits a little for attempts finishing close together.
     * `subscriptionIds` are those whose attempts were recorded.
     */
    pump(this: WebhooksThis, wokenBy: PumpCause = 'news', subscriptionIds: number[] = []) {
      const worker = this.worker;
      const claims = !worker.stopping && (wokenBy === 'news' || this.lanesRunLow(subscriptionIds));
      if (claims && worker.claiming) worker.claimAgain = true;
      else if (claims)
        worker.claiming = this.claim()
          .catch((err: Error) => this.logger.warn(`Claiming deliveries failed: ${err.message}`))
          .finally(() => {
            worker.claiming = undefined;
          });
      this.recordFinished();
    },

    /**
     * Whether a claim is worth its cost: some lane whose last claim may have left deliveries
     * behind holds less than half of what it may hold ahead, so it still has work for its places
     * while the claim runs; or one of the given subscriptions, whose attempts were just recorded,
     * holds nothing or had all it could take, so its next deliveries (a case's next, once its
     * earlier one is recorded) may be due. Deliveries due by other news wake the worker themselves.
     */
    lanesRunLow(this: WebhooksThis, subscriptionIds: number[]) {
      const lanes = this.worker.lanes;
      if (subscriptionIds.some((id) => lanes.get(id)?.claimedAll ?? true)) return true;
      for (const lane of lanes.values())
        if (!lane.claimedAll && lane.running + lane.queue.length < (lane.cap * DELIVERY_SETTINGS.claimAhead) / 2)
          return true;
      return false;
    },

    /**
     * Records the finished attempts once `recordBatch` of them wait, the oldest has waited
     * `recordWaitMs`, no other attempt is in flight (a lone attempt waits for nothing) or the
     * worker stops; until then a timer keeps the wait short.
     */
    recordFinished(this: WebhooksThis) {
      const worker = this.worker;
      if (worker.recording || worker.finished.length === 0) return;
      const oldest = worker.finished[0];
      const waitLeftMs = oldest.startedAt.getTime() + oldest.latencyMs + DELIVERY_SETTINGS.recordWaitMs - Date.now();
      const due =
        waitLeftMs <= 0 ||
        worker.finished.length >= DELIVERY_SETTINGS.recordBatch ||
        worker.inFlight.size === 0 ||
        worker.stopping;
      if (!due) {
        worker.recordTimer ??= setTimeout(() => {
          worker.recordTimer = undefined;
          this.recordFinished();
        }, Math.ceil(waitLeftMs));
        return;
      }
      clearTimeout(worker.recordTimer);
      worker.recordTimer = undefined;
      let recorded: number[] = [];
      worker.recording = this.record()
        .then((subscriptionIds) => {
          recorded = subscriptionIds;
        })
        .finally(() => {
          worker.recording = undefined;
          // Recorded attempts free the room another instance sees, and their cases' next deliveries.
          this.pump('ownWork', recorded);
        });
    },

    /**
     * Claims while this worker holds less than it may: up to `claimAhead` times the attempts it
     * may run, so each subscription's next deliveries wait in its lane when a place frees.
     */
    async claim(this: WebhooksThis) {
      const worker = this.worker;
      const leaseMs = claimLeaseMs(this.config.webhookAttemptTimeoutMs);
      do {
        worker.claimAgain = false;
        for (;;) {
          if (worker.storesWaiting > 0) {
            worker.claimAgain = true;
            return;
          }
          this.dropUnattemptable();
          const held = this.heldLeases();
          const room = this.claimRoom(held);
          if (room <= 0) break;
          const claimed = await claimDue(this.db.knex, worker.id, room, leaseMs, held, DELIVERY_SETTINGS.claimAhead);
          this.queueClaimed(claimed, room, held);
          // A short claim took every delivery that may go now.
          if (claimed.length < room) break;
        }
      } while (worker.claimAgain);
    },

    /** How many more deliveries a store may lease, given the leases the worker holds: up to `maxHeld` unfinished. */
    storeRoom(this: WebhooksThis, held: HeldLeases[]) {
      if (this.leasesHeldBack()) return 0;
      return DELIVERY_SETTINGS.maxHeld - held.reduce((sum, ofSubscription) => sum + ofSubscription.unfinished, 0);
    },

    /**
     * How many deliveries the next claim may take, given the leases the worker holds: up to
     * `claimAhead` times the attempts it may run, each subscription counted only up to what a
     * claim gives it (`claimAhead` times its cap), so that a subscription whose receiver keeps
     * the deep leases of its stores waiting never keeps another's deliveries from being claimed.
     */
    claimRoom(this: WebhooksThis, held: HeldLeases[]) {
      if (this.leasesHeldBack()) return 0;
      const counted = held.reduce((sum, { subscription_id, unfinished }) => {
        const cap = this.worker.lanes.get(subscription_id)?.cap ?? DELIVERY_SETTINGS.defaultMaxInFlight;
        return sum + Math.min(unfinished, DELIVERY_SETTINGS.claimAhead * cap);
      }, 0);
      return Math.min(
        DELIVERY_SETTINGS.workerConcurrency * DELIVERY_SETTINGS.claimAhead - counted,
        DELIVERY_SETTINGS.claimBatch,
      );
    },

    /**
     * Whether the worker leases nothing for now: it stops, or its recording falls behind (the
     * leases of attempts made but not recorded then stay few and short).
     */
    leasesHeldBack(this: WebhooksThis) {
      const worker = this.worker;
      return worker.stopping || worker.beingRecorded.length + worker.finished.length >= DELIVERY_SETTINGS.maxUnrecorded;
    },

    /**
     * Queues what a claim of up to `limit` deliveries leased in its subscriptions' lanes, and
     * starts what may go now. `held` is what the claim was told the worker held.
     */
    queueClaimed(this: WebhooksThis, claimed: ClaimedDelivery[], limit: number, held: HeldLeases[]) {
      const taken = this.queueLeased(claimed);
      const unfinished = new Map(held.map((ofOne) => [ofOne.subscription_id, ofOne.unfinished]));
      for (const [id, lane] of this.worker.lanes) {
        // The room the claim gave the subscription (migration 20261208100000); a claim cut short by its limit took what it could.
        const room = DELIVERY_SETTINGS.claimAhead * lane.cap - (unfinished.get(id) ?? 0);
        lane.claimedAll = claimed.length < limit && (taken.get(id) ?? 0) < room;
      }
    },

    /** Queues leased deliveries in their subscriptions' lanes and starts what may go now; answers how many each lane took. */
    queueLeased(this: WebhooksThis, leased: ClaimedDelivery[]) {
      const worker = this.worker;
      const taken = new Map<number, number>();
      for (const one of leased) {
        const id = one.subscription.id;
        let lane = worker.lanes.get(id);
        if (!lane) worker.lanes.set(id, (lane = { queue: [], running: 0, cap: one.cap, claimedAll: false }));
        lane.cap = one.cap;
        lane.queue.push(one);
        taken.set(id, (taken.get(id) ?? 0) + 1);
      }
      for (const id of taken.keys()) this.dispatch(worker.lanes.get(id)!);
      return taken;
    },

    /** The leases this worker holds of each subscription: queued in a lane, in flight, or finished and not recorded. */
    heldLeases(this: WebhooksThis): HeldLeases[] {
      const worker = this.worker;
      const bySubscription = new Map<number, HeldLeases>();
      const count = (id: number, leases: number, finished: boolean) => {
        let held = bySubscription.get(id);
        if (!held) bySubscription.set(id, (held = { subscription_id: id, leases: 0, unfinished: 0 }));
        held.leases += leases;
        if (!finished) held.unfinished += leases;
      };
      // A lane queues one subscription's deliveries, thousands of them after a burst's stores.
      for (const [id, { queue }] of worker.lanes) if (queue.length > 0) count(id, queue.length, false);
      for (const { delivery } of worker.inFlight.keys()) count(delivery.subscription_id, 1, false);
      for (const { delivery } of [...worker.beingRecorded, ...worker.finished])
        count(delivery.subscription_id, 1, true);
      return [...bySubscription.values()];
    },

    /**
     * Whether a queued delivery's lease still outlasts its attempt and record. One that does not
     * is left to expire and be claimed again, never sent beside another worker's attempt.
     */
    attemptable(this: WebhooksThis, { delivery }: ClaimedDelivery) {
      const leaseLeftMs = (delivery.lease_until?.getTime() ?? 0) - Date.now();
      return leaseLeftMs >= this.config.webhookAttemptTimeoutMs + DELIVERY_SETTINGS.recordReserveMs;
    },

    /**
     * Forgets queued deliveries that may no longer be attempted (a lane whose places others took
     * held them too long), so that their leases, once expired and taken by another worker, are
     * not counted as this worker's. A lane's leases end in its queue's order (its claims and
     * stores take turns, each leasing from its own moment), so those are at its front; `dispatch`
     * checks each delivery it starts anyway.
     */
    dropUnattemptable(this: WebhooksThis) {
      for (const [subscriptionId, lane] of this.worker.lanes) {
        let expired = 0;
        while (expired < lane.queue.length && !this.attemptable(lane.queue[expired])) expired += 1;
        if (expired > 0) lane.queue.splice(0, expired);
        if (lane.queue.length === 0 && lane.running === 0) this.worker.lanes.delete(subscriptionId);
      }
    },

    /** Starts the lane's next attempts while it has places. */
    dispatch(this: WebhooksThis, lane: Lane) {
      const worker = this.worker;
      while (lane.running < lane.cap && worker.inFlight.size < DELIVERY_SETTINGS.workerConcurrency) {
        const next = lane.queue.shift();
        if (!next) break;
        if (this.attemptable(next)) this.start(next, lane);
      }
    },

    /** Records the attempts that finished, together; answers the subscriptions they were for. */
    async record(this: WebhooksThis): Promise<number[]> {
      const worker = this.worker;
      worker.beingRecorded = worker.finished.splice(0);
      try {
        await recordAttempts(this.db.knex, worker.id, worker.beingRecorded);
      } catch {
        // One at a time, so a record the database refuses costs only its own delivery (taken again when its lease runs out).
        for (const record of worker.beingRecorded) {
          await recordAttempts(this.db.knex, worker.id, [record]).catch((err: Error) =>
            this.logger.warn(`Delivery ${record.delivery.id} attempt could not be recorded: ${err.message}`),
          );
        }
      }
      const recorded = [...new Set(worker.beingRecorded.map(({ delivery }) => delivery.subscription_id))];
      worker.beingRecorded = [];
      return recorded;
    },

    /**
     * Runs the attempt in a lane's place. An attempt is a chain of few promises on purpose (one
     * for its send, one here): it is the path of every delivery, and each promise also costs the
     * hook that keeps request ids for the log.
     */
    start(this: WebhooksThis, claimed: ClaimedDelivery, lane: Lane) {
      const worker = this.worker;
      lane.running += 1;
      const ended = () => {
        worker.inFlight.delete(claimed);
        lane.running -= 1;
        // The place it frees goes to its own lane first, then to lanes held back by the process's limit.
        this.dispatch(lane);
        for (const other of worker.lanes.values()) if (other.queue.length > 0) this.dispatch(other);
        if (lane.running === 0 && lane.queue.length === 0) worker.lanes.delete(claimed.subscription.id);
        // Its case's next delivery waits for its record, which wakes the worker again.
        this.pump('ownWork');
      };
      const running = this.attempt(claimed).then(
        (record) => {
          worker.finished.push(record);
          ended();
        },
        (err: Error) => {
          this.logger.warn(`Delivery ${claimed.delivery.id} attempt failed to run: ${err.message}`);
          ended();
        },
      );
      worker.inFlight.set(claimed, running);
    },

    attempt(this: WebhooksThis, { delivery, subscription }: ClaimedDelivery): Promise<AttemptRecord> {
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
    },
  },

  created(this: WebhooksThis) {
    this.config = configOf(this.broker);
    this.resolver = new TargetResolver(
      allowList(this.config.webhookAllowedNetworks),
      DELIVERY_SETTINGS.resolvedHostKeptMs,
      DELIVERY_SETTINGS.resolvedHostsKept,
    );
    this.http = new HttpSender(this.resolver);
    this.amqp = new AmqpChannels(this.resolver);
    this.worker = {
      id: randomUUID(),
      claimAgain: false,
      storesWaiting: 0,
      stopping: false,
      inFlight: new Map(),
      lanes: new Map(),
      finished: [],
      beingRecorded: [],
    };
  },

  started(this: WebhooksThis) {
    this.worker.timer = setInterval(() => this.pump(), DELIVERY_SETTINGS.pollIntervalMs);
    this.worker.timer.unref();
    this.pump();
  },

  async stopped(this: WebhooksThis) {
    const worker = this.worker;
    worker.stopping = true;
    clearInterval(worker.timer);
    await worker.claiming;
    // What waited in the lanes goes back at once rather than when its lease ends.
    const queued = [...worker.lanes.values()].flatMap(({ queue }) => queue.splice(0).map(({ delivery }) => delivery));
    await releaseLeases(this.db.knex, queued).catch((err: Error) =>
      this.logger.warn(`Giving back ${queued.length} claimed deliveries failed (${err.message}); their leases run out`),
    );
    await Promise.all([...worker.inFlight.values()]);
    // A stopping worker records what finished at once, until none is left.
    while (worker.recording || worker.finished.length > 0) {
      this.recordFinished();
      await worker.recording;
    }
    await forgetWorker(this.db.knex, worker.id).catch((err: Error) =>
      this.logger.warn(`Forgetting this worker's leases failed (${err.message}); they count until they run out`),
    );
    await Promise.all([this.http.closeAll(), this.amqp.closeAll()]);
  },
};

export default WebhooksService;
