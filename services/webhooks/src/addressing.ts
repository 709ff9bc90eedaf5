/**
 * Which webhooks a domain event causes, in two steps: what each party of its audience receives
 * (with the partner's status mapping and blacklist applied to status events, spec 6), which is
 * what the party's event feed holds; then which of those each of the party's subscriptions
 * takes (the types it names, its status transition rules). This is the one definition of what
 * an account receives, for the feed and the deliveries alike.
 */
import {
  caseForPartner,
  caseForWebhook,
  DOMAIN_EVENTS,
  type DomainEvent,
  partnerKeyOf,
  type StatusRules,
  type WebhookEventType,
} from '@hub/shared';

export interface StatusTransitionRule {
  from?: string | null;
  to?: string | null;
}

export interface AddressableSubscription {
  id: number;
  partnerId: number | null;
  providerId: number | null;
  eventTypes: string[];
  statusTransitions: StatusTransitionRule[];
}

/** A party to a case, as an event's audience names it: every account of the party hears the same. */
export interface Party {
  kind: 'partner' | 'provider';
  id: number;
}

/**
 * One webhook as a party receives it: what its feed holds and what each of its subscriptions
 * that takes the type is sent. `caseSequence` is numbered when the hub stores it.
 */
export interface PartyWebhook {
  eventType: WebhookEventType;
  webhookId: string;
  payload: Record<string, unknown>;
}

const SAME_TYPE: Record<string, WebhookEventType> = {
  [DOMAIN_EVENTS.COST_PROPOSAL_CREATED]: 'costProposal.created',
  [DOMAIN_EVENTS.COST_PROPOSAL_REACTED]: 'costProposal.reacted',
  [DOMAIN_EVENTS.MESSAGE_CREATED]: 'message.created',
  [DOMAIN_EVENTS.MESSAGE_CONFIRMED]: 'message.confirmed',
  [DOMAIN_EVENTS.CASE_FILES_UPLOADED]: 'case.filesUploaded',
  [DOMAIN_EVENTS.CASE_UPDATED]: 'case.updated',
  [DOMAIN_EVENTS.INVOICE_SAVED]: 'invoice.saved',
};

/** Webhook types only a partner receives, whatever the audience says. */
const PARTNERS_ONLY: ReadonlySet<string> = new Set(['invoice.saved']);

/** The parties an event's audience names, the partner first. */
export function partiesOf(event: DomainEvent): Party[] {
  const { partnerId, providerId } = event.audience ?? {};
  const parties: Party[] = [];
  if (partnerId) parties.push({ kind: 'partner', id: partnerId });
  if (providerId) parties.push({ kind: 'provider', id: providerId });
  return parties;
}

/** The party whose account made the subscription. */
export function partyOfSubscription(subscription: AddressableSubscription): Party | null {
  if (subscription.partnerId) return { kind: 'partner', id: subscription.partnerId };
  if (subscription.providerId) return { kind: 'provider', id: subscription.providerId };
  return null;
}

/** A party as one string, to key maps by. */
export function partyKey({ kind, id }: Party): string {
  return `${kind}:${id}`;
}

export function sameParty(a: Party, b: Party): boolean {
  return a.kind === b.kind && a.id === b.id;
}

/**
 * Whether a status change (in the partner's keys) matches one of the rules: `to` only, the new
 * key is `to`; `from` only, `from` changes to any other key; both, `from` changes to `to`.
 * A subscription without rules hears every change of key.
 */
export function transitionMatches(rules: StatusTransitionRule[], prevKey: string | null, key: string): boolean {
  if (rules.length === 0) return prevKey !== key;
  return rules.some(({ from, to }) => {
    if (from && to) return prevKey === from && key === to;
    if (to) return key === to;
    if (from) return prevKey === from && key !== from;
    return false;
  });
}

interface CaseStatus {
  id: number;
  key: string;
}

interface StatusAddedPayload {
  status: Record<string, unknown> & CaseStatus;
  case: { caseStatuses: CaseStatus[]; currentStatus: string | null };
}

/**
 * The key of the last status before this one that the receiver can see: a blacklisted status is
 * invisible, so it is never a prevKey, and the one before it is.
 */
