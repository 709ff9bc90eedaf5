/**
 * Process configuration, parsed and validated once from the environment.
 *
 * Every setting has a documented default that makes `npm start` work on a machine with nothing
 * but Node (embedded mode). A malformed value stops start-up with a message naming the variable.
 */
import path from 'node:path';

export const ALL_SERVICES = [
  'catalog',
  'routing',
  'models',
  'booking',
  'cost-proposals',
  'messaging',
  'invoicing',
  'webhooks',
  'sandbox',
  'gateway',
] as const;
export type ServiceName = (typeof ALL_SERVICES)[number];

export type TracingExporter = { kind: 'none' } | { kind: 'console' } | { kind: 'zipkin'; endpoint: string };

export interface HubConfig {
  /** embedded: one process, in-process transport, PGlite; distributed: NATS and a Postgres server. */
  mode: 'embedded' | 'distributed';
  /** Nodes talk only to nodes of the same namespace on a shared NATS. */
  namespace: string;
  nodeId?: string;
  services: ServiceName[];
  host: string;
  port: number;
  /** Where a process without the gateway serves /health/live and /health/ready; unset: nowhere. */
  healthPort?: number;
  /** Postgres connection string; absent in embedded mode, where PGlite serves the database. */
  databaseUrl?: string;
  /** Where the embedded database and uploaded files live. */
  dataDir: string;
  /** Connections per process to a Postgres server (embedded mode always uses one session). */
  databasePoolSize: number;
  transporter?: string;
  /** `memory` or a redis:// URL. */
  cacher: string;
  /** Redis for the gateway's rate limit store; absent means an in-process store. */
  redisUrl?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  logFormat: 'json' | 'short';
  metrics: boolean;
  tracing: TracingExporter;
  /** Requests a token may make per minute through the gateway. */
  rateLimitPerMinute: number;
  /** Largest JSON body the gateway accepts, in bytes. */
  bodyLimitBytes: number;
  /** Load the demo world when the database holds no world yet. */
  loadDemoWorld: boolean;
  /** How long a call between services may take before it fails, in milliseconds. */
  requestTimeoutMs: number;
  /**
   * How long a client may take to send one whole HTTP request to the gateway, in milliseconds: a
   * slow or lying client (a `Content-Length` larger than its body) is answered 408 and cut off.
   */
  httpRequestTimeoutMs: number;
  /**
   * Delay before each webhook delivery attempt, in milliseconds: the first entry is the first
   * attempt; after the last one fails the delivery is dead-lettered. Jitter is added to each.
   */
  webhookRetryScheduleMs: number[];
  /** How long one webhook attempt (connect, send, answer or AMQP confirm) may take. */
  webhookAttemptTimeoutMs: number;
  /**
   * Networks (CIDR) webhook targets may reach although they are not global addresses. Embedded
   * mode allows loopback so a receiver on the same machine works; distributed mode allows none.
   */
  webhookAllowedNetworks: string[];
  /** Where uploaded case files are kept; every booking instance must see the same directory. */
  filesDir: string;
  /** Largest single case file, decoded, in bytes. */
  fileMaxBytes: number;
  /** Largest body of an action that takes uploads (`largeBody`), in bytes. */
  uploadBodyLimitBytes: number;
  /** SMTP server for case emails (smtp:// or smtps://); absent means emails are disabled. */
  smtpUrl?: string;
  /** The From address of case emails. */
  mailFrom: string;
  /**
   * How long an Idempotency-Key answers a retry with the first answer of its write; after that the
   * key is forgotten and may write again.
   */
  idempotencyKeyTtlMs: number;
  /** The retention policy each owning service applies in the background (docs/retention.md). */
  retention: RetentionSettings;
  /**
   * Hub seconds per real second. 1 (the default) is wall time; tests and benchmarks that
   * compress time (a simulated year) run the hub's clock faster, see `HubClock`.
   */
  clockRate: number;
  /**
   * How often the sandbox looks for new cases of its simulated providers, for steps that are
   * due and for the partners' answers to its cost proposals.
   */
  sandboxPollIntervalMs: number;
}

