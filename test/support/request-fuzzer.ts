/**
 * Requests generated from the OpenAPI document, for fuzzing every operation the gateway serves:
 * path and query parameters and a JSON body drawn from each operation's schemas (or from an
 * example body where its schema says only "an object"), most of them a little wrong: a value of
 * another type, out of range, too long, a required field left out, a field no schema names, text
 * no database stores, nesting deeper than the hub takes, a body that is not JSON. Some are right,
 * so the writes behind them run too. Seeded: a run is repeated from its seed.
 */

import { demoCaseBody } from './cases';
import { DEMO_TOKENS } from './hub';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
}

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  'x-access'?: string;
  parameters?: Array<OpenApiParameter | { $ref: string }>;
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export interface FuzzOperation {
  method: string;
  /** The path under the API prefix, with `{name}` for each path parameter. */
  path: string;
  access: string;
  pathParams: string[];
  query: Array<{ name: string; required: boolean; schema?: JsonSchema }>;
  body?: JsonSchema;
}

export interface FuzzRequest {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  headers: Record<string, string>;
}

/** Values that name things which exist, so some requests get past "not found". */
export interface KnownValues {
  guids: string[];
  ids: number[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document, with the parameters it declares inline (not the shared headers). */
export function fuzzOperations(document: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const declared = (operation.parameters ?? []).filter(
        (parameter): parameter is OpenApiParameter => 'in' in parameter,
      );
      operations.push({
        method: method.toUpperCase(),
        path,
        access: operation['x-access'] ?? 'any',
        pathParams: declared.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        query: declared
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => ({
            name: parameter.name,
            required: Boolean(parameter.required),
            schema: parameter.schema,
          })),
        body: operation.requestBody?.content['application/json'].schema,
      });
    }
  }
  return operations;
}

/** Nested this deep, a value is past what the hub takes (64 levels). */
const TOO_DEEP = 70;

const ODD_TEXT = [
  '',
  ' ',
  'a',
  'x'.repeat(300),
  'x'.repeat(5000),
  'Ærøskøbing',
  '東京都',
  '🔧🔧',
  "' or 1=1 --",
  '%_\\',
  '\u0000',
  'a\ud800b',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '2026-02-30',
  '2026-01-01T25:61:00Z',
  '0000-01-01',
  '9999-12-31T23:59:59.999+14:00',
  '1e309',
  '-0',
  'NaN',
  'null',
  'true',
  '{"$gt":""}',
  '00000000-0000-0000-0000-000000000000',
  'not-a-guid',
];
const ODD_NUMBERS = [
  0,
  -1,
  1,
  2,
  0.5,
  -0.25,
  2147483647,
  2147483648,
  -2147483649,
  Number.MAX_SAFE_INTEGER + 2,
  1e21,
  1e308,
];
const ODD_VALUES: unknown[] = [
  null,
  true,
  false,
  [],
  {},
  [[[]]],
  [null],
  { $gt: '' },
  { nested: { deeper: [1, 'a'] } },
];
const RAW_BODIES = [
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '12',
  'true',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '\u0000',
];
const DATES = ['2026-01-15', '2026-01-15T10:00:00Z', '2026-01-15 10:00:00', '2025-12-31T23:59:59.999+01:00'];
const IDEMPOTENCY_KEYS = ['fuzz-key-1', 'fuzz-key-2', 'fuzz-key-3'];

/** Percent-encoded for a URL; half a surrogate pair, which UTF-8 cannot hold, as the bytes a careless client sends. */
function encodeText(text: string): string {
  return text.replace(/[\s\S]/gu, (character) => {
    try {
      return encodeURIComponent(character);
    } catch {
      return '%ED%A0%80';
    }
  });
}

export class RequestFuzzer {
  private state: number;

  constructor(
    seed: number,
    private readonly known: KnownValues,
  ) {
    this.state = seed >>> 0;
  }

