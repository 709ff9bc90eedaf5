/**
 * Reads and writes of `cost_proposals.proposals`. Every change to a case's proposals first locks
 * all of that case's rows (in id order, so two writers never wait on each other in a circle):
 * the rule "one approved proposal per case" is then decided on rows nobody else can change.
 */
import type { Knex } from 'knex';
import { writeEvent, type Audience } from '@hub/shared';
import type { Detail, Reaction } from './rules';

export const SCHEMA = 'cost_proposals';
const TABLE = `${SCHEMA}.proposals`;

/** A stored proposal as it is read. */
export interface ProposalRow {
  id: number;
  case_guid: string;
  service_provider_id: number;
  external_id: string[] | null;
  external_key: string | null;
  name: string | null;
  /** numeric arrives as a string, so the cents stay exact. */
  price_net: string | null;
  currency: string | null;
  time_stamp: string | null;
  is_active: boolean;
  reaction: Reaction | null;
  reaction_date: Date | null;
  reaction_name: string | null;
  comment: string | null;
  date_valid_until: string | null;
  details: Detail[] | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a write may set; json columns go in as text. */
export interface ProposalColumns {
  case_guid?: string;
  service_provider_id?: number;
  external_id?: string[] | null;
  external_key?: string | null;
  name?: string | null;
  price_net?: number | null;
  currency?: string | null;
  time_stamp?: string | null;
  is_active?: boolean;
  reaction?: Reaction | null;
  reaction_date?: Date | null;
  reaction_name?: string | null;
  comment?: string | null;
  date_valid_until?: string | null;
  details?: Detail[] | null;
}

function encode(columns: ProposalColumns): Record<string, unknown> {
  const encoded: Record<string, unknown> = { ...columns };
  for (const key of ['external_id', 'details'] as const) {
    if (columns[key] !== undefined) encoded[key] = columns[key] === null ? null : JSON.stringify(columns[key]);
  }
  return encoded;
}

export async function findProposal(knex: Knex, id: number): Promise<ProposalRow | undefined> {
  return knex<ProposalRow>(TABLE).where({ id }).first();
}

/** A case's proposals, oldest first. */
export async function listProposals(knex: Knex, caseGuid: string): Promise<ProposalRow[]> {
  return knex<ProposalRow>(TABLE).where({ case_guid: caseGuid }).orderBy('id');
}

/** Locks and returns every proposal of the given cases, oldest first. */
export async function lockCases(trx: Knex.Transaction, caseGuids: string[]): Promise<ProposalRow[]> {
  return trx<ProposalRow>(TABLE).whereIn('case_guid', caseGuids).orderBy('id').forUpdate();
}

export async function findByExternalKey(
  trx: Knex.Transaction,
  serviceProviderId: number,
  externalKey: string,
  name: string | null,
): Promise<ProposalRow | undefined> {
  return trx<ProposalRow>(TABLE)
    .where({ service_provider_id: serviceProviderId, external_key: externalKey })
    .whereRaw(`coalesce(name, '') = ?`, [name ?? ''])
    .first();
}

export async function insertProposal(trx: Knex.Transaction, columns: ProposalColumns): Promise<ProposalRow> {
  const [row] = await trx(TABLE).insert(encode(columns)).returning('*');
  return row as ProposalRow;
}

export async function updateProposal(
  trx: Knex.Transaction,
  id: number,
  columns: ProposalColumns,
): Promise<ProposalRow> {
  const [row] = await trx(TABLE)
    .where({ id })
    .update({ ...encode(columns), updated_at: trx.fn.now() })
    .returning('*');
  return row as ProposalRow;
}

export async function updateProposals(trx: Knex.Transaction, ids: number[], columns: ProposalColumns): Promise<void> {
  if (ids.length === 0) return;
  await trx(TABLE)
    .whereIn('id', ids)
    .update({ ...encode(columns), updated_at: trx.fn.now() });
}

/** What withdrawing an approval leaves: a proposal with no reaction, which may be approved again. */
export const NO_REACTION: ProposalColumns = { reaction: null, reaction_date: null, reaction_name: null, comment: null };

export async function deleteProposal(trx: Knex.Transaction, id: number): Promise<ProposalRow | undefined> {
  const [row] = await trx(TABLE).where({ id }).delete().returning('*');
  return row as ProposalRow | undefined;
}

export async function proposalsByIds(trx: Knex.Transaction, ids: number[]): Promise<Map<number, ProposalRow>> {
  const rows = await trx<ProposalRow>(TABLE).whereIn('id', ids);
  return new Map(rows.map((row) => [row.id, row]));
}

export function recordEvent(
  trx: Knex.Transaction,
  type: string,
  caseGuid: string,
  audience: Audience,
  payload: object,
) {
  return writeEvent(trx, SCHEMA, { type, caseGuid, audience, payload: payload as Record<string, unknown> });
}
