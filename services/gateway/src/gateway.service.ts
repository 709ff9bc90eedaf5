/**
 * gateway: the HTTP face of the hub. Routes come from the actions' own `rest` declarations;
 * the gateway authenticates the token, enforces each action's declared access level, renders
 * the spec's error envelopes, and adds a request id, an access log and a per-token rate limit.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Context, ServiceSchema, Service, ServiceSettingSchema } from 'moleculer';
import ApiGateway from 'moleculer-web';
import {
  ACCESS,
  accessAllows,
  type Caller,
  type CallerMeta,
  configOf,
  ERROR_TYPES,
  FIELD_MESSAGES,
  FieldsValidationError,
  ForbiddenError,
  isAccessLevel,
  NotFoundError,
  PROMETHEUS_CONTENT_TYPE,
  RateLimitedError,
  prometheusReporterOf,
  readiness,
  renderError,
  type ScrapedPrometheusReporter,
  TEXT_PARAMS_META,
  UnauthorizedError,
  unstorablePath,
} from '@hub/shared';
import { buildOpenApi, type ServiceInfo } from './openapi';
import { clusterOverview, refreshHubMetrics, registerHubMetrics } from './operations';
import { AttemptWindow } from './attempt-window';
import { RedisRateLimitStore } from './rate-limit-store';
import { TOKEN_QUERY_PARAM, tokenOf } from './request-token';

const API_PATH = '/api';
const PUBLIC_DIR = path.resolve(__dirname, '../public');
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const HUB_VERSION = (require('../package.json') as { version: string }).version;

/** The files the explorer and the console load, and where each one lives. */
const STATIC_FILES: Record<string, { file: string; type: string }> = {
  'docs/swagger-ui.css': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui.css'), type: 'text/css' },
  'docs/swagger-ui-bundle.js': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript' },
  'docs/docs.js': { file: path.join(PUBLIC_DIR, 'docs.js'), type: 'text/javascript' },
  'console/console.js': { file: path.join(PUBLIC_DIR, 'console.js'), type: 'text/javascript' },
  'console/console.css': { file: path.join(PUBLIC_DIR, 'console.css'), type: 'text/css' },
};

/** How long a resolved token is trusted before the directory is asked again. */
const TOKEN_CACHE_MS = 30_000;
const TOKEN_CACHE_MAX = 10_000;
/** Longer than any token the hub issues (catalog.resolveToken takes up to this). */
const MAX_TOKEN_LENGTH = 512;

type HubRequest = IncomingMessage & {
  query?: Record<string, unknown>;
  body?: unknown;
  requestId: string;
  startedAt: bigint;
  arrayBody: boolean;
  $params: Record<string, unknown>;
  $action?: { name: string; access?: unknown; deprecated?: boolean; params?: Record<string, unknown> };
  $ctx?: Context<unknown, CallerMeta>;
  $route?: { rateLimit?: { store: { resetTime: number } } };
};

type GatewayThis = Service & {
  tokenCache: Map<string, { caller: Caller | null; expiresAt: number }>;
  invalidTokens: AttemptWindow;
  /** moleculer-web's debounced rebuild of the routes from the services' actions. */
  regenerateAllAutoAliases: { (): void; flush(): void };
  prometheus?: ScrapedPrometheusReporter;
  resolveCaller(token: string, ctx?: Context): Promise<Caller | null>;
  sendError(req: HubRequest, res: ServerResponse, err: unknown): void;
  openApiDocument(): Record<string, unknown>;
};

type PageHandler = (this: GatewayThis, req: HubRequest, res: ServerResponse) => Promise<void> | void;

/** A handler on the public route: errors get the same envelopes as the API's. */
function page(handler: PageHandler) {
  return function (this: GatewayThis, req: HubRequest, res: ServerResponse) {
    Promise.resolve()
      .then(() => handler.call(this, req, res))
      .catch((err) => sendRendered.call(this, req, res, err));
  };
}

function send(res: ServerResponse, type: string, body: string | Buffer, cache = 'no-store') {
  res.statusCode = 200;
  res.setHeader('Content-Type', type.includes('charset') || !type.startsWith('text/') ? type : `${type}; charset=utf-8`);
  res.setHeader('Cache-Control', cache);
  res.end(body);
}

function staticFile(name: string): PageHandler {
  const entry = STATIC_FILES[name];
  return (_req, res) => send(res, entry.type, fs.readFileSync(entry.file), 'public, max-age=300');
}

