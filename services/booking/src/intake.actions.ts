/**
 * The provider's intake and the partner's finish (state rules in docs/cases.md):
 * - `unexported-cases`: the provider's cases it has not accepted and that are not cancelled;
 * - `case/export`: one case whole, with its competence data and the names of its accessories;
 * - `case/accept`: the provider takes the case (orderData.serviceProviderExportStatus true),
 *   merging the orderData it sends; `status: false` declines it instead;
 * - `case/cancel`: the provider gives the case up, with a reason or without; it gets the
 *   cancelled status;
 * - `case/finish`: the partner hands the case over when it did not at booking
 *   (orderData.integrationsFinished true); the provider may still cancel it.
 * Each change writes its events in its own transaction; repeating one that is done changes nothing.
 */
import type { Knex } from 'knex';
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type CallerMeta,
  callerOf,
  chosenKeys,
  ConflictError,
  FieldsValidationError,
  inTransaction,
  keepIdempotentAnswer,
  DATA_RESULT,
  type ParamsOf,
  RESULT,
} from '@hub/shared';
import { caseRowFor, GUID_PARAM, type LifecycleRow } from './case-access';
import { loadCases } from './case-shape';
import { SEARCH_PARAMS, searchCases, type SearchParams } from './case-search';
import { addStatus, providerStatusKeys } from './statuses.actions';
import { checkedChange, recordCaseChange, writeCaseUpdated } from './case-update.actions';
import type { HistoryAction } from './case-history';
import { HUB_ORDER_KEYS } from './case-update';
import type { BookingThis } from './booking.types';
import { CASE_EXPORT, CASE_PAGE } from './responses';

const CANCEL_CASE_PARAMS = {
  guid: GUID_PARAM,
  // The documented example sends only the guid.
  reason: { type: 'string', trim: true, max: 1000, optional: true, nullable: true },
} as const;
export type CancelCaseParams = ParamsOf<typeof CANCEL_CASE_PARAMS>;

const ACCEPT_CASE_PARAMS = {
  guid: GUID_PARAM,
  orderData: { type: 'object', optional: true },
  status: { type: 'boolean', optional: true, default: true },
} as const;
export type AcceptCaseParams = ParamsOf<typeof ACCEPT_CASE_PARAMS>;

/** The status a cancelled case gets: the provider's `cancelled` key, or this one when it has none. */
export const CANCELLED_STATUS = { key: 'cancelled', name: 'Cancelled' };

/** Accessory ids marked in productData.accessory: `{ "1": true }` at booking, `["1"]` after an update. */
export function accessoryIdsOf(accessory: unknown): number[] {
  const ids = chosenKeys(accessory) ?? [];
  return [...new Set(ids.map(Number).filter((id) => Number.isInteger(id) && id > 0))];
}

const omitHubKeys = (orderData: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(orderData).filter(([key]) => !HUB_ORDER_KEYS.includes(key)));

/**
 * Runs a lifecycle change of the caller's case `guid` on the locked case: `change` answers the
 * columns and orderData keys to set, or null when the case is already in that state. The
 * `case.updated` diff goes to the other party, and the change is recorded in the case's history
 * as `action`.
 */
type StateChange = { columns: Record<string, unknown>; orderData: Record<string, unknown> } | null;

async function changeState(
  this: BookingThis,
  ctx: Context<{ guid: string }, CallerMeta>,
  action: HistoryAction,
  change: (row: LifecycleRow, trx: Knex.Transaction) => StateChange | Promise<StateChange>,
  answer: object = { data: { result: true } },
) {
  const caller = callerOf(ctx);
  const guid = ctx.params.guid;
  await inTransaction(this.db.knex, async (trx) => {
    const row = await caseRowFor(trx, caller, guid, true);
    const [before] = await loadCases(trx, [row.guid]);
    const next = await change(row, trx);
    if (!next) return;
    const current = (await trx('booking.cases').where({ id: row.id }).first('order_data')) as {
      order_data: Record<string, unknown>;
    };
    await trx('booking.cases')
      .where({ id: row.id })
      .update({
        ...next.columns,
        order_data: JSON.stringify({ ...current.order_data, ...next.orderData }),
        updated_at: trx.fn.now(),
      });
    const [after] = await loadCases(trx, [row.guid]);
    await writeCaseUpdated(trx, caller, row, before, after);
    await recordCaseChange(trx, caller, row, action, before, after);
    await keepIdempotentAnswer(trx, ctx, answer);
  });
  this.relayOutbox();
  return answer;
}

