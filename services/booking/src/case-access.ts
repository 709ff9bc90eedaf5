/**
 * Finding a case for a caller (a case it may not see is a 404, like a missing one) and the
 * status rules its answer is rendered with. Status rules are reference data of the catalog, asked
 * once per world and before any transaction opens (embedded mode shares one database connection).
 */
import type { Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import {
  assertCanSeeCase,
  type Caller,
  ConflictError,
  NotFoundError,
  type PerWorldByKey,
  type StatusRules,
  UUID_PATTERN,
} from '@hub/shared';
import { type CaseOut, type CaseRow, loadCases } from './case-shape';

/** A case row with the lifecycle columns of the intake and finish. */
export type LifecycleRow = CaseRow & {
  accepted_at: Date | null;
  cancelled_at: Date | null;
  cancel_reason: string | null;
  finished_at: Date | null;
};

/** A guid parameter: any text, so a malformed guid is the same 404 as an unknown one. */
export const GUID_PARAM = { type: 'string', min: 1, max: 64 } as const;

/** A partner's status mapping and blacklist; null for other callers, who see provider keys. */
export async function statusRulesFor(
  kept: PerWorldByKey<number, StatusRules>,
  caller: Caller,
): Promise<StatusRules | null> {
  if (caller.role !== 'partner' || caller.partnerId === null) return null;
  return kept.get(caller.partnerId);
}

/** The catalog's status rules of one partner, as the booking service keeps them per world. */
export async function askStatusRules(broker: ServiceBroker, partnerId: number): Promise<StatusRules> {
  const rules = await broker.call<Record<number, StatusRules>, { partnerIds: number[] }>('catalog.statusRules', {
    partnerIds: [partnerId],
  });
  return rules[partnerId];
}

/** The whole case, for a read that changes nothing: one statement where a row and then the case were two. */
export async function visibleCase(knex: Knex, caller: Caller, guid: string): Promise<CaseOut> {
  const [found] = UUID_PATTERN.test(guid) ? await loadCases(knex, [guid.toLowerCase()]) : [];
  return assertCanSeeCase(caller, found);
}

/** The case row, read with `forUpdate` inside a transaction that changes it. */
export async function caseRowFor(knex: Knex, caller: Caller, guid: string, forUpdate = false): Promise<LifecycleRow> {
  if (!UUID_PATTERN.test(guid)) throw new NotFoundError('Case not found');
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
