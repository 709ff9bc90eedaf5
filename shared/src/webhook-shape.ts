/**
 * The V3 webhook shapes of a case's data where they differ from what the API takes (spec 2):
 * `orderData.consents` is the list of the consents given and `productData.accessory` the list
 * of the accessory ids included (as strings), so each is one value in a "case updated" diff.
 */

/** The keys marked true in a `{ key: Boolean }` object, or the items of a list already in that shape. */
export function chosenKeys(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.map(String);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, on]) => (on === true ? [key] : []));
  return null;
}

type Data = Record<string, unknown>;

function withListed(data: unknown, key: string): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data) || !(key in data)) return data;
  return { ...(data as Data), [key]: chosenKeys((data as Data)[key]) };
}

/** A case, or a part of one with orderData and productData, in the webhook shape. */
export function caseForWebhook<T extends object>(found: T): T {
  const shaped = { ...found } as Data;
  if ('orderData' in shaped) shaped.orderData = withListed(shaped.orderData, 'consents');
  if ('productData' in shaped) shaped.productData = withListed(shaped.productData, 'accessory');
  return shaped as T;
}