const MUST_BE_ARRAY = 'Must be an array';
const MUST_BE_OBJECT = 'Must be an object';

/** An action that takes a JSON array as its body declares it as its `items` param. */
function takesArrayBody(req: HubRequest): boolean {
  return Boolean(req.$action?.params && Object.prototype.hasOwnProperty.call(req.$action.params, 'items'));
}

/** Arrays would be flattened into the params object; actions that take one see it as `items`. */
function wrapArrayBody(req: HubRequest, _res: ServerResponse, next: (err?: unknown) => void) {
  req.arrayBody = Array.isArray(req.body);
  if (req.arrayBody) req.body = { items: req.body };
  next();
}

/** Refuses, naming the field, a query or body value no service could store, before any call. */
function refuseUnstorableInput(req: HubRequest, _res: ServerResponse, next: (err?: unknown) => void) {
  const found = unstorablePath(req.query ?? {}) ?? unstorablePath(req.body ?? {});
  next(found === null ? undefined : new FieldsValidationError({ [found || 'body']: [FIELD_MESSAGES.wrongFormat] }));
}

/**
 * What the action is called with: the path's values, the JSON body as sent, and the query
 * string's values the body does not hold. Path and query values are text: the call's meta names
 * them for the serving node to type by the action's own schema (HubValidator). The path names the
 * resource, so a body cannot redirect the call; a query value never replaces a body field; and the
 * token is the gateway's alone: it never reaches an action, whose records (a booking's request
 * log) would keep it.
 */
function actionParams(req: HubRequest, meta: Record<string, unknown>, pathParams: string[]): Record<string, unknown> {
  const body = req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const params: Record<string, unknown> = {};
  const text: string[] = [];
  for (const [key, value] of Object.entries(req.$params)) {
    if (key === TOKEN_QUERY_PARAM) continue;
    const fromBody = !pathParams.includes(key) && Object.prototype.hasOwnProperty.call(body, key);
    params[key] = fromBody ? body[key] : value;
    if (!fromBody) text.push(key);
  }
  if (text.length) meta[TEXT_PARAMS_META] = text;
  return params;
}

/** The names of a route's path parameters (`/subscriptions/:id` has `id`). */
function pathParamsOf(routePath: string | undefined): string[] {
  return [...(routePath ?? '').matchAll(/:(\w+)/g)].map((match) => match[1]);
}

function requestIdOf(req: HubRequest): string {
  if (req.requestId) return req.requestId;
  const incoming = req.headers['x-request-id'];
  req.requestId = typeof incoming === 'string' && /^[\w.-]{8,128}$/.test(incoming) ? incoming : randomUUID();
  return req.requestId;
}

/** The request id becomes the root context's, so every call and trace span of the request carries it. */
function rootCallOptions(options: { requestID?: string }, req: HubRequest) {
  options.requestID = requestIdOf(req);
}

function assignRequestId(this: GatewayThis, req: HubRequest, res: ServerResponse, next: () => void) {
  requestIdOf(req);
  req.startedAt = process.hrtime.bigint();
  res.setHeader('X-Request-Id', req.requestId);
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - req.startedAt) / 1e6;
    this.logger.info({
      msg: 'request',
      requestId: req.requestId,
      method: req.method,
      path: ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0],
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
      accountId: req.$ctx?.meta.caller?.accountId,
    });
  });
  next();
}

function sendRendered(this: GatewayThis, req: HubRequest, res: ServerResponse, err: unknown) {
  const error = err as { type?: string; status?: number; code?: unknown; message?: string };
  // body-parser errors carry `status` and a `type` of their own instead of a Moleculer code.
  if (error?.type === 'entity.parse.failed') Object.assign(error, { code: 400, type: ERROR_TYPES.FIELDS_VALIDATION, data: { details: { body: [MALFORMED_JSON] } } });
  // zlib's failure on a body that is not what its Content-Encoding says, passed on with zlib's code.
  else if (typeof error?.code === 'string' && error.code.startsWith('Z_')) Object.assign(error, { code: 400, type: ERROR_TYPES.FIELDS_VALIDATION, data: { details: { body: [UNDECODABLE_BODY] } } });
  else if (error?.type === 'entity.too.large') Object.assign(error, { code: 413, data: undefined });
  else if (typeof error?.code !== 'number' && typeof error?.status === 'number') Object.assign(error, { code: error.status });

  const rendered = renderError(error as never, req.requestId);
  if (rendered.status === 429 && req.$route?.rateLimit) {
    rendered.headers['Retry-After'] = String(Math.max(1, Math.ceil((req.$route.rateLimit.store.resetTime - Date.now()) / 1000)));
  }
  if (rendered.status >= 500) this.logger.error({ requestId: req.requestId }, 'Request failed:', err);
  if (req.arrayBody || takesArrayBody(req)) rewriteArrayPaths(rendered.body);
  // A deprecated form says so on every answer, an error too.
  if (req.$action?.deprecated) res.setHeader('Deprecation', 'true');
  res.statusCode = rendered.status;
  for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(rendered.body));
}

