/** Well-formed domain events, as producers' outbox relays hand them to `webhooks.ingest`. */
import { randomUUID } from 'node:crypto';
import type { Audience, DomainEvent } from '@hub/shared';

export function domainEvent(type: string, audience: Audience, payload: Record<string, unknown>, caseGuid: string | null = randomUUID()): DomainEvent {
  return { id: randomUUID(), type, source: 'test', occurredAt: new Date().toISOString(), caseGuid, audience, payload };
}

let statusIds = 0;

/** `case.statusAdded` with provider keys, for a case of partner `partnerId`. */
export function statusAdded(partnerId: number, key: string, prevKey: string | null, caseGuid: string = randomUUID()): DomainEvent {
  statusIds += 1;
  const now = new Date().toISOString();
  return domainEvent(
    'case.statusAdded',
    { partnerId },
    {
      status: { id: statusIds, caseId: 7, guid: caseGuid, name: key, key, createdAt: now, updatedAt: now, declaredAt: now },
      prevKey,
      case: { id: 7, guid: caseGuid, partnerId, currentStatus: key },
    },
    caseGuid,
  );
}
