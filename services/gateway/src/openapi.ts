/**
 * The OpenAPI 3.1 document of the API, built from what the services declare on their actions
 * (`rest`, `access`, fastest-validator `params`, `deprecated`, `summary`, `description`,
 * `response`), so it cannot drift from the routes the gateway mounts. Pure: it reads a registry
 * listing and returns a plain object.
 */
import {
  ACCESS,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  isAccessLevel,
  isOptional,
  takesIdempotencyKey,
  type AccessLevel,
  type JsonSchema,
  objectSchema,
  ruleOf,
  ruleToSchema,
  SKIPPED_RULE_KEYS,
} from '@hub/shared';

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
  response?: JsonSchema;
  readOnly?: boolean;
}

export interface ServiceInfo {
  name: string;
  fullName?: string;
  settings?: { rest?: unknown };
  /** `description`: what the service's operations are about (the OpenAPI tag's description). */
  metadata?: { description?: string };
  actions?: Record<string, ActionInfo>;
}

/** One HTTP route: method, path under the API prefix in Express form (`/v3/x/:id`), its action. */
export interface ApiRoute {
  method: string;
  path: string;
  action: ActionInfo;
  service: string;
  serviceDescription?: string;
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
    const basePaths =
      typeof rest === 'string' ? [rest] : Array.isArray(rest) ? rest : [serviceName.replace(/\./g, '/')];
    for (const basePath of basePaths) {
      for (const action of Object.values(service.actions ?? {})) {
        if (!action.rest || (action.visibility != null && action.visibility !== 'published')) continue;
        if (!isAccessLevel(action.access)) continue;
        for (const route of restRoutesOf(action)) {
          routes.push({
            method: route.method,
            path: normalisePath(`/${route.basePath ?? basePath}/${route.path}`),
            action,
            service: serviceName,
            serviceDescription: service.metadata?.description,
          });
        }
      }
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

const ERROR = { $ref: '#/components/schemas/Error' };

const answerHeader = (name: keyof typeof HEADERS): Schema => ({ $ref: `#/components/headers/${name}` });

/** The rate limiter counts every request of the API: each answer, an error too, says where its token stands. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': answerHeader('RateLimitPolicy'),
  RateLimit: answerHeader('RateLimit'),
};

function errorResponse(description: string, schema: Schema, headers?: Schema): Schema {
  return { description, content: { 'application/json': { schema } }, headers: { ...RATE_LIMIT_HEADERS, ...headers } };
}

/** The headers of the gateway's answers, documented once. */
const HEADERS = {
  RateLimitPolicy: {
    description:
      'The rate limit (draft-ietf-httpapi-ratelimit-headers): `q` requests per window of `w` seconds, e.g. `"default";q=1200;w=60`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'Where the token stands: `r` requests remain, the window starts again in `t` seconds, e.g. `"default";r=1187;t=42`.',
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: 'Present (`true`) when the answer is the first answer of its Idempotency-Key, replayed.',
    schema: { const: 'true' },
  },
  Deprecation: {
    description: 'Since when the path is deprecated (RFC 9745), as `@<Unix seconds>`.',
    schema: { type: 'string' },
  },
  Sunset: { description: 'When the path may stop answering (RFC 8594), an HTTP date.', schema: { type: 'string' } },
};

const COMPONENTS = {
  securitySchemes: {
    accessToken: {
      type: 'apiKey',
      in: 'query',
      name: 'accessToken',
      description: 'The API token as a query parameter (the spec form).',
    },
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
  parameters: {
    ServiceProvider: {
      name: 'X-Service-Provider',
      in: 'header',
      required: false,
      description:
        'The provider this request acts for: an account allowed all service providers names any provider, any other account only its own (another is a 403, an unknown one a 400 naming the header).',
      schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
    },
    RequestId: {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description:
        "An id of the caller for this request (8 to 128 letters, digits, `_`, `.` or `-`), else the hub makes one; returned in the answer's `X-Request-Id` and in every 5xx body.",
      schema: { type: 'string', pattern: '^[\\w.-]{8,128}$' },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: a retry with the same key and the same request within `IDEMPOTENCY_KEY_TTL` gets the first answer (marked `Idempotent-Replayed: true`) and writes nothing again; the same key with another request is a 409.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
    },
  },
  headers: HEADERS,
  responses: {
    BadRequest: errorResponse(
      'Invalid input: the validation envelope, a malformed body, or (routing) not enough data',
      {
        anyOf: [
          { $ref: '#/components/schemas/ValidationError' },
          { $ref: '#/components/schemas/NotEnoughData' },
          ERROR,
        ],
      },
    ),
    Unauthorized: errorResponse('The token is missing or unknown', ERROR),
    Forbidden: errorResponse("The endpoint is outside the token's access level", ERROR),
    NotFound: errorResponse('Not found, or not visible to this caller; (routing) no provider can take the case', {
      anyOf: [ERROR, { $ref: '#/components/schemas/CannotProcessCase' }],
    }),
    IdempotencyConflict: errorResponse(
      'The Idempotency-Key was used for another request, or a request with it is still being processed',
      ERROR,
    ),
    PayloadTooLarge: errorResponse('The body is larger than the configured limit', ERROR),
    RateLimited: errorResponse('Too many requests for this token', ERROR, {
      'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
    }),
  },
};

const SECURITY = [{ accessToken: [] }, { hubApiToken: [] }, { bearer: [] }];

const header = (name: keyof typeof COMPONENTS.parameters): Schema => ({ $ref: `#/components/parameters/${name}` });

/** The keywords whose values are schemas (the others hold data: `examples`, `enum`, `const`, ...). */
const SUBSCHEMA_LISTS = ['prefixItems', 'anyOf', 'oneOf', 'allOf'] as const;

/**
 * The titled shapes of the services' response schemas, each listed once under
 * `components.schemas` by its title and referred to wherever it appears. A title declared with two
 * different shapes (services of different versions during a rollout) keeps both, the second as
 * `<title>2`.
 */
class NamedShapes {
  readonly schemas: Record<string, Schema> = {};
  private readonly texts = new Map<string, string>();

  /** `taken`: the document's own schemas, which a service's shape of the same title does not replace. */
  constructor(taken: Record<string, unknown>) {
    for (const [name, schema] of Object.entries(taken)) this.texts.set(name, JSON.stringify(schema));
  }

  /** The schema with each titled shape in it (itself included) replaced by a reference. */
  refer(schema: JsonSchema): Schema {
    const copy: Schema = { ...schema };
    if (schema.properties)
      copy.properties = Object.fromEntries(
        Object.entries(schema.properties).map(([key, sub]) => [key, this.refer(sub)]),
      );
    if (schema.items) copy.items = this.refer(schema.items);
    if (typeof schema.additionalProperties === 'object')
      copy.additionalProperties = this.refer(schema.additionalProperties);
    for (const key of SUBSCHEMA_LISTS) {
      const list = schema[key];
      if (list) copy[key] = list.map((sub) => this.refer(sub));
    }
    return schema.title === undefined ? copy : { $ref: `#/components/schemas/${this.name(schema.title, copy)}` };
  }

  private name(title: string, schema: Schema): string {
    const text = JSON.stringify(schema);
    let name = title;
    for (let n = 2; this.texts.has(name) && this.texts.get(name) !== text; n++) name = `${title}${n}`;
    this.texts.set(name, text);
    this.schemas[name] = schema;
    return name;
  }
}

/** The 200 answer: the action's declared response (JSON, or a file of `contentMediaType`). */
function successResponse(response: JsonSchema | undefined, shapes: NamedShapes): Schema {
  if (!response) return { description: 'Success', content: { 'application/json': { schema: {} } } };
  const media: Schema = { schema: shapes.refer(response) };
  if (response.examples?.length) media.example = response.examples[0];
  return {
    description: response.description ?? 'Success',
    content: { [response.contentMediaType ?? 'application/json']: media },
  };
}

function operationId(route: ApiRoute, taken: Set<string>): string {
  let id = route.action.name;
  for (let n = 2; taken.has(id); n++) id = `${route.action.name}_${n}`;
  taken.add(id);
  return id;
}

function accessText(access: AccessLevel): string {
  return access === 'partner+provider' ? 'partner or provider' : access === 'any' ? 'any account' : access;
}

const ADMIN_TAG = 'admin';
const ADMIN_TAG_DESCRIPTION =
  "The operator's endpoints (admin token): accounts, the world, webhook subscriptions and deliveries, the cluster's overview and storage.";
const OLDER_TAG_SUFFIX = ' (v1/v2)';

/**
 * The group an operation is listed under: the admin endpoints together, the current paths under
 * their service, and the deprecated older paths under a tag of their own beside it, so the
 * explorer leads with what a new client should call.
 */
function tagOf(route: ApiRoute): string {
  if (route.action.access === ACCESS.ADMIN) return ADMIN_TAG;
  return route.action.deprecated ? `${route.service}${OLDER_TAG_SUFFIX}` : route.service;
}

/** Tags in the order the explorer lists them: current services by name, admin, then older versions. */
function orderedTags(tags: Map<string, string | undefined>): Array<{ name: string; description?: string }> {
  const rank = (name: string) => (name === ADMIN_TAG ? 1 : name.endsWith(OLDER_TAG_SUFFIX) ? 2 : 0);
  return [...tags.keys()]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((name) => ({ name, description: tags.get(name) }));
}

function tagDescription(route: ApiRoute, tag: string): string | undefined {
  if (tag === ADMIN_TAG) return ADMIN_TAG_DESCRIPTION;
  if (tag.endsWith(OLDER_TAG_SUFFIX))
    return `Deprecated v1 and v2 paths of ${route.service}, answered by its v3 actions; each answer carries Deprecation and Sunset headers. New clients call the v3 paths.`;
  return route.serviceDescription;
}

function operationOf(route: ApiRoute, method: string, taken: Set<string>, shapes: NamedShapes): Schema {
  const { action } = route;
  const access = action.access as AccessLevel;
  const params = Object.fromEntries(Object.entries(action.params ?? {}).filter(([key]) => !SKIPPED_RULE_KEYS.has(key)));
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
    tags: [tagOf(route)],
    summary: action.summary ?? action.name,
    description: [action.description, `Access: ${accessText(access)}.`].filter(Boolean).join('\n\n'),
    'x-access': access,
    'x-action': action.name,
    security: SECURITY,
  };
  if (action.deprecated) operation.deprecated = true;

  const responses: Schema = {
    200: successResponse(action.response, shapes),
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
    const body =
      names.length === 1 && names[0] === 'items' && ruleOf(rest.items).type === 'array'
        ? ruleToSchema(rest.items)
        : names.length > 0
          ? objectSchema(rest)
          : { type: 'object' };
    const required = body.type === 'array' || (Array.isArray(body.required) && body.required.length > 0);
    operation.requestBody = { required, content: { 'application/json': { schema: body } } };
    responses[413] = { $ref: '#/components/responses/PayloadTooLarge' };
  }
  responses[429] = { $ref: '#/components/responses/RateLimited' };
  const answerHeaders: Schema = { ...RATE_LIMIT_HEADERS };
  if (action.deprecated)
    Object.assign(answerHeaders, { Deprecation: answerHeader('Deprecation'), Sunset: answerHeader('Sunset') });
  // Headers the gateway reads on every request, and the one every write of a party takes.
  parameters.push(header('RequestId'), header('ServiceProvider'));
  if (takesIdempotencyKey({ ...action, access, rest: `${method} ${route.path}` })) {
    parameters.push(header('IdempotencyKey'));
    responses[409] = { $ref: '#/components/responses/IdempotencyConflict' };
    answerHeaders['Idempotent-Replayed'] = answerHeader('IdempotentReplayed');
  }
  responses[200] = { ...(responses[200] as Schema), headers: answerHeaders };
  operation.parameters = parameters;
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
  const tags = new Map<string, string | undefined>();
  const shapes = new NamedShapes(COMPONENTS.schemas);
  for (const route of apiRoutes(services)) {
    // `*` (any method) is documented as the methods a client would use.
    const methods = route.method === '*' ? ['GET', 'POST'] : [route.method];
    for (const method of methods) {
      const key = openApiPath(route.path);
      paths[key] ??= {};
      paths[key][method.toLowerCase()] = operationOf(route, method, taken, shapes);
      const tag = tagOf(route);
      tags.set(tag, tagDescription(route, tag));
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
    tags: orderedTags(tags),
    security: SECURITY,
    paths,
    components: { ...COMPONENTS, schemas: { ...COMPONENTS.schemas, ...shapes.schemas } },
  };
}