/** A body sent as an array was validated as `items`; its field paths start at the array. */
function rewriteArrayPaths(body: unknown) {
  const details = (body as { error?: { details?: Record<string, string[]> } })?.error?.details;
  if (!details || typeof details !== 'object') return;
  for (const key of Object.keys(details)) {
    if (key === 'items' || key.startsWith('items[') || key.startsWith('items.')) {
      const renamed = key === 'items' ? 'body' : key.slice('items'.length).replace(/^\./, '');
      details[renamed] = details[key];
      delete details[key];
    }
  }
}

const JSON_CONTENT = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/**
 * Whether the action a request goes to takes uploads (`largeBody: true` on the action), so its
 * JSON body may be as large as UPLOAD_BODY_LIMIT instead of BODY_LIMIT.
 */
function takesLargeBody(this: GatewayThis, req: HubRequest): boolean {
  const found = this.resolveAlias((req as { parsedUrl?: string }).parsedUrl ?? '', req.method) as { alias?: { action?: string } } | undefined;
  const name = found?.alias?.action;
  if (!name) return false;
  // moleculer's typings leave out the registry's action map.
  const actions = (this.broker.registry as unknown as { actions: { get(name: string): { endpoints: Array<{ action: { largeBody?: boolean } }> } | undefined } }).actions;
  return actions.get(name)?.endpoints[0]?.action.largeBody === true;
}

/** Malformed JSON gets the validation envelope, its one detail on the body as a whole. */
const MALFORMED_JSON = 'Malformed JSON';
const UNDECODABLE_BODY = 'Not decodable as its Content-Encoding says';

/** An upload body arrives as text (read with the larger limit) and is parsed here as strictly as the JSON parser does. */
function parseLargeJson(req: HubRequest, _res: ServerResponse, next: (err?: unknown) => void) {
  if (typeof req.body !== 'string') return next();
  const text = req.body.trim();
  try {
    if (!text.startsWith('{') && !text.startsWith('[')) throw new SyntaxError('not an object or array');
    req.body = JSON.parse(text);
    next();
  } catch {
    next(Object.assign(new Error(MALFORMED_JSON), { status: 400, type: 'entity.parse.failed' }));
  }
}

