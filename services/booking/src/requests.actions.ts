/**
 * The request log: `requests/log` records and the tracked booking attempts (`requests/find`),
 * each with a documented status, `success` or `error`.
 */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  assertCanSeeCase,
  callerOf,
  CURSOR_PARAM,
  cursorValues,
  encodeCursor,
  FieldsValidationError,
  inTransaction,
  itemsWithinBudget,
  jsonBytes,
  keepIdempotentAnswer,
  type ParamsOf,
  RECORD_MAX_BYTES,
  RECORD_TOO_LARGE,
} from '@hub/shared';
import { findTracked, insertExternalRequest, REQUEST_STATUSES } from './requests.store';
import type { BookingThis } from './booking.types';
import { REQUEST_LOGGED, REQUESTS_FOUND } from './responses';

const FIND_REQUESTS_PARAMS = { trackingId: 'string|min:1|max:255', after: CURSOR_PARAM } as const;
const LOG_REQUEST_PARAMS = {
  type: 'string|min:1|max:64',
  status: { type: 'enum', values: REQUEST_STATUSES },
  url: { type: 'url', optional: true },
  // Integrators put their own keys in meta; only caseId is checked.
  meta: { type: 'object', strict: false, props: { caseId: 'number|integer|positive' } },
  request: { type: 'string', optional: true },
  response: { type: 'string', optional: true },
  message: { type: 'string', optional: true },
} as const;
/** The parts of a logged request that may be large. */
const LOGGED_PARTS = ['request', 'response', 'message', 'meta'] as const;
export type FindRequestsParams = ParamsOf<typeof FIND_REQUESTS_PARAMS>;
export type LogRequestParams = ParamsOf<typeof LOG_REQUEST_PARAMS>;

export const requestActions: Record<string, ActionSchema<BookingThis>> = {
  findRequests: {
    // The documentation's find endpoints take a POST body; the query form stays for GET clients.
    rest: ['POST /v3/requests/find', 'GET /v3/requests/find'],
    access: ACCESS.PARTNER,
    readOnly: true,
    summary: 'The booking attempts sent with a trackingId',
    response: REQUESTS_FOUND,
    description:
      'Every case/create or case/validate request the calling partner sent with this `trackingId`, oldest first, kept whole (discarded fields too; a body over 128 KiB as JSON cut to its first 128 KiB, its whole length in `meta.requestBytes`) with its outcome: status `success` or `error`, the response and, on failure, the validation errors in `meta.validationErrors`. An answer holds at most 512 KiB of requests: when the rest do not fit, `next` is the `after` that reads on from the last one; null when none follow.',
    params: FIND_REQUESTS_PARAMS,
    async handler(this: BookingThis, ctx: Context<FindRequestsParams>) {
      const caller = callerOf(ctx);
      const { trackingId } = ctx.params;
      const after =
        ctx.params.after === undefined ? 0 : (cursorValues(ctx.params.after, ['integer'], 'after')[0] as number);
      const found = await findTracked(this.db.knex, caller.partnerId!, trackingId, after);
      const data = itemsWithinBudget(found);
      return { data, next: data.length < found.length ? encodeCursor([data[data.length - 1].id]) : null };
    },
  },

  logRequest: {
    rest: 'POST /v3/requests/log',
    access: ACCESS.PARTNER_PROVIDER,
    summary: "Log a request of the integration's own on a case",
    description:
      'Keeps what an integration did on the case (`meta.caseId`), for both parties to read in the request log.',
    response: REQUEST_LOGGED,
    params: LOG_REQUEST_PARAMS,
    async handler(this: BookingThis, ctx: Context<LogRequestParams>) {
      const caller = callerOf(ctx);
      // A record is answered whole in the case's request log: one too large names its largest part.
      if (jsonBytes(ctx.params) > RECORD_MAX_BYTES) {
        const largest = LOGGED_PARTS.reduce((most, part) =>
          jsonBytes(ctx.params[part]) > jsonBytes(ctx.params[most]) ? part : most,
        );
        throw new FieldsValidationError({ [largest]: [RECORD_TOO_LARGE] });
      }
      const found = await this.db
        .knex('booking.cases')
        .where({ id: ctx.params.meta.caseId })
        .first('id', 'partner_id', 'service_provider_id');
      const owned = assertCanSeeCase(
        caller,
        found
          ? {
              id: found.id as number,
              partnerId: found.partner_id as number,
              serviceProviderId: found.service_provider_id as number | null,
            }
          : null,
      );
      const { type, status, url, meta, request, response, message } = ctx.params;
      return inTransaction(this.db.knex, async (trx) => {
        const logged = await insertExternalRequest(trx, caller, {
          caseId: owned.id,
          type,
          status,
          url,
          meta,
          request,
          response,
          message,
        });
        await keepIdempotentAnswer(trx, ctx, logged);
        return logged;
      });
    },
  },
};
