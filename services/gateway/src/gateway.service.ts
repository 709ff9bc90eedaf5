/**
 * gateway: the HTTP face of the hub. Routes come from the actions' own `rest` declarations;
 * the gateway authenticates the token, enforces each action's declared access level, renders
 * the spec's error envelopes, and adds a request id, an access log and a per-token rate limit.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import type { Context, ServiceSchema, Service, ServiceSettingSchema } from 'moleculer';
import ApiGateway from 'moleculer-web';
import {
  ACCESS,
  accessAllows,
  type Caller,
  type CallerMeta,
  configOf,
  detailsFromValidator,
  ERROR_TYPES,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
  ForbiddenError,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  isAccessLevel,
  isServing,
  NotFoundError,
  OLDER_VERSIONS_DEPRECATION,
  OLDER_VERSIONS_SUNSET,
  oversizedValue,
  PROMETHEUS_CONTENT_TYPE,
  RateLimitedError,
  prometheusReporterOf,
  readiness,
  renderError,
  type ScrapedPrometheusReporter,
  TEXT_PARAMS_META,
  UnauthorizedError,
  UnavailableError,
  unstorablePath,
} from '@hub/shared';
import { buildOpenApi, type ServiceInfo } from './openapi';
import { OVERVIEW, STORAGE } from './responses';
import { clusterOverview, clusterStorage, HUB_METRICS, refreshHubMetrics, registerHubMetrics } from './operations';
import { actingCaller, namedProviderOf } from './acting-provider';
import { AttemptWindow } from './attempt-window';
import { AnswerCache, answerKeyOf, type KeptAnswer } from './answer-cache';
import { RedisRateLimitStore } from './rate-limit-store';
import { camelCaseName, isTokenQueryParam, tokenOf } from './request-token';

const API_PATH = '/api';
const HEALTH_PATH = '/health';
const PUBLIC_DIR = path.resolve(__dirname, '../public');
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json lies outside the compiled rootDir
const HUB_VERSION = (require('../package.json') as { version: string }).version;

/** The files the explorer and the console load, and where each one lives. */
const STATIC_FILES: Record<string, { file: string; type: string }> = {
  'docs/swagger-ui.css': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui.css'), type: 'text/css' },
  'docs/swagger-ui-bundle.js': { file: path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript' },
  'docs/docs.js': { file: path.join(PUBLIC_DIR, 'docs.js'), type: 'text/javascript' },
  'console/console.js': { file: path.join(PUBLIC_DIR, 'console.js'), type: 'text/javascript' },
  'console/console.css': { file: path.join(PUBLIC_DIR, 'console.css'), type: 'text/css' },
};

/**
 * How long a client may take, beside the whole request (HTTP_REQUEST_TIMEOUT_MS): to send its
 * headers, and to keep an idle connection open between requests. Node checks them every
 * `checkIntervalMs`.
 */
export const HTTP_TIMEOUTS = {
  headersMs: 10_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
};

/** How long a resolved token is trusted before the directory is asked again. */
const TOKEN_CACHE_MS = 30_000;
const TOKEN_CACHE_MAX = 10_000;
/** Longer than any token the hub issues (catalog.resolveToken takes up to this). */
const MAX_TOKEN_LENGTH = 512;
/** The name of the per-token limit in the RateLimit-Policy and RateLimit fields: the hub has one. */
const RATE_LIMIT_POLICY = 'default';
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

type HubRequest = IncomingMessage & {
  query?: Record<string, unknown>;
  body?: unknown;
  requestId: string;
  startedAt: bigint;
  arrayBody: boolean;
  $params: Record<string, unknown>;
  $action?: { name: string; access?: unknown; deprecated?: boolean; params?: Record<string, unknown>; cache?: unknown };
  $ctx?: Context<unknown, CallerMeta>;
  /** The route moleculer-web matched; `rateLimit` is its limiter's options, `store` counting the window. */
  $route?: ApiRoute;
  /** The token's resolution the request was authenticated by, and the caller it acts as. */
  resolvedCaller?: Caller;
  caller?: Caller;
  /** The kept answers' generation when the request arrived (AnswerCache). */
  answerGeneration: number;
};

/** A route as moleculer-web keeps it, with its rate limiter (`store` counts the window). */
interface ApiRoute {
  path: string;
  rateLimit?: RateLimiter;
}

interface RateLimiter {
  limit: number;
  window: number;
  headers: boolean;
  key(req: IncomingMessage): string | undefined;
  store: { resetTime: number; inc(key: string): number | Promise<number> };
}

/** A route as moleculer-web builds it from an action's `rest` (its Alias). */
interface ServedRoute {
  method: string;
  action?: string;
  match(url: string): false | Record<string, string>;
}

type GatewayThis = Service & {
  /** Every route the gateway has served, kept when its service leaves, to tell "down" from "unknown". */
  servedRoutes: Map<string, ServedRoute>;
  /** The registry changed after moleculer-web last rebuilt its routes. */
  routesBehindRegistry: boolean;
  aliases: Array<ServedRoute & { fullPath: string }>;
  routes: ApiRoute[];
  httpHandler(req: IncomingMessage, res: ServerResponse): void;
  parseQueryString(req: IncomingMessage): { query: Record<string, unknown> };
  /** The route and alias moleculer-web would serve a request with, if any. */
  resolveAlias(url: string, method?: string): { alias?: { action?: string } } | undefined;
  /** Lookup answers kept as sent; none while tracing is on, so every request has its spans. */
  answers?: AnswerCache;
  server: http.Server;
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

function send(res: ServerResponse, type: string, body: string | Buffer, cache = 'no-store', status = 200) {
  res.statusCode = status;
  res.setHeader(
    'Content-Type',
    type.includes('charset') || !type.startsWith('text/') ? type : `${type}; charset=utf-8`,
  );
  res.setHeader('Cache-Control', cache);
  res.end(body);
}

function redirectToExplorer(req: HubRequest, res: ServerResponse) {
  const query = ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[1];
  res.writeHead(302, { Location: `/api/docs${query === undefined ? '' : `?${query}`}` });
  res.end();
}

function staticFile(name: string): PageHandler {
  const entry = STATIC_FILES[name];
  // Read on the first request and kept: the Swagger UI bundle is 1.7 MB and does not change while
  // the process runs, and a gateway nobody opens the explorer on never reads it.
  let body: Buffer | undefined;
  return (_req, res) => send(res, entry.type, (body ??= fs.readFileSync(entry.file)), 'public, max-age=300');
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
  const declared = req.$action?.params;
  const params: Record<string, unknown> = {};
  const text: string[] = [];
  const unknown: FieldDetails = {};
  for (const [sentKey, value] of Object.entries(req.$params)) {
    if (isTokenQueryParam(sentKey)) continue;
    const fromQuery = !pathParams.includes(sentKey) && Object.prototype.hasOwnProperty.call(req.query ?? {}, sentKey);
    const key = fromQuery && declared ? declaredName(declared, sentKey) : sentKey;
    // The product answers a query parameter it does not know with a validation error.
    if (fromQuery && declared && key === null) {
      unknown[sentKey] = [FIELD_MESSAGES.notAccepted];
      continue;
    }
    const fromBody = !pathParams.includes(key!) && Object.prototype.hasOwnProperty.call(body, key!);
    params[key!] = fromBody ? body[key!] : value;
    if (!fromBody) text.push(key!);
  }
  if (Object.keys(unknown).length) throw new FieldsValidationError(unknown);
  if (text.length) meta[TEXT_PARAMS_META] = text;
  return params;
}

/**
 * Refuses, naming the field, an array longer than the action declares, before the
 * call is sent: the serving node would refuse it too, after carrying it and reading all of it.
 */
function refuseOversizedParams(req: HubRequest) {
  const declared = req.$action?.params;
  const oversized = declared ? oversizedValue(declared, req.$params) : null;
  if (oversized) throw new FieldsValidationError(detailsFromValidator([oversized]));
}

/** The declared param a query name stands for, in the notation sent or in camelCase; null for none. */
function declaredName(declared: Record<string, unknown>, name: string): string | null {
  if (Object.prototype.hasOwnProperty.call(declared, name)) return name;
  const camel = camelCaseName(name);
  return Object.prototype.hasOwnProperty.call(declared, camel) ? camel : null;
}

/** The names of a route's path parameters (`/subscriptions/:id` has `id`). */
function pathParamsOf(routePath: string | undefined): string[] {
  return [...(routePath ?? '').matchAll(/:(\w+)/g)].map((match) => match[1]);
}

/**
 * Header fields as name, value, name, value: the form `writeHead` takes whole, so an answer that
 * sets no field one by one (a kept answer) hands Node its fields in one piece.
 */
type HeaderFields = Array<string | number>;

function setFields(res: ServerResponse, fields: HeaderFields) {
  for (let i = 0; i < fields.length; i += 2) res.setHeader(fields[i] as string, fields[i + 1]);
}

/**
 * The fields of every answer: its request id, and that no cache keeps it (answers hold partners'
 * and consumers' data; pages that may be cached say so).
 */
function standardFields(req: HubRequest): HeaderFields {
  return ['X-Request-Id', req.requestId, 'Cache-Control', 'no-store', 'X-Content-Type-Options', 'nosniff'];
}

/** An older version's path says so on every answer, an error too: since when, and when it may stop answering. */
function deprecationFields(req: HubRequest): HeaderFields {
  return req.$action?.deprecated ? ['Deprecation', OLDER_VERSIONS_DEPRECATION, 'Sunset', OLDER_VERSIONS_SUNSET] : [];
}

function markDeprecated(req: HubRequest, res: ServerResponse) {
  setFields(res, deprecationFields(req));
}

/** Whole seconds until the rate limit's window starts again (0 when it is due). */
function secondsUntilReset(store: { resetTime: number }): number {
  return Math.max(0, Math.ceil((store.resetTime - Date.now()) / 1000));
}

/**
 * The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers) beside
 * moleculer-web's X-Rate-Limit-* ones, on every answer its limiter counted: the quota per window,
 * what remains of it and when the window starts again.
 */
function markRateLimit(req: HubRequest, res: ServerResponse) {
  const limiter = req.$route?.rateLimit;
  const remaining = res.getHeader('X-Rate-Limit-Remaining');
  if (!limiter || remaining === undefined) return;
  setFields(res, rateLimitFields(limiter, Number(remaining)));
}

function rateLimitFields(limiter: RateLimiter, remaining: number): HeaderFields {
  return [
    'RateLimit-Policy',
    `"${RATE_LIMIT_POLICY}";q=${limiter.limit};w=${limiter.window / 1000}`,
    'RateLimit',
    `"${RATE_LIMIT_POLICY}";r=${remaining};t=${secondsUntilReset(limiter.store)}`,
  ];
}

/** moleculer-web's X-Rate-Limit-* fields, as its alias handler sets them after counting a request. */
function counterFields(limiter: RateLimiter, remaining: number): HeaderFields {
  return limiter.headers
    ? [
        'X-Rate-Limit-Limit',
        limiter.limit,
        'X-Rate-Limit-Remaining',
        Math.max(0, remaining),
        'X-Rate-Limit-Reset',
        limiter.store.resetTime,
      ]
    : [];
}

const rateLimitKeys = new Map<string, string>();

/** A token's key in the rate limit's store, hashed once per token rather than on every request. */
function rateLimitKeyOf(token: string): string {
  let key = rateLimitKeys.get(token);
  if (key === undefined) {
    if (rateLimitKeys.size >= TOKEN_CACHE_MAX) rateLimitKeys.clear();
    key = createHash('sha256').update(token).digest('hex').slice(0, 32);
    rateLimitKeys.set(token, key);
  }
  return key;
}

/** The Idempotency-Key as sent, refused (naming the header) when it is empty or longer than a key is kept. */
function idempotencyKeyOf(key: string): string {
  const problem =
    key.length === 0
      ? 'Must not be empty'
      : key.length > IDEMPOTENCY_KEY_MAX_LENGTH
        ? `Must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`
        : null;
  if (problem) throw new FieldsValidationError({ [IDEMPOTENCY_KEY_HEADER]: [problem] });
  return key;
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

/**
 * The latest response of each connection, set as its request arrives: a client error met on a
 * connection waits for the response under way, so answers leave in the order of the requests.
 */
const responseOfSocket = new WeakMap<Socket, ServerResponse>();

function assignRequestId(this: GatewayThis, req: HubRequest, res: ServerResponse, next: () => void) {
  beginRequest.call(this, req, res);
  setFields(res, standardFields(req));
  next();
}

/** Gives the request its id and its line in the access log, written when the answer is. */
function beginRequest(this: GatewayThis, req: HubRequest, res: ServerResponse) {
  requestIdOf(req);
  req.startedAt = process.hrtime.bigint();
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - req.startedAt) / 1e6;
    this.logger.info({
      msg: 'request',
      requestId: req.requestId,
      method: req.method,
      path: ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0],
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
      accountId: req.caller?.accountId,
    });
  });
}

