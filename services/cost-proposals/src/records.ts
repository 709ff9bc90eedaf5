/**
 * Wire shapes of a cost proposal and their translation from and to the stored row: the v3 record
 * (also the webhook payload), the deprecated v1 record, and the v1 input translated into the v3 one.
 */
import {
  externalKeyOf,
  numberDetails,
  parseDateTime,
  type Detail,
  type DetailIn,
  type ProposalState,
  type Reaction,
} from './rules';
import type { ProposalColumns, ProposalRow } from './proposals.store';

export interface CostProposalOut {
  id: number;
  guid: string;
  externalId: string[] | null;
  name: string | null;
  priceNet: number | null;
  currency: string | null;
  timeStamp: string | null;
  isActive: boolean;
  reaction: Reaction | null;
  reactionDate: string | null;
  reactionName: string | null;
  comment: string | null;
  dateValidUntil: string | null;
  details: Detail[] | null;
  serviceProviderId: number;
  createdAt: string;
  updatedAt: string;
}

export interface CostProposalV1Out {
  id: number;
  externalId: string[] | null;
  name: string | null;
  priceNet: string | null;
  currency: string | null;
  dateValidUntil: string | null;
  isActive: boolean;
  dateAccepted: string | null;
  approverName: string | null;
  details: Detail[] | null;
  createdAt: string;
  updatedAt: string;
  serviceProviderId: number;
}

/** A proposal as a provider sends it to v3; every field but guid may be left out. */
export interface CostProposalIn {
  guid: string;
  externalId?: string[] | null;
  name?: string | null;
  priceNet?: number | null;
  currency?: string | null;
  timeStamp?: string | null;
  isActive?: boolean;
  reaction?: Reaction | null;
  reactionDate?: string | null;
  reactionName?: string | null;
  comment?: string | null;
  dateValidUntil?: string | null;
  details?: DetailIn[] | null;
}

/** v1 has approval only: dateAccepted and approverName stand for reaction, reactionDate, reactionName. */
export type CostProposalV1In = Omit<CostProposalIn, 'reaction' | 'reactionDate' | 'reactionName' | 'comment'> & {
  dateAccepted?: string | null;
  approverName?: string | null;
};

export function stateOf(row: ProposalRow): ProposalState {
  return { id: row.id, name: row.name, isActive: row.is_active, reaction: row.reaction };
}

export function toRecord(row: ProposalRow): CostProposalOut {
  return {
    id: row.id,
    guid: row.case_guid,
    externalId: row.external_id,
    name: row.name,
    priceNet: row.price_net === null ? null : Number(row.price_net),
    currency: row.currency,
    timeStamp: row.time_stamp,
    isActive: row.is_active,
    reaction: row.reaction,
    reactionDate: row.reaction_date ? asTimeStamp(row.reaction_date) : null,
    reactionName: row.reaction_name,
    comment: row.comment,
    dateValidUntil: row.date_valid_until,
    details: row.details,
    serviceProviderId: row.service_provider_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A moment in the record's `YYYY-MM-DD HH:mm:ss.SSS` form, in UTC: the product's v3 pages show
 * `reactionDate` as they show `timeStamp`, where v1 showed `dateAccepted` in ISO 8601.
 */
function asTimeStamp(moment: Date): string {
  return moment.toISOString().slice(0, 23).replace('T', ' ');
}

export function toV1Record(row: ProposalRow): CostProposalV1Out {
  const approved = row.reaction === 'approved';
  return {
    id: row.id,
    externalId: row.external_id,
    name: row.name,
    priceNet: row.price_net,
    currency: row.currency,
    dateValidUntil: row.date_valid_until,
    isActive: row.is_active,
    dateAccepted: approved && row.reaction_date ? row.reaction_date.toISOString() : null,
    approverName: approved ? row.reaction_name : null,
    details: row.details,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    serviceProviderId: row.service_provider_id,
  };
}

/**
 * Either v1 approval field makes the proposal approved (acceptance time defaults to now); leaving
 * both out leaves any reaction as it is, as leaving out a v3 field does.
 */
export function fromV1Input(item: CostProposalV1In): CostProposalIn {
  const { dateAccepted, approverName, ...rest } = item;
  if (dateAccepted == null && approverName == null) return rest;
  return { ...rest, reaction: 'approved', reactionDate: dateAccepted ?? null, reactionName: approverName ?? null };
}

/**
 * The columns a proposal as sent sets: a field left out keeps its stored value, null clears it.
 * A reaction without a date is dated now, unless it repeats the stored one, which keeps its date.
 */
export function columnsOf(item: CostProposalIn, existing?: ProposalRow): ProposalColumns {
  const columns: ProposalColumns = {};
  if (item.externalId !== undefined) {
    columns.external_key = externalKeyOf(item.externalId);
    columns.external_id = columns.external_key === null ? null : item.externalId;
  }
  if (item.name !== undefined) columns.name = item.name;
  if (item.priceNet !== undefined) columns.price_net = item.priceNet;
  if (item.currency !== undefined) columns.currency = item.currency;
  if (item.timeStamp !== undefined) columns.time_stamp = item.timeStamp;
  // Cleared with null, a proposal is active again, as one that never said.
  if (item.isActive !== undefined) columns.is_active = item.isActive ?? true;
  if (item.comment !== undefined) columns.comment = item.comment;
  if (item.dateValidUntil !== undefined) columns.date_valid_until = item.dateValidUntil;
  if (item.details !== undefined) columns.details = item.details === null ? null : numberDetails(item.details);
  if (item.reactionName !== undefined) columns.reaction_name = item.reactionName;
  if (item.reactionDate !== undefined)
    columns.reaction_date = item.reactionDate === null ? null : parseDateTime(item.reactionDate);
  if (item.reaction === null) {
    Object.assign(columns, { reaction: null, reaction_date: null, reaction_name: null });
  } else if (item.reaction !== undefined) {
    columns.reaction = item.reaction;
    if (!columns.reaction_date) {
      const sameAsStored = existing?.reaction === item.reaction && existing.reaction_date;
      columns.reaction_date = sameAsStored ? existing.reaction_date : new Date();
    }
  }
  return columns;
}
