/**
 * webhooks: turns the other services' domain events into signed deliveries to the receivers'
 * HTTP endpoints and AMQP queues, at least once. Producers' outbox relays call `ingest`, which
 * stores every webhook in its party's event feed and every resulting delivery before it answers;
 * workers in every instance then claim due deliveries and attempt them on the retry schedule,
 * logging each attempt. Parties read their feeds through `GET /api/v3/events`.
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  configOf,
  DbMixin,
  FieldsValidationError,
  inTransaction,
  type StatusRules,
  type World,
  WorldCacheMixin,
  RetentionMixin,
} from '@hub/shared';
import { adminActions } from './admin.actions';
import { partiesOf, webhooksOf } from './addressing';
import { DeliveryWorker } from './delivery-worker';
import { feedActions } from './feed.actions';
import { healthActions } from './health.actions';
import { deliveryRetention } from './retention';
import { accountsById, ACCOUNT_FIXED, applyWebhooksWorld, MADE_BY_API } from './subscriptions';
import type { IngestParams, WebhooksThis } from './types';
import type { SubscriptionRow } from './webhooks.store';

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
        const stored = await this.worker.storeAddressed(
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
        const accounts = await accountsById(ctx, [
          ...new Set((part.subscriptions ?? []).map((subscription) => subscription.accountId)),
        ]);
        await inTransaction(this.db.knex, (trx) => applyWebhooksWorld(trx, part, accounts));
        this.worker.pump();
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

  created(this: WebhooksThis) {
    this.config = configOf(this.broker);
  },

  // The worker starts once the database is ready (DbMixin, started first).
  started(this: WebhooksThis) {
    this.worker = new DeliveryWorker(this.db.knex, this.config, this.logger);
    this.worker.start();
  },

  async stopped(this: WebhooksThis) {
    await this.worker?.stop();
  },
};

export default WebhooksService;
