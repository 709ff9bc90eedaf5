/**
 * The domain events the services write to their outboxes, and the webhook event types that
 * receivers subscribe to. Producers and the webhooks service agree on these names and payloads.
 *
 * Audience: who may be told. `{ partnerId }` reaches the subscriptions of that partner's
 * accounts, `{ providerId }` those of that provider's accounts. A producer names only the party
 * that should hear of the change (never the one that made it, where the spec says so).
 */

export const DOMAIN_EVENTS = {
  /** A case was booked. Payload: { case } (the Case shape). Audience: the provider. */
  CASE_CREATED: 'case.created',
  /**
   * A status was added to a case. Payload: { status: { id, caseId, guid, name, key, createdAt,
   * updatedAt, declaredAt }, prevKey: string | null, case } with provider keys (the webhooks
   * service maps them per partner). Audience: the partner.
   */
  CASE_STATUS_ADDED: 'case.statusAdded',
  /** Payload: { guid, ...changed top-level keys } (spec 6 rule 4). Audience: the other party. */
  CASE_UPDATED: 'case.updated',
  /** Payload: { guid, files: [{ url, name, type }] }. Audience: the other party. */
  CASE_FILES_UPLOADED: 'case.filesUploaded',
  /** Payload: the Cost proposal record. Audience: the partner. */
  COST_PROPOSAL_CREATED: 'costProposal.created',
  /** Payload: the Cost proposal record after approval or rejection. Audience: the provider. */
  COST_PROPOSAL_REACTED: 'costProposal.reacted',
  /** Payload: the Case message record. Audience: the receiving party only; none when internal. */
  MESSAGE_CREATED: 'message.created',
  /** Payload: the Case message record. Audience: the party that created the message. */
  MESSAGE_CONFIRMED: 'message.confirmed',
  /** Payload: Invoice fields plus case (core data, orderData, productData) and guid. Audience: the partner. */
  INVOICE_SAVED: 'invoice.saved',
} as const;

/** What a subscription names in `eventTypes`: the spec's webhooks (section 6), plus approvals for providers. */
export const WEBHOOK_EVENT_TYPES = [
  'status.new',
  'status.transition',
  'costProposal.created',
  'costProposal.reacted',
  'message.created',
  'message.confirmed',
  'case.filesUploaded',
  'case.updated',
  'invoice.saved',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * How other services learn who the parties of a case are: `booking.caseParties({ guids })`
 * answers one entry per known guid (unknown guids are left out), in one call for a list.
 */
export const CASE_PARTIES_ACTION = 'booking.caseParties';
export interface CasePartiesEntry {
  id: number;
  guid: string;
  partnerId: number;
  serviceProviderId: number | null;
}

/**
 * Core case data to embed in other records (invoice output and webhook, status transition
 * webhook): `booking.caseCores({ guids })`, one entry per known guid.
 */
export const CASE_CORES_ACTION = 'booking.caseCores';
export type CaseCore = Record<string, unknown> & { guid: string };