export interface RetentionSettings {
  /** Off keeps every row for ever (the simulation's baseline); on is the default. */
  enabled: boolean;
  /** How often each service's retention job runs. */
  intervalMs: number;
  /** Rows removed per statement (and transaction), so no lock is held for long. */
  batchSize: number;
  /** Outbox events handed to the webhooks service, counted from the hand-over. */
  relayedEventsMs: number;
  /** Webhook deliveries that succeeded, with their attempts, counted from the success. */
  deliveredMs: number;
  /** Dead-lettered webhook deliveries (until redelivered), with their attempts. */
  deadLettersMs: number;
  /** Entries of the parties' event feeds (`GET /api/v3/events`), counted from when the hub took the event. */
  eventFeedMs: number;
  /** The request log (requests/log records and tracked booking attempts). */
  requestLogMs: number;
  /** The hub time one partition of a time-partitioned table spans (webhook deliveries and attempts). */
  partitionSpanMs: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function services(env: Env): ServiceName[] {
  const raw = env.SERVICES;
  if (raw === undefined || raw.trim() === '' || raw.trim() === '*') return [...ALL_SERVICES];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(ALL_SERVICES as readonly string[]).includes(name)) {
      throw new ConfigError('SERVICES', `names an unknown service "${name}" (known: ${ALL_SERVICES.join(', ')})`);
    }
  }
  return names as ServiceName[];
}

function bytes(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)(kb|mb)?$/i.exec(raw.trim());
  if (!match) throw new ConfigError(name, `must be a size such as 1048576, 512kb or 1mb, got "${raw}"`);
  const unit = (match[2] ?? '').toLowerCase();
  return Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}

function tracing(env: Env): TracingExporter {
  const raw = env.TRACING;
  if (raw === undefined || raw === '' || raw === 'none') return { kind: 'none' };
  if (raw === 'console') return { kind: 'console' };
  const match = /^zipkin:(https?:\/\/.+)$/.exec(raw);
  // Jaeger takes spans in the Zipkin format, so one exporter serves both.
  if (!match)
    throw new ConfigError(
      'TRACING',
      `must be none, console or zipkin:<url> (for Jaeger, its Zipkin endpoint: zipkin:http://jaeger:9411), got "${raw}"`,
    );
  return { kind: 'zipkin', endpoint: match[1] };
}

/** The Standard Webhooks example schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,14h,20h,24h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as configuration and world files write it (`0`, `250ms`, `90s`, `5m`, `2h`, `7d`), in ms; null if it is none. */
export function millisecondsOf(item: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(item.trim());
  return match ? Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms'] : null;
}

function durations(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] === undefined || env[name] === '' ? fallback : env[name];
  return raw.split(',').map((item) => {
    const ms = millisecondsOf(item);
    if (ms === null)
      throw new ConfigError(name, `must be a comma-separated list of durations such as 0,5s,5m,2h, got "${raw}"`);
    return ms;
  });
}

function duration(env: Env, name: string, fallback: string): number {
  const raw = env[name] === undefined || env[name] === '' ? fallback : env[name];
  const ms = millisecondsOf(raw);
  if (!ms) throw new ConfigError(name, `must be a positive duration such as 90s, 30m, 24h or 7d, got "${raw}"`);
  return ms;
}

/** The console charts a receiver's attempts over up to 168 hours; deliveries must outlive them. */
export const SHORTEST_DELIVERY_RETENTION_MS = 7 * 86_400_000;

/** Partners are promised 30 days to read what they missed from their event feed. */
export const SHORTEST_EVENT_FEED_RETENTION_MS = 30 * 86_400_000;

function retention(env: Env): RetentionSettings {
  const kept = (name: string, fallback: string, shortest?: { ms: number; why: string }) => {
    const ms = duration(env, name, fallback);
    if (shortest && ms < shortest.ms)
      throw new ConfigError(
        name,
        `must be at least ${shortest.ms / 86_400_000}d (${shortest.why}), got "${env[name]}"`,
      );
    return ms;
  };
  const deliveries = { ms: SHORTEST_DELIVERY_RETENTION_MS, why: "the console's longest chart" };
  return {
    enabled: flag(env, 'RETENTION', true),
    intervalMs: duration(env, 'RETENTION_INTERVAL', '10m'),
    batchSize: integer(env, 'RETENTION_BATCH_SIZE', 1000, 1, 100_000),
    relayedEventsMs: kept('RETENTION_RELAYED_EVENTS', '7d'),
    deliveredMs: kept('RETENTION_DELIVERED_WEBHOOKS', '30d', deliveries),
    deadLettersMs: kept('RETENTION_DEAD_LETTERS', '90d', deliveries),
    eventFeedMs: kept('RETENTION_EVENT_FEED', '30d', {
      ms: SHORTEST_EVENT_FEED_RETENTION_MS,
      why: 'what the event feed promises partners',
    }),
    requestLogMs: kept('RETENTION_REQUEST_LOG', '90d'),
    partitionSpanMs: partitionSpan(env),
  };
}

