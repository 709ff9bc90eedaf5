/**
 * Subscriptions as the world file and the admin API give them, stored with the partner or
 * provider of their account (from catalog), and rendered for the admin API without secrets.
 */
import type { Knex } from 'knex';
import type { Context } from 'moleculer';
import { HEADER_NAME, HEADER_VALUE, WEBHOOK_EVENT_TYPES, type World, type WorldSubscription } from '@hub/shared';
import { DELIVERY_SETTINGS } from './settings';
import { newSecret } from './signature';
import type { SubscriptionRow } from './webhooks.store';

export interface AccountOut {
  id: number;
  role: 'partner' | 'provider' | 'admin';
  partnerId: number | null;
  providerId: number | null;
}

export interface SubscriptionIn extends Omit<WorldSubscription, 'id'> {
  maxInFlight?: number;
}

/** The accounts of these ids, from the catalog (asked outside any transaction: embedded mode has one connection). */
export async function accountsById(ctx: Context, ids: number[]): Promise<Map<number, AccountOut>> {
  if (ids.length === 0) return new Map();
  const accounts = await ctx.call<AccountOut[], { ids: number[] }>('catalog.accounts', { ids });
  return new Map(accounts.map((account) => [account.id, account]));
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A subscription's deliveries are its account's: it never moves to another. */
export const ACCOUNT_FIXED =
  'The account of a subscription cannot change: make a new subscription for the other account';
export const MADE_BY_API = 'This id belongs to a subscription made through the admin API';
/** `whsec_` and base64 text, as long as the secret column takes. */
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/=]{24,122}$/;
/** More transitions than any provider has statuses to pair. */
const STATUS_TRANSITIONS_MAX = 500;

/** The admin API's params for a subscription (also its update, where every field is optional). */
export function subscriptionParams(optional: boolean) {
  return {
    accountId: { type: 'number', integer: true, positive: true, optional },
    eventTypes: {
      type: 'array',
      min: 1,
      max: WEBHOOK_EVENT_TYPES.length,
      items: { type: 'enum', values: [...WEBHOOK_EVENT_TYPES] },
      optional,
    },
    target: {
      type: 'object',
      optional,
      props: {
        kind: { type: 'enum', values: ['http', 'amqp'] },
        url: { type: 'string', min: 1, max: 2048 },
        method: { type: 'enum', values: [...HTTP_METHODS], optional: true },
        headers: {
          type: 'record',
          key: { type: 'string', pattern: HEADER_NAME },
          value: { type: 'string', max: 4096, pattern: HEADER_VALUE },
          optional: true,
        },
        queue: { type: 'string', min: 1, max: 255, optional: true },
      },
    },
    secret: { type: 'string', pattern: SECRET_PATTERN, optional: true },
    statusTransitions: {
      type: 'array',
      optional: true,
      max: STATUS_TRANSITIONS_MAX,
      items: {
        type: 'object',
        props: {
          from: { type: 'string', max: 64, optional: true, nullable: true },
          to: { type: 'string', max: 64, optional: true, nullable: true },
        },
      },
    },
    maxInFlight: { type: 'number', integer: true, min: 1, max: 1000, optional: true },
  };
}

/** Rules the params schema cannot say: the target's scheme, an AMQP queue, the account's role. */
export function subscriptionErrors(
  input: Partial<SubscriptionIn>,
  account: AccountOut | undefined,
): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  if (input.accountId !== undefined) {
    if (!account) details.accountId = ['Value is not present in possible options'];
    else if (account.role === 'admin') details.accountId = ['The account must be a partner or a provider account'];
  }
  const target = input.target as Record<string, unknown> | undefined;
  if (target) {
    const scheme = target.kind === 'http' ? /^https?:\/\//i : /^amqps?:\/\//i;
    let valid = scheme.test(String(target.url));
    try {
      new URL(String(target.url));
    } catch {
      valid = false;
    }
    if (!valid) details['target.url'] = [`Must be an ${target.kind === 'http' ? 'http(s)' : 'amqp(s)'} URL`];
    if (target.kind === 'amqp' && !target.queue) details['target.queue'] = ['Field is required'];
  }
  input.statusTransitions?.forEach((rule, index) => {
    if (!rule.from && !rule.to) details[`statusTransitions[${index}]`] = ['A rule needs from, to or both'];
  });
  return details;
}

