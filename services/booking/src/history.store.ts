/** Storage of case history: each write records its entry in its own transaction. */
import type { Knex } from 'knex';
import type { Caller } from '@hub/shared';
import type { FieldChange, HistoryAction, HistoryEntry } from './case-history';
import type { CaseRow } from './case-shape';

interface HistoryRow {
  id: number;
  case_id: number;
  at: Date;
  action: HistoryAction;
  account_id: number | null;
  account_name: string | null;
  party_type: 'partner' | 'provider' | null;
  party_id: number | null;
  changes: FieldChange[];
}

/** The columns of a history entry but its case: who did it (account and party) and what changed. */
export function historyEntryOf(caller: Caller, action: HistoryAction, changes: FieldChange[]) {
  const party =
    caller.role === 'partner' || caller.role === 'provider'
      ? { party_type: caller.role, party_id: caller.role === 'partner' ? caller.partnerId : caller.providerId }
      : { party_type: null, party_id: null };
  return {
    action,
    account_id: caller.accountId,
    account_name: caller.name,
    ...party,
    changes,
  };
}

/**
 * Records what `caller` did to a case, inside the transaction of the write. A write that changed
 * nothing leaves no entry (the booking's own entry is written with the case, by insertCase).
 */
export async function recordHistory(
  trx: Knex.Transaction,
  caller: Caller,
  caseId: number,
  action: HistoryAction,
  changes: FieldChange[],
): Promise<void> {
  if (changes.length === 0) return;
  const entry = historyEntryOf(caller, action, changes);
  await trx('booking.case_history').insert({ case_id: caseId, ...entry, changes: JSON.stringify(entry.changes) });
}

/** The case's history, oldest first, as stored (the full view a provider has). */
export async function readHistory(knex: Knex, row: CaseRow): Promise<HistoryEntry[]> {
  const rows = (await knex('booking.case_history').where({ case_id: row.id }).orderBy('id')) as HistoryRow[];
  const partyName = (type: HistoryRow['party_type'], id: number | null) => {
    const named = type === 'partner' ? row.service_partner : row.service_provider;
    return named && named.id === id ? named.name : null;
  };
  return rows.map((entry) => ({
    id: entry.id,
    at: entry.at.toISOString(),
    action: entry.action,
    account: entry.account_id === null ? null : { id: entry.account_id, name: entry.account_name ?? '' },
    party:
      entry.party_type === null || entry.party_id === null
        ? null
        : { type: entry.party_type, id: entry.party_id, name: partyName(entry.party_type, entry.party_id) },
    changes: entry.changes,
  }));
}
