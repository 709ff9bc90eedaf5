/**
 * The documentation's own examples, read from the copy of its pages in `reference/` (see its
 * README), so the conformance tests expect what the pages show today and fail when a refreshed
 * copy shows something else.
 *
 * The pages' examples are JSON as people write it: `//` and `/* *\/` comments, single quotes,
 * trailing commas, a missing comma before a comment, `...` for "more of the same", and words
 * left unquoted or quoted on one side only (`"type": sparePart`, `"name": dea"`). The reader
 * below takes all of that; what it cannot read is an error naming the page and the example, so a
 * page that changed its form fails loudly instead of checking nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ANY, type DocumentedShape } from './documented';

const REFERENCE = path.join(__dirname, 'reference');

/** The documentation commit the copy was taken at (its README and docs/compatibility.md name it too). */
export const DOCUMENTATION_COMMIT = 'f23daeb';

/** A page of the copy, `current/<name>.md` or `older/<name>`. */
export function readPage(page: string): string {
  const file = page.includes('/') ? page : `current/${page}.md`;
  return fs.readFileSync(path.join(REFERENCE, file), 'utf8');
}

/** The text of a section: from its heading line (`## POST /api/v3/case/create`) to the next heading of its level or above. */
export function section(text: string, heading: string, level = 2): string {
  const lines = text.split('\n');
  const marker = `${'#'.repeat(level)} `;
  const start = lines.findIndex((line) => line.startsWith(marker) && line.slice(marker.length).trim() === heading);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = lines.findIndex((line, index) => index > start && /^#+ /.test(line) && line.indexOf(' ') <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The fenced code blocks of a text, in order. */
export function codeBlocks(text: string): string[] {
  return [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/**
 * The code blocks under an endpoint's heading, or only those under one of its sub-headings
 * (`Output`, `Example`, the heading's words as the page writes them, without a colon).
 */
export function examples(page: string, endpoint: string, subheading: string | null = null): string[] {
  const text = section(readPage(page), endpoint);
  if (subheading === null) return codeBlocks(text);
  const sub = text
    .split(/\n(?=### )/)
    .find((part) => part.startsWith('### ') && part.slice(4).split('\n')[0].replace(/:\s*$/, '').trim() === subheading);
  if (!sub) throw new Error(`"${endpoint}" on "${page}" has no "${subheading}"`);
  return codeBlocks(sub);
}

/** An example parsed as a value (see the file's comment for what is taken); a placeholder record is ANY. */
export function parseExample(source: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at ${at}: ${JSON.stringify(source.slice(Math.max(0, at - 30), at + 30))}`);
  };
  const skip = () => {
    for (;;) {
      const rest = source.slice(at);
      const space = /^\s+/.exec(rest);
      if (space) at += space[0].length;
      else if (rest.startsWith('//')) at += (/^\/\/[^\n]*/.exec(rest) as RegExpExecArray)[0].length;
      else if (rest.startsWith('/*')) {
        const end = source.indexOf('*/', at + 2);
        at = end < 0 ? fail('an unclosed comment') : end + 2;
      } else return;
    }
  };
  const quoted = (): string => {
    const quote = source[at];
    let out = '';
    at += 1;
    while (at < source.length && source[at] !== quote) {
      if (source[at] === '\\') {
        const escaped = JSON.parse(`"${source.slice(at, at + (source[at + 1] === 'u' ? 6 : 2))}"`) as string;
        at += source[at + 1] === 'u' ? 6 : 2;
        out += escaped;
      } else out += source[at++];
    }
    if (at >= source.length) fail('an unclosed string');
    at += 1;
    return out;
  };
  // A word up to the end of its value: `sparePart`, `123456-1234"`, `Provider"`.
  const bare = (): unknown => {
    const word = (/^[^,\]}\n]*/.exec(source.slice(at)) as RegExpExecArray)[0];
    const value = word.replace(/\s*\/\/.*$/, '').trim();
    at += word.length;
    if (value === 'true' || value === 'false') return value === 'true';
    if (value === 'null') return null;
    if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
    if (value === '') fail('a value missing');
    // `"receiver": ..., // ContactData`: a value the page shows elsewhere.
    if (value === '...') return ANY;
    return value.replace(/^"|"$/g, '');
  };
  // A key written without quotes (`name: "Something"`); null for words that are no key (`Case 1`).
  const unquotedKey = (): string | null => {
    const match = /^([A-Za-z_$][\w$]*)\s*:/.exec(source.slice(at));
    if (!match) return null;
    at += match[1].length;
    return match[1];
  };
  const skipTo = (char: string) => {
    const end = source.indexOf(char, at);
    at = end < 0 ? fail('the example ends early') : end + 1;
  };
  const value = (): unknown => {
    skip();
    const char = source[at];
    if (char === '{') {
      at += 1;
      const out: Record<string, unknown> = {};
      for (;;) {
        skip();
        if (source[at] === '}') return ((at += 1), out);
        if (source[at] === ',') {
          at += 1;
          continue;
        }
        if (source.startsWith('...', at)) {
          at += 3;
          continue;
        }
        if (at >= source.length) fail('the example ends early');
        const key = source[at] === '"' || source[at] === "'" ? quoted() : unquotedKey();
        skip();
        // `{ Case 1 }` stands for a whole record the page shows elsewhere.
        if (key === null) return (skipTo('}'), ANY);
        if (source[at] !== ':') fail('a colon missing');
        at += 1;
        out[key] = value();
      }
    }
    if (char === '[') {
      at += 1;
      const out: unknown[] = [];
      for (;;) {
        skip();
        if (at >= source.length) fail('the example ends early');
        if (source[at] === ']') return ((at += 1), out);
        if (source[at] === ',') {
          at += 1;
          continue;
        }
        if (source.startsWith('...', at)) {
          at += 3;
          continue;
        }
        out.push(value());
      }
    }
    if (char === '"' || char === "'") {
      const start = at;
      const text = quoted();
      // `"organizationNumber": 123456-1234"` closes a quote it never opened: read the word instead.
      if (/^[^\s,\]}:]/.test(source.slice(at))) {
        at = start;
        return bare();
      }
      return text;
    }
    if (char === undefined) fail('the example ends early');
    return bare();
  };
  const out = value();
  skip();
  if (at < source.length) fail('text after the example');
  return out;
}

/**
 * The shape an example documents (see documented.ts): its own value, except that a documented
 * null says only that the field is there (the pages show null where a record may hold a value).
 */
export function shapeOf(example: unknown): DocumentedShape {
  if (example === null || example === ANY) return ANY;
  if (Array.isArray(example)) return example.map(shapeOf);
  if (typeof example === 'object') {
    return Object.fromEntries(Object.entries(example).map(([key, field]) => [key, shapeOf(field)]));
  }
  return example as DocumentedShape;
}

/**
 * The documented example of an endpoint, parsed: the `index`th code block under the sub-heading
 * (the first by default; null: anywhere in the section, as the Webhooks page has no sub-headings). A page whose example cannot be read fails with the page and endpoint.
 */
export function documentedExample(page: string, endpoint: string, subheading: string | null, index = 0): unknown {
  const blocks = examples(page, endpoint, subheading);
  if (blocks[index] === undefined)
    throw new Error(`"${endpoint}" on "${page}" has no example ${index} under "${subheading}"`);
  // An example may open with its path or its whole HTTP request head, then a blank line and the body.
  const block = blocks[index].replace(/^\s*(?![[{])[\s\S]*?\n\s*\n(?=\s*[[{])/, '');
  try {
    return parseExample(block);
  } catch (error) {
    throw new Error(`"${endpoint}" on "${page}", "${subheading}" example ${index}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export interface ExampleOptions {
  /** Which code block under the sub-heading (the first by default). */
  index?: number;
  /**
   * Shapes put in place of the example's at these paths (as shapeMismatches names them:
   * `[].properties`, `contactData.phone`), where the example shows one record's values that
   * another record need not have (a product type's flags): each is a reading of the page.
   */
  replace?: Record<string, DocumentedShape>;
}

/** Puts `replace`'s shapes in at their paths; a path the example does not have is an error. */
function replaced(shape: DocumentedShape, replace: Record<string, DocumentedShape>, path = ''): DocumentedShape {
  if (path in replace) return replace[path];
  if (Array.isArray(shape)) return shape.map((element) => replaced(element, replace, `${path}[]`));
  if (shape && typeof shape === 'object') {
    return Object.fromEntries(
      Object.entries(shape).map(([key, field]) => [key, replaced(field, replace, path ? `${path}.${key}` : key)]),
    );
  }
  return shape;
}

function paths(shape: DocumentedShape, path = ''): string[] {
  if (Array.isArray(shape)) return [path, ...shape.flatMap((element) => paths(element, `${path}[]`))];
  if (shape && typeof shape === 'object')
    return [path, ...Object.entries(shape).flatMap(([key, field]) => paths(field, path ? `${path}.${key}` : key))];
  return [path];
}

/** The documented example's shape (`shapeOf`), with the replacements a test names. */
export function documentedShape(
  page: string,
  endpoint: string,
  subheading: string | null,
  { index = 0, replace = {} }: ExampleOptions = {},
): DocumentedShape {
  const shape = shapeOf(documentedExample(page, endpoint, subheading, index));
  const unknown = Object.keys(replace).filter((path) => !paths(shape).includes(path));
  if (unknown.length) throw new Error(`"${endpoint}" on "${page}" shows no ${unknown.join(', ')}`);
  return replaced(shape, replace);
}

/** The names an endpoint's input table lists (`| name\* | Type | ... |`), in order; `*` marks the mandatory ones. */
export function documentedInputs(page: string, endpoint: string): Array<{ name: string; mandatory: boolean }> {
  const text = section(readPage(page), endpoint);
  const rows = text.split('\n').filter((line) => /^\|\s*[A-Za-z]/.test(line));
  return rows
    .map((line) => line.split('|')[1].trim())
    .filter((cell) => cell !== 'Name')
    .map((cell) => ({
      name: cell
        .replace(/<sup>.*?<\/sup>/g, '')
        .replace(/\\\*|\*/g, '')
        .trim(),
      mandatory: /\\\*|\*/.test(cell.replace(/<sup>.*?<\/sup>/g, '')),
    }));
}

/**
 * A contact as the pages show one in an answer (ContactData, the case's `sender` on "Working
 * with cases"): every field but `id` and `createdAt` may be null, as the specification says.
 */
export const CONTACT_DATA = (() => {
  const sender = (
    documentedShape('Working with cases', 'GET /api/v3/case', 'Output') as Record<string, DocumentedShape>
  ).sender as Record<string, DocumentedShape>;
  return Object.fromEntries(
    Object.entries(sender).map(([field, shape]) => [field, field === 'id' || field === 'createdAt' ? shape : ANY]),
  );
})();

/**
 * The case of "GET /api/v3/case" on "Working with cases". Its orderData and productData hold what
 * that case was booked with, so only the keys every booking has are expected; its service and
 * product type flags are those records' own; its `country` and `currentStatus` may be null.
 */
export const DOCUMENTED_CASE = documentedShape('Working with cases', 'GET /api/v3/case', 'Output', {
  replace: {
    productData: { model: 'test' },
    orderData: { bookingType: 'companyToPrivate', originatorType: 'private', clientPostalCode: '2333' },
    'serviceType.properties': {},
    'productType.properties': {},
    country: ANY,
    currentStatus: ANY,
    sender: CONTACT_DATA,
  },
}) as Record<string, DocumentedShape>;
