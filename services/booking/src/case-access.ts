/**
 * Finding a case for a caller (a case it may not see is a 404, like a missing one) and the
 * status rules its answer is rendered with. Status rules come from the webhooks service and are
 * asked before any transaction opens (embedded mode shares one database connection).
 */
import type { Knex } from 'knex';
import type { Context, ServiceBroker } from 'moleculer';
import { assertCanSeeCase, type Caller, ConflictError, isServiceRunning, NotFoundError, type StatusRules } from '@hub/shared';
import type { CaseRow } from './case-shape';

/** A case row with the lifecycle columns of the intake and finish. */
export type LifecycleRow = CaseRow & {
  accepted_at: Date | null;
  cancelled_at: Date | null;
  cancel_reason: string | null;
  finished_at: Date | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A guid parameter: any text, so a malformed guid is the same 404 as an unknown one. */
export const GUID_PARAM = { type: 'string', min: 1, max: 64 };

/** The partner's status mapping and blacklist while a webhooks service runs; null otherwise. */
export async function statusRulesFor(ctx: Context, broker: ServiceBroker, caller: Caller): Promise<StatusRules | null> {
  if (caller.role !== 'partner' || caller.partnerId === null) return null;
  if (!isServiceRunning(broker, 'webhooks')) return null;
  const rules = await ctx.call<StatusRules | null, { partnerId: number }>('webhooks.statusRules', { partnerId: caller.partnerId });
  return rules ?? { mappings: {}, blacklist: [] };
}

/** The case row, read with `forUpdate` inside a transaction that changes it. */
export async function caseRowFor(knex: Knex, caller: Caller, guid: string, forUpdate = false): Promise<LifecycleRow> {
  if (!UUID.test(guid)) throw new NotFoundError('Case not found');
  const query = knex('booking.cases').where({ guid: guid.toLowerCase() }).first();
  const row = (await (forUpdate ? query.forUpdate() : query)) as LifecycleRow | undefined;
  assertCanSeeCase(caller, row ? { partnerId: row.partner_id, serviceProviderId: row.service_provider_id } : null);
  return row!;
}

/** Who hears of a change: the party that did not make it. */
export function otherParty(caller: Caller, row: LifecycleRow): { partnerId?: number; providerId?: number | null } {
  return caller.role === 'partner' ? { providerId: row.service_provider_id } : { partnerId: row.partner_id };
}

/** A cancelled case takes no further updates, files or statuses. */
export function assertNotCancelled(row: LifecycleRow): void {
  if (row.cancelled_at) throw new ConflictError('Case is cancelled', { guid: row.guid });
}
