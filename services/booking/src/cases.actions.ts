/** Booking (spec 4.4) and the case lookups other services make. */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Context, ServiceActionsSchema } from 'moleculer';
import {
  ACCESS,
  BadRequestError,
  type Caller,
  type CallerMeta,
  callerOf,
  caseForPartner,
  type CasePartiesEntry,
  configOf,
  DOMAIN_EVENTS,
  FieldsValidationError,
  inTransaction,
  PG_ERRORS,
  writeEvent,
} from '@hub/shared';
import { type BookingPlan, planBooking, type PlanResult } from './booking-plan';
import { rememberKey, replayIdempotent } from './idempotency';
import { statusRulesFor } from './case-access';
import { loadCases } from './case-shape';
import { firstStatusOf, insertCase } from './cases.store';
import { insertExternalRequest, TRACKED_REQUEST_TYPE } from './requests.store';
import { writeStatusAdded } from './statuses.actions';
import type { BookingThis } from './booking.types';

export interface GuidsParams {
  guids: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const guidsParams = { guids: { type: 'array', items: 'string', max: 1000 } };
const knownShape = (guids: string[]) => [...new Set(guids.filter((guid) => UUID.test(guid)).map((guid) => guid.toLowerCase()))];
const MAX_IDEMPOTENCY_KEY = 255;

/** The body as JSON with every object's keys in order: the same request, however a client orders its keys. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function requestHash(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex');
}

function trackingIdOf(raw: unknown): string | null {
  const value = (raw as { trackingId?: unknown } | null)?.trackingId;
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null;
}

interface AttemptOutcome {
  status: string;
  message: string;
  response: unknown;
  meta?: Record<string, unknown>;
  caseId?: number;
}
type TrackAttempt = (knex: Knex, outcome: AttemptOutcome) => Promise<unknown>;

/**
 * Keeps a booking attempt sent with a trackingId (spec 4.4 rule 2) whole, every field as sent,
 * with its outcome, for the partner to find through requests/find; one without is not kept.
 */
function attemptTracker(caller: Caller, raw: unknown, attemptMeta: Record<string, unknown> = {}): TrackAttempt {
  const trackingId = trackingIdOf(raw);
  return async (knex, outcome) => {
    if (!trackingId) return;
    await insertExternalRequest(knex, caller, {
      caseId: outcome.caseId,
      type: TRACKED_REQUEST_TYPE,
      status: outcome.status,
      trackingId,
      meta: { trackingId, ...attemptMeta, ...outcome.meta },
      request: JSON.stringify(raw),
      response: JSON.stringify(outcome.response),
      message: outcome.message,
    });
  };
}

/** The booking plan for a request, or its errors thrown after the attempt was tracked as failed. */
async function plannedBooking(ctx: Context, caller: Caller, raw: Record<string, unknown>, knex: Knex, track: TrackAttempt): Promise<BookingPlan> {
  let result: PlanResult;
  try {
    result = await planBooking(ctx, caller, raw);
  } catch (err) {
    const error = err as { message?: string; type?: string; data?: unknown };
    await track(knex, { status: 'failed', message: error.message ?? 'Error', response: { error: { message: error.message, type: error.type, data: error.data ?? null } } });
    throw err;
  }
  if (result.details) {
    const error = new FieldsValidationError(result.details);
    await track(knex, { status: 'failed', message: error.message, response: { error: { message: error.message, details: result.details } }, meta: { validationErrors: result.details } });
    throw error;
  }
  return result.plan;
}

export const caseActions: ServiceActionsSchema = {
  /** Checks a booking as case/create would, creating nothing; a trackingId keeps the attempt, marked `validateOnly`. */
  validate: {
    rest: 'POST /v3/case/validate',
    access: ACCESS.PARTNER,
    async handler(this: BookingThis, ctx: Context<Record<string, unknown>, CallerMeta>) {
      const caller = callerOf(ctx);
      const track = attemptTracker(caller, ctx.params, { validateOnly: true });
      await plannedBooking(ctx, caller, ctx.params, this.db.knex, track);
      const response = { data: { result: true } };
      await track(this.db.knex, { status: 'success', message: 'Validation passed', response });
      return response;
    },
  },

  create: {
    rest: 'POST /v3/case/create',
    access: ACCESS.PARTNER,
    async handler(this: BookingThis, ctx: Context<Record<string, unknown>, CallerMeta>) {
      const caller = callerOf(ctx);
      const raw = ctx.params;
      const key = ctx.meta.idempotencyKey;
      const { idempotencyKeyTtlMs } = configOf(this.broker);
      if (key !== undefined && key.length > MAX_IDEMPOTENCY_KEY) throw new BadRequestError(`Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY} characters`);
      const hash = requestHash(raw);
      if (key) {
        const replayed = await replayIdempotent(this.db.knex, idempotencyKeyTtlMs, caller.partnerId!, key, hash);
        if (replayed) return replayed;
      }

      const track = attemptTracker(caller, raw);
      const plan = await plannedBooking(ctx, caller, raw, this.db.knex, track);
      const status = await firstStatusOf(this.db.knex, plan.provider.id);
      let guid: string;
      try {
        guid = await inTransaction(this.db.knex, async (trx) => {
          const { row, firstStatus } = await insertCase(trx, plan, status);
          if (key) await rememberKey(trx, idempotencyKeyTtlMs, caller.partnerId!, key, hash, row.guid);
          const [full] = await loadCases(trx, [row.guid]);
          await writeEvent(trx, 'booking', {
            type: DOMAIN_EVENTS.CASE_CREATED,
            caseGuid: row.guid,
            audience: { providerId: row.service_provider_id },
            payload: { case: full },
          });
          await writeStatusAdded(trx, row, firstStatus, null, full);
          await track(trx, { status: 'success', message: 'Case created', response: { guid: row.guid }, meta: { caseId: row.id, guid: row.guid }, caseId: row.id });
          return row.guid;
        });
      } catch (err) {
        // A concurrent retry with the same key committed first: answer its case.
        if (key && (err as { code?: string }).code === PG_ERRORS.UNIQUE_VIOLATION) {
          const replayed = await replayIdempotent(this.db.knex, idempotencyKeyTtlMs, caller.partnerId!, key, hash);
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

  /**
   * Internal: the Case shape of each known case, for other services to embed, as the party the
   * call is made for sees it (a partner: its mapped keys, hidden statuses left out).
   */
  caseCores: {
    visibility: 'public',
    params: guidsParams,
    async handler(this: BookingThis, ctx: Context<GuidsParams, CallerMeta>) {
      const caller = ctx.meta.caller;
      const rules = caller ? await statusRulesFor(ctx, this.broker, caller) : null;
      const cases = await loadCases(this.db.knex, knownShape(ctx.params.guids));
      return cases.map((found) => caseForPartner(found, rules));
    },
  },
};

