/**
 * Which webhooks a domain event causes (spec 6): what each party of the audience receives (its
 * feed), with status mapping and blacklist, then what each subscription takes of it (types,
 * transition rules).
 */
import type { DomainEvent, StatusRules } from '@hub/shared';
import { type AddressableSubscription, takersOf, transitionMatches, webhooksOf } from '../src/addressing';
import { domainEvent, statusAdded } from './support/events';

const partnerRules: StatusRules = {
  mappings: { in_repair: 'repairing', awaiting_parts: 'repairing' },
  blacklist: ['diagnosed'],
};
const rulesOf = () => partnerRules;

/** The deliveries an event causes, as the service plans them from its parties' webhooks (numbers aside). */
function planDeliveries(
  event: DomainEvent,
  subscriptions: AddressableSubscription[],
  rules: (partnerId: number) => StatusRules,
) {
  return webhooksOf(event, rules).flatMap((webhook) =>
    takersOf(webhook, subscriptions).map((subscriptionId) => ({ ...webhook, subscriptionId })),
  );
}

function subscription(extra: Partial<AddressableSubscription> = {}): AddressableSubscription {
  return {
    id: 1,
    partnerId: 1,
    providerId: null,
    eventTypes: ['status.new', 'status.transition'],
    statusTransitions: [],
    ...extra,
  };
}

function plan(event: ReturnType<typeof statusAdded>, sub = subscription()) {
  return planDeliveries(event, [sub], rulesOf).map((item) => ({
    type: item.eventType,
    key: item.payload.key,
    prevKey: item.payload.prevKey,
  }));
}

describe('status.new', () => {
  it('fires with the partner key when the key changes', () => {
    expect(plan(statusAdded(1, 'in_repair', 'arrived'), subscription({ eventTypes: ['status.new'] }))).toEqual([
      { type: 'status.new', key: 'repairing', prevKey: undefined },
    ]);
  });

  it('does not fire when the previous and the current key are the same for the partner', () => {
    expect(plan(statusAdded(1, 'arrived', 'arrived'), subscription({ eventTypes: ['status.new'] }))).toEqual([]);
    expect(plan(statusAdded(1, 'awaiting_parts', 'in_repair'), subscription({ eventTypes: ['status.new'] }))).toEqual(
      [],
    );
  });

  it('keeps the provider key without a mapping, and for a provider subscription', () => {
    expect(plan(statusAdded(1, 'shipped', 'repaired'), subscription({ eventTypes: ['status.new'] }))).toEqual([
      { type: 'status.new', key: 'shipped', prevKey: undefined },
    ]);
    const event = { ...statusAdded(1, 'in_repair', 'arrived'), audience: { providerId: 20 } };
    expect(plan(event, subscription({ partnerId: null, providerId: 20, eventTypes: ['status.new'] }))).toEqual([
      { type: 'status.new', key: 'in_repair', prevKey: undefined },
    ]);
  });

  it('sends nothing for a blacklisted status, and never names one as the previous key', () => {
    expect(plan(statusAdded(1, 'diagnosed', 'arrived'))).toEqual([]);
    expect(plan(statusAdded(1, 'repaired', ['arrived', 'diagnosed']))).toEqual([
      { type: 'status.new', key: 'repaired', prevKey: undefined },
      { type: 'status.transition', key: 'repaired', prevKey: 'arrived' },
    ]);
    // arrived, (diagnosed), arrived: no change of key for the partner.
    expect(plan(statusAdded(1, 'arrived', ['arrived', 'diagnosed']))).toEqual([]);
    expect(plan(statusAdded(1, 'arrived', 'diagnosed'))).toEqual([
      { type: 'status.new', key: 'arrived', prevKey: undefined },
      { type: 'status.transition', key: 'arrived', prevKey: null },
    ]);
  });
});

