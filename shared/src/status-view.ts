/**
 * How a partner sees a case's statuses: the catalog's status rules map provider keys to the
 * partner's own and blacklist some (spec 6, rules 1 and 2: a blacklisted status is invisible),
 * in case reads and in status webhooks alike. Providers see provider keys unchanged.
 */

/** A partner's rules, as `catalog.statusRules({ partnerIds })` answers them per partner. */
export interface StatusRules {
  mappings: Record<string, string>;
  blacklist: string[];
}

/** The key a partner sees for a provider key, or null when the status is hidden from it. */
export function partnerKeyOf(rules: StatusRules | null, key: string): string | null {
  if (!rules) return key;
  const mapped = Object.prototype.hasOwnProperty.call(rules.mappings, key) ? rules.mappings[key] : key;
  // Either form may be listed, as the webhooks service reads the blacklist.
  if (rules.blacklist.includes(key) || rules.blacklist.includes(mapped)) return null;
  return mapped;
}

/**
 * The provider keys a partner's key stands for: those mapped to it and itself when unmapped. Any
 * other key reads as itself, so only the mappings' keys and the key itself can stand for it.
 */
export function providerKeysOf(rules: StatusRules | null, partnerKey: string): string[] {
  if (!rules) return [partnerKey];
  const candidates = new Set([partnerKey, ...Object.keys(rules.mappings)]);
  return [...candidates].filter((key) => partnerKeyOf(rules, key) === partnerKey);
}

/** The provider keys whose statuses the partner never sees. */
export function hiddenProviderKeys(rules: StatusRules | null): string[] {
  if (!rules) return [];
  return [...new Set([...rules.blacklist, ...Object.keys(rules.mappings)])].filter(
    (key) => partnerKeyOf(rules, key) === null,
  );
}

interface WithStatuses {
  caseStatuses: Array<{ key: string }>;
  currentStatus: string | null;
}

/** The orderData key that holds the provider's private data, which no partner reads or searches. */
export const PROVIDER_ORDER_DATA_KEY = 'providerSpecific';

/**
 * A case without the provider's private orderData: the product lets a partner see only the
 * partnerSpecific data it owns, so `orderData.providerSpecific` is the provider's alone.
 */
export function withoutProviderData<T>(found: T): T {
  const orderData = (found as { orderData?: unknown }).orderData;
  if (
    !orderData ||
    typeof orderData !== 'object' ||
    !Object.prototype.hasOwnProperty.call(orderData, PROVIDER_ORDER_DATA_KEY)
  )
    return found;
  const shown = Object.fromEntries(Object.entries(orderData).filter(([key]) => key !== PROVIDER_ORDER_DATA_KEY));
  return { ...found, orderData: shown };
}

/**
 * The case as the partner sees it: hidden statuses left out, keys mapped, currentStatus the last
 * status it can see (null when it sees none), and the provider's private data left out. `rules`
 * is null for a caller that is not a partner, who sees the case as stored.
 */
export function caseForPartner<T extends WithStatuses>(found: T, rules: StatusRules | null): T {
  if (!rules) return found;
  const caseStatuses = found.caseStatuses.flatMap((status) => {
    const key = partnerKeyOf(rules, status.key);
    return key === null ? [] : [{ ...status, key }];
  });
  const current = found.currentStatus === null ? null : partnerKeyOf(rules, found.currentStatus);
  const lastSeen = caseStatuses.length ? caseStatuses[caseStatuses.length - 1].key : null;
  return { ...withoutProviderData(found), caseStatuses, currentStatus: current ?? lastSeen };
}

/** A provider's status keys as the partner can be notified about them, each partner key once (the first one's record). */
export function notifiableKeys<T extends { key: string }>(keys: T[], rules: StatusRules | null): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const entry of keys) {
    const key = partnerKeyOf(rules, entry.key);
    if (key === null || seen.has(key)) continue;
    seen.add(key);
    out.push({ ...entry, key });
  }
  return out;
}
