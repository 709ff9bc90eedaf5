/**
 * Process configuration, read once from the environment at start-up.
 *
 * `CONFIG_VARIABLES` declares every variable the hub reads: its kind (what text it takes, checked
 * by fastest-validator), its default, and what it means. The README's configuration table is
 * written from it (`npm run docs:config`). Every default makes `npm start` work on a machine with
 * nothing but Node (embedded mode); a malformed value stops start-up with a message naming the
 * variable.
 */
import path from 'node:path';
import FastestValidator, { type ValidationRuleObject } from 'fastest-validator';

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

/** The error fastest-validator reports, or a kind's own check with what it found. */
interface KindError {
  type: string;
  /** What a kind's own check says, after the variable's name; the kind's `problem` where absent. */
  found?: string;
}

/** How a variable's text is read: what it takes, the validator's rule for it, and its value. */
export interface Kind<T> {
  /** What the variable takes, as the README's table says it. */
  takes: string;
  /** The rule the text must pass; a `custom` check pushes errors that carry their own message. */
  rule: ValidationRuleObject;
  /** What a rule's failure says, after the variable's name: `must be ...`. */
  problem: string | ((error: KindError) => string);
  /** The value of text the rule accepted. */
  read: (text: string) => T;
}

/** A check of the text beyond the rule's own, as the validator's `custom` function: it answers the error or nothing. */
const checked =
  (check: (text: string) => KindError | undefined) =>
  (value: unknown, errors: unknown[]): unknown => {
    const error = typeof value === 'string' ? check(value) : undefined;
    if (error) errors.push(error);
    return value;
  };

