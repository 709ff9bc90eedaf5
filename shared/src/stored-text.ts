/**
 * Input no service can take: text Postgres cannot store (a NUL character, half a UTF-16
 * surrogate pair, which has no UTF-8 form), or JSON nested deeper than any shape of the API.
 */

/** How deep input may nest: no shape of the API comes near it, and deeper input only costs. */
export const MAX_INPUT_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const unstorableText = (text: string) => text.includes('\0') || LONE_SURROGATE.test(text);

/** The path of the first value in `value` no service can take ('' for the value itself), or null. */
export function unstorablePath(value: unknown, at = '', depth = 0): string | null {
  if (typeof value === 'string') return unstorableText(value) ? at : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_INPUT_DEPTH) return at;
  for (const [key, item] of Object.entries(value)) {
    const path = Array.isArray(value) ? `${at}[${key}]` : at ? `${at}.${key}` : key;
    if (unstorableText(key)) return path;
    const found = unstorablePath(item, path, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