/** Shorter spans make more partitions to read; longer ones keep rows longer past their period. */
function partitionSpan(env: Env): number {
  const ms = duration(env, 'RETENTION_PARTITION_SPAN', '7d');
  if (ms < 3_600_000 || ms > SHORTEST_DELIVERY_RETENTION_MS)
    throw new ConfigError('RETENTION_PARTITION_SPAN', `must be from 1h to 7d, got "${env.RETENTION_PARTITION_SPAN}"`);
  return ms;
}

function rate(env: Env, name: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return 1;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value < 1)
    throw new ConfigError(name, `must be a number of 1 or more (hub seconds per real second), got "${raw}"`);
  return value;
}

function networks(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw.trim() === 'none') return [];
  return raw.split(',').map((item) => {
    const cidr = item.trim();
    if (!/^[0-9a-fA-F.:]+\/\d{1,3}$/.test(cidr))
      throw new ConfigError(name, `must be a comma-separated list of CIDR networks (or none), got "${raw}"`);
    return cidr;
  });
}

export function loadConfig(env: Env = process.env): HubConfig {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const transporter = url(env, 'TRANSPORTER', ['nats:']);
  const cacher = env.CACHER && env.CACHER !== 'memory' ? url(env, 'CACHER', ['redis:', 'rediss:'])! : 'memory';
  const mode = databaseUrl || transporter ? 'distributed' : 'embedded';
  const dataDir = env.DATA_DIR || 'data';
  return {
    mode,
    namespace: env.NAMESPACE || 'service-hub',
    nodeId: env.NODE_ID || undefined,
    services: services(env),
    host: env.HOST || '0.0.0.0',
    port: integer(env, 'PORT', 3000, 0, 65535),
    healthPort: env.HEALTH_PORT ? integer(env, 'HEALTH_PORT', 0, 0, 65535) : undefined,
    databaseUrl,
    dataDir,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    transporter,
    cacher,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']) ?? (cacher === 'memory' ? undefined : cacher),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'short'] as const, mode === 'embedded' ? 'short' : 'json'),
    metrics: flag(env, 'METRICS', true),
    tracing: tracing(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    bodyLimitBytes: bytes(env, 'BODY_LIMIT', 1024 * 1024),
    loadDemoWorld: flag(env, 'LOAD_DEMO_WORLD', mode === 'embedded'),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 15_000, 100, 600_000),
    httpRequestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000),
    webhookRetryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    webhookAttemptTimeoutMs: integer(env, 'WEBHOOK_ATTEMPT_TIMEOUT_MS', 15_000, 10, 600_000),
    webhookAllowedNetworks: networks(
      env,
      'WEBHOOK_ALLOWED_NETWORKS',
      mode === 'embedded' ? ['127.0.0.0/8', '::1/128'] : [],
    ),
    filesDir: env.FILES_DIR || path.join(dataDir, 'files'),
    fileMaxBytes: bytes(env, 'FILE_MAX_SIZE', 10 * 1024 * 1024),
    uploadBodyLimitBytes: bytes(env, 'UPLOAD_BODY_LIMIT', 32 * 1024 * 1024),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'Service hub <no-reply@service-hub.invalid>',
    idempotencyKeyTtlMs: duration(env, 'IDEMPOTENCY_KEY_TTL', '24h'),
    retention: retention(env),
    clockRate: rate(env, 'CLOCK_RATE'),
    sandboxPollIntervalMs: duration(env, 'SANDBOX_POLL_INTERVAL', '2s'),
  };
}