function sendRendered(this: GatewayThis, req: HubRequest, res: ServerResponse, err: unknown) {
  const error = err as { type?: string; status?: number; code?: unknown; message?: string };
  // body-parser errors carry `status` and a `type` of their own instead of a Moleculer code.
  if (error?.type === 'entity.parse.failed')
    Object.assign(error, {
      code: 400,
      type: ERROR_TYPES.FIELDS_VALIDATION,
      data: { details: { body: [MALFORMED_JSON] } },
    });
  // zlib's failure on a body that is not what its Content-Encoding says, passed on with zlib's code.
  else if (typeof error?.code === 'string' && error.code.startsWith('Z_'))
    Object.assign(error, {
      code: 400,
      type: ERROR_TYPES.FIELDS_VALIDATION,
      data: { details: { body: [UNDECODABLE_BODY] } },
    });
  else if (error?.type === 'entity.too.large') Object.assign(error, { code: 413, data: undefined });
  else if (typeof error?.code !== 'number' && typeof error?.status === 'number')
    Object.assign(error, { code: error.status });

  let rendered = renderError(error, req.requestId);
  if (rendered.status === 404 && routesToAbsentService.call(this, req))
    rendered = renderError(new UnavailableError(), req.requestId);
  if (rendered.status === 429 && req.$route?.rateLimit)
    rendered.headers['Retry-After'] = String(Math.max(1, secondsUntilReset(req.$route.rateLimit.store)));
  // An outage (503) is logged once where it is met (a node gone, the transporter, the database), not per request.
  if (rendered.status >= 500 && rendered.status !== 503)
    this.logger.error({ requestId: req.requestId }, 'Request failed:', err);
  else if (rendered.status < 500)
    this.logger.warn({ requestId: req.requestId, status: rendered.status }, `Client error: ${error?.message}`);
  if (req.arrayBody || takesArrayBody(req)) rewriteArrayPaths(rendered.body);
  markDeprecated(req, res);
  markRateLimit(req, res);
  res.statusCode = rendered.status;
  for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.end(JSON.stringify(rendered.body));
}