export const intakeActions: Record<string, ActionSchema<BookingThis>> = {
  unexported: {
    rest: 'POST /v3/unexported-cases',
    access: ACCESS.PROVIDER,
    summary: 'Cases the provider has not accepted yet',
    description: 'The search of search-cases over the cases routed to the provider that it has not accepted.',
    response: CASE_PAGE,
    readOnly: true,
    params: SEARCH_PARAMS,
    handler(this: BookingThis, ctx: Context<SearchParams, CallerMeta>) {
      return searchCases(this.db.knex, callerOf(ctx), ctx.params, null, {
        unexported: true,
        lookupNames: () => this.lookupNames.get(),
      });
    },
  },

  export: {
    rest: 'GET /v3/case/export',
    summary: 'Export a case to the provider',
    description: "The whole case with `externalData` (the routing's competence data) and `productData.accessoryNames`.",
    access: ACCESS.PROVIDER,
    response: CASE_EXPORT,
    params: { guid: GUID_PARAM },
    async handler(this: BookingThis, ctx: Context<{ guid: string }, CallerMeta>) {
      const row = await caseRowFor(this.db.knex, callerOf(ctx), ctx.params.guid);
      const [found] = await loadCases(this.db.knex, [row.guid]);
      const marked = accessoryIdsOf(row.product_data.accessory);
      const offered = marked.length
        ? await ctx.call<Array<{ id: number; name: string }>, { productType: number }>('catalog.accessories', {
            productType: row.product_type_id,
          })
        : [];
      // As the product's export shows them: the routing's competence data, and the names of
      // the accessories in the order of their ids in productData.accessory.
      const accessoryNames = marked.flatMap((id) => offered.find((accessory) => accessory.id === id)?.name ?? []);
      return {
        ...found,
        externalData: row.service_provider_competence,
        productData: { ...found.productData, accessoryNames },
      };
    },
  },

  accept: {
    rest: 'POST /v3/case/accept',
    summary: 'Accept (or decline) a case',
    description:
      'Marks the case imported by the provider; `orderData` sent is merged as case/append merges it; `status: false` declines it.',
    access: ACCESS.PROVIDER,
    response: DATA_RESULT,
    params: ACCEPT_CASE_PARAMS,
    async handler(this: BookingThis, ctx: Context<AcceptCaseParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const accepting = ctx.params.status !== false;
      // orderData sent with the answer is merged as case/append merges it, checked first.
      const checked = ctx.params.orderData
        ? await checkedChange.call(this, ctx, caller, ctx.params.guid, { orderData: ctx.params.orderData }, 'merge')
        : null;
      if (checked && Object.keys(checked.details).length) throw new FieldsValidationError(checked.details);
      return changeState.call(this, ctx, accepting ? 'accepted' : 'declined', (row) => {
        if (row.cancelled_at) throw new ConflictError('Case is cancelled', { guid: row.guid });
        if (checked && checked.row.updated_at.getTime() !== row.updated_at.getTime())
          throw new ConflictError('The case kept changing while this update was checked; send it again');
        const orderData = checked ? omitHubKeys(checked.parts.orderData) : {};
        if (row.accepted === accepting && row.order_data.serviceProviderExportStatus === accepting && !checked)
          return null;
        return {
          columns: accepting ? { accepted: true, accepted_at: row.accepted_at ?? new Date() } : { accepted: false },
          orderData: { ...orderData, serviceProviderExportStatus: accepting },
        };
      });
    },
  },

  cancel: {
    rest: 'POST /v3/case/cancel',
    summary: 'Cancel a case',
    description: 'The provider gives the case up, with an optional `reason`; the case gets the cancelled status.',
    access: ACCESS.PROVIDER,
    response: DATA_RESULT,
    params: CANCEL_CASE_PARAMS,
    handler(this: BookingThis, ctx: Context<CancelCaseParams, CallerMeta>) {
      return changeState.call(this, ctx, 'cancelled', async (row, trx) => {
        if (row.cancelled_at) return null;
        const status =
          (await providerStatusKeys(trx, row.service_provider_id)).find(
            (entry) => entry.key === CANCELLED_STATUS.key,
          ) ?? CANCELLED_STATUS;
        await addStatus(trx, row, status, new Date());
        const reason = ctx.params.reason || null;
        return {
          columns: { cancelled_at: new Date(), cancel_reason: reason },
          orderData: reason ? { cancelReason: reason } : {},
        };
      });
    },
  },

  finish: {
    rest: 'POST /v3/case/finish',
    summary: 'Hand a case over to its provider',
    description:
      'For a partner that does not send a case on at booking: sets `orderData.integrationsFinished` and tells the provider; answers `{ result: true }`.',
    access: ACCESS.PARTNER,
    response: RESULT,
    params: { guid: GUID_PARAM },
    handler(this: BookingThis, ctx: Context<{ guid: string }, CallerMeta>) {
      return changeState.call(
        this,
        ctx,
        'finished',
        (row) => {
          if (row.finished_at) return null;
          return { columns: { finished_at: new Date() }, orderData: { integrationsFinished: true } };
        },
        // The product's answer to case/finish.
        { result: true },
      );
    },
  },
};
