/**
 * Matching a booking's values against what the lookups offer, and choosing a shipping method
 * when none is sent (spec 4.4 rule 1: the first available by name).
 */
export interface LookupOption {
  id: number;
  name: string;
  aliases?: string[] | null;
  [key: string]: unknown;
}

/** The offered option a value names: by id, or for text by name or alias, case-insensitive. */
export function findOption<T extends LookupOption>(
  options: T[],
  value: number | string | null | undefined,
): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || /^\d+$/.test(value.trim())) {
    const wanted = Number(value);
    return options.find((option) => option.id === wanted);
  }
  const wanted = value.trim().toLowerCase();
  return options.find(
    (option) =>
      option.name.toLowerCase() === wanted || (option.aliases ?? []).some((alias) => alias.toLowerCase() === wanted),
  );
}

export type ShippingChoice<T> =
  { method: T; assigned: boolean } | { method: null; assigned: false } | { error: 'notAnOption' };

/**
 * The method a case ships with. Shipping applies when the lookup offers methods for the case's
 * parameters: a sent id must be one of them, and without one the first by name is assigned.
 */
export function chooseShipping<T extends LookupOption>(
  offered: T[],
  sent: number | null | undefined,
): ShippingChoice<T> {
  if (sent !== undefined && sent !== null) {
    const method = offered.find((option) => option.id === sent);
    return method ? { method, assigned: false } : { error: 'notAnOption' };
  }
  if (offered.length === 0) return { method: null, assigned: false };
  const [first] = [...offered].sort((a, b) => a.name.localeCompare(b.name, 'en') || a.id - b.id);
  return { method: first, assigned: true };
}
