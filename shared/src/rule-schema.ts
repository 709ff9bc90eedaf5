/**
 * The JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a fastest-validator rule, so what an
 * action's `params` accept is described from the params themselves: the OpenAPI document's
 * parameters and bodies, and the booking schema of `case/schema`.
 *
 * A rule whose check a plain rule cannot say (a `custom` check) says it in JSON Schema under
 * `jsonSchema`, beside the check; those keywords are added to the rule's schema.
 */
type Schema = Record<string, unknown>;

/**
 * The one key a record (an object of free keys) may not have. The validator builds a checked
 * record by assigning its keys to a new object, where `__proto__` sets the prototype instead of a
 * key and would vanish (or hand the object another's fields), so it is refused by name rather
 * than lost.
 */
export const REFUSED_RECORD_KEY = '__proto__';

/** Keys of a params schema that are options of the validator, not params. */
export const SKIPPED_RULE_KEYS = new Set(['$$strict', '$$async', '$$root', '$$type']);

/** `'number|integer|positive'`, `'string|min:1|max:255'`, `'string?'` → the object form. */
export function expandShorthand(rule: string): Schema {
  const [head, ...flags] = rule.split('|');
  const optional = head.endsWith('?');
  const expanded: Schema = { type: optional ? head.slice(0, -1) : head };
  if (optional) expanded.optional = true;
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    if (colon < 0) {
      expanded[flag.trim()] = true;
      continue;
    }
    const key = flag.slice(0, colon).trim();
    const raw = flag.slice(colon + 1).trim();
    expanded[key] =
      raw === 'true' ? true : raw === 'false' ? false : raw !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  }
  return expanded;
}

/** A rule in its object form, whichever of fastest-validator's forms it was written in. */
export function ruleOf(rule: unknown): Schema {
  if (typeof rule === 'string') return expandShorthand(rule);
  if (Array.isArray(rule)) return { type: 'multi', rules: rule };
  if (rule && typeof rule === 'object') {
    const object = rule as Schema;
    // A nested object written without `type` (its properties directly) is an object rule.
    if (typeof object.type !== 'string' && !object.$$type) return { type: 'object', props: object };
    if (typeof object.$$type === 'string') {
      const { $$type, ...props } = object;
      return { ...expandShorthand($$type), props };
    }
    return object;
  }
  return { type: 'any' };
}

function patternOf(pattern: unknown): string | undefined {
  if (pattern instanceof RegExp) return pattern.source;
  return typeof pattern === 'string' && pattern.length > 0 ? pattern : undefined;
}

/** Whether a field may be left out (fastest-validator: `optional`, or a `default` fills it in). */
export function isOptional(rule: unknown): boolean {
  const expanded = ruleOf(rule);
  return expanded.optional === true || expanded.default !== undefined;
}

/** The JSON Schema (2020-12, as OpenAPI 3.1 uses) of a fastest-validator rule. */
export function ruleToSchema(rule: unknown): Schema {
  const r = ruleOf(rule);
  let schema: Schema;
  switch (r.type) {
    case 'string': {
      schema = { type: 'string' };
      if (typeof r.min === 'number') schema.minLength = r.min;
      if (typeof r.max === 'number') schema.maxLength = r.max;
      if (typeof r.length === 'number') Object.assign(schema, { minLength: r.length, maxLength: r.length });
      const pattern = patternOf(r.pattern);
      if (pattern) schema.pattern = pattern;
      if (Array.isArray(r.enum)) schema.enum = r.enum;
      if (r.numeric === true) schema.pattern ??= '^-?\\d+(\\.\\d+)?$';
      break;
    }
    case 'number': {
      schema = { type: r.integer === true ? 'integer' : 'number' };
      if (typeof r.min === 'number') schema.minimum = r.min;
      if (typeof r.max === 'number') schema.maximum = r.max;
      if (r.positive === true) schema.exclusiveMinimum = 0;
      if (r.negative === true) schema.exclusiveMaximum = 0;
      if (typeof r.equal === 'number') schema.const = r.equal;
      break;
    }
    case 'boolean':
      schema = { type: 'boolean' };
      break;
    case 'date':
      schema = { type: 'string', format: 'date-time' };
      break;
    case 'email':
      schema = { type: 'string', format: 'email' };
      if (typeof r.max === 'number') schema.maxLength = r.max;
      break;
    case 'url':
      schema = { type: 'string', format: 'uri' };
      break;
    case 'uuid':
      schema = { type: 'string', format: 'uuid' };
      break;
    case 'enum':
      schema = { enum: Array.isArray(r.values) ? r.values : [] };
      break;
    case 'equal':
      schema = { const: r.value };
      break;
    case 'array': {
      schema = { type: 'array' };
      if (r.items !== undefined) schema.items = ruleToSchema(r.items);
      if (typeof r.min === 'number') schema.minItems = r.min;
      if (typeof r.max === 'number') schema.maxItems = r.max;
      if (typeof r.length === 'number') Object.assign(schema, { minItems: r.length, maxItems: r.length });
      if (r.unique === true) schema.uniqueItems = true;
      break;
    }
    case 'tuple':
      schema = { type: 'array', prefixItems: Array.isArray(r.items) ? r.items.map(ruleToSchema) : [] };
      break;
    case 'object': {
      const props = (r.props ?? r.properties) as Record<string, unknown> | undefined;
      schema = props ? objectSchema(props) : { type: 'object' };
      if (typeof r.minProps === 'number') schema.minProperties = r.minProps;
      if (typeof r.maxProps === 'number') schema.maxProperties = r.maxProps;
      break;
    }
    case 'record':
      schema = { type: 'object', additionalProperties: r.value !== undefined ? ruleToSchema(r.value) : {} };
      schema.propertyNames = { ...ruleToSchema(r.key ?? 'string'), not: { const: REFUSED_RECORD_KEY } };
      break;
    case 'multi':
      schema = { anyOf: (Array.isArray(r.rules) ? r.rules : []).map(ruleToSchema) };
      break;
    default:
      // `any`, `custom`, `function` and the like say nothing a client can check.
      schema = {};
  }
  if (r.jsonSchema && typeof r.jsonSchema === 'object') schema = { ...schema, ...(r.jsonSchema as Schema) };
  if (r.nullable === true) {
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    else if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
    else if (Object.keys(schema).length > 0) schema = { anyOf: [schema, { type: 'null' }] };
  }
  if (r.default !== undefined && typeof r.default !== 'function') schema.default = r.default;
  if (typeof r.description === 'string') schema.description = r.description;
  return schema;
}

/** An object's properties and which are required. Unknown fields are dropped, not refused. */
export function objectSchema(props: Record<string, unknown>): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, rule] of Object.entries(props)) {
    if (SKIPPED_RULE_KEYS.has(key)) continue;
    properties[key] = ruleToSchema(rule);
    if (!isOptional(rule)) required.push(key);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}
