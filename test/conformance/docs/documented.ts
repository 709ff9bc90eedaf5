/**
 * Conformance with the product's public documentation (infocareworkshop/serviceorderhub-docs):
 * a test sends a documented example request through the gateway, with only ids and tokens
 * adapted to the demo world, and checks the documented status and the documented answer's shape
 * field by field: every documented field is there, nested as documented, with the documented
 * JSON type. Fields the hub adds are allowed; a documented field missing or of another type is not.
 *
 * A documented shape is the documentation's own example value, written as a JS literal:
 * - an object lists the fields that must be present, each checked against its example value;
 * - an array's first element is the shape of every element of the answer (an empty array only
 *   says "an array");
 * - a string, number or boolean stands for its type;
 * - `ANY` stands for a field the documentation shows without a type (e.g. `"receiver": ...`).
 * A documented example that shows a value where the record may hold none (a contact's `phone`)
 * names that path in `nullable`.
 */
import { ALL_SERVICES, type ServiceName } from '../../../shared/src';
import { type HttpResult, startTestHub, type TestHub, type TestHubOptions } from '../../support/hub';

/** A field that must be present, whatever its value. */
export const ANY = Symbol('any documented value');

/** `symbol` rather than `typeof ANY`: an object literal widens the unique symbol it holds. */
export type DocumentedShape =
  string | number | boolean | null | symbol | DocumentedShape[] | { [field: string]: DocumentedShape };

export interface ShapeOptions {
  /** Paths (`data.contactData.phone`, `[].externalData`) where null is a valid answer too. */
  nullable?: string[];
}

export interface DocumentedRequest {
  method: 'GET' | 'POST';
  /** The documented path with its query string, ids adapted to the demo world. */
  path: string;
  token: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface DocumentedAnswer {
  status: number;
  shape?: DocumentedShape;
  options?: ShapeOptions;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Every way `actual` departs from the documented shape, as `path: what` lines (empty: it conforms). */
export function shapeMismatches(
  actual: unknown,
  documented: DocumentedShape,
  options: ShapeOptions = {},
  path = '',
): string[] {
  if (documented === ANY) return [];
  const where = path || '(answer)';
  if (actual === null && documented !== null && options.nullable?.includes(path)) return [];
  if (documented === null) return actual === null ? [] : [`${where}: documented as null, got ${typeOf(actual)}`];
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual)) return [`${where}: documented as array, got ${typeOf(actual)}`];
    if (documented.length === 0) return [];
    return actual.flatMap((element) => shapeMismatches(element, documented[0], options, `${path}[]`));
  }
  if (typeof documented === 'object') {
    if (typeOf(actual) !== 'object') return [`${where}: documented as object, got ${typeOf(actual)}`];
    const record = actual as Record<string, unknown>;
    return Object.entries(documented).flatMap(([field, shape]) => {
      const fieldPath = path ? `${path}.${field}` : field;
      if (!Object.prototype.hasOwnProperty.call(record, field)) return [`${fieldPath}: documented, missing`];
      return shapeMismatches(record[field], shape, options, fieldPath);
    });
  }
  return typeOf(actual) === typeof documented
    ? []
    : [`${where}: documented as ${typeof documented}, got ${typeOf(actual)}`];
}

/** Asserts that `actual` has the documented shape, listing every departure at once. */
export function expectShape(actual: unknown, documented: DocumentedShape, options?: ShapeOptions): void {
  expect(shapeMismatches(actual, documented, options)).toEqual([]);
}

/**
 * Sends a documented example request and asserts the documented status and shape; answers the
 * response for further checks. On a wrong status the body is shown, so the reason is in the failure.
 */
export async function sendDocumented<T = any>(
  hub: TestHub,
  request: DocumentedRequest,
  answer: DocumentedAnswer,
): Promise<HttpResult<T>> {
  const response = await hub.request<T>(request.method, request.path, {
    token: request.token,
    body: request.body,
    headers: request.headers,
  });
  expect({ status: response.status, body: response.body }).toEqual(expect.objectContaining({ status: answer.status }));
  if (answer.shape !== undefined) expectShape(response.body, answer.shape, answer.options);
  return response;
}

/** Every service, the demo world, and no rate limit in the way of a page's examples. */
export const DOCS_HUB_SERVICES: ServiceName[] = [...ALL_SERVICES];

/** A hub for one documentation page's examples: every service on a fresh database, the demo world. */
/**
 * The hub a file's tests share: started before them and handed to `take` (which may set up
 * what the tests need, a booked case), stopped after them.
 */
export function useDocsHub(take: (hub: TestHub) => void | Promise<void>): void {
  let hub: TestHub | undefined;
  beforeAll(async () => {
    hub = await startDocsHub();
    await take(hub);
  });
  afterAll(() => hub?.stop());
}

export function startDocsHub(options: Omit<TestHubOptions, 'services'> = {}): Promise<TestHub> {
  return startTestHub({
    services: DOCS_HUB_SERVICES,
    ...options,
    env: { RATE_LIMIT_PER_MINUTE: '1000000', ...options.env },
  });
}
