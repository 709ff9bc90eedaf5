/**
 * The JSON Schema (2020-12, the dialect of OpenAPI 3.1) an action declares for its success answer
 * (`response`), which the gateway's OpenAPI document carries. Only the keywords the hub uses are
 * declared, without an index signature, so a misspelt keyword (`propertys`) fails to compile.
 *
 * A schema with a `title` is a named shape: the OpenAPI document lists it once under
 * `components.schemas.<title>` and refers to it wherever it appears, so titles are identifiers
 * (`CaseView`) and one title names one shape.
 */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export interface JsonSchema {
  title?: string;
  description?: string;
  type?: JsonType | readonly JsonType[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  /** An object's other keys; leaving it out allows any. */
  additionalProperties?: boolean | JsonSchema;
  minProperties?: number;
  items?: JsonSchema;
  prefixItems?: readonly JsonSchema[];
  minItems?: number;
  maxItems?: number;
  enum?: readonly unknown[];
  const?: unknown;
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  allOf?: readonly JsonSchema[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  /** An answer that is a file, not JSON: the media type it is served as. */
  contentMediaType?: string;
  default?: unknown;
  deprecated?: boolean;
  /** Example values; the first of a response schema is the example the API reference shows. */
  examples?: readonly unknown[];
}