const GatewayService: ServiceSchema<ServiceSettingSchema, GatewayThis> = {
  name: 'gateway',
  mixins: [ApiGateway],

  settings: {
    // The gateway's own API actions (the operator overview) mount under /api like any service's.
    rest: '',
    port: 3000,
    ip: '0.0.0.0',
    use: [assignRequestId],
    rootCallOptions,
    log4XXResponses: false,
    logRequest: null,
    logResponse: null,
    logRouteRegistration: 'debug',
    // Aliases follow the registry within this many ms when services come and go.
    debounceTime: 50,
    routes: [
      {
        // Pages and documents that carry no API token of their own, or check it themselves.
        path: '',
        authentication: false,
        authorization: false,
        mappingPolicy: 'restrict',
        aliases: {
          'GET api/openapi.json': page(function (this: GatewayThis, _req, res) {
            send(res, 'application/json; charset=utf-8', JSON.stringify(this.openApiDocument()));
          }),
          'GET api/docs': page((req, res) => {
            // The page's links are relative to /api/docs; with a trailing slash they would miss.
            const [pathname, query] = ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?');
            if (pathname.endsWith('/')) {
              res.writeHead(301, { Location: `${pathname.replace(/\/+$/, '')}${query === undefined ? '' : `?${query}`}` });
              return void res.end();
            }
            send(res, 'text/html', fs.readFileSync(path.join(PUBLIC_DIR, 'docs.html')));
          }),
          ...Object.fromEntries(
            Object.keys(STATIC_FILES).map((name) => [`GET ${name.startsWith('docs/') ? 'api/' : ''}${name}`, page(staticFile(name))]),
          ),
          'GET metrics': page(async function (this: GatewayThis, _req, res) {
            if (!this.prometheus) throw new NotFoundError('Metrics are disabled (METRICS=false)');
            await refreshHubMetrics(this.broker);
            send(res, PROMETHEUS_CONTENT_TYPE, this.prometheus.render());
          }),
          'GET console': page(async function (this: GatewayThis, req, res) {
            const token = tokenOf(req);
            if (!token) throw new UnauthorizedError('Access token is missing');
            const caller = await this.resolveCaller(token);
            if (!caller) throw new UnauthorizedError('Access token is invalid');
            if (!accessAllows(ACCESS.ADMIN, caller.role)) throw new ForbiddenError();
            send(res, 'text/html', fs.readFileSync(path.join(PUBLIC_DIR, 'console.html')));
          }),
        },
      },
      {
        path: '/health',
        authentication: false,
        authorization: false,
        mappingPolicy: 'restrict',
        aliases: { 'GET live': 'gateway.live', 'GET ready': 'gateway.ready' },
      },
      {
        path: '/api',
        autoAliases: true,
        mappingPolicy: 'restrict',
        authentication: true,
        authorization: true,
        mergeParams: true,
        bodyParsers: { json: { strict: true, limit: '1mb' }, urlencoded: false },
        use: [parseLargeJson, wrapArrayBody, refuseUnstorableInput],
        callOptions: {},
        onBeforeCall(ctx: Context<unknown, CallerMeta>, _route: unknown, req: HubRequest, _res: ServerResponse, alias: { path?: string }) {
          req.$params = actionParams(req, ctx.meta as Record<string, unknown>, pathParamsOf(alias?.path));
          ctx.meta.requestId = req.requestId;
          const idempotencyKey = req.headers['idempotency-key'];
          if (typeof idempotencyKey === 'string' && idempotencyKey.length > 0) ctx.meta.idempotencyKey = idempotencyKey;
        },
        onAfterCall(ctx: Context<unknown, CallerMeta>, _route: unknown, req: HubRequest, res: ServerResponse, data: unknown) {
          if (req.$action?.deprecated) res.setHeader('Deprecation', 'true');
          return data;
        },
        onError(this: GatewayThis, req: HubRequest, res: ServerResponse, err: unknown) {
          sendRendered.call(this, req, res, err);
        },
      },
    ],
    onError(this: GatewayThis, req: HubRequest, res: ServerResponse, err: unknown) {
      sendRendered.call(this, req, res, err);
    },
  },

  actions: {
    /**
     * moleculer-web's request handler. The call it makes is already retried where retrying is
     * right; retrying the handler itself would run it again without its HTTP request.
     */
    rest: { retryPolicy: { enabled: false } },

    // Published for the /health aliases; no `rest`, so not part of /api.
    /** Nodes and services up, outbox backlogs and webhook delivery health, for the console. */
    overview: {
      rest: 'GET /admin/overview',
      access: ACCESS.ADMIN,
      summary: 'Cluster overview for operators',
      description: 'Nodes and the services each runs, the outbox backlog of every service that has one, and webhook delivery health per receiver over the last `hours`.',
      params: { hours: { type: 'number', integer: true, min: 1, max: 168, default: 24 } },
      async handler(this: GatewayThis, ctx: Context<{ hours: number }>) {
        return clusterOverview(this.broker, ctx.params.hours);
      },
    },

    live: {
      handler() {
        return { status: 'ok' };
      },
    },

    /** Ready when the transporter is connected and this process's database (if any) answers. */
    ready: {
      async handler(this: GatewayThis, ctx: Context<unknown, CallerMeta>) {
        const { ok, checks } = await readiness(this.broker);
        if (!ok) ctx.meta.$statusCode = 503;
        return { status: ok ? 'ok' : 'unavailable', checks };
      },
    },
  },

  events: {
    /** A world load may give accounts new tokens or roles: forget what was resolved before. */
    'world.changed'(this: GatewayThis) {
      this.tokenCache.clear();
    },

    /**
     * Every service of this process has started: build the routes now rather than after
     * moleculer-web's debounce, so a process that says it has started serves every route.
     */
    '$broker.started'(this: GatewayThis) {
      this.regenerateAllAutoAliases.flush();
    },
  },

  methods: {
    async authenticate(this: GatewayThis, ctx: Context<unknown, CallerMeta>, _route: unknown, req: HubRequest) {
      const token = tokenOf(req);
      if (!token) throw new UnauthorizedError('Access token is missing');
      const address = req.socket.remoteAddress ?? '';
      // A token the gateway already knows to be valid passes; any other needs a lookup.
      const retryAfterSeconds = this.tokenCache.get(token)?.caller ? 0 : this.invalidTokens.retryAfterSeconds(address);
      if (retryAfterSeconds) throw new RateLimitedError(retryAfterSeconds);
      const caller = await this.resolveCaller(token, ctx);
      if (!caller) {
        this.invalidTokens.count(address);
        throw new UnauthorizedError('Access token is invalid');
      }
      ctx.meta.caller = caller;
      return caller;
    },

    authorize(this: GatewayThis, ctx: Context<unknown, CallerMeta>, _route: unknown, req: HubRequest) {
      const access = req.$action?.access;
      // An action that declares no access level is not part of the API.
      if (!isAccessLevel(access)) throw new NotFoundError();
      if (!accessAllows(access, ctx.meta.caller!.role)) throw new ForbiddenError();
      // The body's kind is checked once the caller may call the action at all.
      if (req.arrayBody !== takesArrayBody(req)) throw new FieldsValidationError({ body: [req.arrayBody ? MUST_BE_OBJECT : MUST_BE_ARRAY] });
    },

    /** The API as the registry declares it right now. */
    openApiDocument(this: GatewayThis) {
      const services = this.broker.registry.getServiceList({ withActions: true, grouping: true }) as unknown as ServiceInfo[];
      return buildOpenApi(services, { title: 'Service hub API', version: HUB_VERSION, basePath: API_PATH });
    },

    /** Asked within the request's context (`ctx`) when there is one, so the lookup is part of its trace. */
    async resolveCaller(this: GatewayThis, token: string, ctx?: Context): Promise<Caller | null> {
      // No token is that long; not worth a lookup.
      if (token.length > MAX_TOKEN_LENGTH) return null;
      const now = Date.now();
      const cached = this.tokenCache.get(token);
      if (cached && cached.expiresAt > now) return cached.caller;
      const caller = (await (ctx ?? this.broker).call('catalog.resolveToken', { token })) as Caller | null;
      if (this.tokenCache.size >= TOKEN_CACHE_MAX) this.tokenCache.clear();
      this.tokenCache.set(token, { caller, expiresAt: now + TOKEN_CACHE_MS });
      return caller;
    },
  },

  /** Settings that depend on the configuration; moleculer-web reads them when it is created. */
  merged(this: GatewayThis, schema: ServiceSchema) {
    const config = configOf(this.broker);
    const settings = schema.settings!;
    const isJson = (req: HubRequest) => JSON_CONTENT.test(String(req.headers['content-type'] ?? ''));
    schema.settings = {
      ...settings,
      port: config.port,
      ip: config.host,
      routes: settings.routes.map((route: Record<string, any>) =>
        route.path !== '/api'
          ? route
          : {
              ...route,
              bodyParsers: {
                ...route.bodyParsers,
                json: { ...route.bodyParsers.json, limit: config.bodyLimitBytes, type: (req: HubRequest) => isJson(req) && !takesLargeBody.call(this, req) },
                text: { limit: config.uploadBodyLimitBytes, type: (req: HubRequest) => isJson(req) && takesLargeBody.call(this, req) },
              },
              rateLimit: {
                window: 60_000,
                limit: config.rateLimitPerMinute,
                headers: true,
                // Counted per token (hashed: tokens never become store keys), or per address without one.
                key: (req: HubRequest) => {
                  const token = tokenOf(req);
                  return token ? createHash('sha256').update(token).digest('hex').slice(0, 32) : req.socket.remoteAddress;
                },
                ...(config.redisUrl ? { StoreFactory: RedisRateLimitStore, redisUrl: config.redisUrl, namespace: config.namespace } : {}),
              },
            },
      ),
    };
  },

  created(this: GatewayThis) {
    this.tokenCache = new Map();
    // Each made-up token costs a lookup, and the per-token rate limit gives each one a budget of
    // its own: an address gets the per-token budget of invalid tokens per minute, then 429.
    this.invalidTokens = new AttemptWindow(configOf(this.broker).rateLimitPerMinute, 60_000);
    if (this.broker.isMetricsEnabled()) registerHubMetrics(this.broker);
    this.prometheus = prometheusReporterOf(this.broker);
  },

  async stopped(this: GatewayThis) {
    for (const route of this.routes as Array<{ rateLimit?: { store?: unknown } }>) {
      const store = route.rateLimit?.store;
      if (store instanceof RedisRateLimitStore) store.redis.disconnect();
    }
  },
};

export default GatewayService;
