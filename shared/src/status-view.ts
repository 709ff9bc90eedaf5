/**
 * How a partner sees a case's statuses: the webhooks configuration maps provider keys to the
 * partner's own and blacklists some (spec 6, rules 1 and 2: a blacklisted status is invisible),
 * in case reads and in status webhooks alike. Providers, and every caller while no webhooks
 * service runs, see provider keys unchanged.
 */

/** What `webhooks.statusRules({ partnerId })` answers. */
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

/** The provider keys a partner's key stands for: those mapped to it and itself when unmapped. */
export function providerKeysOf(rules: StatusRules | null, partnerKey: string, providerKeys: string[]): string[] {
  if (!rules) return [partnerKey];
  const candidates = new Set([partnerKey, ...providerKeys, ...Object.keys(rules.mappings)]);
  return [...candidates].filter((key) => partnerKeyOf(rules, key) === partnerKey);
}

/** The provider keys whose statuses the partner never sees. */
export function hiddenProviderKeys(rules: StatusRules | null): string[] {
  if (!rules) return [];
  return [...new Set([...rules.blacklist, ...Object.keys(rules.mappings)])].filter((key) => partnerKeyOf(rules, key) === null);
}

interface WithStatuses {
  caseStatuses: Array<{ key: string }>;
  currentStatus: string | null;
}

/**
 * The case as the partner sees it: hidden statuses left out, keys mapped, and currentStatus the
 * last status it can see (null when it sees none).
 */
export function caseForPartner<T extends WithStatuses>(found: T, rules: StatusRules | null): T {
  if (!rules) return found;
  const caseStatuses = found.caseStatuses.flatMap((status) => {
    const key = partnerKeyOf(rules, status.key);
    return key === null ? [] : [{ ...status, key }];
  });
  const current = found.currentStatus === null ? null : partnerKeyOf(rules, found.currentStatus);
  const lastSeen = caseStatuses.length ? caseStatuses[caseStatuses.length - 1].key : null;
  return { ...found, caseStatuses, currentStatus: current ?? lastSeen };
}

/** A provider's status keys as the partner can be notified about them, each partner key once. */
export function notifiableKeys(keys: Array<{ key: string; name: string }>, rules: StatusRules | null): Array<{ key: string; name: string }> {
  const seen = new Set<string>();
  const out: Array<{ key: string; name: string }> = [];
  for (const entry of keys) {
    const key = partnerKeyOf(rules, entry.key);
    if (key === null || seen.has(key)) continue;
    seen.add(key);
    out.push({ key, name: entry.name });
  }
  return out;
}