/**
 * The server listens while the process's other services still start, before their routes exist,
 * and on a first start before its world (accounts and tokens) is in: a request then gets 503
 * with Retry-After, which clients retry, not the 404 of an unknown route or a 401.
 */
function answerStarting(this: GatewayThis, req: HubRequest, res: ServerResponse) {
  assignRequestId.call(this, req, res, () => undefined);
  sendRendered.call(this, req, res, new UnavailableError('The hub is starting'));
}

/**
 * Answers a request the gateway answered before (AnswerCache): same token resolution, acting
 * provider and URL, and the action still served somewhere. False routes it as any other.
 */
function answerFromCache(this: GatewayThis, req: HubRequest, res: ServerResponse): boolean {
  if (req.method !== 'GET') return false;
  req.query ??= this.parseQueryString(req).query;
  const token = tokenOf(req);
  const key = token === undefined ? undefined : answerKeyOf(req, token);
  const kept = key === undefined ? undefined : this.answers!.get(key);
  if (!kept) return false;
  const resolution = this.tokenCache.get(token!);
  if (resolution?.caller !== kept.resolvedCaller || resolution.expiresAt <= Date.now()) return false;
  // A service gone answers 503 through the routes, as it would without the kept answer.
  if (!registeredAction(this.broker, kept.action)?.hasAvailable()) return false;
  beginRequest.call(this, req, res);
  req.caller = kept.caller;
  req.$action = { name: kept.action, deprecated: kept.deprecated };
  req.$route = this.routes.find((route) => route.path === API_PATH);
  const fail = (err: unknown) => {
    setFields(res, standardFields(req));
    sendRendered.call(this, req, res, err);
  };
  // Counted as moleculer-web's alias handler counts the answers that reach it: the in-process
  // store counts at once, a shared one answers later.
  const limiter = req.$route?.rateLimit;
  const counterKey = limiter?.key(req);
  const count = limiter && counterKey ? limiter.store.inc(counterKey) : undefined;
  if (typeof count === 'object') count.then((counted) => sendKept.call(this, req, res, kept, counted)).catch(fail);
  else
    try {
      sendKept.call(this, req, res, kept, count);
    } catch (err) {
      fail(err);
    }
  return true;
}

