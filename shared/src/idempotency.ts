/**
 * `Idempotency-Key` on every write a partner or provider makes through the gateway
 * (docs/idempotency.md): a retry with the same key gets the first answer without a second write,
 * the same key with another request is a 409.
 *
 * Where the key lives decides whether "one write" holds, so it lives with the write: in the
 * owning service's schema (`<schema>.idempotency_keys`), recorded by the handler in the very
 * transaction that writes (`keepIdempotentAnswer`). A key then exists exactly when its write
 * committed. Two requests with one key cannot both commit: the second one's insert of the key
 * waits for the first transaction and finds the key taken, so its own transaction rolls back and
 * it answers what the first one kept. A crash cannot separate a write from its key.
 *
 * `IdempotencyMiddleware` wraps, as each service is created, the handler of every action a
 * partner or provider reaches with POST, PUT, PATCH or DELETE (`takesIdempotencyKey`): before
 * the handler it replays a kept answer or refuses a key kept for another request; after a
 * handler that wrote nothing it keeps the answer itself, so the key still answers the same.
 * Only successful answers are kept: an error wrote nothing (every write commits whole or not at
 * all), so the retry of a failed request runs again. An older path (older-versions.ts) runs
 * through its current action's handler, so the two share their keys and a replay is translated
 * into the older form as the first answer was.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { ActionHandler, ActionSchema, Context, Middleware, Service, ServiceSchema } from 'moleculer';
import { ACCESS, type CallerMeta } from './access';
import { clockOf, configOf } from './context';
import type { DbService } from './db.mixin';
import { ConflictError } from './errors';
import { isOlderForm } from './older-versions';
import type { AgedTable, RetentionRule } from './retention-rule';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** The longest key taken (the key column's size). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Marks an answer that is the replay of the first answer of its key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

const TABLE = 'idempotency_keys';
declare module 'moleculer' {
  interface ServiceSettingSchema {
    /** The schema that keeps the service's keys (`IdempotencyMixin`). */
    $idempotencyKeysSchema?: string;
  }
}
/** Where the wrapped handler leaves the request's key for `keepIdempotentAnswer` (ctx.locals). */
const REQUEST_LOCAL = 'idempotentRequest';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const PARTY_ACCESS = new Set<unknown>([ACCESS.PARTNER, ACCESS.PROVIDER, ACCESS.PARTNER_PROVIDER, ACCESS.ANY]);

/** The method of a `rest` route; `*` for a route without one (moleculer-web serves it for every method). */
function methodOf(route: unknown): string {
  if (typeof route === 'string') return route.includes(' ') ? route.split(/\s+/)[0].toUpperCase() : '*';
  if (!route || typeof route !== 'object') return '';
  const { method } = route as { method?: unknown };
  return typeof method === 'string' ? method.toUpperCase() : '*';
}

/** Whether the action is a write a partner or provider makes through the gateway: it takes an Idempotency-Key. */
export function takesIdempotencyKey(action: Pick<ActionSchema, 'rest' | 'access' | 'readOnly'>): boolean {
  if (action.readOnly || !PARTY_ACCESS.has(action.access)) return false;
  const routes: unknown[] = Array.isArray(action.rest) ? action.rest : [action.rest];
  return routes.some((route) => {
    const method = methodOf(route);
    return method === '*' || WRITE_METHODS.has(method);
  });
}

/** Declares where a service keeps the keys of its writes: `<schema>.idempotency_keys`. */
export function IdempotencyMixin(schema: string): Partial<ServiceSchema> {
  return { settings: { $idempotencyKeysSchema: schema } };
}

/** Keys are forgotten after IDEMPOTENCY_KEY_TTL (ignored at once, removed by the retention job). */
export function idempotencyKeysRetention(schema: string, ttlMs: number): { rule: RetentionRule; aged: AgedTable } {
  const table = `${schema}.${TABLE}`;
  return {
    rule: {
      name: 'expired idempotency keys',
      table,
      key: ['account_id', 'action', 'key'],
      ageColumn: 'created_at',
      keepMs: ttlMs,
    },
    aged: { table, column: 'created_at', orderBy: 'created_at' },
  };
}

