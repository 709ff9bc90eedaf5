/**
 * The "case updated" webhook payload (spec 6 rule 4): a removed key is null, an unchanged key is
 * left out, a changed key carries its new value, and an array counts as one value. Objects are
 * compared key by key at every depth, so a change inside orderData.partnerSpecific names only
 * what changed there. Both sides are in the webhook shape first, where consents and accessories
 * are lists, so each goes whole.
 */
import { caseForWebhook, withoutProviderData } from '@hub/shared';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return (
      keys.length === otherKeys.length &&
      keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && deepEqual(a[key], b[key]))
    );
  }
  return false;
}

const absent = (value: unknown) => value === undefined || value === null;

/** The changes from `before` to `after`, both objects; empty when nothing changed. */
export function diffObjects(before: JsonObject, after: JsonObject): JsonObject {
  const diff: JsonObject = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key];
    const now = after[key];
    if (absent(now)) {
      if (!absent(was)) diff[key] = null;
      continue;
    }
    if (isPlainObject(was) && isPlainObject(now)) {
      const inner = diffObjects(was, now);
      if (Object.keys(inner).length > 0) diff[key] = inner;
      continue;
    }
    if (!deepEqual(was, now)) diff[key] = now;
  }
  return diff;
}

/** The top-level keys of a case that the webhook reports. */
export const DIFFED_CASE_KEYS = [
  'orderData',
  'productData',
  'customer',
  'consumer',
  'pickupDst',
  'returnDst',
  'sender',
  'receiver',
  'tags',
] as const;

/**
 * The `case.updated` payload for one change, or null when nothing the webhook reports changed.
 * A partner's payload leaves out the provider's private data, as its reads do.
 */
export function caseUpdatedPayload(
  guid: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  forPartner: boolean,
): ({ guid: string } & JsonObject) | null {
  const pick = (source: Record<string, unknown>) => {
    const shaped = caseForWebhook(forPartner ? withoutProviderData(source) : source);
    return Object.fromEntries(DIFFED_CASE_KEYS.map((key) => [key, shaped[key] as Json]));
  };
  const diff = diffObjects(pick(before), pick(after));
  return Object.keys(diff).length === 0 ? null : { guid, ...diff };
}