/** The kinds of value a variable takes. Each is one rule; none parses a variable of its own. */
const kinds = {
  text: (): Kind<string> => ({
    takes: 'text',
    rule: { type: 'string' },
    problem: 'must be text',
    read: (text) => text,
  }),

  integer: (min: number, max: number): Kind<number> => ({
    takes: `whole number, ${min} to ${max}`,
    rule: { type: 'number', convert: true, integer: true, min, max },
    problem: (error) =>
      error.type === 'numberMin' || error.type === 'numberMax'
        ? `must be between ${min} and ${max}`
        : 'must be a whole number',
    read: Number,
  }),

  /** A number of at least `min`, fractions allowed. */
  number: (min: number, unit: string): Kind<number> => ({
    takes: `number, ${min} or more`,
    rule: { type: 'number', convert: true, min },
    problem: `must be a number of ${min} or more (${unit})`,
    read: Number,
  }),

  flag: (): Kind<boolean> => ({
    takes: '`true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`)',
    rule: { type: 'string', trim: true, lowercase: true, enum: [...FLAG_TRUE, ...FLAG_FALSE] },
    problem: 'must be true or false',
    read: (text) => FLAG_TRUE.includes(text.trim().toLowerCase()),
  }),

  oneOf: <T extends string>(values: readonly T[]): Kind<T> => ({
    takes: values.map((value) => `\`${value}\``).join(', '),
    rule: { type: 'enum', values: [...values] },
    problem: `must be one of ${values.join(', ')}`,
    read: (text) => text as T,
  }),

  /** A URL of one of `protocols`, or the one `word` where a variable takes one instead. */
  url: (protocols: string[], word?: string): Kind<string> => ({
    takes: `${word ? `\`${word}\` or ` : ''}URL (${protocols.map((protocol) => `\`${protocol}//\``).join(', ')})`,
    rule: {
      type: 'string',
      custom: checked((text) => {
        if (text === word) return undefined;
        const protocol = URL.canParse(text) ? new URL(text).protocol : undefined;
        if (protocol === undefined) return { type: 'url', found: 'must be a URL' };
        if (!protocols.includes(protocol))
          return { type: 'protocol', found: `must use ${protocols.join(' or ')}, got "${protocol}"` };
        return undefined;
      }),
    },
    problem: 'must be a URL',
    read: (text) => text,
  }),

  /** A size in bytes, written as bytes or with `kb` or `mb`. */
  size: (): Kind<number> => ({
    takes: 'size (`1048576`, `512kb`, `1mb`)',
    rule: { type: 'string', pattern: SIZE },
    problem: 'must be a size such as 1048576, 512kb or 1mb',
    read: (text) => {
      const [, digits, unit = ''] = SIZE.exec(text.trim())!;
      return Number(digits) * (unit.toLowerCase() === 'mb' ? 1024 * 1024 : unit.toLowerCase() === 'kb' ? 1024 : 1);
    },
  }),

  /**
   * A positive duration (`90s`, `30m`, `24h`, `7d`), in ms. `at` bounds it: `least` with the
   * reason for it alone, or `least` and `most` together.
   */
  duration: (at: { least?: number; most?: number; why?: string } = {}): Kind<number> => ({
    takes: `duration (${durationRange(at)})`,
    rule: {
      type: 'string',
      custom: checked((text) => {
        const ms = millisecondsOf(text);
        if (!ms) return { type: 'duration' };
        if (ms >= (at.least ?? 1) && ms <= (at.most ?? Infinity)) return undefined;
        return {
          type: 'range',
          found:
            at.most === undefined
              ? `must be at least ${durationText(at.least!)} (${at.why})`
              : `must be from ${durationText(at.least ?? 1)} to ${durationText(at.most)}`,
        };
      }),
    },
    problem: 'must be a positive duration such as 90s, 30m, 24h or 7d',
    read: (text) => millisecondsOf(text)!,
  }),

  /** Durations, comma-separated, in ms (`0,5s,5m,2h`). */
  durations: (): Kind<number[]> => ({
    takes: 'durations, comma-separated (`0,5s,5m,2h`)',
    rule: { type: 'string', pattern: new RegExp(`^${DURATION.source}(,${DURATION.source})*$`) },
    problem: 'must be a comma-separated list of durations such as 0,5s,5m,2h',
    read: (text) => text.split(',').map((item) => millisecondsOf(item)!),
  }),

  /** CIDR networks, comma-separated, or `none`. */
  networks: (): Kind<string[]> => ({
    takes: 'CIDR networks, comma-separated, or `none`',
    rule: { type: 'string', pattern: new RegExp(`^(\\s*none\\s*|${CIDR.source}(,${CIDR.source})*)$`) },
    problem: 'must be a comma-separated list of CIDR networks (or none)',
    read: (text) => (text.trim() === 'none' ? [] : text.split(',').map((item) => item.trim())),
  }),

  services: (): Kind<ServiceName[]> => ({
    takes: `\`*\` or service names, comma-separated (${ALL_SERVICES.map((name) => `\`${name}\``).join(', ')})`,
    rule: {
      type: 'string',
      custom: checked((text) => {
        const unknown = serviceNames(text).find((name) => !(ALL_SERVICES as readonly string[]).includes(name));
        if (unknown === undefined) return undefined;
        return { type: 'service', found: `names an unknown service "${unknown}" (known: ${ALL_SERVICES.join(', ')})` };
      }),
    },
    problem: 'must name services',
    read: (text) => {
      const names = serviceNames(text);
      return names.length === 0 ? [...ALL_SERVICES] : (names as ServiceName[]);
    },
  }),

  tracing: (): Kind<TracingExporter> => ({
    takes: '`none`, `console` or `zipkin:<url>`',
    // Jaeger takes spans in the Zipkin format, so one exporter serves both.
    rule: { type: 'string', pattern: TRACING },
    problem: 'must be none, console or zipkin:<url> (for Jaeger, its Zipkin endpoint: zipkin:http://jaeger:9411)',
    read: (text) => {
      if (text === 'none' || text === 'console') return { kind: text };
      return { kind: 'zipkin', endpoint: text.slice('zipkin:'.length) };
    },
  }),
};

const FLAG_TRUE = ['1', 'true', 'yes', 'on'];
const FLAG_FALSE = ['0', 'false', 'no', 'off'];
const SIZE = /^\s*(\d+)(kb|mb)?\s*$/i;
const DURATION = /\s*\d+(ms|s|m|h|d)?\s*/;
const CIDR = /\s*[0-9a-fA-F.:]+\/\d{1,3}\s*/;
const TRACING = /^(none|console|zipkin:https?:\/\/.+)$/;

/** The names in a list of services; `*` (or none) means every service. */
const serviceNames = (text: string) =>
  text.trim() === '*'
    ? []
    : text
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean);

/** The Standard Webhooks example schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,14h,20h,24h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as configuration and world files write it (`0`, `250ms`, `90s`, `5m`, `2h`, `7d`), in ms; null if it is none. */
export function millisecondsOf(item: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(item.trim());
  return match ? Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms'] : null;
}

/** A duration in the largest unit that writes it whole (`7d`, `1h`, `90s`). */
function durationText(ms: number): string {
  const [unit, size] = Object.entries(DURATION_UNITS)
    .reverse()
    .find(([, size]) => ms % size === 0)!;
  return `${ms / size}${unit}`;
}

function durationRange(at: { least?: number; most?: number }): string {
  if (at.most !== undefined) return `${durationText(at.least ?? 1)} to ${durationText(at.most)}`;
  if (at.least !== undefined) return `at least ${durationText(at.least)}`;
  return '`90s`, `30m`, `24h`, `7d`';
}

/** The console charts a receiver's attempts over up to 168 hours; deliveries must outlive them. */
export const SHORTEST_DELIVERY_RETENTION_MS = 7 * 86_400_000;

/** Partners are promised 30 days to read what they missed from their event feed. */
export const SHORTEST_EVENT_FEED_RETENTION_MS = 30 * 86_400_000;

const deliveries = { least: SHORTEST_DELIVERY_RETENTION_MS, why: "the console's longest chart" };

/** A default as the variable's text, the same in both modes or one for each; absent: none. */
type Default = string | { embedded?: string; distributed?: string };

/** One environment variable: the kind of value it takes, its default and what it means. */
export type ConfigVariable<T = unknown> = {
  kind: Kind<T>;
  /** What the README says the default is, where it is not the text itself (derived, or none). */
  shown?: string;
  description: string;
} & (
  | { default?: Default; secret?: never }
  /** Holds a credential: it has no default outside embedded mode, and an error does not repeat it. */
  | { default?: { embedded: string }; secret: true }
);

/**
 * Every environment variable the hub reads, in the order the README lists them. Unset and empty
 * are the same: the default.
 */
export const CONFIG_VARIABLES = {
  SERVICES: {
    kind: kinds.services(),
    default: '*',
    shown: 'all',
    description: 'comma-separated services this process runs',
  },
  PORT: { kind: kinds.integer(0, 65535), default: '3000', description: 'the port the gateway listens on' },
  HOST: { kind: kinds.text(), default: '0.0.0.0', description: 'the address the gateway listens on' },
  DATABASE_URL: {
    kind: kinds.url(['postgres:', 'postgresql:']),
    shown: '(embedded PGlite)',
    description: 'Postgres connection string; setting it means distributed mode',
    secret: true,
  },
  DATA_DIR: { kind: kinds.text(), default: 'data', description: 'embedded database directory' },
  DATABASE_POOL_SIZE: {
    kind: kinds.integer(1, 500),
    default: '10',
    description:
      "connections per process to a Postgres server; each connection's server process keeps up to 16 MiB of freed memory between statements (its first statement raises glibc's mmap and trim thresholds above the largest block a statement's memory grows by, so statements do not fault their memory back in)",
  },
  TRANSPORTER: {
    kind: kinds.url(['nats:']),
    shown: '(in-process)',
    description: '`nats://host:4222`; setting it means distributed mode',
    secret: true,
  },
  NAMESPACE: {
    kind: kinds.text(),
    default: 'service-hub',
    description: 'nodes see only nodes of the same namespace',
  },
  CACHER: {
    kind: kinds.url(['redis:', 'rediss:'], 'memory'),
    default: 'memory',
    description: '`memory` or `redis://host:6379`',
  },
  REDIS_URL: {
    kind: kinds.url(['redis:', 'rediss:']),
    shown: '`CACHER` when Redis',
    description: 'the rate limit store shared by all gateways',
    secret: true,
  },
  RATE_LIMIT_PER_MINUTE: {
    kind: kinds.integer(1, 10_000_000),
    default: '1200',
    description:
      'requests per token per minute (429 with `Retry-After` beyond; every counted answer carries `RateLimit-Policy` and `RateLimit`); also how many invalid tokens an address may send per minute before its unknown tokens get 429',
  },
  BODY_LIMIT: { kind: kinds.size(), default: '1mb', description: 'largest JSON body (413 beyond)' },
  UPLOAD_BODY_LIMIT: {
    kind: kinds.size(),
    default: '32mb',
    description: 'largest body of `case/files` (413 beyond)',
  },
  FILES_DIR: {
    kind: kinds.text(),
    shown: '`<DATA_DIR>/files`',
    description: 'where uploaded case files are kept; shared by every booking instance',
  },
  FILE_MAX_SIZE: { kind: kinds.size(), default: '10mb', description: 'largest single case file, decoded' },
  SMTP_URL: {
    kind: kinds.url(['smtp:', 'smtps:']),
    shown: '(none: emails disabled)',
    description: '`smtp://user:pass@host:587` or `smtps://...`, for `case/send-completed-email`',
    secret: true,
  },
  MAIL_FROM: {
    kind: kinds.text(),
    default: 'Service hub <no-reply@service-hub.invalid>',
    description: 'From address of case emails',
  },
  IDEMPOTENCY_KEY_TTL: {
    kind: kinds.duration(),
    default: '24h',
    description:
      'how long an `Idempotency-Key` answers retries of a write with its first answer; then it is forgotten and removed ([docs/idempotency.md](docs/idempotency.md))',
  },
  RETENTION: {
    kind: kinds.flag(),
    default: 'on',
    description: 'the retention job each service runs; `off` keeps every row ([docs/retention.md](docs/retention.md))',
  },
  RETENTION_INTERVAL: {
    kind: kinds.duration(),
    default: '10m',
    description: "how often each service's retention job runs",
  },
  RETENTION_BATCH_SIZE: {
    kind: kinds.integer(1, 100_000),
    default: '1000',
    description: 'rows the retention job removes per statement',
  },
  RETENTION_PARTITION_SPAN: {
    kind: kinds.duration({ least: 3_600_000, most: SHORTEST_DELIVERY_RETENTION_MS }),
    default: '7d',
    description:
      'the time one partition of webhook deliveries and attempts spans ([docs/retention.md](docs/retention.md#partitions)); shorter spans make more partitions to read, longer ones keep rows longer past their period',
  },
  RETENTION_RELAYED_EVENTS: {
    kind: kinds.duration(),
    default: '7d',
    description: 'how long relayed outbox events are kept',
  },
  RETENTION_DELIVERED_WEBHOOKS: {
    kind: kinds.duration(deliveries),
    default: '30d',
    description: 'how long delivered webhooks are kept',
  },
  RETENTION_DEAD_LETTERS: {
    kind: kinds.duration(deliveries),
    default: '90d',
    description: 'how long dead letters are kept',
  },
  RETENTION_EVENT_FEED: {
    kind: kinds.duration({
      least: SHORTEST_EVENT_FEED_RETENTION_MS,
      why: 'what the event feed promises partners',
    }),
    default: '30d',
    description: "how long the parties' event feeds are kept",
  },
  RETENTION_REQUEST_LOG: {
    kind: kinds.duration(),
    default: '90d',
    description: 'how long the request log is kept',
  },
  CLOCK_RATE: {
    kind: kinds.number(1, 'hub seconds per real second'),
    default: '1',
    description: 'hub seconds per real second, for tests and benchmarks that compress time; leave unset in production',
  },
  SANDBOX_POLL_INTERVAL: {
    kind: kinds.duration(),
    default: '2s',
    description:
      'how often the sandbox looks for new cases of simulated providers, for due steps and for answers to its cost proposals',
  },
  REQUEST_TIMEOUT_MS: {
    kind: kinds.integer(100, 600_000),
    default: '15000',
    description: 'timeout of a call between services',
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    kind: kinds.integer(100, 3_600_000),
    default: '60000',
    description:
      'how long a client may take to send a whole request (408 and the connection closed beyond); its headers must arrive within 10 s, an idle keep-alive connection is closed after 5 s',
  },
  WEBHOOK_ATTEMPT_TIMEOUT_MS: {
    kind: kinds.integer(10, 600_000),
    default: '15000',
    description:
      'how long one webhook attempt (connect, send and the whole answer, or the AMQP confirm) may take ([docs/webhooks.md](docs/webhooks.md#delivery))',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    kind: kinds.durations(),
    default: DEFAULT_WEBHOOK_RETRY_SCHEDULE,
    description:
      'the delay before each webhook attempt, the first entry the first attempt; after the last one fails the delivery is dead-lettered',
  },
  WEBHOOK_ALLOWED_NETWORKS: {
    kind: kinds.networks(),
    default: { embedded: '127.0.0.0/8,::1/128', distributed: 'none' },
    description:
      'networks webhook targets may reach although they are not global addresses (a receiver on the same machine, in embedded mode)',
  },
  LOG_LEVEL: {
    kind: kinds.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const),
    default: 'info',
    description: 'the least severe log line written',
  },
  LOG_FORMAT: {
    kind: kinds.oneOf(['json', 'short'] as const),
    default: { embedded: 'short', distributed: 'json' },
    description: 'log lines as text or JSON; a `json` line written while a call is served carries its `requestId`',
  },
  METRICS: {
    kind: kinds.flag(),
    default: 'true',
    description: "Moleculer metrics at `/metrics`: the gateway's on its port, every other process's on `HEALTH_PORT`",
  },
  TRACING: {
    kind: kinds.tracing(),
    default: 'none',
    description:
      '`console`, or `zipkin:<url>` for Zipkin or Jaeger (its Zipkin endpoint, e.g. `zipkin:http://jaeger:9411`)',
  },
  HEALTH_PORT: {
    kind: kinds.integer(0, 65535),
    shown: '(none)',
    description: 'a process without the gateway serves `/health/live`, `/health/ready` and `/metrics` on this port',
  },
  LOAD_DEMO_WORLD: {
    kind: kinds.flag(),
    default: { embedded: 'true', distributed: 'false' },
    description: 'load `world/demo.json` when the database holds no world',
  },
  NODE_ID: {
    kind: kinds.text(),
    shown: 'host name and pid',
    description: "the node's id in the cluster",
  },
} satisfies Record<string, ConfigVariable>;