/** The body as JSON with every object's keys in order: the same request, however a client orders its keys. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** One request with a key, as the wrapped handler sees it. */
interface KeyedRequest {
  table: string;
  accountId: number;
  action: string;
  key: string;
  hash: string;
  /** A key recorded before this (stored time) has expired: it is forgotten, and a request may take it anew. */
  expiredBefore: Date;
  /** A hold taken before this was left by a process that died: no call runs that long. */
  abandonedBefore: Date;
  kept: boolean;
  held: boolean;
}

interface KeptAnswer {
  request_hash: string;
  status: number | null;
  answer: unknown;
}

/** Thrown inside the write's transaction when a request with the same key committed first. */
class KeyTakenError extends Error {
  constructor() {
    super('Idempotency-Key was taken by a concurrent request');
  }
}

const keyOf = (request: KeyedRequest) => ({ account_id: request.accountId, action: request.action, key: request.key });

async function findKept(knex: Knex, request: KeyedRequest): Promise<KeptAnswer | undefined> {
  return knex(request.table)
    .where(keyOf(request))
    .where('created_at', '>=', request.expiredBefore)
    .whereNot((abandoned) => {
      abandoned.whereNull('status').where('created_at', '<', request.abandonedBefore);
    })
    .first('request_hash', 'status', 'answer');
}

/**
 * Records the key with its answer (`status` null: a hold). An expired or abandoned entry of the
 * key gives way; a live one (committed, or waited for until its transaction ends) answers false.
 */
async function recordKey(knex: Knex, request: KeyedRequest, status: number | null, answer: unknown): Promise<boolean> {
  return keyRecorded(await recordKeyStatement(knex, request, status, answer));
}

const keyRecorded = (answer: { rows: unknown[] }) => answer.rows.length === 1;

function recordKeyStatement(knex: Knex, request: KeyedRequest, status: number | null, answer: unknown): Knex.Raw {
  return knex.raw(
    `insert into ?? as kept (account_id, action, key, request_hash, status, answer) values (?, ?, ?, ?, ?, ?)
     on conflict (account_id, action, key) do update
        set request_hash = excluded.request_hash, status = excluded.status, answer = excluded.answer, created_at = now()
      where kept.created_at < ? or (kept.status is null and kept.created_at < ?)
     returning 1`,
    [
      request.table,
      request.accountId,
      request.action,
      request.key,
      request.hash,
      status,
      status === null ? null : JSON.stringify(answer ?? null),
      request.expiredBefore,
      request.abandonedBefore,
    ],
  );
}

function requestOf(ctx: Context): KeyedRequest | undefined {
  return (ctx.locals as Record<string, KeyedRequest | undefined>)[REQUEST_LOCAL];
}

/** The HTTP status of the answer: 200 unless the handler said otherwise. */
const statusOf = (ctx: Context) => (ctx.meta as CallerMeta).$statusCode ?? 200;

/**
 * Keeps the answer of a request with a key in the transaction that makes its write. When a
 * request with the same key committed first, this transaction is rolled back and that request's
 * answer is the one given. Does nothing for a request without a key.
 */
export async function keepIdempotentAnswer(trx: Knex.Transaction, ctx: Context, answer: unknown): Promise<void> {
  const keeping = idempotentAnswerStatement(trx, ctx, answer);
  if (keeping) keeping.check(await keeping.statement);
}

/**
 * `keepIdempotentAnswer` for a transaction that sends its statements itself: the statement to run
 * in it, and the check of its answer, which throws (for the transaction to be rolled back) when
 * a request with the same key came first. Undefined for a request without a key.
 */
export function idempotentAnswerStatement(
  knex: Knex,
  ctx: Context,
  answer: unknown,
): { statement: Knex.Raw; check(result: { rows: unknown[] }): void } | undefined {
  const request = requestOf(ctx);
  if (!request) return undefined;
  return {
    statement: recordKeyStatement(knex, request, statusOf(ctx), answer),
    check(result) {
      if (!keyRecorded(result)) throw new KeyTakenError();
      request.kept = true;
    },
  };
}

/**
 * For a write outside the database (an email), which no transaction can hold together with its
 * key: holds the key while the handler runs, so a request with the same key meanwhile is a 409;
 * the answer is kept when the handler succeeds and the hold let go when it fails. A hold
 * outlives its request only when its process died; after REQUEST_TIMEOUT_MS a retry takes it.
 */
export async function holdIdempotencyKey(knex: Knex, ctx: Context): Promise<void> {
  const request = requestOf(ctx);
  if (!request) return;
  if (!(await recordKey(knex, request, null, null))) throw new KeyTakenError();
  request.held = true;
}

