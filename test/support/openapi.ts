/**
 * Holding an endpoint's answers to what the API reference says of them: the 200 answer's schema
 * from the gateway's OpenAPI document, compiled with its named shapes (`components.schemas`).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { TestHub } from './hub';

export interface DocumentedAnswer {
  operation: Record<string, any>;
  /** The media type of the answer (`application/json` unless the answer is a file). */
  mediaType: string;
  /** The documented example of the answer. */
  example: unknown;
  validate: ValidateFunction;
}

export interface ApiReference {
  document: Record<string, any>;
  /** Every operation as `METHOD /path`, in the document's form (`GET /v3/case`). */
  operations: string[];
  /** The operation at `path` (as the document names it, `/v3/case/history`) and a validator of its 200 answer. */
  answerOf(method: string, path: string): DocumentedAnswer;
}

const UUID = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;

/** The gateway's OpenAPI document, its answers' schemas compiled once. */
export async function apiReference(hub: TestHub): Promise<ApiReference> {
  const document = (await hub.request('GET', '/api/openapi.json')).body;
  const ajv = new Ajv2020({
    strict: true,
    formats: { 'date-time': true, email: true, date: true, uri: true, uuid: UUID },
  });
  ajv.addKeyword('components');
  ajv.addSchema({ $id: 'openapi', components: document.components });
  const operations = Object.entries<Record<string, unknown>>(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  const compiled = new Map<string, DocumentedAnswer>();
  return {
    document,
    operations,
    answerOf(method, path) {
      const key = `${method.toUpperCase()} ${path}`;
      const known = compiled.get(key);
      if (known) return known;
      const operation = document.paths[path]?.[method.toLowerCase()];
      if (!operation) throw new Error(`The API reference has no ${key}`);
      const [[mediaType, answer]] = Object.entries<{ schema: unknown; example?: unknown }>(
        operation.responses[200].content,
      );
      const local = JSON.stringify(answer.schema).replaceAll('"#/components/', '"openapi#/components/');
      const documented = { operation, mediaType, example: answer.example, validate: ajv.compile(JSON.parse(local)) };
      compiled.set(key, documented);
      return documented;
    },
  };
}

/** The operation at `path` (as the document names it, `/v3/case/history`) and a validator of its 200 answer. */
export async function documentedAnswer(hub: TestHub, method: string, path: string): Promise<DocumentedAnswer> {
  return (await apiReference(hub)).answerOf(method, path);
}