/**
 * A kept answer, with the fields every request's answer has (request id, rate limit, deprecation),
 * written in one piece; over the rate limit, throws as moleculer-web's limiter does.
 */
function sendKept(this: GatewayThis, req: HubRequest, res: ServerResponse, kept: KeptAnswer, count?: number) {
  const fields = standardFields(req);
  const limiter = req.$route?.rateLimit;
  if (limiter && count !== undefined) {
    const remaining = limiter.limit - count;
    const counter = counterFields(limiter, remaining);
    if (remaining < 0) {
      setFields(res, counter);
      throw new ApiGateway.Errors.RateLimitExceeded('', undefined);
    }
    fields.push(...counter);
    if (counter.length) fields.push(...rateLimitFields(limiter, remaining));
  }
  fields.push(...deprecationFields(req), 'Content-Type', JSON_CONTENT_TYPE, 'Content-Length', kept.bytes);
  res.writeHead(200, fields);
  res.end(kept.body);
  if (this.broker.isMetricsEnabled()) this.broker.metrics.increment(HUB_METRICS.KEPT_ANSWERS, { action: kept.action });
}

/**
 * Whether the action's answers stay valid until a world is loaded: it is cached with no ttl, so its
 * own cacher keeps the answer until `world.changed` cleans it.
 */
