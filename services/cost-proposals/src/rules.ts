/**
 * The cost proposal state rules (spec section 3) as plain functions: what a reaction does, which
 * proposals a new one deactivates, which approval it withdraws, and the checks on a proposal's
 * fields that a schema cannot express.
 */
import { FIELD_MESSAGES, type FieldDetails, isCalendarDay, parseInstant } from '@hub/shared';

export type Reaction = 'approved' | 'rejected';
export const REACTIONS: Reaction[] = ['approved', 'rejected'];

/** What the rules need to know of a stored proposal. */
export interface ProposalState {
  id: number;
  name: string | null;
  isActive: boolean;
  reaction: Reaction | null;
}

export const RULE_MESSAGES = {
  onlyActiveApproved: 'Only an active cost proposal can be approved',
  alreadyReacted: 'The cost proposal already has a different reaction',
  lineTaken: 'Line number is used twice',
  otherCase: 'This externalId and name belong to a cost proposal of another case',
} as const;

export type FeedbackDecision = { kind: 'react' } | { kind: 'repeat' } | { kind: 'conflict'; message: string };

/**
 * A reaction on a proposal without one is recorded; only an active proposal can be approved.
 * A second reaction equal to the first is a repeat: nothing changes, so a client may retry safely.
 * A different second reaction is refused: the provider may already have acted on an approval,
 * and the spec has a changed offer re-issued as a new proposal rather than reopening the old one.
 */
export function decideFeedback(proposal: ProposalState, reaction: Reaction): FeedbackDecision {
  if (proposal.reaction === reaction) return { kind: 'repeat' };
  if (proposal.reaction !== null) return { kind: 'conflict', message: RULE_MESSAGES.alreadyReacted };
  if (reaction === 'approved' && !proposal.isActive)
    return { kind: 'conflict', message: RULE_MESSAGES.onlyActiveApproved };
  return { kind: 'react' };
}

/** Approving `approvedId` (null: a proposal not stored yet) takes the approval from every other proposal of the case. */
export function approvalsToWithdraw(caseProposals: ProposalState[], approvedId: number | null): number[] {
  return caseProposals.filter((p) => p.id !== approvedId && p.reaction === 'approved').map((p) => p.id);
}

/** A newly issued proposal makes the older active ones of the same name on its case inactive. */
export function deactivatedBy(issued: ProposalState, caseProposals: ProposalState[]): number[] {
  if (issued.name === null) return [];
  return caseProposals.filter((p) => p.id < issued.id && p.isActive && p.name === issued.name).map((p) => p.id);
}

/** `active=true` lists what may still be approved: active, and not rejected. */
export function mayBeApproved(proposal: ProposalState): boolean {
  return proposal.isActive && proposal.reaction !== 'rejected';
}

/** externalId compared as sent, order included; an empty list is no external id at all. */
export function externalKeyOf(externalId: string[] | null | undefined): string | null {
  return externalId && externalId.length > 0 ? JSON.stringify(externalId) : null;
}

const TIME_STAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})$/;

/** The spec's `YYYY-MM-DD HH:mm:ss.SSS`, and a time that exists. */
export function isTimeStamp(value: string): boolean {
  const match = TIME_STAMP.exec(value);
  if (!match) return false;
  const [, , , , h, mi, s] = match.map(Number);
  return isCalendarDay(value.slice(0, 10)) && h < 24 && mi < 60 && s < 60;
}

/** An ISO 8601 date-time (or the spec's own form): what reactionDate and dateAccepted accept. */
export function parseDateTime(value: string): Date | null {
  if (isTimeStamp(value)) return new Date(`${value.replace(' ', 'T')}Z`);
  return parseInstant(value);
}

/** Money on a proposal has cents at most; more would be silently rounded by the column. */
export function isMoney(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) < 1e12 && Math.abs(Math.round(value * 100) - value * 100) < 1e-6;
}

export interface DetailIn {
  line?: number;
  text?: string | null;
  type?: string | null;
  priceNet?: number | null;
  quantity?: number | null;
}
export interface Detail {
  line: number;
  text: string | null;
  type: string | null;
  priceNet: number | null;
  quantity: number | null;
}

/** Lines count from 1 in the order sent; a line number the provider gives is kept. */
export function numberDetails(details: DetailIn[]): Detail[] {
  return details.map((detail, index) => ({
    line: detail.line ?? index + 1,
    text: detail.text ?? null,
    type: detail.type ?? null,
    priceNet: detail.priceNet ?? null,
    quantity: detail.quantity ?? null,
  }));
}

/** What a proposal as sent may carry; field paths are relative to the proposal. */
export interface ProposalFieldsIn {
  priceNet?: number | null;
  timeStamp?: string | null;
  reactionDate?: string | null;
  dateValidUntil?: string | null;
  details?: DetailIn[] | null;
}

/** The checks a schema cannot state: real dates, cents, unique line numbers. */
export function checkProposalFields(input: ProposalFieldsIn): FieldDetails {
  const details: FieldDetails = {};
  const fail = (field: string, message: string) => (details[field] ??= []).push(message);
  if (typeof input.priceNet === 'number' && !isMoney(input.priceNet)) fail('priceNet', FIELD_MESSAGES.wrongFormat);
  if (typeof input.timeStamp === 'string' && !isTimeStamp(input.timeStamp))
    fail('timeStamp', FIELD_MESSAGES.wrongFormat);
  if (typeof input.reactionDate === 'string' && !parseDateTime(input.reactionDate))
    fail('reactionDate', FIELD_MESSAGES.wrongFormat);
  if (typeof input.dateValidUntil === 'string' && !isCalendarDay(input.dateValidUntil))
    fail('dateValidUntil', FIELD_MESSAGES.wrongFormat);
  const seen = new Set<number>();
  (input.details ?? []).forEach((detail, index) => {
    const line = detail.line ?? index + 1;
    if (seen.has(line)) fail(`details[${index}].line`, RULE_MESSAGES.lineTaken);
    seen.add(line);
  });
  return details;
}