  /** One request to the operation; `example` is a right body to start from where the schema gives none. */
  request(operation: FuzzOperation, example?: unknown): FuzzRequest {
    let path = operation.path;
    for (const name of operation.pathParams) {
      const value = this.chance(0.8) ? this.pick(this.known.ids) : this.odd();
      path = path.replace(`{${name}}`, encodeText(this.asText(value)));
    }
    const query: string[] = [];
    for (const parameter of operation.query) {
      if (!(parameter.required ? this.chance(0.9) : this.chance(0.5))) continue;
      const value = this.value(parameter.schema, 1, parameter.name);
      const name = this.chance(0.05) ? `${parameter.name}[$gt]` : parameter.name;
      query.push(`${encodeText(name)}=${encodeText(this.asText(value))}`);
    }
    if (this.chance(0.03)) query.push(`unknownParameter=${encodeText(this.asText(this.odd()))}`);
    if (query.length) path += `?${query.join('&')}`;

    const headers: Record<string, string> = {};
    if (operation.method !== 'GET' && this.chance(0.05)) headers['Idempotency-Key'] = this.pick(IDEMPOTENCY_KEYS);
    if (this.chance(0.02)) headers['X-Service-Provider'] = this.asText(this.pick([10, 20, 30, 999, 'x', -1]));
    const request: FuzzRequest = { method: operation.method, path, headers };
    if (operation.method === 'GET' || operation.method === 'DELETE') return request;
    if (this.chance(0.04)) request.rawBody = this.pick(RAW_BODIES);
    else if (example !== undefined && this.chance(0.85))
      request.body = this.chance(0.2) ? example : this.mutate(structuredClone(example));
    else request.body = this.value(operation.body, 0);
    return request;
  }

  /**
   * A request like `request`'s carrying one value of up to megabytes somewhere: an array of
   * hundreds of thousands of items, a string of megabytes, an object of many keys, arrays in
   * arrays; a query value of kilobytes, past the URL's limit too.
   */
  oversized(operation: FuzzOperation, example?: unknown): FuzzRequest {
    const request = this.request(operation, example);
    if (operation.method === 'GET' || operation.method === 'DELETE') {
      const name = operation.query.length ? this.pick(operation.query).name : 'q';
      const value = 'x'.repeat(this.pick([1_000, 8_000, 20_000]));
      request.path += `${request.path.includes('?') ? '&' : '?'}${name}=${value}`;
      return request;
    }
    const large = this.largeValue();
    delete request.rawBody;
    const [parent, key] = request.body && this.chance(0.7) ? this.somewhereIn(request.body) : [undefined, ''];
    if (parent) parent[key] = large;
    else
      request.body =
        Array.isArray(large) || this.chance(0.5) ? large : { [this.pick(['items', 'files', 'guid'])]: large };
    return request;
  }

  private largeValue(): unknown {
    switch (this.between(0, 3)) {
      case 0:
        return Array<unknown>(this.pick([10_000, 100_000, 250_000, 500_000])).fill(this.pick(['x', 1, null, {}]));
      case 1:
        return 'x'.repeat(this.pick([100_000, 1_000_000, 3_000_000]));
      case 2:
        return Object.fromEntries(
          Array.from({ length: this.pick([1_000, 50_000]) }, (_, index) => [`k${index}`, index]),
        );
      default:
        return Array.from({ length: 500 }, () => Array<number>(500).fill(1));
    }
  }

  /** A value the schema allows, most of the time; otherwise one it does not. */
  private value(schema: JsonSchema | undefined, depth: number, name = ''): unknown {
    if (this.chance(0.15)) return this.odd();
    return this.fitting(schema, depth, name);
  }

