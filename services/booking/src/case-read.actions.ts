/** Reading cases: one case with its request log, and the search over the caller's cases. */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  ANSWER_BUDGET_BYTES,
  type CallerMeta,
  callerOf,
  caseForPartner,
  jsonBytes,
  LIST_OFFSET_PARAM,
  listWithinBudget,
  type ParamsOf,
} from '@hub/shared';
import { GUID_PARAM, statusRulesFor, visibleCase } from './case-access';
import { SEARCH_PARAMS, searchCases, type SearchParams } from './case-search';
import { externalRequestOut, type ExternalRequestRow } from './requests.store';
import type { BookingThis } from './booking.types';
import { CASE_PAGE, CASE_READ } from './responses';

const READ_CASE_PARAMS = {
  guid: GUID_PARAM,
  includeRequests: { type: 'boolean', optional: true },
  requestsOffset: LIST_OFFSET_PARAM,
} as const;
export type ReadCaseParams = ParamsOf<typeof READ_CASE_PARAMS>;

export const caseReadActions: Record<string, ActionSchema<BookingThis>> = {
  read: {
    rest: 'GET /v3/case',
    access: ACCESS.PARTNER_PROVIDER,
    summary: 'A case',
    description:
      'As the caller\'s party sees it: a partner reads statuses in its own keys (hidden ones left out) and no `orderData.providerSpecific`. With `includeRequests=1`, the case\'s request log too, from its `requestsOffset`-th record (0 when left out): as many as fit 512 KiB with the case, and when the rest do not, a `Link` header names them (`<?guid=...&includeRequests=true&requestsOffset=N>; rel="next"`).',
    response: CASE_READ,
    params: READ_CASE_PARAMS,
    async handler(this: BookingThis, ctx: Context<ReadCaseParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const rules = await statusRulesFor(this.statusRules, caller);
      const found = await visibleCase(this.db.knex, caller, ctx.params.guid);
      const shown: Record<string, unknown> = caseForPartner(found, rules) as unknown as Record<string, unknown>;
      if (ctx.params.includeRequests) {
        const { guid, requestsOffset = 0 } = ctx.params;
        const requests = (await this.db
          .knex('booking.external_requests')
          .where({ case_id: found.id })
          .orderBy('id')
          .offset(requestsOffset)) as ExternalRequestRow[];
        // The log grows with every request logged on the case: it takes what the case leaves of the budget.
        shown.externalRequests = listWithinBudget(
          ctx.meta,
          requests.map(externalRequestOut),
          { guid, includeRequests: true },
          requestsOffset,
          { offsetParam: 'requestsOffset', budget: ANSWER_BUDGET_BYTES - jsonBytes(shown) },
        );
      }
      return shown;
    },
  },

  search: {
    rest: 'POST /v3/search-cases',
    access: ACCESS.PARTNER_PROVIDER,
    summary: "Search the caller's cases",
    description:
      "`filters` by case field, dotted (`orderData.refNo`) or nested, with `$lt`/`$gt`/`$in`..., `commonSearch` over the text fields and `tags`; paged by `pagination` (`offset` and `limit`, or the `after` cursor a page's `next` gives). docs/cases.md lists them.",
    response: CASE_PAGE,
    readOnly: true,
    params: SEARCH_PARAMS,
    async handler(this: BookingThis, ctx: Context<SearchParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const rules = await statusRulesFor(this.statusRules, caller);
      return searchCases(this.db.knex, caller, ctx.params, rules, { lookupNames: () => this.lookupNames.get() });
    },
  },
};
