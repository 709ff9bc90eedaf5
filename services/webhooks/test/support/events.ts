/** Well-formed domain events, as producers' outbox relays hand them to `webhooks.ingest`. */
import { randomUUID } from 'node:crypto';
import type { Audience, DomainEvent } from '@hub/shared';

export function domainEvent(
  type: string,
  audience: Audience,
  payload: Record<string, unknown>,
  caseGuid: string | null = randomUUID(),
): DomainEvent {
  return { id: randomUUID(), type, source: 'test', occurredAt: new Date().toISOString(), caseGuid, audience, payload };
}

let statusIds = 0;

/**
 * `case.statusAdded` with provider keys, for a case of partner `partnerId` whose statuses before
 * this one are `earlier` (the previous key, or all of them oldest first).
 */
export function statusAdded(
  partnerId: number,
  key: string,
  earlier: string | string[] | null,
  caseGuid: string = randomUUID(),
): DomainEvent {
  const now = new Date().toISOString();
  const statusOf = (statusKey: string) => ({
    id: ++statusIds,
    caseId: 7,
    guid: caseGuid,
    name: statusKey,
    key: statusKey,
    createdAt: now,
    updatedAt: now,
    declaredAt: now,
  });
  const caseStatuses = [...(earlier === null ? [] : [earlier].flat()), key].map(statusOf);
  const status = caseStatuses[caseStatuses.length - 1];
  return domainEvent(
    'case.statusAdded',
    { partnerId },
    {
      status,
      prevKey: caseStatuses.at(-2)?.key ?? null,
      case: { id: 7, guid: caseGuid, partnerId, caseStatuses, currentStatus: key },
    },
    caseGuid,
  );
}