function changesOnlyWithTheWorld(action: NonNullable<HubRequest['$action']>): boolean {
  const cache = action.cache as boolean | { ttl?: number } | undefined;
  return cache === true || (typeof cache === 'object' && cache !== null && !cache.ttl);
}

/** Keeps the answer of a cached action to a plain GET, for the next request the same (AnswerCache). */
function keepAnswer(this: GatewayThis, ctx: Context<unknown, CallerMeta>, req: HubRequest, data: unknown) {
  const token = tokenOf(req);
  const action = req.$action;
  const meta = ctx.meta as { $statusCode?: number; $responseType?: string; $responseHeaders?: object };
  if (!this.answers || !action || !changesOnlyWithTheWorld(action) || !req.resolvedCaller || token === undefined)
    return;
  if (meta.$statusCode !== undefined || meta.$responseType || meta.$responseHeaders) return;
  if (data === null || typeof data !== 'object') return;
  const key = answerKeyOf(req, token);
  if (key === undefined) return;
  const body = JSON.stringify(data);
  const kept = {
    body,
    bytes: Buffer.byteLength(body),
    action: action.name,
    deprecated: action.deprecated === true,
    resolvedCaller: req.resolvedCaller,
    caller: ctx.meta.caller!,
  };
  this.answers.keep(key, kept, req.answerGeneration);
}

/**
 * Whether the request is for a route the gateway served while its service ran, which it does not
 * serve now: its service runs nowhere, or has just come back and the routes are not yet rebuilt
 * (moleculer-web rebuilds them a moment after the registry changes). A 503 to try again, not the
 * 404 of a route that never existed, nor of a record its action did not find.
 */
function routesToAbsentService(this: GatewayThis, req: HubRequest): boolean {
  const url = (req as { parsedUrl?: string }).parsedUrl ?? req.url?.split('?')[0];
  if (!url) return false;
  const routes = [...this.servedRoutes].filter(([, route]) => route.method === req.method && route.match(url));
  const current = new Set(this.aliases.map((alias) => `${alias.method} ${alias.fullPath}`));
  if (routes.length === 0 || routes.some(([key]) => current.has(key))) return false;
  // findNextActionEndpoint answers an error when no node serves the action now.
  return (
    this.routesBehindRegistry ||
    routes.every(([, route]) => this.broker.findNextActionEndpoint(route.action!) instanceof Error)
  );
}

/** What the server answers a request it could not read as HTTP, with the error envelope. */
function clientErrorAnswer(err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }): {
  status: number;
  message: string;
} {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // Node's limit covers the request line and the headers together: which one took the room? The
    // packet may begin with requests before this one on the connection: this one follows their ends.
    const packet = err.rawPacket ?? Buffer.alloc(0);
    const overflowAt = err.bytesParsed || packet.length;
    // The parser stops at the end of the line that overflowed, which may be this request's last.
    const previousEnd = packet.lastIndexOf('\r\n\r\n', overflowAt - 4);
    const start = previousEnd === -1 ? 0 : previousEnd + 4;
    const lineEnd = packet.indexOf('\r\n', start);
    return lineEnd === -1 || lineEnd - start > (overflowAt - start) / 2
      ? { status: 414, message: 'Request URL is too long' }
      : { status: 431, message: 'Request headers are too large' };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'Request was not received in time' };
  return { status: 400, message: 'Malformed HTTP request' };
}

