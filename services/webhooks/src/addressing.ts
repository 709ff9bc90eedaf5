/**
 * Which webhooks a domain event causes: the subscriptions in its audience that name the webhook
 * type, with the partner's status mapping and blacklist applied to status events (spec 6).
 */
import { DOMAIN_EVENTS, type DomainEvent, type WebhookEventType } from '@hub/shared';

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

export interface StatusRules {
  /** Provider key to the partner's key. */
  mappings: Record<string, string>;
  blacklist: string[];
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

const NO_RULES: StatusRules = { mappings: {}, blacklist: [] };

export function inAudience(event: DomainEvent, subscription: AddressableSubscription): boolean {
  const { partnerId, providerId } = event.audience ?? {};
  return Boolean((partnerId && subscription.partnerId === partnerId) || (providerId && subscription.providerId === providerId));
}

/** A partner's view of a provider key: its mapped key, or the provider key unchanged. */
export function mapKey(rules: StatusRules, key: string): string;
export function mapKey(rules: StatusRules, key: string | null): string | null;
export function mapKey(rules: StatusRules, key: string | null): string | null {
  if (key === null) return null;
  return Object.prototype.hasOwnProperty.call(rules.mappings, key) ? rules.mappings[key] : key;
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

interface StatusAddedPayload {
  status: Record<string, unknown> & { key: string };
  prevKey: string | null;
  case: unknown;
}

function statusDeliveries(event: DomainEvent, subscription: AddressableSubscription, rules: StatusRules): Array<Pick<PlannedDelivery, 'eventType' | 'webhookId' | 'payload'>> {
  const { status, prevKey, case: caseData } = event.payload as unknown as StatusAddedPayload;
  if (!status || typeof status.key !== 'string') return [];
  const key = mapKey(rules, status.key);
  if (rules.blacklist.includes(status.key) || rules.blacklist.includes(key)) return [];
  const previous = mapKey(rules, prevKey ?? null);
  const planned: Array<Pick<PlannedDelivery, 'eventType' | 'webhookId' | 'payload'>> = [];
  if (subscription.eventTypes.includes('status.new') && previous !== key) {
    planned.push({ eventType: 'status.new', webhookId: event.id, payload: { ...status, key } });
  }
  if (subscription.eventTypes.includes('status.transition') && transitionMatches(subscription.statusTransitions, previous, key)) {
    // Its own webhook-id: a receiver of both types must not take one for a retry of the other.
    planned.push({ eventType: 'status.transition', webhookId: `${event.id}_transition`, payload: { ...status, key, prevKey: previous, case: caseData } });
  }
  return planned;
}

/**
 * The deliveries one event causes. `rulesOf` gives a partner's status rules; a provider's
 * subscription sees provider keys.
 */
export function planDeliveries(event: DomainEvent, subscriptions: AddressableSubscription[], rulesOf: (partnerId: number) => StatusRules): PlannedDelivery[] {
  const planned: PlannedDelivery[] = [];
  for (const subscription of subscriptions) {
    if (!inAudience(event, subscription)) continue;
    let found: Array<Pick<PlannedDelivery, 'eventType' | 'webhookId' | 'payload'>> = [];
    if (event.type === DOMAIN_EVENTS.CASE_STATUS_ADDED) {
      found = statusDeliveries(event, subscription, subscription.partnerId ? rulesOf(subscription.partnerId) : NO_RULES);
    } else {
      const type = SAME_TYPE[event.type];
      if (!type || !subscription.eventTypes.includes(type)) continue;
      if (PARTNERS_ONLY.has(type) && !subscription.partnerId) continue;
      found = [{ eventType: type, webhookId: event.id, payload: event.payload }];
    }
    for (const item of found) {
      planned.push({ ...item, eventId: event.id, subscriptionId: subscription.id, caseGuid: event.caseGuid, occurredAt: event.occurredAt });
    }
  }
  return planned;
}
