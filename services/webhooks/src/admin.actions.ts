/**
 * The admin API under /api/admin/webhooks: subscriptions (create, update, pause, resume, rotate
 * the secret), deliveries with their attempt log, and redeliveries.
 */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  FIELD_MESSAGES,
  FieldsValidationError,
  inTransaction,
  itemsWithinBudget,
  NotFoundError,
  type ParamsOf,
  parseInstant,
} from '@hub/shared';
import { DELIVERY_SETTINGS } from './settings';
import { newSecret } from './signature';
import type { DeliveryRow, SubscriptionRow } from './webhooks.store';
import {
  accountsById,
  ACCOUNT_FIXED,
  SECRET_PATTERN,
  type SubscriptionIn,
  subscriptionColumns,
  subscriptionErrors,
  subscriptionOut,
  subscriptionParams,
} from './subscriptions';
import {
  ATTEMPTS,
  CREATED_SUBSCRIPTION,
  DELIVERIES,
  ONE_DELIVERY,
  ONE_SUBSCRIPTION,
  REDELIVERED_COUNT,
  ROTATED_SECRET,
  SUBSCRIPTIONS,
} from './responses';
import type { WebhooksThis } from './types';

const idParam = { id: { type: 'number', integer: true, positive: true } } as const;
type IdParams = ParamsOf<typeof idParam>;
const LIST_DELIVERIES_PARAMS = {
  subscriptionId: { type: 'number', integer: true, positive: true, optional: true },
  state: { type: 'enum', values: ['pending', 'succeeded', 'dead'], optional: true },
  eventId: { type: 'uuid', optional: true },
  limit: { type: 'number', integer: true, min: 1, max: 100, default: 20 },
  offset: { type: 'number', integer: true, min: 0, default: 0 },
} as const;
export type ListDeliveriesParams = ParamsOf<typeof LIST_DELIVERIES_PARAMS>;
/** Deliveries are counted in a bigint column. */
const deliveryIdParam = { id: { type: 'number', integer: true, positive: true, max: Number.MAX_SAFE_INTEGER } };

function deliveryOut(row: DeliveryRow) {
  return {
    id: row.id,
    eventId: row.event_id,
    webhookId: row.webhook_id,
    subscriptionId: row.subscription_id,
    eventType: row.event_type,
    caseGuid: row.case_guid,
    caseSequence: row.case_sequence,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
    lastError: row.last_error,
    occurredAt: row.occurred_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    payload: row.payload,
  };
}

async function subscriptionOrThrow(self: WebhooksThis, id: number): Promise<SubscriptionRow> {
  const row = (await self.db.knex('webhooks.subscriptions').where({ id }).first()) as SubscriptionRow | undefined;
  if (!row) throw new NotFoundError('Subscription not found');
  return row;
}

async function setState(self: WebhooksThis, id: number, from: string[], state: string, reason: string | null) {
  await subscriptionOrThrow(self, id);
  await self.db
    .knex('webhooks.subscriptions')
    .where({ id })
    .whereIn('state', from)
    .update({ state, state_reason: reason, updated_at: self.db.knex.fn.now() });
  const row = await subscriptionOrThrow(self, id);
  if (state === 'active') self.worker.pump();
  return { data: subscriptionOut(row) };
}

/** Puts deliveries back to pending with a fresh retry schedule, due now. */
function redeliverQuery(self: WebhooksThis) {
  return self.db
    .knex('webhooks.deliveries')
    .update({ state: 'pending', cycle_attempts: 0, next_attempt_at: self.db.knex.fn.now(), finished_at: null });
}