/** The first answer of the key again, or the 409 of a key used for another request or still held. */
function replay(ctx: Context<unknown, CallerMeta>, request: KeyedRequest, kept: KeptAnswer | undefined): unknown {
  const details = { [IDEMPOTENCY_KEY_HEADER]: request.key };
  if (kept && kept.request_hash !== request.hash)
    throw new ConflictError(`${IDEMPOTENCY_KEY_HEADER} was already used for a different request`, details);
  if (!kept || kept.status === null)
    throw new ConflictError(`A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed`, details);
  ctx.meta.$statusCode = kept.status;
  ctx.meta.$responseHeaders = { ...ctx.meta.$responseHeaders, [IDEMPOTENT_REPLAYED_HEADER]: 'true' };
  return kept.answer;
}

type IdempotentService = Service & DbService;

/** The handler of a write that takes keys, kept in `table` under the action name `action`. */
function idempotentHandler(
  action: string,
  table: string,
  handler: ActionHandler<IdempotentService>,
): ActionHandler<IdempotentService> {
  return async function (this: IdempotentService, ctx: Context<unknown, CallerMeta>) {
    const { idempotencyKey: key, caller } = ctx.meta;
    // Only a gateway request carries a key; a call between services (a world load's models) does not.
    if (key === undefined || !caller) return handler.call(this, ctx);
    const { idempotencyKeyTtlMs, requestTimeoutMs } = configOf(this.broker);
    const request: KeyedRequest = {
      table,
      accountId: caller.accountId,
      action,
      key,
      // The party acted for is part of the request: an account that acts for several providers.
      hash: createHash('sha256')
        .update(canonicalJson([caller.partnerId, caller.providerId, ctx.params]))
        .digest('hex'),
      expiredBefore: clockOf(this.broker).storedCutoff(idempotencyKeyTtlMs),
      abandonedBefore: new Date(Date.now() - requestTimeoutMs),
      kept: false,
      held: false,
    };
    const { knex } = this.db;
    const kept = await findKept(knex, request);
    if (kept) return replay(ctx, request, kept);

    (ctx.locals as Record<string, KeyedRequest>)[REQUEST_LOCAL] = request;
    let answer: unknown;
    try {
      answer = await handler.call(this, ctx);
    } catch (err) {
      // A hold that cannot be let go now is taken as abandoned after REQUEST_TIMEOUT_MS.
      if (request.held)
        await knex(table)
          .where(keyOf(request))
          .whereNull('status')
          .delete()
          .catch(() => undefined);
      if (err instanceof KeyTakenError) return replay(ctx, request, await findKept(knex, request));
      // A request with the key that committed meanwhile may be why this one failed (it deleted
      // what this one would delete): its answer is the key's answer.
      const kept = await findKept(knex, request).catch(() => undefined);
      if (kept) return replay(ctx, request, kept);
      throw err;
    }
    if (request.held)
      await knex(table)
        .where(keyOf(request))
        .whereNull('status')
        .update({ status: statusOf(ctx), answer: JSON.stringify(answer ?? null) });
    // A handler that wrote nothing kept nothing: the key answers the same all the same.
    else if (!request.kept && !(await recordKey(knex, request, statusOf(ctx), answer)))
      return replay(ctx, request, await findKept(knex, request));
    return answer;
  };
}

/**
 * Gives every write a partner or provider makes through the gateway its Idempotency-Key, as each
 * service is created; a service with such a write and no `IdempotencyMixin` does not start.
 */
export const IdempotencyMiddleware = {
  name: 'Idempotency',
  serviceCreating(_service: unknown, schema: ServiceSchema): void {
    const keysSchema = schema.settings?.$idempotencyKeysSchema;
    for (const [name, action] of Object.entries(schema.actions ?? {})) {
      if (!action || typeof action !== 'object' || !action.handler) continue;
      if (isOlderForm(action) || !takesIdempotencyKey(action)) continue;
      if (typeof keysSchema !== 'string')
        throw new Error(`${schema.name}.${name} takes Idempotency-Keys: its service needs IdempotencyMixin`);
      // A service with IdempotencyMixin has a database (DbService).
      const handler = idempotentHandler(`${schema.name}.${name}`, `${keysSchema}.${TABLE}`, action.handler);
      action.handler = handler as typeof action.handler;
    }
  },
} satisfies Middleware;