/**
 * How long a connection answered on the socket stays open to read what the client still sends:
 * a client that is sending the body of a refused request reads the answer only if the connection
 * is not cut under it (closing with unread input resets it).
 */
const CLIENT_ERROR_LINGER_MS = 2_000;

/** Connections answered on the socket: what they still send, and the errors it raises, are ignored. */
const answeredOnSocket = new WeakSet<Socket>();

/** Answers on the socket itself: a request Node could not parse has no response object. */
function answerClientError(this: GatewayThis, err: NodeJS.ErrnoException, socket: Socket) {
  if (answeredOnSocket.has(socket)) return;
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // A request not received in time has its own response, unsent: that is the one to answer. A
  // request Node could not parse has none, and the response under way is an earlier request's,
  // which goes out whole before this answer.
  const current = responseOfSocket.get(socket);
  if (current && !current.writableEnded) {
    if (err.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
      current.once('close', () => answerClientError.call(this, err, socket));
      return;
    }
    if (current.headersSent) {
      socket.destroy();
      return;
    }
  }
  answeredOnSocket.add(socket);
  const { status, message } = clientErrorAnswer(err);
  this.logger.warn({ status, code: err.code }, `Client error: ${message}`);
  const body = JSON.stringify({ error: { message } });
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n' +
      body,
  );
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
  const name = this.resolveAlias((req as { parsedUrl?: string }).parsedUrl ?? '', req.method)?.alias?.action;
  if (!name) return false;
  return registeredAction(this.broker, name)?.endpoints[0]?.action.largeBody === true;
}