export const adminActions: Record<string, ActionSchema<WebhooksThis>> = {
  listSubscriptions: {
    rest: 'GET /admin/webhooks/subscriptions',
    access: ACCESS.ADMIN,
    summary: 'Webhook subscriptions',
    description: "`accountId` narrows them to one account's.",
    response: SUBSCRIPTIONS,
    params: { accountId: { type: 'number', integer: true, positive: true, optional: true } },
    async handler(this: WebhooksThis, ctx: Context<{ accountId?: number }>) {
      const query = this.db.knex('webhooks.subscriptions').orderBy('id');
      if (ctx.params.accountId) query.where({ account_id: ctx.params.accountId });
      return { data: ((await query) as SubscriptionRow[]).map(subscriptionOut) };
    },
  },

  createSubscription: {
    rest: 'POST /admin/webhooks/subscriptions',
    access: ACCESS.ADMIN,
    summary: 'Subscribe a receiver to webhooks',
    description:
      "An HTTP endpoint or an AMQP queue gets the event types named, for the account's party (docs/webhooks.md). The answer holds the signing secret, shown this once (a new one is made unless `secret` is given).",
    response: CREATED_SUBSCRIPTION,
    params: subscriptionParams(false),
    async handler(this: WebhooksThis, ctx: Context<SubscriptionIn>) {
      const accounts = await accountsById(ctx, [ctx.params.accountId]);
      const account = accounts.get(ctx.params.accountId);
      const details = subscriptionErrors(ctx.params, account);
      if (Object.keys(details).length) throw new FieldsValidationError(details);
      const secret = ctx.params.secret ?? newSecret();
      const [row] = (await this.db
        .knex('webhooks.subscriptions')
        .insert({
          ...subscriptionColumns(ctx.params, account),
          id: this.db.knex.raw(`nextval('webhooks.subscription_ids')`),
          status_transitions: JSON.stringify(
            (ctx.params.statusTransitions ?? []).map(({ from, to }) => ({ from: from ?? null, to: to ?? null })),
          ),
          max_in_flight: ctx.params.maxInFlight ?? DELIVERY_SETTINGS.defaultMaxInFlight,
          secret,
          origin: 'admin',
          state: 'active',
        })
        .returning('*')) as SubscriptionRow[];
      return { data: { ...subscriptionOut(row), secret } };
    },
  },

  updateSubscription: {
    rest: 'PUT /admin/webhooks/subscriptions/:id',
    access: ACCESS.ADMIN,
    summary: 'Change a webhook subscription',
    description: "The fields sent replace the subscription's; its account cannot change.",
    response: ONE_SUBSCRIPTION,
    params: { ...idParam, ...subscriptionParams(true) },
    async handler(this: WebhooksThis, ctx: Context<IdParams & Partial<SubscriptionIn>>) {
      const { id, secret, ...input } = ctx.params;
      const current = await subscriptionOrThrow(this, id);
      const accounts = input.accountId ? await accountsById(ctx, [input.accountId]) : new Map();
      const account = input.accountId ? accounts.get(input.accountId) : undefined;
      const details = subscriptionErrors(input, account);
      if (input.accountId !== undefined && input.accountId !== current.account_id) details.accountId = [ACCOUNT_FIXED];
      if (Object.keys(details).length) throw new FieldsValidationError(details);
      const columns: Record<string, unknown> = {
        ...subscriptionColumns(input, account),
        updated_at: this.db.knex.fn.now(),
      };
      if (secret) columns.secret = secret;
      await this.db.knex('webhooks.subscriptions').where({ id }).update(columns);
      return { data: subscriptionOut(await subscriptionOrThrow(this, id)) };
    },
  },

  /** Stops a subscription for good; its deliveries and attempts stay readable. */
  removeSubscription: {
    rest: 'DELETE /admin/webhooks/subscriptions/:id',
    access: ACCESS.ADMIN,
    summary: 'Remove a webhook subscription',
    description: 'Stops it for good; its deliveries and attempts stay readable.',
    response: ONE_SUBSCRIPTION,
    params: idParam,
    handler(this: WebhooksThis, ctx: Context<IdParams>) {
      return setState(
        this,
        ctx.params.id,
        ['active', 'paused', 'disabled'],
        'removed',
        'Removed through the admin API',
      );
    },
  },

  pauseSubscription: {
    rest: 'POST /admin/webhooks/subscriptions/:id/pause',
    access: ACCESS.ADMIN,
    summary: 'Pause a webhook subscription',
    description: 'Its webhooks wait, kept, until it is resumed.',
    response: ONE_SUBSCRIPTION,
    params: idParam,
    handler(this: WebhooksThis, ctx: Context<IdParams>) {
      return setState(this, ctx.params.id, ['active'], 'paused', 'Paused through the admin API');
    },
  },

  resumeSubscription: {
    rest: 'POST /admin/webhooks/subscriptions/:id/resume',
    access: ACCESS.ADMIN,
    summary: 'Resume a webhook subscription',
    description: 'A paused or disabled subscription delivers again, what waited first.',
    response: ONE_SUBSCRIPTION,
    params: idParam,
    handler(this: WebhooksThis, ctx: Context<IdParams>) {
      return setState(this, ctx.params.id, ['paused', 'disabled'], 'active', null);
    },
  },

  /** A new secret signs from now on; the old one also signs during the grace period. */
  rotateSecret: {
    rest: 'POST /admin/webhooks/subscriptions/:id/rotate-secret',
    access: ACCESS.ADMIN,
    summary: "Rotate a subscription's signing secret",
    description:
      'The new secret signs from now on; the previous one also signs until `previousSecretValidUntil`, so a receiver can switch without losing a webhook.',
    response: ROTATED_SECRET,
    params: { ...idParam, secret: { type: 'string', pattern: SECRET_PATTERN, optional: true } },
    async handler(this: WebhooksThis, ctx: Context<IdParams & { secret?: string }>) {
      const secret = ctx.params.secret ?? newSecret();
      const { knex } = this.db;
      const row = await inTransaction(knex, async (trx) => {
        const current = (await trx('webhooks.subscriptions').where({ id: ctx.params.id }).forUpdate().first()) as
          SubscriptionRow | undefined;
        if (!current) return undefined;
        const [updated] = (await trx('webhooks.subscriptions')
          .where({ id: ctx.params.id })
          .update({
            secret,
            previous_secret: current.secret,
            previous_secret_until: trx.raw(`now() + (? * interval '1 millisecond')`, [
              DELIVERY_SETTINGS.secretRotationGraceMs,
            ]),
            updated_at: trx.fn.now(),
          })
          .returning('*')) as SubscriptionRow[];
        return updated;
      });
      if (!row) throw new NotFoundError('Subscription not found');
      return {
        data: { ...subscriptionOut(row), secret, previousSecretValidUntil: row.previous_secret_until!.toISOString() },
      };
    },
  },

  /** Puts every dead-lettered delivery of a subscription stored since a time back in the queue. */
  redeliverFailed: {
    rest: 'POST /admin/webhooks/subscriptions/:id/redeliver-failed',
    access: ACCESS.ADMIN,
    summary: "Redeliver a subscription's dead letters",
    description:
      'Every dead-lettered delivery of the subscription stored since `since` goes back in the queue with a fresh retry schedule.',
    response: REDELIVERED_COUNT,
    params: { ...idParam, since: { type: 'string', max: 64 } },
    async handler(this: WebhooksThis, ctx: Context<IdParams & { since: string }>) {
      const since = parseInstant(ctx.params.since);
      if (!since) throw new FieldsValidationError({ since: [FIELD_MESSAGES.wrongFormat] });
      await subscriptionOrThrow(this, ctx.params.id);
      const count = await redeliverQuery(this)
        .where({ subscription_id: ctx.params.id, state: 'dead' })
        .andWhere('created_at', '>=', since);
      this.worker.pump();
      return { data: { redelivered: count } };
    },
  },

  listDeliveries: {
    rest: 'GET /admin/webhooks/deliveries',
    access: ACCESS.ADMIN,
    summary: 'Webhook deliveries',
    description:
      'Newest first, by subscription, state or event, paged by `limit` and `offset`. A page holds fewer than `limit` deliveries when their payloads are large (at most 512 KiB of deliveries): the next page starts at `offset` plus the number answered.',
    response: DELIVERIES,
    params: LIST_DELIVERIES_PARAMS,
    async handler(this: WebhooksThis, ctx: Context<ListDeliveriesParams>) {
      const { subscriptionId, state, eventId, limit, offset } = ctx.params;
      const query = this.db.knex('webhooks.deliveries');
      if (subscriptionId) query.where({ subscription_id: subscriptionId });
      if (state) query.where({ state });
      if (eventId) query.where({ event_id: eventId });
      const [rows, total] = await Promise.all([
        query.clone().orderBy('id', 'desc').limit(limit).offset(offset),
        query.clone().count<{ count: number }[]>('id as count').first(),
      ]);
      // Within the answer budget too: a page of large payloads ends early, and offset plus its length reads on.
      return {
        data: itemsWithinBudget((rows as DeliveryRow[]).map(deliveryOut)),
        pagination: { count: Number(total?.count ?? 0), offset },
      };
    },
  },

  listAttempts: {
    rest: 'GET /admin/webhooks/deliveries/:id/attempts',
    access: ACCESS.ADMIN,
    summary: 'The attempts of a webhook delivery',
    description: 'Every attempt with its outcome, oldest first.',
    response: ATTEMPTS,
    params: deliveryIdParam,
    async handler(this: WebhooksThis, ctx: Context<IdParams>) {
      const delivery = await this.db.knex('webhooks.deliveries').where({ id: ctx.params.id }).first('id');
      if (!delivery) throw new NotFoundError('Delivery not found');
      const rows = await this.db.knex('webhooks.attempts').where({ delivery_id: ctx.params.id }).orderBy('id');
      return {
        data: rows.map((row: Record<string, unknown>) => ({
          attempt: row.attempt,
          startedAt: (row.started_at as Date).toISOString(),
          latencyMs: row.latency_ms,
          ok: row.ok,
          statusCode: row.status_code,
          errorKind: row.error_kind,
          error: row.error,
          responseExcerpt: row.response_excerpt,
        })),
      };
    },
  },

  redeliver: {
    rest: 'POST /admin/webhooks/deliveries/:id/redeliver',
    access: ACCESS.ADMIN,
    summary: 'Redeliver a webhook',
    description: 'Puts the delivery back in the queue with a fresh retry schedule, due now, whatever its state.',
    response: ONE_DELIVERY,
    params: deliveryIdParam,
    async handler(this: WebhooksThis, ctx: Context<IdParams>) {
      const count = await redeliverQuery(this).where({ id: ctx.params.id });
      if (!count) throw new NotFoundError('Delivery not found');
      this.worker.pump();
      const row = (await this.db.knex('webhooks.deliveries').where({ id: ctx.params.id }).first()) as DeliveryRow;
      return { data: deliveryOut(row) };
    },
  },
};