  private fitting(schema: JsonSchema | undefined, depth: number, name: string): unknown {
    if (!schema) return this.odd();
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices) return this.value(this.pick(choices), depth, name);
    if (schema.enum) return this.pick(schema.enum);
    const type = Array.isArray(schema.type) ? this.pick(schema.type) : schema.type;
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return this.chance(0.5);
      case 'integer':
        return this.integer(schema, name);
      case 'number':
        return this.integer(schema, name) + this.pick([0, 0, 0.5, 0.25]);
      case 'string':
        return this.text(schema, name);
      case 'array': {
        const length = this.between(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3));
        return Array.from({ length }, () => this.value(schema.items, depth + 1, name));
      }
      case 'object': {
        if (depth > 4) return {};
        const object: Record<string, unknown> = {};
        for (const [key, property] of Object.entries(schema.properties ?? {})) {
          const required = schema.required?.includes(key) ?? false;
          if (required ? this.chance(0.95) : this.chance(0.6)) object[key] = this.value(property, depth + 1, key);
        }
        if (this.chance(0.05)) object.unknownField = this.odd();
        return object;
      }
      default:
        return this.odd();
    }
  }

  private integer(schema: JsonSchema, name: string): number {
    const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -5);
    const high = schema.maximum ?? 1000;
    if (/id$/i.test(name) && this.chance(0.7)) return this.pick(this.known.ids);
    return this.chance(0.3) ? this.pick([low, high]) : this.between(low, Math.min(high, low + 100));
  }

  private text(schema: JsonSchema, name: string): string {
    if (schema.format === 'uuid' || /guid/i.test(name))
      return this.chance(0.8) ? this.pick(this.known.guids) : this.pick(ODD_TEXT);
    if (schema.format === 'uri') return this.pick(['https://receiver.example/hook', 'http://127.0.0.1:1/x', 'ftp://x']);
    if (/date|At$|Until|timeStamp/i.test(name)) return this.pick(DATES);
    const text = this.pick(ODD_TEXT.slice(2, 12));
    const fitted = text.slice(0, schema.maxLength ?? text.length);
    return fitted.padEnd(schema.minLength ?? 0, 'x');
  }

  /** A value that fits few schemas: another type, an edge, text no database stores, nesting too deep. */
  private odd(): unknown {
    const kind = this.between(0, 9);
    if (kind < 4) return this.pick(ODD_TEXT);
    if (kind < 7) return this.pick(ODD_NUMBERS);
    // A copy: a later mutation may write into it, and the shared value would reach other requests.
    if (kind < 9) return structuredClone(this.pick(ODD_VALUES));
    let nested: unknown = 'bottom';
    for (let level = 0; level < TOO_DEEP; level++) nested = { level: nested };
    return nested;
  }

  /** One or two changes to a right body: a field removed, replaced by an odd value, or added. */
  private mutate(body: unknown): unknown {
    for (let change = this.between(1, 2); change > 0; change--) {
      const [parent, key] = this.somewhereIn(body);
      if (!parent) return this.odd();
      const what = this.between(0, 2);
      if (what === 0) delete parent[key];
      else if (what === 1) parent[key] = this.odd();
      else parent.unknownField = this.odd();
    }
    return body;
  }

  /** A random object or array inside the value, with one of its keys. */
  private somewhereIn(value: unknown): [Record<string, unknown> | undefined, string] {
    let parent: Record<string, unknown> | undefined;
    let key = '';
    let current = value;
    while (current && typeof current === 'object') {
      const keys = Object.keys(current);
      if (keys.length === 0) break;
      parent = current as Record<string, unknown>;
      key = this.pick(keys);
      current = parent[key];
      if (this.chance(0.5)) break;
    }
    return [parent, key];
  }

  private asText(value: unknown): string {
    if (value === null || value === undefined) return '';
    if (Array.isArray(value)) return value.map((item) => this.asText(item)).join(',');
    return typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
  }

  /** mulberry32: small, fast and seeded. */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private chance(probability: number): boolean {
    return this.random() < probability;
  }

  private between(low: number, high: number): number {
    return low + Math.floor(this.random() * (high - low + 1));
  }

  private pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.random() * values.length)];
  }
}

/** Right bodies for the operations whose schema says only "an object", for the fuzzer to bend. */
export function fuzzExamplesFor(guid: string): Record<string, unknown> {
  const proposal = {
    guid,
    externalId: ['FUZZ-1'],
    name: 'Repair',
    priceNet: 1234.5,
    currency: 'NOK',
    details: [{ text: 'Display', type: 'sparePart', priceNet: 1000, quantity: 1 }],
  };
  const invoice = { guid, externalId: 'FUZZ-INV-1', priceNet: 1250, currency: 'NOK' };
  const booking = demoCaseBody(DEMO_TOKENS.elkjop);
  return {
    '/v1/case/create': booking,
    '/v2/case/create': booking,
    '/v3/case/create': booking,
    '/v1/case/validate': booking,
    '/v2/case/validate': booking,
    '/v3/case/validate': booking,
    '/v1/cost-proposals': [proposal],
    '/v2/cost-proposals': [proposal],
    '/v3/cost-proposals': [proposal],
    '/v3/invoices': [invoice],
    '/v2/models': [{ manufacturer: 'Apple', productType: 2, model: 'MacBook Fuzz' }],
    '/v3/models': [{ manufacturer: 'Apple', productType: 2, model: 'MacBook Fuzz' }],
  };
}

/** The tokens a request to each access level is sent with, in turn: every role the level lets in. */
export const FUZZ_TOKENS_BY_ACCESS: Record<string, string[]> = {
  partner: [DEMO_TOKENS.elkjop, DEMO_TOKENS.power],
  provider: [DEMO_TOKENS.nrc, DEMO_TOKENS.svea],
  'partner+provider': [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc, DEMO_TOKENS.power],
  any: [DEMO_TOKENS.power, DEMO_TOKENS.svea],
  admin: [DEMO_TOKENS.admin],
};