type Variables = typeof CONFIG_VARIABLES;
type Name = keyof Variables;
/** A variable's value: absent only where it has no default in some mode. */
type ValueOf<V> = V extends { kind: Kind<infer T> }
  ? V extends { default: string | { embedded: string; distributed: string } }
    ? T
    : T | undefined
  : never;
type Values = { [N in Name]: ValueOf<Variables[N]> };

type Mode = HubConfig['mode'];

/** A variable's default text in `mode`; undefined where it has none. */
export function defaultOf(spec: ConfigVariable, mode: Mode): string | undefined {
  const given: Default | undefined = spec.default;
  return typeof given === 'object' ? given[mode] : given;
}

const validator = new FastestValidator({ useNewCustomCheckerFunction: true });
const checks = Object.fromEntries(
  Object.entries(CONFIG_VARIABLES).map(([name, spec]) => [
    name,
    validator.compile({ $$root: true, ...spec.kind.rule } as ValidationRuleObject),
  ]),
);

/** The text of every variable, its default where unset or empty, each checked by its kind. */
function read(env: Env, mode: Mode): Values {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(CONFIG_VARIABLES) as [Name, ConfigVariable][]) {
    const text = env[name] === undefined || env[name] === '' ? defaultOf(spec, mode) : env[name];
    if (text === undefined) continue;
    const result = checks[name](text);
    if (result !== true) {
      const error = (result as KindError[])[0];
      const problem =
        error.found ?? (typeof spec.kind.problem === 'string' ? spec.kind.problem : spec.kind.problem(error));
      // A kind's own check says what it found; a credential is never repeated into a log.
      throw new ConfigError(name, spec.secret || error.found ? problem : `${problem}, got "${text}"`);
    }
    values[name] = spec.kind.read(text);
  }
  return values as Values;
}