function previousKeySeen(rules: StatusRules | null, status: CaseStatus, caseStatuses: CaseStatus[]): string | null {
  for (let index = caseStatuses.length - 1; index >= 0; index--) {
    if (caseStatuses[index].id >= status.id) continue;
    const key = partnerKeyOf(rules, caseStatuses[index].key);
    if (key !== null) return key;
  }
  return null;
}

/**
 * A status change as the receiver sees it: nothing when the status is hidden or its key, as the
 * receiver sees keys, did not change; else a New status and a Status transition (which each
 * subscription's rules then narrow).
 */
function statusWebhooks(event: DomainEvent, rules: StatusRules | null): PartyWebhook[] {
  const { status, case: caseData } = event.payload as unknown as StatusAddedPayload;
  if (!status || typeof status.key !== 'string' || !Array.isArray(caseData?.caseStatuses)) return [];
  const key = partnerKeyOf(rules, status.key);
  if (key === null) return [];
  const previous = previousKeySeen(rules, status, caseData.caseStatuses);
  // What the receiver sees did not change (a key re-sent, or two provider keys mapped to one): no status webhook.
  if (previous === key) return [];
  const caseSeen = caseForWebhook(caseForPartner(caseData, rules));
  return [
    { eventType: 'status.new', webhookId: event.id, payload: { ...status, key } },
    // Its own webhook-id: a receiver of both types must not take one for a retry of the other.
    {
      eventType: 'status.transition',
      webhookId: `${event.id}_transition`,
      payload: { ...status, key, prevKey: previous, case: caseSeen },
    },
  ];
}

/** A record that embeds its case (an invoice) carries the case as the receiver's party sees it. */
function withCaseSeen(payload: DomainEvent['payload'], rules: StatusRules | null): DomainEvent['payload'] {
  const embedded = (payload as { case?: unknown }).case as Parameters<typeof caseForPartner>[0] | undefined;
  if (!embedded || !Array.isArray(embedded.caseStatuses)) return payload;
  return { ...payload, case: caseForWebhook(caseForPartner(embedded, rules)) };
}

/**
 * What one party of the event's audience receives. `rules` are the partner's status rules (null
 * for a provider, who sees provider keys). Status events carry the case with all its statuses
 * (provider keys); a receiver gets the case as its party sees it.
 */
function partyWebhooks(event: DomainEvent, party: Party, rules: StatusRules | null): PartyWebhook[] {
  if (event.type === DOMAIN_EVENTS.CASE_STATUS_ADDED) return statusWebhooks(event, rules);
  const type = SAME_TYPE[event.type];
  if (!type || (PARTNERS_ONLY.has(type) && party.kind !== 'partner')) return [];
  return [{ eventType: type, webhookId: event.id, payload: withCaseSeen(event.payload, rules) }];
}

/** A webhook of one party's: an entry of its feed, and what its subscriptions that take it are sent. */
export interface AddressedWebhook extends PartyWebhook {
  party: Party;
  event: DomainEvent;
}

/**
 * Every webhook the event causes, per party of its audience, whether or not the party has a
 * subscription; `rulesOf` gives a partner's status rules.
 */
export function webhooksOf(event: DomainEvent, rulesOf: (partnerId: number) => StatusRules): AddressedWebhook[] {
  return partiesOf(event).flatMap((party) =>
    partyWebhooks(event, party, party.kind === 'partner' ? rulesOf(party.id) : null).map((webhook) => ({
      ...webhook,
      party,
      event,
    })),
  );
}

/** Whether a subscription is sent one of its party's webhooks: it names the type, and a transition matches its rules. */
export function subscriptionTakes(subscription: AddressableSubscription, webhook: PartyWebhook): boolean {
  if (!subscription.eventTypes.includes(webhook.eventType)) return false;
  if (webhook.eventType !== 'status.transition') return true;
  const { prevKey, key } = webhook.payload as { prevKey: string | null; key: string };
  return transitionMatches(subscription.statusTransitions, prevKey, key);
}

/** The subscriptions of the webhook's party that are sent it: those that take its type (and transition). */
export function takersOf(webhook: AddressedWebhook, subscriptions: AddressableSubscription[]): number[] {
  return subscriptions
    .filter((subscription) => {
      const party = partyOfSubscription(subscription);
      return party && sameParty(party, webhook.party) && subscriptionTakes(subscription, webhook);
    })
    .map((subscription) => subscription.id);
}
