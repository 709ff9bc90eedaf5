/** Booking (spec 4.4) and the case lookups other services make. */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type Caller,
  type CallerMeta,
  callerOf,
  caseForPartner,
  type CasePartiesEntry,
  DOMAIN_EVENTS,
  FieldsValidationError,
  eventsInsert,
  idempotentAnswerStatement,
  jsonBytes,
  RECORD_MAX_BYTES,
  type Statement,
  transactionInTwoFlights,
  UUID_PATTERN,
  DATA_RESULT,
  type ParamsOf,
  prepared,
} from '@hub/shared';
import { type BookingPlan, planBooking, type PlanResult } from './booking-plan';
import { statusRulesFor } from './case-access';
import { loadCases } from './case-shape';
import { caseInsert, firstStatusOf, writtenCase } from './cases.store';
import { externalRequestInsert, type RequestStatus, TRACKED_REQUEST_TYPE } from './requests.store';
import { statusAddedEvent } from './statuses.actions';
import type { BookingThis } from './booking.types';
import { CREATED } from './responses';

const GUIDS_PARAMS = { guids: { type: 'array', items: 'string', max: 1000 } } as const;
export type GuidsParams = ParamsOf<typeof GUIDS_PARAMS>;
const knownShape = (guids: string[]) => [
  ...new Set(guids.filter((guid) => UUID_PATTERN.test(guid)).map((guid) => guid.toLowerCase())),
];

function trackingIdOf(raw: unknown): string | null {
  const value = (raw as { trackingId?: unknown } | null)?.trackingId;
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null;
}

interface AttemptOutcome {
  status: RequestStatus;
  message: string;
  response: unknown;
  meta?: Record<string, unknown>;
  caseId?: number;
}
interface TrackAttempt {
  /** Keeps the attempt with its outcome; nothing for an attempt without a trackingId. */
  record(knex: Knex, outcome: AttemptOutcome): Promise<void>;
  /** The statement that keeps it, for a transaction that sends its statements itself. */
  statement(knex: Knex, outcome: AttemptOutcome): Statement | undefined;
}

/**
 * The body of an attempt as it is kept: whole when its text takes at most RECORD_MAX_BYTES as
 * JSON, else cut to that, so that every kept attempt fits the answer that finds it; the length of
 * the whole text is then kept beside it.
 */
function keptRequest(raw: unknown): { request: string; requestBytes?: number } {
  const request = JSON.stringify(raw);
  if (jsonBytes(request) <= RECORD_MAX_BYTES) return { request };
  let cut = request.slice(0, RECORD_MAX_BYTES);
  while (jsonBytes(cut) > RECORD_MAX_BYTES) cut = cut.slice(0, Math.floor(cut.length * 0.9));
  // A cut between the halves of a surrogate pair would store half a character.
  return { request: cut.replace(/[\uD800-\uDBFF]$/, ''), requestBytes: Buffer.byteLength(request) };
}

/**
 * Keeps a booking attempt sent with a trackingId (spec 4.4 rule 2), every field as sent, with its
 * outcome, for the partner to find through requests/find; one without is not kept.
 */
function attemptTracker(caller: Caller, raw: unknown, attemptMeta: Record<string, unknown> = {}): TrackAttempt {
  const trackingId = trackingIdOf(raw);
  const { request, requestBytes } = trackingId ? keptRequest(raw) : { request: '' };
  const statement = (knex: Knex, outcome: AttemptOutcome) =>
    trackingId
      ? externalRequestInsert(knex, caller, {
          caseId: outcome.caseId,
          type: TRACKED_REQUEST_TYPE,
          status: outcome.status,
          trackingId,
          meta: { trackingId, ...attemptMeta, ...(requestBytes ? { requestBytes } : {}), ...outcome.meta },
          request,
          response: JSON.stringify(outcome.response),
          message: outcome.message,
        })
      : undefined;
  return {
    statement,
    async record(knex, outcome) {
      await statement(knex, outcome);
    },
  };
}

/** The booking plan for a request, or its errors thrown after the attempt was tracked as failed. */
async function plannedBooking(
  ctx: Context,
  caller: Caller,
  raw: Record<string, unknown>,
  knex: Knex,
  track: TrackAttempt,
): Promise<BookingPlan> {
  let result: PlanResult;
  try {
    result = await planBooking(ctx, caller, raw);
  } catch (err) {
    const error = err as { message?: string; type?: string; data?: unknown };
    await track.record(knex, {
      status: 'error',
      message: error.message ?? 'Error',
      response: { error: { message: error.message, type: error.type, data: error.data ?? null } },
    });
    throw err;
  }
  if (result.details) {
    const error = new FieldsValidationError(result.details);
    await track.record(knex, {
      status: 'error',
      message: error.message,
      response: { error: { message: error.message, details: result.details } },
      meta: { validationErrors: result.details },
    });
    throw error;
  }
  return result.plan;
}

