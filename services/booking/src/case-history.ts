/**
 * A case's history: what each change did to the case, field by field, and how each party sees
 * it. Every change is kept whole (the provider's private data and hidden statuses too) and
 * narrowed when read, so one record serves both parties.
 */
import { partnerKeyOf, type StatusRules } from '@hub/shared';
import { DIFFED_CASE_KEYS, deepEqual, isPlainObject, type Json } from './case-diff';

type JsonObject = { [key: string]: Json };

/** What was done, one name per kind of write. */
export const HISTORY_ACTIONS = [
  'created',
  'updated',
  'appended',
  'statusAdded',
  'filesUploaded',
  'accepted',
  'declined',
  'cancelled',
  'finished',
] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

/** One field a change set: its path in the Case (`orderData.refNo`), and its values around the change. */
export interface FieldChange {
  field: string;
  before: Json;
  after: Json;
}

/** The Case keys a history follows: those the "case updated" webhook reports, and the status. */
export const HISTORY_KEYS = [...DIFFED_CASE_KEYS, 'currentStatus'] as const;

/** The status field of a change; a partner sees it in its own keys. */
export const STATUS_FIELD = 'currentStatus';

/**
 * The fields that differ between two states, at the deepest object level where they differ (an
 * array is one value), in key order. A removed key is `after: null`, an added one `before: null`.
 */
export function changedFields(before: JsonObject, after: JsonObject, prefix = ''): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key] ?? null;
    const now = after[key] ?? null;
    const field = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(was) && isPlainObject(now)) changes.push(...changedFields(was, now, field));
    else if (!deepEqual(was, now)) changes.push({ field, before: was, after: now });
  }
  return changes;
}

/** The changes between two states of a whole case, over the keys a history follows. */
export function caseChanges(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const pick = (source: Record<string, unknown>) =>
    Object.fromEntries(HISTORY_KEYS.map((key) => [key, (source[key] ?? null) as Json]));
  return changedFields(pick(before), pick(after));
}

/** One entry as it is answered. */
export interface HistoryEntry {
  id: number;
  at: string;
  action: HistoryAction;
  account: { id: number; name: string } | null;
  party: { type: 'partner' | 'provider'; id: number; name: string | null } | null;
  changes: FieldChange[];
}

const PROVIDER_DATA = 'orderData.providerSpecific';
const isProviderData = (field: string) => field === PROVIDER_DATA || field.startsWith(`${PROVIDER_DATA}.`);

/**
 * The history as a partner sees it, from the full one in order: without the provider's private
 * data (`orderData.providerSpecific`), statuses in the partner's keys with hidden ones left out
 * (a status change reads from the last status the partner could see), and without the entries
 * that leave the partner nothing to see. The booking itself is always shown.
 */
export function historyForPartner(entries: HistoryEntry[], rules: StatusRules | null): HistoryEntry[] {
  let lastSeenStatus: string | null = null;
  const shown: HistoryEntry[] = [];
  for (const entry of entries) {
    const changes: FieldChange[] = [];
    for (const change of entry.changes) {
      if (isProviderData(change.field)) continue;
      if (change.field !== STATUS_FIELD) {
        changes.push(change);
        continue;
      }
      const key = typeof change.after === 'string' ? partnerKeyOf(rules, change.after) : null;
      if (key === null || key === lastSeenStatus) continue;
      changes.push({ field: STATUS_FIELD, before: lastSeenStatus, after: key });
      lastSeenStatus = key;
    }
    if (changes.length > 0 || entry.action === 'created') shown.push({ ...entry, changes });
  }
  return shown;
}
