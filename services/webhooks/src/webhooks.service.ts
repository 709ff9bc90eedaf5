/**
 * webhooks: turns the other services' domain events into signed deliveries to the receivers'
 * HTTP endpoints and AMQP queues, at least once. Producers' outbox relays call `ingest`, which
 * stores every resulting delivery before it answers; workers in every instance then claim due
 * deliveries and attempt them on the retry schedule, logging each attempt.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BlockList } from 'node:net';
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf, DbMixin, type DbService, type DomainEvent, FieldsValidationError, type HubConfig, inTransaction, type World, WorldCacheMixin } from '@hub/shared';
import { adminActions } from './admin.actions';
import { healthActions } from './health.actions';
import { planDeliveries } from './addressing';
import { AmqpChannels } from './amqp-sender';
import { sendHttp } from './http-sender';
import type { AttemptOutcome } from './outcome';
import { nextDelayMs } from './schedule';
import { DELIVERY_SETTINGS } from './settings';
import { signatureHeader } from './signature';
import { addressable, type AttemptRecord, type ClaimedDelivery, insertDeliveries, recordAndClaim, recordAttempts, statusRules, type SubscriptionRow, subscriptionsInAudience } from './store';
import { ACCOUNT_FIXED, type AccountOut, applyWebhooksWorld, MADE_BY_API } from './subscriptions';
import { allowList } from './target-safety';

export interface IngestParams {
  events: DomainEvent[];
}

export type WebhooksThis = Service &
  DbService & {
    config: HubConfig;
    allowed: BlockList;
    amqp: AmqpChannels;
    worker: { timer?: NodeJS.Timeout; pumping?: Promise<void>; again: boolean; stopping: boolean; inFlight: Set<Promise<void>>; finished: AttemptRecord[] };
    pump(): void;
    cycle(): Promise<void>;
    start(claimed: ClaimedDelivery): void;
    attempt(claimed: ClaimedDelivery): Promise<AttemptRecord>;
    accountsById(ctx: Context, ids: number[]): Promise<Map<number, AccountOut>>;
  };

const WebhooksService: ServiceSchema<ServiceSettingSchema, WebhooksThis> = {
  name: 'webhooks',
  mixins: [DbMixin('webhooks', path.join(__dirname, 'migrations')), WorldCacheMixin],
  settings: { rest: '' },

  actions: {
    /**
     * Internal: where outbox relays hand their events. Every delivery is stored before the
     * answer, so the answer is the acknowledgement; a repeated event adds nothing.
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
        const partnerIds = [...new Set(events.map((event) => event.audience.partnerId).filter((id): id is number => Boolean(id)))];
        const providerIds = [...new Set(events.map((event) => event.audience.providerId).filter((id): id is number => Boolean(id)))];
        const subscriptions = await subscriptionsInAudience(this.db.knex, partnerIds, providerIds);
        const rules = await statusRules(this.db.knex, [...new Set(subscriptions.map((row) => row.partner_id).filter((id): id is number => id !== null))]);
        const targets = subscriptions.map(addressable);
        const planned = events.flatMap((event) => planDeliveries(event, targets, (partnerId) => rules.get(partnerId) ?? { mappings: {}, blacklist: [] }));
        const stored = await insertDeliveries(this.db.knex, planned, this.config.webhookRetryScheduleMs[0] ?? 0);
        if (stored > 0) this.pump();
        return { events: events.length, deliveries: stored };
      },
    },

    /** Internal: a partner's status mapping and blacklist, for services that show statuses. */
    statusRules: {
      visibility: 'public',
      cache: { keys: ['partnerId'] },
      params: { partnerId: { type: 'number', integer: true, positive: true } },
      async handler(this: WebhooksThis, ctx: Context<{ partnerId: number }>) {
        const rules = await statusRules(this.db.knex, [ctx.params.partnerId]);
        return rules.get(ctx.params.partnerId);
      },
    },

    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: WebhooksThis, ctx: Context<{ world: World }>) {
        const part = ctx.params.world.webhooks;
        if (!part) return true;
        // Asked before the transaction: embedded mode has one connection, which catalog needs too.
        const accounts = await this.accountsById(ctx, [...new Set((part.subscriptions ?? []).map((subscription) => subscription.accountId))]);
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
          ((await this.db.knex('webhooks.subscriptions').whereIn('id', subscriptions.map((subscription) => subscription.id))) as SubscriptionRow[]).map((row) => [row.id, row]),
        );
        const details: Record<string, string[]> = {};
        subscriptions.forEach((subscription, index) => {
          const row = stored.get(subscription.id);
          if (row?.origin === 'admin') details[`webhooks.subscriptions[${index}].id`] = [MADE_BY_API];
          else if (row && row.account_id !== subscription.accountId) details[`webhooks.subscriptions[${index}].accountId`] = [ACCOUNT_FIXED];
        });
        if (Object.keys(details).length) throw new FieldsValidationError(details);
        return true;
      },
    },

    ...adminActions,
    ...healthActions,
  },

  methods: {
    async accountsById(this: WebhooksThis, ctx: Context, ids: number[]): Promise<Map<number, AccountOut>> {
      if (ids.length === 0) return new Map();
      const accounts = await ctx.call<AccountOut[], { ids: number[] }>('catalog.accounts', { ids });
      return new Map(accounts.map((account) => [account.id, account]));
    },

    /**
     * Records the attempts that finished and claims due deliveries while there is room, starting
     * their attempts; one pump at a time, so attempts that finish meanwhile are recorded together.
     * A stopping worker still records, but claims nothing.
     */
    pump(this: WebhooksThis) {
      const worker = this.worker;
      if (worker.pumping) {
        worker.again = true;
        return;
      }
      worker.pumping = (async () => {
        do {
          worker.again = false;
          await this.cycle();
        } while (worker.again || worker.finished.length > 0);
      })()
        .catch((err: Error) => this.logger.warn(`Claiming deliveries failed: ${err.message}`))
        .finally(() => {
          worker.pumping = undefined;
        });
    },

    /** One cycle of the worker: records what finished and claims while there is room. */
    async cycle(this: WebhooksThis) {
      const worker = this.worker;
      const leaseMs = this.config.webhookAttemptTimeoutMs + DELIVERY_SETTINGS.leaseMarginMs;
      let finished = worker.finished.splice(0);
      for (;;) {
        const room = worker.stopping ? 0 : Math.min(DELIVERY_SETTINGS.workerConcurrency - worker.inFlight.size, DELIVERY_SETTINGS.claimBatch);
        if (room === 0 && finished.length === 0) return;
        let claimed: ClaimedDelivery[];
        try {
          claimed = await recordAndClaim(this.db.knex, finished, room, leaseMs);
        } catch (err) {
          if (finished.length === 0) throw err;
          // One at a time, so a record the database refuses costs only its own delivery (taken again when its lease runs out).
          for (const record of finished) {
            await recordAttempts(this.db.knex, [record]).catch((recordErr: Error) =>
              this.logger.warn(`Delivery ${record.delivery.id} attempt could not be recorded: ${recordErr.message}`),
            );
          }
          finished = [];
          continue;
        }
        finished = [];
        for (const one of claimed) this.start(one);
        // A short claim took every delivery that may go now.
        if (claimed.length < room) return;
      }
    },

    start(this: WebhooksThis, claimed: ClaimedDelivery) {
      const worker = this.worker;
      const running: Promise<void> = this.attempt(claimed)
        .then((record) => {
          worker.finished.push(record);
        })
        .catch((err: Error) => this.logger.warn(`Delivery ${claimed.delivery.id} attempt failed to run: ${err.message}`))
        .finally(() => {
          worker.inFlight.delete(running);
          this.pump();
        });
      worker.inFlight.add(running);
    },

    async attempt(this: WebhooksThis, { delivery, subscription }: ClaimedDelivery) {
      const startedAt = new Date();
      const started = performance.now();
      const body = JSON.stringify(delivery.payload);
      const timestampSeconds = Math.floor(Date.now() / 1000);
      const message = {
        webhookId: delivery.webhook_id,
        eventType: delivery.event_type,
        timestampSeconds,
        body,
        signature: signatureHeader(
          { secret: subscription.secret, previousSecret: subscription.previous_secret, previousSecretUntil: subscription.previous_secret_until },
          delivery.webhook_id,
          timestampSeconds,
          body,
        ),
      };
      const timeoutMs = this.config.webhookAttemptTimeoutMs;
      const send =
        subscription.kind === 'http'
          ? sendHttp({ url: subscription.url, method: subscription.method ?? 'POST', headers: subscription.headers }, message, timeoutMs, this.allowed)
          : this.amqp.publish({ url: subscription.url, queue: subscription.queue ?? '' }, message, timeoutMs);
      // A target the request cannot even be made to (a header Node refuses) is a failed attempt
      // like any other: retried, then dead-lettered, never left leased for ever.
      const outcome: AttemptOutcome = await send.catch((err: Error) => ({ ok: false, errorKind: 'connection', error: err.message }));
      const latencyMs = performance.now() - started;
      const retryInMs = outcome.ok ? undefined : nextDelayMs(this.config.webhookRetryScheduleMs, delivery.cycle_attempts + 1, outcome.retryAfterMs);
      return { delivery, startedAt, latencyMs, outcome, retryInMs };
    },
  },

  created(this: WebhooksThis) {
    this.config = configOf(this.broker);
    this.allowed = allowList(this.config.webhookAllowedNetworks);
    this.amqp = new AmqpChannels(this.allowed);
    this.worker = { again: false, stopping: false, inFlight: new Set(), finished: [] };
  },

  started(this: WebhooksThis) {
    this.worker.timer = setInterval(() => this.pump(), DELIVERY_SETTINGS.pollIntervalMs);
    this.worker.timer.unref();
    this.pump();
  },

  async stopped(this: WebhooksThis) {
    this.worker.stopping = true;
    clearInterval(this.worker.timer);
    await this.worker.pumping;
    await Promise.all([...this.worker.inFlight]);
    // The attempts that just finished are recorded by the pump they started.
    await this.worker.pumping;
    await this.amqp.closeAll();
  },
};

export default WebhooksService;