/** Column values for a subscription's given fields (an update leaves the rest as they are). */
export function subscriptionColumns(
  input: Partial<SubscriptionIn>,
  account: AccountOut | undefined,
): Partial<SubscriptionRow> {
  const columns: Record<string, unknown> = {};
  if (account) {
    columns.account_id = account.id;
    columns.partner_id = account.partnerId;
    columns.provider_id = account.providerId;
  }
  if (input.eventTypes) columns.event_types = JSON.stringify([...new Set(input.eventTypes)]);
  if (input.target) {
    const target = input.target as {
      kind: 'http' | 'amqp';
      url: string;
      method?: string;
      headers?: Record<string, string>;
      queue?: string;
    };
    columns.kind = target.kind;
    columns.url = target.url;
    columns.method = target.kind === 'http' ? (target.method ?? 'POST') : null;
    columns.headers = JSON.stringify(target.kind === 'http' ? (target.headers ?? {}) : {});
    columns.queue = target.kind === 'amqp' ? target.queue : null;
  }
  if (input.statusTransitions)
    columns.status_transitions = JSON.stringify(
      input.statusTransitions.map(({ from, to }) => ({ from: from ?? null, to: to ?? null })),
    );
  if (input.maxInFlight) columns.max_in_flight = input.maxInFlight;
  return columns;
}

export function subscriptionOut(row: SubscriptionRow) {
  return {
    id: row.id,
    accountId: row.account_id,
    partnerId: row.partner_id,
    providerId: row.provider_id,
    eventTypes: row.event_types,
    target:
      row.kind === 'http'
        ? { kind: 'http', url: row.url, method: row.method, headers: row.headers }
        : { kind: 'amqp', url: row.url, queue: row.queue },
    statusTransitions: row.status_transitions,
    state: row.state,
    stateReason: row.state_reason,
    maxInFlight: row.max_in_flight,
    origin: row.origin,
    secretRotatedUntil:
      row.previous_secret_until && row.previous_secret_until.getTime() > Date.now()
        ? row.previous_secret_until.toISOString()
        : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Writes the world's webhooks part. Subscriptions are keyed by id; world subscriptions a later
 * file leaves out are removed (their history stays). The part's status mappings and blacklists
 * are the catalog's to load.
 */
export async function applyWebhooksWorld(
  trx: Knex.Transaction,
  part: NonNullable<World['webhooks']>,
  accounts: Map<number, AccountOut>,
): Promise<void> {
  if (part.subscriptions) {
    const existing = new Set(
      ((await trx('webhooks.subscriptions').select('id')) as Array<{ id: number }>).map((row) => row.id),
    );
    for (const subscription of part.subscriptions) {
      const columns = {
        ...subscriptionColumns(subscription, accounts.get(subscription.accountId)),
        status_transitions: JSON.stringify(
          (subscription.statusTransitions ?? []).map(({ from, to }) => ({ from: from ?? null, to: to ?? null })),
        ),
        origin: 'world',
        updated_at: trx.fn.now(),
      };
      if (existing.has(subscription.id)) {
        const update: Record<string, unknown> = { ...columns };
        if (subscription.secret) update.secret = subscription.secret;
        await trx('webhooks.subscriptions').where({ id: subscription.id }).update(update);
        // A subscription the world names again is back in use.
        await trx('webhooks.subscriptions')
          .where({ id: subscription.id, state: 'removed' })
          .update({ state: 'active', state_reason: null });
      } else {
        await trx('webhooks.subscriptions').insert({
          ...columns,
          id: subscription.id,
          secret: subscription.secret ?? newSecret(),
          max_in_flight: DELIVERY_SETTINGS.defaultMaxInFlight,
          state: 'active',
        });
      }
    }
    await trx('webhooks.subscriptions')
      .where({ origin: 'world' })
      .whereNot('state', 'removed')
      .whereNotIn(
        'id',
        part.subscriptions.map((subscription) => subscription.id),
      )
      .update({ state: 'removed', state_reason: 'Left out of a later world file', updated_at: trx.fn.now() });
    await trx.raw(
      `select setval('webhooks.subscription_ids', greatest((select max(id) from webhooks.subscriptions), 999999))`,
    );
  }
}