/** The registry's endpoints of an action, which moleculer's typings leave out. */
function registeredAction(broker: GatewayThis['broker'], name: string) {
  const { actions } = broker.registry as unknown as {
    actions: {
      get(name: string): { endpoints: Array<{ action: { largeBody?: boolean } }>; hasAvailable(): boolean } | undefined;
    };
  };
  return actions.get(name);
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

/**
 * moleculer-web's settings (its ApiSettingsSchema types a request as its own IncomingRequest; the
 * gateway's hooks take the HubRequest they build on it).
 */
type GatewaySettings = ServiceSettingSchema & Record<string, unknown>;

const GatewayService: ServiceSchema<GatewaySettings, GatewayThis> = {
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
            send(res, JSON_CONTENT_TYPE, JSON.stringify(this.openApiDocument()));
          }),
          'GET api/docs': page((req, res) => {
            // The page's links are relative to /api/docs; with a trailing slash they would miss.
            const [pathname, query] = ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?');
            if (pathname.endsWith('/')) {
              res.writeHead(301, {
                Location: `${pathname.replace(/\/+$/, '')}${query === undefined ? '' : `?${query}`}`,
              });
              return void res.end();
            }
            send(res, 'text/html', fs.readFileSync(path.join(PUBLIC_DIR, 'docs.html')));
          }),
          ...Object.fromEntries(
            Object.keys(STATIC_FILES).map((name) => [
              `GET ${name.startsWith('docs/') ? 'api/' : ''}${name}`,
              page(staticFile(name)),
            ]),
          ),
          'GET metrics': page(async function (this: GatewayThis, _req, res) {
            if (!this.prometheus) throw new NotFoundError('Metrics are disabled (METRICS=false)');
            await refreshHubMetrics(this.broker);
            send(res, PROMETHEUS_CONTENT_TYPE, this.prometheus.render());
          }),
          'GET console': page(async function (this: GatewayThis, req, res) {
            const token = tokenOf(req);
            const caller = token ? await this.resolveCaller(token) : undefined;
            // A person opens this page: without an admin token it asks for one rather than answer JSON.
            if (!caller || !accessAllows(ACCESS.ADMIN, caller.role)) {
              const problem = !token
                ? 'Enter an admin token to open the console.'
                : !caller
                  ? 'That token is not known: enter an admin token.'
                  : "That token is not an admin's: enter an admin token.";
              const html = fs.readFileSync(path.join(PUBLIC_DIR, 'console-token.html'), 'utf8');
              return send(res, 'text/html', html.replace('{{problem}}', problem), 'no-store', caller ? 403 : 401);
            }
            send(res, 'text/html', fs.readFileSync(path.join(PUBLIC_DIR, 'console.html')));
          }),
          // Where a newcomer lands first: the explorer, keeping a token given in the query.
          'GET /': page(redirectToExplorer),
          'GET api': page(redirectToExplorer),
        },
      },
      {
        path: HEALTH_PATH,
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
        onBeforeCall(
          ctx: Context<unknown, CallerMeta>,
          _route: unknown,
          req: HubRequest,
          _res: ServerResponse,
          alias: { path?: string },
        ) {
          req.$params = actionParams(req, ctx.meta as Record<string, unknown>, pathParamsOf(alias?.path));
          refuseOversizedParams(req);
          ctx.meta.requestId = req.requestId;
          const idempotencyKey = req.headers['idempotency-key'];
          if (typeof idempotencyKey === 'string') ctx.meta.idempotencyKey = idempotencyKeyOf(idempotencyKey);
        },
        onAfterCall(
          ctx: Context<unknown, CallerMeta>,
          _route: unknown,
          req: HubRequest,
          res: ServerResponse,
          data: unknown,
        ) {
          markDeprecated(req, res);
          markRateLimit(req, res);
          keepAnswer.call(this as unknown as GatewayThis, ctx, req, data);
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
  metadata: {
    description: 'What operators see of the cluster: nodes, services, outboxes, webhook health and storage (admin).',
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
      response: OVERVIEW,
      description:
        'Nodes and the services each runs, the outbox backlog of every service that has one, and webhook delivery health per receiver over the last `hours`.',
      params: { hours: { type: 'number', integer: true, min: 1, max: 168, default: 24 } },
      async handler(this: GatewayThis, ctx: Context<{ hours: number }>) {
        return clusterOverview(this.broker, ctx.params.hours);
      },
    },

    /** Rows, bytes and oldest row per table of every service, and when each retention rule last ran. */
    storage: {
      rest: 'GET /admin/storage',
      access: ACCESS.ADMIN,
      summary: 'Storage and retention per service',
      response: STORAGE,
      description:
        'For every service with a database: rows and bytes (with indexes) of each table, the oldest row kept of the tables that age, and each retention rule with its period and last run (docs/retention.md). `unanswered` names services that did not answer in time.',
      async handler(this: GatewayThis) {
        return clusterStorage(this.broker);
      },
    },

    /** Internal: the API reference, for `hub openapi` and the REPL. */
    openApi: {
      visibility: 'public',
      handler(this: GatewayThis) {
        return this.openApiDocument();
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
    /** moleculer-web has rebuilt its routes from the registry: remember them, with their actions. */
    '$api.aliases.regenerated'(this: GatewayThis) {
      this.routesBehindRegistry = false;
      for (const alias of this.aliases)
        if (alias.action) this.servedRoutes.set(`${alias.method} ${alias.fullPath}`, alias);
    },

    /** moleculer-web rebuilds the routes a moment after this: until then they may lack a service that came back. */
    '$services.changed'(this: GatewayThis) {
      this.routesBehindRegistry = true;
    },

    /** A world load may give accounts new tokens or roles, and lookups new answers: forget what was resolved before. */
    'world.changed'(this: GatewayThis) {
      this.tokenCache.clear();
      this.answers?.clear();
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
    /** moleculer-web's server, with the client timeouts (HTTP_TIMEOUTS) and enveloped answers to unreadable requests. */
    createServer(this: GatewayThis) {
      const requestTimeout = configOf(this.broker).httpRequestTimeoutMs;
      this.server = http.createServer(
        {
          // Node wants the headers no later than the whole request.
          headersTimeout: Math.min(HTTP_TIMEOUTS.headersMs, requestTimeout),
          requestTimeout,
          keepAliveTimeout: HTTP_TIMEOUTS.keepAliveMs,
          connectionsCheckingInterval: HTTP_TIMEOUTS.checkIntervalMs,
        },
        (req, res) => {
          responseOfSocket.set(req.socket, res);
          if (!isServing(this.broker) && !req.url?.startsWith(`${HEALTH_PATH}/`)) {
            answerStarting.call(this, req as HubRequest, res);
            return;
          }
          if (this.answers) {
            (req as HubRequest).answerGeneration = this.answers.generation;
            if (answerFromCache.call(this, req as HubRequest, res)) return;
          }
          this.httpHandler(req, res);
        },
      );
      this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) =>
        answerClientError.call(this, err, socket),
      );
    },

    /** moleculer-web's error hook without its own log line, which gave client mistakes a stack: sendRendered logs. */
    errorHandler(this: GatewayThis, req: HubRequest, res: ServerResponse, err: unknown) {
      sendRendered.call(this, req, res, err);
    },

    async authenticate(this: GatewayThis, ctx: Context<unknown, CallerMeta>, _route: unknown, req: HubRequest) {
      const token = tokenOf(req);
      if (!token) throw new UnauthorizedError('Access token is missing');
      const address = req.socket.remoteAddress ?? '';
      // A token the gateway already knows to be valid passes; any other needs a lookup.
      const retryAfterSeconds = this.tokenCache.get(token)?.caller ? 0 : this.invalidTokens.retryAfterSeconds(address);
      if (retryAfterSeconds) throw new RateLimitedError(retryAfterSeconds);
      const resolved = await this.resolveCaller(token, ctx);
      if (!resolved) {
        this.invalidTokens.count(address);
        throw new UnauthorizedError('Access token is invalid');
      }
      const caller = await actingCaller(resolved, namedProviderOf(req), (id) =>
        ctx.call('catalog.provider', { id }).then(
          () => true,
          (err: Error & { code?: number }) => (err?.code === 404 ? false : Promise.reject(err)),
        ),
      );
      ctx.meta.caller = caller;
      req.resolvedCaller = resolved;
      req.caller = caller;
      return caller;
    },

    authorize(this: GatewayThis, ctx: Context<unknown, CallerMeta>, _route: unknown, req: HubRequest) {
      const access = req.$action?.access;
      // An action that declares no access level is not part of the API.
      if (!isAccessLevel(access)) throw new NotFoundError();
      if (!accessAllows(access, ctx.meta.caller!.role)) throw new ForbiddenError();
      // The body's kind is checked once the caller may call the action at all.
      if (req.arrayBody !== takesArrayBody(req))
        throw new FieldsValidationError({ body: [req.arrayBody ? MUST_BE_OBJECT : MUST_BE_ARRAY] });
    },

    /** The API as the registry declares it right now. */
    openApiDocument(this: GatewayThis) {
      const services = this.broker.registry.getServiceList({
        withActions: true,
        grouping: true,
      }) as unknown as ServiceInfo[];
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
    const settings = schema.settings as GatewaySettings;
    const isJson = (req: HubRequest) => JSON_CONTENT.test(String(req.headers['content-type'] ?? ''));
    const merged: GatewaySettings = {
      ...settings,
      port: config.port,
      ip: config.host,
      routes: (settings.routes as Array<{ path: string; bodyParsers: { json: object } }>).map((route) =>
        route.path !== '/api'
          ? route
          : {
              ...route,
              bodyParsers: {
                ...route.bodyParsers,
                json: {
                  ...route.bodyParsers.json,
                  limit: config.bodyLimitBytes,
                  type: (req: HubRequest) => isJson(req) && !takesLargeBody.call(this, req),
                },
                text: {
                  limit: config.uploadBodyLimitBytes,
                  type: (req: HubRequest) => isJson(req) && takesLargeBody.call(this, req),
                },
              },
              rateLimit: {
                window: 60_000,
                limit: config.rateLimitPerMinute,
                headers: true,
                // Counted per token (hashed: tokens never become store keys), or per address without one.
                key: (req: HubRequest) => {
                  const token = tokenOf(req);
                  return token ? rateLimitKeyOf(token) : req.socket.remoteAddress;
                },
                ...(config.redisUrl
                  ? { StoreFactory: RedisRateLimitStore, redisUrl: config.redisUrl, namespace: config.namespace }
                  : {}),
              },
            },
      ),
    };
    schema.settings = merged;
  },

  created(this: GatewayThis) {
    this.servedRoutes = new Map();
    this.routesBehindRegistry = false;
    this.tokenCache = new Map();
    if (configOf(this.broker).tracing.kind === 'none') this.answers = new AnswerCache();
    // Each made-up token costs a lookup, and the per-token rate limit gives each one a budget of
    // its own: an address gets the per-token budget of invalid tokens per minute, then 429.
    this.invalidTokens = new AttemptWindow(configOf(this.broker).rateLimitPerMinute, 60_000);
    if (this.broker.isMetricsEnabled()) registerHubMetrics(this.broker);
    this.prometheus = prometheusReporterOf(this.broker);
  },

  stopped(this: GatewayThis) {
    for (const route of this.routes as Array<{ rateLimit?: { store?: unknown } }>) {
      const store = route.rateLimit?.store;
      if (store instanceof RedisRateLimitStore) store.redis.disconnect();
    }
  },
};

export default GatewayService;
