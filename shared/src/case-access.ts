/**
 * Reaching booking's cases from the services that hang records on them (messages, cost
 * proposals, invoices): the parties and the core data of a list of cases, one call to booking
 * each (the contracts in events.ts), and the check that the caller may see every case named.
 */
import type { Context } from 'moleculer';
import { assertCanSeeCase, callerOf } from './access';
import { CASE_CORES_ACTION, CASE_PARTIES_ACTION, type CaseCore, type CasePartiesEntry } from './events';

async function byGuid<T extends { guid: string }>(
  ctx: Context,
  action: string,
  guids: string[],
): Promise<Map<string, T>> {
  const unique = [...new Set(guids)];
  if (unique.length === 0) return new Map();
  const entries = (await ctx.call(action, { guids: unique })) as T[];
  return new Map(entries.map((entry) => [entry.guid, entry]));
}

/** The parties of each known case; unknown guids are absent. */
export function casePartiesOf(ctx: Context, guids: string[]): Promise<Map<string, CasePartiesEntry>> {
  return byGuid(ctx, CASE_PARTIES_ACTION, guids);
}

/** The core data of each known case, to embed in the records hung on it. */
export function caseCoresOf(ctx: Context, guids: string[]): Promise<Map<string, CaseCore>> {
  return byGuid(ctx, CASE_CORES_ACTION, guids);
}

/**
 * The parties of the cases named, once the caller is known to see every one of them; a case
 * missing and one out of the caller's reach are the same 404.
 */
export async function visibleCases(ctx: Context, guids: string[]): Promise<Map<string, CasePartiesEntry>> {
  const caller = callerOf(ctx);
  const parties = await casePartiesOf(ctx, guids);
  for (const guid of guids) assertCanSeeCase(caller, parties.get(guid));
  return parties;
}

/** The parties of one case the caller may see (404 otherwise). */
export async function visibleCase(ctx: Context, guid: string): Promise<CasePartiesEntry> {
  return (await visibleCases(ctx, [guid])).get(guid)!;
}