export const caseActions: Record<string, ActionSchema<BookingThis>> = {
  /** Checks a booking as case/create would, creating nothing; a trackingId keeps the attempt, marked `validateOnly`. */
  validate: {
    rest: 'POST /v3/case/validate',
    access: ACCESS.PARTNER,
    summary: 'Check a booking without making it',
    description:
      'Runs every check of case/create on the body (a 400 names each field that fails, as the spec shows) and creates nothing. With a `trackingId` the attempt is kept in the request log.',
    response: DATA_RESULT,
    // A check: what it keeps of a tracked attempt is a record of each attempt, a retry's too.
    readOnly: true,
    async handler(this: BookingThis, ctx: Context<Record<string, unknown>, CallerMeta>) {
      const caller = callerOf(ctx);
      const track = attemptTracker(caller, ctx.params, { validateOnly: true });
      await plannedBooking(ctx, caller, ctx.params, this.db.knex, track);
      const response = { data: { result: true } };
      await track.record(this.db.knex, { status: 'success', message: 'Validation passed', response });
      return response;
    },
  },

  create: {
    rest: 'POST /v3/case/create',
    access: ACCESS.PARTNER,
    summary: 'Book a case',
    description:
      "Checks the booking (a 400 names each field that fails), routes it to a provider (400 `Not enough data`, 404 `Can't process this case`) and stores it; the provider gets a webhook. Fields the documentation defines nowhere are discarded. With a `trackingId` the attempt is kept in the request log.",
    response: CREATED,
    async handler(this: BookingThis, ctx: Context<Record<string, unknown>, CallerMeta>) {
      const caller = callerOf(ctx);
      const raw = ctx.params;
      const track = attemptTracker(caller, raw);
      const plan = await plannedBooking(ctx, caller, raw, this.db.knex, track);
      const status = firstStatusOf(await this.firstStatuses.get(), plan.provider.id);
      const { knex } = this.db;
      const created = { guid: randomUUID() };
      // The answer's key and the case go with BEGIN; the events and the tracked attempt, which
      // name the case's database id, with COMMIT.
      const keeping = idempotentAnswerStatement(knex, ctx, created);
      const answer = await transactionInTwoFlights(
        knex,
        [prepared(caseInsert(knex, created.guid, plan, status, caller)), ...(keeping ? [keeping.statement] : [])],
        ([caseWritten, keyKept]) => {
          if (keeping) keeping.check(keyKept);
          const { row, firstStatus, created: full } = writtenCase(caseWritten);
          const events = eventsInsert(knex, 'booking', [
            {
              type: DOMAIN_EVENTS.CASE_CREATED,
              caseGuid: row.guid,
              audience: { providerId: row.service_provider_id },
              payload: { case: full },
            },
            statusAddedEvent(row, firstStatus, null, full),
          ]);
          const tracked = track.statement(knex, {
            status: 'success',
            message: 'Case created',
            response: created,
            meta: { caseId: row.id, guid: row.guid },
            caseId: row.id,
          });
          return { statements: [prepared(events.statement), ...(tracked ? [tracked] : [])], result: created };
        },
      );
      this.relayOutbox();
      return answer;
    },
  },

  /** Internal: who the parties of each known case are (contract in shared/src/events.ts). */
  caseParties: {
    visibility: 'public',
    params: GUIDS_PARAMS,
    cache: { keys: ['guids'], ttl: 5 },
    async handler(this: BookingThis, ctx: Context<GuidsParams>): Promise<CasePartiesEntry[]> {
      const guids = knownShape(ctx.params.guids);
      if (guids.length === 0) return [];
      const rows = await this.db
        .knex('booking.cases')
        .whereIn('guid', guids)
        .orderBy('id')
        .select('id', 'guid', 'partner_id', 'service_provider_id');
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
    params: GUIDS_PARAMS,
    async handler(this: BookingThis, ctx: Context<GuidsParams, CallerMeta>) {
      const caller = ctx.meta.caller;
      const rules = caller ? await statusRulesFor(this.statusRules, caller) : null;
      const cases = await loadCases(this.db.knex, knownShape(ctx.params.guids));
      return cases.map((found) => caseForPartner(found, rules));
    },
  },
};
