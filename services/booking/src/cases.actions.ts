/** Booking (spec 4.4) and the case lookups other services make. */
import { createHash } from 'node:crypto';
import type { Context, ServiceActionsSchema } from 'moleculer';
import {
  ACCESS,
  BadRequestError,
  type CallerMeta,
  callerOf,
  type CasePartiesEntry,
  ConflictError,
  DOMAIN_EVENTS,
  FieldsValidationError,
  inTransaction,
  PG_ERRORS,
  writeEvent,
} from '@hub/shared';
import { planBooking } from './booking-plan';
import { loadCases } from './case-shape';
import { firstStatusOf, insertCase } from './cases.store';
import { insertExternalRequest, TRACKED_REQUEST_TYPE } from './requests.store';
import type { BookingThis } from './booking.types';

export interface GuidsParams {
  guids: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const guidsParams = { guids: { type: 'array', items: 'string', max: 1000 } };
const knownShape = (guids: string[]) => [...new Set(guids.filter((guid) => UUID.test(guid)).map((guid) => guid.toLowerCase()))];
const MAX_IDEMPOTENCY_KEY = 255;

function requestHash(raw: unknown): string {
  return createHash('sha256').update(JSON.stringify(raw ?? null)).digest('hex');
}

function trackingIdOf(raw: unknown): string | null {
  const value = (raw as { trackingId?: unknown } | null)?.trackingId;
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null;
}

export const caseActions: ServiceActionsSchema = {
  validate: {
    rest: 'POST /v3/case/validate',
    access: ACCESS.PARTNER,
    async handler(this: BookingThis, ctx: Context<Record<string, unknown>, CallerMeta>) {
      const result = await planBooking(ctx, callerOf(ctx), ctx.params);
      if (result.details) throw new FieldsValidationError(result.details);
      return { data: { result: true } };
    },
  },

  create: {
    rest: 'POST /v3/case/create',
    access: ACCESS.PARTNER,
    async handler(this: BookingThis, ctx: Context<Record<string, unknown>, CallerMeta>) {
      const caller = callerOf(ctx);
      const raw = ctx.params;
      const key = ctx.meta.idempotencyKey;
      if (key !== undefined && key.length > MAX_IDEMPOTENCY_KEY) throw new BadRequestError(`Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY} characters`);
      const hash = requestHash(raw);
      if (key) {
        const replayed = await this.replayIdempotent(caller.partnerId!, key, hash);
        if (replayed) return replayed;
      }

      const trackingId = trackingIdOf(raw);
      const track = (status: string, message: string, response: unknown, meta: Record<string, unknown> = {}) =>
        trackingId
          ? insertExternalRequest(this.db.knex, caller, {
              type: TRACKED_REQUEST_TYPE,
              status,
              trackingId,
              meta: { trackingId, ...meta },
              request: JSON.stringify(raw),
              response: JSON.stringify(response),
              message,
            })
          : undefined;

      let result: Awaited<ReturnType<typeof planBooking>>;
      try {
        result = await planBooking(ctx, caller, raw);
      } catch (err) {
        const error = err as { message?: string; type?: string; data?: unknown };
        await track('failed', error.message ?? 'Error', { error: { message: error.message, type: error.type, data: error.data ?? null } });
        throw err;
      }
      if (result.details) {
        const error = new FieldsValidationError(result.details);
        await track('failed', error.message, { error: { message: error.message, details: result.details } }, { validationErrors: result.details });
        throw error;
      }

      const { plan } = result;
      const status = await firstStatusOf(this.db.knex, plan.provider.id);
      let guid: string;
      try {
        guid = await inTransaction(this.db.knex, async (trx) => {
          const row = await insertCase(trx, plan, status);
          if (key) await trx('booking.idempotency_keys').insert({ partner_id: caller.partnerId, key, request_hash: hash, case_guid: row.guid });
          const [full] = await loadCases(trx, [row.guid]);
          await writeEvent(trx, 'booking', {
            type: DOMAIN_EVENTS.CASE_CREATED,
            caseGuid: row.guid,
            audience: { providerId: row.service_provider_id },
            payload: { case: full },
          });
          if (trackingId) {
            await insertExternalRequest(trx, caller, {
              caseId: row.id,
              type: TRACKED_REQUEST_TYPE,
              status: 'success',
              trackingId,
              meta: { trackingId, caseId: row.id, guid: row.guid },
              request: JSON.stringify(raw),
              response: JSON.stringify({ guid: row.guid }),
              message: 'Case created',
            });
          }
          return row.guid;
        });
      } catch (err) {
        // A concurrent retry with the same key committed first: answer its case.
        if (key && (err as { code?: string }).code === PG_ERRORS.UNIQUE_VIOLATION) {
          const replayed = await this.replayIdempotent(caller.partnerId!, key, hash);
          if (replayed) return replayed;
        }
        throw err;
      }
      this.relayOutbox();
      return { guid };
    },
  },

  /** Internal: who the parties of each known case are (contract in shared/src/events.ts). */
  caseParties: {
    visibility: 'public',
    params: guidsParams,
    cache: { keys: ['guids'], ttl: 5 },
    async handler(this: BookingThis, ctx: Context<GuidsParams>): Promise<CasePartiesEntry[]> {
      const guids = knownShape(ctx.params.guids);
      if (guids.length === 0) return [];
      const rows = await this.db.knex('booking.cases').whereIn('guid', guids).orderBy('id').select('id', 'guid', 'partner_id', 'service_provider_id');
      return rows.map((row: { id: number; guid: string; partner_id: number; service_provider_id: number | null }) => ({
        id: row.id,
        guid: row.guid,
        partnerId: row.partner_id,
        serviceProviderId: row.service_provider_id,
      }));
    },
  },

  /** Internal: the Case shape of each known case, for other services to embed. */
  caseCores: {
    visibility: 'public',
    params: guidsParams,
    async handler(this: BookingThis, ctx: Context<GuidsParams>) {
      return loadCases(this.db.knex, knownShape(ctx.params.guids));
    },
  },
};

export async function replayIdempotent(this: BookingThis, partnerId: number, key: string, hash: string): Promise<{ guid: string } | null> {
  const row = await this.db.knex('booking.idempotency_keys').where({ partner_id: partnerId, key }).first('request_hash', 'case_guid');
  if (!row) return null;
  if (row.request_hash !== hash) throw new ConflictError('Idempotency-Key was already used with a different request');
  return { guid: row.case_guid };
}
