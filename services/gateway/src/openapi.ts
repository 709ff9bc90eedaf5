/**
 * The OpenAPI 3.1 document of the API, built from what the services declare on their actions
 * (`rest`, `access`, fastest-validator `params`, `deprecated`, `summary`, `description`), so it
 * cannot drift from the routes the gateway mounts. Pure: it reads a registry listing and returns
 * a plain object.
 */
import { isAccessLevel, type AccessLevel } from '@hub/shared';

/** An action as the registry lists it (local or announced by another node). */
export interface ActionInfo {
  name: string;
  rawName?: string;
  rest?: unknown;
  access?: unknown;
  params?: Record<string, unknown>;
  visibility?: string;
  deprecated?: boolean;
  summary?: string;
  description?: string;
}

export interface ServiceInfo {
  name: string;
  fullName?: string;
  settings?: { rest?: unknown };
  actions?: Record<string, ActionInfo>;
}

/** One HTTP route: method, path under the API prefix in Express form (`/v3/x/:id`), its action. */
export interface ApiRoute {
  method: string;
  path: string;
  action: ActionInfo;
  service: string;
}

export interface OpenApiOptions {
  title: string;
  version: string;
  /** Where the routes are mounted (the gateway's API route path). */
  basePath: string;
}

type Schema = Record<string, unknown>;

const METHODS_WITH_QUERY = new Set(['GET', 'DELETE', 'HEAD']);