describe('status.transition', () => {
  it('matches "new key is X"', () => {
    expect(transitionMatches([{ to: 'final' }], 'repaired', 'final')).toBe(true);
    expect(transitionMatches([{ to: 'final' }], 'repaired', 'shipped')).toBe(false);
  });

  it('matches "X changes to anything"', () => {
    expect(transitionMatches([{ from: 'repaired' }], 'repaired', 'shipped')).toBe(true);
    expect(transitionMatches([{ from: 'repaired' }], 'arrived', 'shipped')).toBe(false);
    expect(transitionMatches([{ from: 'repaired' }], 'repaired', 'repaired')).toBe(false);
  });

  it('matches "X changes to Y"', () => {
    expect(transitionMatches([{ from: 'repaired', to: 'shipped' }], 'repaired', 'shipped')).toBe(true);
    expect(transitionMatches([{ from: 'repaired', to: 'shipped' }], 'repaired', 'final')).toBe(false);
    expect(transitionMatches([{ from: 'repaired', to: 'shipped' }], 'arrived', 'shipped')).toBe(false);
  });

  it('compares mapped keys, carries the mapped prevKey and the case, and fires beside status.new', () => {
    const event = statusAdded(1, 'repaired', 'awaiting_parts');
    const [statusNew, transition] = planDeliveries(
      event,
      [subscription({ statusTransitions: [{ from: 'repairing', to: 'repaired' }] })],
      rulesOf,
    );
    expect(statusNew).toMatchObject({ eventType: 'status.new', webhookId: event.id, payload: { key: 'repaired' } });
    expect(statusNew.payload).not.toHaveProperty('case');
    expect(transition).toMatchObject({
      eventType: 'status.transition',
      webhookId: `${event.id}_transition`,
      payload: { key: 'repaired', prevKey: 'repairing', case: { guid: event.caseGuid } },
    });
    expect(plan(event, subscription({ statusTransitions: [{ from: 'awaiting_parts' }] }))).toEqual([
      { type: 'status.new', key: 'repaired', prevKey: undefined },
    ]);
  });

  it('does not fire when the key does not change for the partner, whatever the rule', () => {
    // awaiting_parts and in_repair are both the partner's 'repairing'.
    for (const statusTransitions of [[{ to: 'repairing' }], [{ from: 'repairing' }], []]) {
      expect(
        plan(
          statusAdded(1, 'in_repair', 'awaiting_parts'),
          subscription({ eventTypes: ['status.transition'], statusTransitions }),
        ),
      ).toEqual([]);
    }
  });

  it('carries the case as the partner sees it: mapped keys, no blacklisted status, consents and accessories as lists', () => {
    const event = statusAdded(1, 'in_repair', ['registered', 'diagnosed']);
    Object.assign(event.payload.case as object, {
      orderData: { consents: { gdpr: true, marketing: false } },
      productData: { accessory: { '1': true, '4': true } },
    });
    const [transition] = planDeliveries(event, [subscription({ eventTypes: ['status.transition'] })], rulesOf);
    expect(transition.payload.case).toMatchObject({
      orderData: { consents: ['gdpr'] },
      productData: { accessory: ['1', '4'] },
    });
  });

  it('carries the case as the partner sees it: mapped keys, no blacklisted status', () => {
    const [transition] = planDeliveries(
      statusAdded(1, 'in_repair', ['registered', 'diagnosed']),
      [subscription({ eventTypes: ['status.transition'] })],
      rulesOf,
    );
    expect(transition.payload).toMatchObject({
      key: 'repairing',
      prevKey: 'registered',
      case: { currentStatus: 'repairing' },
    });
    expect(
      (transition.payload.case as { caseStatuses: Array<{ key: string }> }).caseStatuses.map((status) => status.key),
    ).toEqual(['registered', 'repairing']);
  });
});