export function loadConfig(env: Env = process.env): HubConfig {
  const mode: Mode = env.DATABASE_URL || env.TRANSPORTER ? 'distributed' : 'embedded';
  const values = read(env, mode);
  const cacher = values.CACHER;
  return {
    mode,
    namespace: values.NAMESPACE,
    nodeId: values.NODE_ID,
    services: values.SERVICES,
    host: values.HOST,
    port: values.PORT,
    healthPort: values.HEALTH_PORT,
    databaseUrl: values.DATABASE_URL,
    dataDir: values.DATA_DIR,
    databasePoolSize: values.DATABASE_POOL_SIZE,
    transporter: values.TRANSPORTER,
    cacher,
    redisUrl: values.REDIS_URL ?? (cacher === 'memory' ? undefined : cacher),
    logLevel: values.LOG_LEVEL,
    logFormat: values.LOG_FORMAT,
    metrics: values.METRICS,
    tracing: values.TRACING,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: values.BODY_LIMIT,
    loadDemoWorld: values.LOAD_DEMO_WORLD,
    requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
    httpRequestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
    webhookRetryScheduleMs: values.WEBHOOK_RETRY_SCHEDULE,
    webhookAttemptTimeoutMs: values.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    webhookAllowedNetworks: values.WEBHOOK_ALLOWED_NETWORKS,
    filesDir: values.FILES_DIR ?? path.join(values.DATA_DIR, 'files'),
    fileMaxBytes: values.FILE_MAX_SIZE,
    uploadBodyLimitBytes: values.UPLOAD_BODY_LIMIT,
    smtpUrl: values.SMTP_URL,
    mailFrom: values.MAIL_FROM,
    idempotencyKeyTtlMs: values.IDEMPOTENCY_KEY_TTL,
    retention: {
      enabled: values.RETENTION,
      intervalMs: values.RETENTION_INTERVAL,
      batchSize: values.RETENTION_BATCH_SIZE,
      relayedEventsMs: values.RETENTION_RELAYED_EVENTS,
      deliveredMs: values.RETENTION_DELIVERED_WEBHOOKS,
      deadLettersMs: values.RETENTION_DEAD_LETTERS,
      eventFeedMs: values.RETENTION_EVENT_FEED,
      requestLogMs: values.RETENTION_REQUEST_LOG,
      partitionSpanMs: values.RETENTION_PARTITION_SPAN,
    },
    clockRate: values.CLOCK_RATE,
    sandboxPollIntervalMs: values.SANDBOX_POLL_INTERVAL,
  };
}
