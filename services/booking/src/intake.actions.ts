/**
 * The provider's intake and the partner's finish (state rules in docs/cases.md):
 * - `unexported-cases`: the provider's cases it has not accepted and that are not cancelled;
 * - `case/export`: one case whole, with the names of its accessories;
 * - `case/accept`: the provider takes the case (orderData.serviceProviderExportStatus true);
 * - `case/cancel`: the provider gives the case up with a reason; it gets the cancelled status;
 * - `case/finish`: the partner closes its side (orderData.integrationsFinished true).
 * Each change writes its events in its own transaction; repeating one that is done changes nothing.
 */
import type { Knex } from 'knex';
import type { Context, ServiceActionsSchema } from 'moleculer';
import { ACCESS, type Caller, type CallerMeta, callerOf, chosenKeys, ConflictError, DOMAIN_EVENTS, inTransaction, writeEvent } from '@hub/shared';
import { caseRowFor, GUID_PARAM, type LifecycleRow, otherParty } from './case-access';
import { caseUpdatedPayload } from './case-diff';
import { loadCases } from './case-shape';
import { SEARCH_PARAMS, searchCases, type SearchParams } from './case-search';
import { addStatus, providerStatusKeys } from './statuses.actions';
import type { BookingThis } from './booking.types';

export interface CancelCaseParams {
  guid: string;
  reason: string;
}

/** The status a cancelled case gets: the provider's `cancelled` key, or this one when it has none. */
export const CANCELLED_STATUS = { key: 'cancelled', name: 'Cancelled' };

/** Accessory ids marked in productData.accessory: `{ "1": true }` at booking, `["1"]` after an update. */
export function accessoryIdsOf(accessory: unknown): number[] {
  const ids = chosenKeys(accessory) ?? [];
  return [...new Set(ids.map(Number).filter((id) => Number.isInteger(id) && id > 0))];
}

/**
 * Runs a lifecycle change on the locked case: `change` answers the columns and orderData keys
 * to set, or null when the case is already in that state. The `case.updated` diff goes to the
 * other party.
 */
async function changeState(
  this: BookingThis,
  caller: Caller,
  guid: string,
  change: (row: LifecycleRow, trx: Knex.Transaction) => Promise<{ columns: Record<string, unknown>; orderData: Record<string, unknown> } | null>,
) {
  await inTransaction(this.db.knex, async (trx) => {
    const row = await caseRowFor(trx, caller, guid, true);
    const [before] = await loadCases(trx, [row.guid]);
    const next = await change(row, trx);
    if (!next) return;
    const current = (await trx('booking.cases').where({ id: row.id }).first('order_data')) as { order_data: Record<string, unknown> };
    await trx('booking.cases')
      .where({ id: row.id })
      .update({ ...next.columns, order_data: JSON.stringify({ ...current.order_data, ...next.orderData }), updated_at: trx.fn.now() });
    const [after] = await loadCases(trx, [row.guid]);
    const payload = caseUpdatedPayload(row.guid, before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>);
    if (payload) await writeEvent(trx, 'booking', { type: DOMAIN_EVENTS.CASE_UPDATED, caseGuid: row.guid, audience: otherParty(caller, row), payload });
  });
  this.relayOutbox();
  return { data: { result: true } };
}

export const intakeActions: ServiceActionsSchema = {
  unexported: {
    rest: 'POST /v3/unexported-cases',
    access: ACCESS.PROVIDER,
    params: SEARCH_PARAMS,
    handler(this: BookingThis, ctx: Context<SearchParams, CallerMeta>) {
      return searchCases(this.db.knex, callerOf(ctx), ctx.params, null, true);
    },
  },

  export: {
    rest: 'GET /v3/case/export',
    access: ACCESS.PROVIDER,
    params: { guid: GUID_PARAM },
    async handler(this: BookingThis, ctx: Context<{ guid: string }, CallerMeta>) {
      const row = await caseRowFor(this.db.knex, callerOf(ctx), ctx.params.guid);
      const [found] = await loadCases(this.db.knex, [row.guid]);
      const marked = accessoryIdsOf(row.product_data.accessory);
      const offered = marked.length ? await ctx.call<Array<{ id: number; name: string }>, { productType: number }>('catalog.accessories', { productType: row.product_type_id }) : [];
      return { ...found, accessories: offered.filter((accessory) => marked.includes(accessory.id)).map(({ id, name }) => ({ id, name })) };
    },
  },

  accept: {
    rest: 'POST /v3/case/accept',
    access: ACCESS.PROVIDER,
    params: { guid: GUID_PARAM },
    handler(this: BookingThis, ctx: Context<{ guid: string }, CallerMeta>) {
      return changeState.call(this, callerOf(ctx), ctx.params.guid, async (row) => {
        if (row.cancelled_at) throw new ConflictError('Case is cancelled', { guid: row.guid });
        if (row.accepted) return null;
        return { columns: { accepted: true, accepted_at: new Date() }, orderData: { serviceProviderExportStatus: true } };
      });
    },
  },

  cancel: {
    rest: 'POST /v3/case/cancel',
    access: ACCESS.PROVIDER,
    params: { guid: GUID_PARAM, reason: 'string|trim|min:1|max:1000' },
    handler(this: BookingThis, ctx: Context<CancelCaseParams, CallerMeta>) {
      return changeState.call(this, callerOf(ctx), ctx.params.guid, async (row, trx) => {
        if (row.finished_at) throw new ConflictError('Case is finished', { guid: row.guid });
        if (row.cancelled_at) return null;
        const status = (await providerStatusKeys(trx, row.service_provider_id)).find((entry) => entry.key === CANCELLED_STATUS.key) ?? CANCELLED_STATUS;
        await addStatus(trx, row, status, new Date());
        return { columns: { cancelled_at: new Date(), cancel_reason: ctx.params.reason }, orderData: { cancelReason: ctx.params.reason } };
      });
    },
  },

  finish: {
    rest: 'POST /v3/case/finish',
    access: ACCESS.PARTNER,
    params: { guid: GUID_PARAM },
    handler(this: BookingThis, ctx: Context<{ guid: string }, CallerMeta>) {
      return changeState.call(this, callerOf(ctx), ctx.params.guid, async (row) => {
        if (row.finished_at) return null;
        return { columns: { finished_at: new Date() }, orderData: { integrationsFinished: true } };
      });
    },
  },
};