describe('audiences', () => {
  it('reaches the audience only, and only for the types a subscription names', () => {
    const message = domainEvent('message.created', { providerId: 20 }, { id: 1 });
    const partnerSub = subscription({ id: 1, eventTypes: ['message.created'] });
    const providerSub = subscription({ id: 2, partnerId: null, providerId: 20, eventTypes: ['message.created'] });
    const otherType = subscription({ id: 3, partnerId: null, providerId: 20, eventTypes: ['message.confirmed'] });
    expect(
      planDeliveries(message, [partnerSub, providerSub, otherType], rulesOf).map((item) => item.subscriptionId),
    ).toEqual([2]);
  });

  it("sends an invoice's case as the partner sees it", () => {
    const caseData = {
      guid: 'g',
      currentStatus: 'awaiting_parts',
      caseStatuses: [
        { id: 1, key: 'registered' },
        { id: 2, key: 'diagnosed' },
        { id: 3, key: 'awaiting_parts' },
      ],
    };
    const invoice = domainEvent('invoice.saved', { partnerId: 1 }, { id: 9, case: caseData });
    const [delivery] = planDeliveries(invoice, [subscription({ eventTypes: ['invoice.saved'] })], rulesOf);
    expect(delivery.payload.case).toMatchObject({
      currentStatus: 'repairing',
      caseStatuses: [{ key: 'registered' }, { key: 'repairing' }],
    });
  });

  it('sends invoices to partners only', () => {
    const invoice = domainEvent('invoice.saved', { partnerId: 1, providerId: 20 }, { id: 9 });
    const partnerSub = subscription({ id: 1, eventTypes: ['invoice.saved'] });
    const providerSub = subscription({ id: 2, partnerId: null, providerId: 20, eventTypes: ['invoice.saved'] });
    expect(planDeliveries(invoice, [partnerSub, providerSub], rulesOf).map((item) => item.subscriptionId)).toEqual([1]);
  });

  it('sends the payload unchanged for other types, and nothing for events without a webhook', () => {
    const update = domainEvent('case.updated', { partnerId: 1 }, { guid: 'g', customer: null });
    expect(planDeliveries(update, [subscription({ eventTypes: ['case.updated'] })], rulesOf)[0].payload).toEqual({
      guid: 'g',
      customer: null,
    });
    expect(
      planDeliveries(
        domainEvent('case.created', { partnerId: 1, providerId: 20 }, {}),
        [subscription({ eventTypes: [...['case.updated']] })],
        rulesOf,
      ),
    ).toEqual([]);
  });
});

describe('what a party receives', () => {
  it('is every webhook it could be sent, whatever its subscriptions: a status change is both status types', () => {
    const event = statusAdded(1, 'repaired', ['arrived', 'diagnosed']);
    expect(webhooksOf(event, rulesOf).map(({ party, eventType, webhookId }) => [party, eventType, webhookId])).toEqual([
      [{ kind: 'partner', id: 1 }, 'status.new', event.id],
      [{ kind: 'partner', id: 1 }, 'status.transition', `${event.id}_transition`],
    ]);
    // A subscription's types and rules narrow what it is sent, never what the party receives.
    expect(
      planDeliveries(
        event,
        [subscription({ eventTypes: ['status.transition'], statusTransitions: [{ to: 'x' }] })],
        rulesOf,
      ),
    ).toEqual([]);
  });

  it('is nothing of a hidden status, or one whose key the partner sees unchanged', () => {
    expect(webhooksOf(statusAdded(1, 'diagnosed', 'arrived'), rulesOf)).toEqual([]);
    expect(webhooksOf(statusAdded(1, 'awaiting_parts', 'in_repair'), rulesOf)).toEqual([]);
  });

  it('is each party of the audience its own, and an invoice the partner only', () => {
    const update = domainEvent('case.updated', { partnerId: 1, providerId: 20 }, { guid: 'g' });
    expect(webhooksOf(update, rulesOf).map(({ party }) => party)).toEqual([
      { kind: 'partner', id: 1 },
      { kind: 'provider', id: 20 },
    ]);
    const invoice = domainEvent('invoice.saved', { partnerId: 1, providerId: 20 }, { id: 9 });
    expect(webhooksOf(invoice, rulesOf).map(({ party }) => party)).toEqual([{ kind: 'partner', id: 1 }]);
  });
});
