/**
 * Case messages: the record shape, who may see and confirm a message, and who hears of it.
 * Plain functions, so the rules are tested without a broker.
 */
import { type Audience, type Caller, parseInstant } from '@hub/shared';

/** The spec's message types (section 2). */
export const MESSAGE_TYPES = [
  'serviceComment',
  'customerCenterReply',
  'costProposalRejectRur',
  'costProposalRejectScrap',
  'statusRequest',
  'spareParts',
  'reminder',
  'costProposal',
  'shipment',
  'forwarding',
] as const;

export type SenderType = 'partner' | 'provider';

export interface MessageRow {
  id: number;
  case_id: number;
  guid: string;
  partner_id: number;
  provider_id: number | null;
  sender_account_id: number;
  sender_type: SenderType | null;
  content: string | null;
  type: string;
  external_id: string | null;
  parent_message_id: number | null;
  user_email: string | null;
  user_name: string | null;
  is_internal: boolean;
  declared_at: Date;
  confirmed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface CaseMessageOut {
  id: number;
  caseId: number;
  guid: string;
  senderAccountId: number;
  senderType: SenderType | null;
  content: string | null;
  type: string;
  externalId: string | null;
  parentMessageId: number | null;
  userEmail: string | null;
  userName: string | null;
  isInternal: boolean;
  confirmedAt: Date | null;
  declaredAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export function messageOut(row: MessageRow): CaseMessageOut {
  return {
    id: row.id,
    caseId: row.case_id,
    guid: row.guid,
    senderAccountId: row.sender_account_id,
    senderType: row.sender_type,
    content: row.content,
    type: row.type,
    externalId: row.external_id,
    parentMessageId: row.parent_message_id,
    userEmail: row.user_email,
    userName: row.user_name,
    isInternal: row.is_internal,
    confirmedAt: row.confirmed_at,
    declaredAt: row.declared_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A message as v1 and v2 answered it: its type named `messageType` (renamed `type` in v3). */
export function olderMessageOut({ type, ...message }: CaseMessageOut): Omit<CaseMessageOut, 'type'> & {
  messageType: string;
} {
  return { ...message, messageType: type };
}

/** The party a caller acts for; only partners and providers write or confirm messages. */
export function senderTypeOf(caller: Caller): SenderType {
  return caller.role === 'partner' ? 'partner' : 'provider';
}

/** Internal messages are the provider's own notes: a partner never sees them. */
export function isVisibleTo(caller: Caller, message: Pick<MessageRow, 'is_internal'>): boolean {
  return !(message.is_internal && caller.role === 'partner');
}

/**
 * Who hears of a new message: only the receiving party, never the sender, and nobody for an
 * internal note or while the case has no provider to receive it.
 */
export function createdAudience(
  message: Pick<MessageRow, 'sender_type' | 'is_internal' | 'partner_id' | 'provider_id'>,
): Audience | null {
  if (message.is_internal) return null;
  if (message.sender_type === 'partner')
    return message.provider_id === null ? null : { providerId: message.provider_id };
  if (message.sender_type === 'provider') return { partnerId: message.partner_id };
  return null;
}

/** Who hears that a message was confirmed: only the party that created it. */
export function confirmedAudience(
  message: Pick<MessageRow, 'sender_type' | 'partner_id' | 'provider_id'>,
): Audience | null {
  if (message.sender_type === 'partner') return { partnerId: message.partner_id };
  if (message.sender_type === 'provider')
    return message.provider_id === null ? null : { providerId: message.provider_id };
  return null;
}

/** A message is confirmed by the party that received it; its own sender has nothing to confirm. */
export function mayConfirm(caller: Caller, message: Pick<MessageRow, 'sender_type'>): boolean {
  return message.sender_type !== senderTypeOf(caller);
}

/**
 * `declaredAt` as sent: empty means now; a date without a zone is taken as UTC, so the same
 * text means the same instant on every node. Null for anything that is not a date.
 */
export function parseDeclaredAt(value: string | null | undefined, now: Date): Date | null {
  const text = value?.trim();
  if (!text) return now;
  return parseInstant(text);
}