/** Slashes as moleculer-web normalises them: one leading, none trailing, none doubled. */
function normalisePath(path: string): string {
  const joined = `/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

function restRoutesOf(action: ActionInfo): Array<{ method: string; path: string; basePath?: string }> {
  const declared = Array.isArray(action.rest) ? action.rest : [action.rest];
  const routes: Array<{ method: string; path: string; basePath?: string }> = [];
  for (const rest of declared) {
    if (typeof rest === 'string') {
      const [method, path] = rest.includes(' ') ? rest.split(/\s+/) : ['*', rest];
      routes.push({ method: method.toUpperCase(), path });
    } else if (rest && typeof rest === 'object') {
      const { method, path, basePath } = rest as { method?: string; path?: string; basePath?: string };
      routes.push({ method: (method ?? '*').toUpperCase(), path: path ?? action.rawName ?? '', basePath });
    }
  }
  return routes;
}

/**
 * The routes the API serves: every published action with a `rest` declaration and an access
 * level, under its service's base path, as moleculer-web's auto-aliases build them. Actions
 * without an access level are mounted by moleculer-web but refused by the gateway, so they are
 * no route of the API.
 */
export function apiRoutes(services: ServiceInfo[]): ApiRoute[] {
  const routes: ApiRoute[] = [];
  const seen = new Set<string>();
  for (const service of services) {
    const serviceName = service.fullName ?? service.name;
    if (!service.settings || seen.has(serviceName)) continue;
    seen.add(serviceName);
    const rest = service.settings.rest;
    const basePaths = typeof rest === 'string' ? [rest] : Array.isArray(rest) ? rest : [serviceName.replace(/\./g, '/')];
    for (const basePath of basePaths) {
      for (const action of Object.values(service.actions ?? {})) {
        if (!action.rest || (action.visibility != null && action.visibility !== 'published')) continue;
        if (!isAccessLevel(action.access)) continue;
        for (const route of restRoutesOf(action)) {
          routes.push({ method: route.method, path: normalisePath(`/${route.basePath ?? basePath}/${route.path}`), action, service: serviceName });
        }
      }
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

const SKIPPED_KEYS = new Set(['$$strict', '$$async', '$$root', '$$type']);

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
    expanded[key] = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  }
  return expanded;
}

function ruleOf(rule: unknown): Schema {
  if (typeof rule === 'string') return expandShorthand(rule);
  if (Array.isArray(rule)) return { type: 'multi', rules: rule };
  if (rule && typeof rule === 'object') {
    const object = rule as Schema;
    // A nested object written without `type` (its properties directly) is an object rule.
    if (typeof object.type !== 'string' && !object.$$type) return { type: 'object', props: object };
    if (typeof object.$$type === 'string') {
      const { $$type, ...props } = object;
      return { ...expandShorthand($$type as string), props };
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
      break;
    case 'multi':
      schema = { anyOf: (Array.isArray(r.rules) ? r.rules : []).map(ruleToSchema) };
      break;
    default:
      // `any`, `custom`, `function` and the like say nothing a client can check.
      schema = {};
  }
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
    if (SKIPPED_KEYS.has(key)) continue;
    properties[key] = ruleToSchema(rule);
    if (!isOptional(rule)) required.push(key);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

const ERROR = { $ref: '#/components/schemas/Error' };

function errorResponse(description: string, schema: Schema, headers?: Schema): Schema {
  return { description, content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) };
}

const COMPONENTS = {
  securitySchemes: {
    accessToken: { type: 'apiKey', in: 'query', name: 'accessToken', description: 'The API token as a query parameter (the spec form).' },
    hubApiToken: { type: 'apiKey', in: 'header', name: 'X-Hub-Api-Token', description: 'The API token in a header.' },
    bearer: { type: 'http', scheme: 'bearer', description: 'The API token as a bearer token.' },
  },
  schemas: {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string' }, details: {}, requestId: { type: 'string' } },
        },
      },
    },
    ValidationError: {
      type: 'object',
      required: ['error'],
      description: 'Field validation failed; details name each field path and what is wrong with it.',
      properties: {
        error: {
          type: 'object',
          required: ['message', 'details'],
          properties: {
            message: { const: 'Fields validation failed' },
            details: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    },
    NotEnoughData: {
      type: 'object',
      required: ['error', 'data'],
      description: 'Routing needs more of the request to choose a provider.',
      properties: {
        error: { const: 'Not enough data' },
        data: { type: 'object', properties: { paramsNeeded: { type: 'array', items: { type: 'string' } } } },
      },
    },
    CannotProcessCase: {
      type: 'object',
      required: ['error', 'data'],
      description: 'No provider can take the case.',
      properties: {
        error: { type: 'object', properties: { message: { const: "Can't process this case" } } },
        data: { type: 'null' },
      },
    },
  },
  responses: {
    BadRequest: errorResponse('Invalid input: the validation envelope, a malformed body, or (routing) not enough data', {
      oneOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/NotEnoughData' }, ERROR],
    }),
    Unauthorized: errorResponse('The token is missing or unknown', ERROR),
    Forbidden: errorResponse("The endpoint is outside the token's access level", ERROR),
    NotFound: errorResponse('Not found, or not visible to this caller; (routing) no provider can take the case', {
      oneOf: [ERROR, { $ref: '#/components/schemas/CannotProcessCase' }],
    }),
    PayloadTooLarge: errorResponse('The body is larger than the configured limit', ERROR),
    RateLimited: errorResponse('Too many requests for this token', ERROR, {
      'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
    }),
  },
};

const SECURITY = [{ accessToken: [] }, { hubApiToken: [] }, { bearer: [] }];

function operationId(route: ApiRoute, taken: Set<string>): string {
  let id = route.action.name;
  for (let n = 2; taken.has(id); n++) id = `${route.action.name}_${n}`;
  taken.add(id);
  return id;
}

function accessText(access: AccessLevel): string {
  return access === 'partner+provider' ? 'partner or provider' : access === 'any' ? 'any account' : access;
}

function operationOf(route: ApiRoute, method: string, taken: Set<string>): Schema {
  const { action } = route;
  const access = action.access as AccessLevel;
  const params = Object.fromEntries(Object.entries(action.params ?? {}).filter(([key]) => !SKIPPED_KEYS.has(key)));
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const parameters: Schema[] = pathNames.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: params[name] !== undefined ? ruleToSchema(params[name]) : { type: 'string' },
  }));
  const rest = Object.fromEntries(Object.entries(params).filter(([key]) => !pathNames.includes(key)));

  const operation: Schema = {
    operationId: operationId(route, taken),
    tags: [route.service],
    summary: action.summary ?? action.name,
    description: [action.description, `Access: ${accessText(access)}.`].filter(Boolean).join('\n\n'),
    'x-access': access,
    'x-action': action.name,
    security: SECURITY,
  };
  if (action.deprecated) operation.deprecated = true;

  const responses: Schema = {
    200: { description: 'Success', content: { 'application/json': { schema: {} } } },
    400: { $ref: '#/components/responses/BadRequest' },
    401: { $ref: '#/components/responses/Unauthorized' },
    403: { $ref: '#/components/responses/Forbidden' },
    404: { $ref: '#/components/responses/NotFound' },
  };

  if (METHODS_WITH_QUERY.has(method)) {
    for (const [name, rule] of Object.entries(rest)) {
      const schema = ruleToSchema(rule);
      const parameter: Schema = { name, in: 'query', required: !isOptional(rule), schema };
      if (schema.type === 'object') Object.assign(parameter, { style: 'deepObject', explode: true });
      parameters.push(parameter);
    }
  } else {
    const names = Object.keys(rest);
    // A JSON array body arrives as `items` (the gateway wraps it).
    const body = names.length === 1 && names[0] === 'items' && ruleOf(rest.items).type === 'array' ? ruleToSchema(rest.items) : names.length > 0 ? objectSchema(rest) : { type: 'object' };
    const required = body.type === 'array' || (Array.isArray(body.required) && body.required.length > 0);
    operation.requestBody = { required, content: { 'application/json': { schema: body } } };
    responses[413] = { $ref: '#/components/responses/PayloadTooLarge' };
  }
  responses[429] = { $ref: '#/components/responses/RateLimited' };
  if (parameters.length > 0) operation.parameters = parameters;
  operation.responses = responses;
  return operation;
}

/** Express `:name` segments in OpenAPI's `{name}` form. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

export function buildOpenApi(services: ServiceInfo[], options: OpenApiOptions): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  const taken = new Set<string>();
  const tags = new Set<string>();
  for (const route of apiRoutes(services)) {
    // `*` (any method) is documented as the methods a client would use.
    const methods = route.method === '*' ? ['GET', 'POST'] : [route.method];
    for (const method of methods) {
      const key = openApiPath(route.path);
      paths[key] ??= {};
      paths[key][method.toLowerCase()] = operationOf(route, method, taken);
      tags.add(route.service);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      description:
        'Generated from the running services. Send the token as the `accessToken` query parameter, the `X-Hub-Api-Token` header or `Authorization: Bearer`; each operation names the access level it needs.',
    },
    servers: [{ url: options.basePath }],
    tags: [...tags].sort().map((name) => ({ name })),
    security: SECURITY,
    paths,
    components: COMPONENTS,
  };
}
