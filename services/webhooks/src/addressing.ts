/**
 * Which webhooks a domain event causes: the subscriptions in its audience that name the webhook
 * type, with the partner's status mapping and blacklist applied to status events (spec 6).
 */
import { caseForPartner, caseForWebhook, DOMAIN_EVENTS, type DomainEvent, partnerKeyOf, type StatusRules, type WebhookEventType } from '@hub/shared';

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

export interface PlannedDelivery {
  eventId: string;
  webhookId: string;
  subscriptionId: number;
  eventType: WebhookEventType;
  caseGuid: string | null;
  payload: Record<string, unknown>;
  occurredAt: string;
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

/** Webhook types reached only by partners' subscriptions whatever the audience says. */
const PARTNERS_ONLY: ReadonlySet<string> = new Set(['invoice.saved']);

export function inAudience(event: DomainEvent, subscription: AddressableSubscription): boolean {
  const { partnerId, providerId } = event.audience ?? {};
  return Boolean((partnerId && subscription.partnerId === partnerId) || (providerId && subscription.providerId === providerId));
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

function statusDeliveries(event: DomainEvent, subscription: AddressableSubscription, rules: StatusRules | null): Array<Pick<PlannedDelivery, 'eventType' | 'webhookId' | 'payload'>> {
  const { status, case: caseData } = event.payload as unknown as StatusAddedPayload;
  if (!status || typeof status.key !== 'string' || !Array.isArray(caseData?.caseStatuses)) return [];
  const key = partnerKeyOf(rules, status.key);
  if (key === null) return [];
  const previous = previousKeySeen(rules, status, caseData.caseStatuses);
  // What the receiver sees did not change (a key re-sent, or two provider keys mapped to one): no status webhook.
  if (previous === key) return [];
  const planned: Array<Pick<PlannedDelivery, 'eventType' | 'webhookId' | 'payload'>> = [];
  if (subscription.eventTypes.includes('status.new')) {
    planned.push({ eventType: 'status.new', webhookId: event.id, payload: { ...status, key } });
  }
  if (subscription.eventTypes.includes('status.transition') && transitionMatches(subscription.statusTransitions, previous, key)) {
    // Its own webhook-id: a receiver of both types must not take one for a retry of the other.
    const caseSeen = caseForWebhook(caseForPartner(caseData, rules));
    planned.push({ eventType: 'status.transition', webhookId: `${event.id}_transition`, payload: { ...status, key, prevKey: previous, case: caseSeen } });
  }
  return planned;
}

/** A record that embeds its case (an invoice) carries the case as the receiver's party sees it. */
function withCaseSeen(payload: DomainEvent['payload'], rules: StatusRules | null): DomainEvent['payload'] {
  const embedded = (payload as { case?: unknown }).case as Parameters<typeof caseForPartner>[0] | undefined;
  if (!embedded || !Array.isArray(embedded.caseStatuses)) return payload;
  return { ...payload, case: caseForWebhook(caseForPartner(embedded, rules)) };
}

/**
 * The deliveries one event causes. `rulesOf` gives a partner's status rules; a provider's
 * subscription sees provider keys. Status events carry the case with all its statuses (provider
 * keys); a receiver gets the case as its party sees it.
 */
export function planDeliveries(event: DomainEvent, subscriptions: AddressableSubscription[], rulesOf: (partnerId: number) => StatusRules): PlannedDelivery[] {
  const planned: PlannedDelivery[] = [];
  for (const subscription of subscriptions) {
    if (!inAudience(event, subscription)) continue;
    let found: Array<Pick<PlannedDelivery, 'eventType' | 'webhookId' | 'payload'>> = [];
    if (event.type === DOMAIN_EVENTS.CASE_STATUS_ADDED) {
      found = statusDeliveries(event, subscription, subscription.partnerId ? rulesOf(subscription.partnerId) : null);
    } else {
      const type = SAME_TYPE[event.type];
      if (!type || !subscription.eventTypes.includes(type)) continue;
      if (PARTNERS_ONLY.has(type) && !subscription.partnerId) continue;
      found = [{ eventType: type, webhookId: event.id, payload: withCaseSeen(event.payload, subscription.partnerId ? rulesOf(subscription.partnerId) : null) }];
    }
    for (const item of found) {
      planned.push({ ...item, eventId: event.id, subscriptionId: subscription.id, caseGuid: event.caseGuid, occurredAt: event.occurredAt });
    }
  }
  return planned;
}
