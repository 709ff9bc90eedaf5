/** The request log: `requests/log` records and the tracked booking attempts (`requests/find`). */
import type { Context, ServiceActionsSchema } from 'moleculer';
import { ACCESS, assertCanSeeCase, callerOf } from '@hub/shared';
import { findTracked, insertExternalRequest } from './requests.store';
import type { BookingThis } from './booking.types';

export interface FindRequestsParams {
  trackingId: string;
}
export interface LogRequestParams {
  type: string;
  status: string;
  url?: string;
  meta: { caseId: number } & Record<string, unknown>;
  request?: string;
  response?: string;
  message?: string;
}

export const requestActions: ServiceActionsSchema = {
  findRequests: {
    rest: 'GET /v3/requests/find',
    access: ACCESS.PARTNER,
    params: { trackingId: 'string|min:1|max:255' },
    async handler(this: BookingThis, ctx: Context<FindRequestsParams>) {
      const caller = callerOf(ctx);
      return { data: await findTracked(this.db.knex, caller.partnerId!, ctx.params.trackingId) };
    },
  },

  logRequest: {
    rest: 'POST /v3/requests/log',
    access: ACCESS.PARTNER_PROVIDER,
    params: {
      type: 'string|min:1|max:64',
      status: 'string|min:1|max:64',
      url: { type: 'url', optional: true },
      // Integrators put their own keys in meta; only caseId is checked.
      meta: { type: 'object', strict: false, props: { caseId: 'number|integer|positive' } },
      request: { type: 'string', optional: true },
      response: { type: 'string', optional: true },
      message: { type: 'string', optional: true },
    },
    async handler(this: BookingThis, ctx: Context<LogRequestParams>) {
      const caller = callerOf(ctx);
      const found = await this.db.knex('booking.cases').where({ id: ctx.params.meta.caseId }).first('id', 'partner_id', 'service_provider_id');
      const owned = assertCanSeeCase(caller, found ? { id: found.id as number, partnerId: found.partner_id as number, serviceProviderId: found.service_provider_id as number | null } : null);
      const { type, status, url, meta, request, response, message } = ctx.params;
      return insertExternalRequest(this.db.knex, caller, { caseId: owned.id, type, status, url, meta, request, response, message });
    },
  },
};
