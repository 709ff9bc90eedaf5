/**
 * Idempotency-Key on case/create: a retry with the same key and body answers the case the first
 * call made, the same key with another body is a conflict. A key is remembered for
 * IDEMPOTENCY_KEY_TTL; after that it is forgotten (swept, and ignored until then) and books again.
 */
import type { Knex } from 'knex';
import { ConflictError } from '@hub/shared';

const KEYS = 'booking.idempotency_keys';

/** How often expired keys are deleted: often enough that the table holds about one TTL of keys. */
export function sweepIntervalMs(ttlMs: number): number {
  return Math.min(Math.max(Math.floor(ttlMs / 4), 1000), 3_600_000);
}

const EXPIRED = 'created_at <= now() - make_interval(secs => ?)';

/** The case an earlier call with this key made, while the key is remembered. */
export async function replayIdempotent(knex: Knex, ttlMs: number, partnerId: number, key: string, hash: string): Promise<{ guid: string } | null> {
  const row = await knex(KEYS)
    .where({ partner_id: partnerId, key })
    .whereNot((query) => query.whereRaw(EXPIRED, [ttlMs / 1000]))
    .first('request_hash', 'case_guid');
  if (!row) return null;
  if (row.request_hash !== hash) throw new ConflictError('Idempotency-Key was already used with a different request');
  return { guid: row.case_guid };
}

/** Remembers the key for the case just made, in the transaction that made it; an expired entry of the key gives way. */
export async function rememberKey(trx: Knex.Transaction, ttlMs: number, partnerId: number, key: string, hash: string, guid: string): Promise<void> {
  await trx(KEYS).where({ partner_id: partnerId, key }).whereRaw(EXPIRED, [ttlMs / 1000]).delete();
  await trx(KEYS).insert({ partner_id: partnerId, key, request_hash: hash, case_guid: guid });
}

export async function sweepExpiredKeys(knex: Knex, ttlMs: number): Promise<number> {
  return knex(KEYS).whereRaw(EXPIRED, [ttlMs / 1000]).delete();
}
