import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, type ConfigVariable, ConfigError, defaultOf, loadConfig } from '../src/config';
import { CONFIG_TABLE_END, CONFIG_TABLE_START, configurationTable, withConfigurationTable } from '../src/config-docs';

const day = 86_400_000;

describe('loadConfig', () => {
  it('gives every setting its documented default in embedded mode', () => {
    expect(loadConfig({})).toEqual({
      mode: 'embedded',
      namespace: 'service-hub',
      nodeId: undefined,
      services: [
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
      ],
      host: '0.0.0.0',
      port: 3000,
      healthPort: undefined,
      databaseUrl: undefined,
      dataDir: 'data',
      databasePoolSize: 10,
      transporter: undefined,
      cacher: 'memory',
      redisUrl: undefined,
      logLevel: 'info',
      logFormat: 'short',
      metrics: true,
      tracing: { kind: 'none' },
      rateLimitPerMinute: 1200,
      bodyLimitBytes: 1024 * 1024,
      loadDemoWorld: true,
      requestTimeoutMs: 15_000,
      httpRequestTimeoutMs: 60_000,
      webhookRetryScheduleMs: [
        0,
        5000,
        5 * 60_000,
        30 * 60_000,
        2 * 3_600_000,
        5 * 3_600_000,
        10 * 3_600_000,
        14 * 3_600_000,
        20 * 3_600_000,
        24 * 3_600_000,
      ],
      webhookAttemptTimeoutMs: 15_000,
      webhookAllowedNetworks: ['127.0.0.0/8', '::1/128'],
      filesDir: path.join('data', 'files'),
      fileMaxBytes: 10 * 1024 * 1024,
      uploadBodyLimitBytes: 32 * 1024 * 1024,
      smtpUrl: undefined,
      mailFrom: 'Service hub <no-reply@service-hub.invalid>',
      idempotencyKeyTtlMs: 24 * 3_600_000,
      retention: {
        enabled: true,
        intervalMs: 10 * 60_000,
        batchSize: 1000,
        relayedEventsMs: 7 * day,
        deliveredMs: 30 * day,
        deadLettersMs: 90 * day,
        eventFeedMs: 30 * day,
        requestLogMs: 90 * day,
        partitionSpanMs: 7 * day,
      },
      clockRate: 1,
      sandboxPollIntervalMs: 2000,
    });
  });

  it('takes an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '', RETENTION: '' })).toMatchObject({
      port: 3000,
      logLevel: 'info',
      retention: { enabled: true },
    });
  });

  it('keeps case files under the data directory and leaves email off unless SMTP_URL is set', () => {
    expect(loadConfig({ DATA_DIR: '/srv/hub' }).filesDir).toBe('/srv/hub/files');
    expect(loadConfig({ DATA_DIR: '/srv/hub', FILES_DIR: '/mnt/files' }).filesDir).toBe('/mnt/files');
    expect(loadConfig({ SMTP_URL: 'smtp://mail:25', FILE_MAX_SIZE: '2mb' })).toMatchObject({
      smtpUrl: 'smtp://mail:25',
      fileMaxBytes: 2 * 1024 * 1024,
    });
  });

  it('reads sizes, durations, flags and lists as their kinds write them', () => {
    expect(
      loadConfig({
        BODY_LIMIT: '512kb',
        UPLOAD_BODY_LIMIT: '2048',
        IDEMPOTENCY_KEY_TTL: '90m',
        SANDBOX_POLL_INTERVAL: '250ms',
        METRICS: 'no',
        LOAD_DEMO_WORLD: 'OFF',
        CLOCK_RATE: '8760',
        WEBHOOK_RETRY_SCHEDULE: '0, 1s,2m',
        WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8',
        TRACING: 'zipkin:http://jaeger:9411',
        SERVICES: ' booking , gateway ',
        HEALTH_PORT: '3001',
      }),
    ).toMatchObject({
      bodyLimitBytes: 512 * 1024,
      uploadBodyLimitBytes: 2048,
      idempotencyKeyTtlMs: 90 * 60_000,
      sandboxPollIntervalMs: 250,
      metrics: false,
      loadDemoWorld: false,
      clockRate: 8760,
      webhookRetryScheduleMs: [0, 1000, 120_000],
      webhookAllowedNetworks: ['10.0.0.0/8', 'fd00::/8'],
      tracing: { kind: 'zipkin', endpoint: 'http://jaeger:9411' },
      services: ['booking', 'gateway'],
      healthPort: 3001,
    });
    expect(loadConfig({ SERVICES: '*', WEBHOOK_ALLOWED_NETWORKS: 'none', TRACING: 'console' })).toMatchObject({
      services: loadConfig({}).services,
      webhookAllowedNetworks: [],
      tracing: { kind: 'console' },
    });
  });

  it('applies the retention policy the variables set', () => {
    expect(
      loadConfig({
        RETENTION: 'off',
        RETENTION_INTERVAL: '30s',
        RETENTION_BATCH_SIZE: '200',
        RETENTION_RELAYED_EVENTS: '12h',
        RETENTION_DELIVERED_WEBHOOKS: '7d',
        RETENTION_DEAD_LETTERS: '365d',
        RETENTION_EVENT_FEED: '60d',
        RETENTION_REQUEST_LOG: '400d',
        RETENTION_PARTITION_SPAN: '6h',
      }).retention,
    ).toEqual({
      enabled: false,
      intervalMs: 30_000,
      batchSize: 200,
      relayedEventsMs: 12 * 3_600_000,
      deliveredMs: 7 * day,
      deadLettersMs: 365 * day,
      eventFeedMs: 60 * day,
      requestLogMs: 400 * day,
      partitionSpanMs: 6 * 3_600_000,
    });
  });

  it('switches to distributed mode with a database or a transporter, and its defaults with it', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://db/hub',
      TRANSPORTER: 'nats://nats:4222',
      CACHER: 'redis://redis:6379',
      SERVICES: 'booking,gateway',
    });
    expect(config).toMatchObject({
      mode: 'distributed',
      services: ['booking', 'gateway'],
      cacher: 'redis://redis:6379',
      redisUrl: 'redis://redis:6379',
      loadDemoWorld: false,
      logFormat: 'json',
      webhookAllowedNetworks: [],
    });
    expect(loadConfig({ TRANSPORTER: 'nats://nats:4222' }).mode).toBe('distributed');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/hub' }).mode).toBe('distributed');
    expect(loadConfig({ CACHER: 'redis://redis:6379', REDIS_URL: 'rediss://limits:6380' }).redisUrl).toBe(
      'rediss://limits:6380',
    );
  });

  // One malformed value of every variable that can be malformed: each stops start-up naming it.
  const malformed: [string, string, RegExp][] = [
    ['SERVICES', 'booking,billing', /SERVICES names an unknown service "billing" \(known: catalog/],
    ['PORT', 'eighty', /PORT must be a whole number, got "eighty"/],
    ['PORT', '70000', /PORT must be between 0 and 65535, got "70000"/],
    ['PORT', '80.5', /PORT must be a whole number/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must use postgres: or postgresql:, got "mysql:"/],
    ['DATABASE_URL', 'not a url', /DATABASE_URL must be a URL$/],
    ['DATABASE_POOL_SIZE', '0', /DATABASE_POOL_SIZE must be between 1 and 500/],
    ['TRANSPORTER', 'redis://x', /TRANSPORTER must use nats:/],
    ['CACHER', 'disk', /CACHER must be a URL/],
    ['CACHER', 'http://redis', /CACHER must use redis: or rediss:/],
    ['REDIS_URL', 'memory', /REDIS_URL must be a URL/],
    ['RATE_LIMIT_PER_MINUTE', '0', /RATE_LIMIT_PER_MINUTE must be between 1 and 10000000/],
    ['BODY_LIMIT', 'big', /BODY_LIMIT must be a size such as 1048576, 512kb or 1mb, got "big"/],
    ['UPLOAD_BODY_LIMIT', '1gb', /UPLOAD_BODY_LIMIT must be a size/],
    ['FILE_MAX_SIZE', 'ten', /FILE_MAX_SIZE must be a size/],
    ['SMTP_URL', 'http://mail', /SMTP_URL must use smtp: or smtps:/],
    [
      'IDEMPOTENCY_KEY_TTL',
      '1w',
      /IDEMPOTENCY_KEY_TTL must be a positive duration such as 90s, 30m, 24h or 7d, got "1w"/,
    ],
    ['IDEMPOTENCY_KEY_TTL', '0', /IDEMPOTENCY_KEY_TTL must be a positive duration/],
    ['RETENTION', 'sometimes', /RETENTION must be true or false, got "sometimes"/],
    ['RETENTION_INTERVAL', 'hourly', /RETENTION_INTERVAL must be a positive duration/],
    ['RETENTION_BATCH_SIZE', '0', /RETENTION_BATCH_SIZE must be between 1 and 100000/],
    ['RETENTION_PARTITION_SPAN', '30m', /RETENTION_PARTITION_SPAN must be from 1h to 7d/],
    ['RETENTION_PARTITION_SPAN', '8d', /RETENTION_PARTITION_SPAN must be from 1h to 7d/],
    ['RETENTION_RELAYED_EVENTS', '7 days', /RETENTION_RELAYED_EVENTS must be a positive duration/],
    [
      'RETENTION_DELIVERED_WEBHOOKS',
      '6d',
      /RETENTION_DELIVERED_WEBHOOKS must be at least 7d \(the console's longest chart\)/,
    ],
    ['RETENTION_DEAD_LETTERS', '24h', /RETENTION_DEAD_LETTERS must be at least 7d/],
    [
      'RETENTION_EVENT_FEED',
      '29d',
      /RETENTION_EVENT_FEED must be at least 30d \(what the event feed promises partners\)/,
    ],
    ['RETENTION_REQUEST_LOG', '-1d', /RETENTION_REQUEST_LOG must be a positive duration/],
    ['CLOCK_RATE', '0.5', /CLOCK_RATE must be a number of 1 or more \(hub seconds per real second\)/],
    ['CLOCK_RATE', 'fast', /CLOCK_RATE must be a number of 1 or more/],
    ['SANDBOX_POLL_INTERVAL', 'often', /SANDBOX_POLL_INTERVAL must be a positive duration/],
    ['REQUEST_TIMEOUT_MS', '50', /REQUEST_TIMEOUT_MS must be between 100 and 600000/],
    ['HTTP_REQUEST_TIMEOUT_MS', 'soon', /HTTP_REQUEST_TIMEOUT_MS must be a whole number/],
    ['WEBHOOK_ATTEMPT_TIMEOUT_MS', '5', /WEBHOOK_ATTEMPT_TIMEOUT_MS must be between 10 and 600000/],
    ['WEBHOOK_RETRY_SCHEDULE', '0,5s,later', /WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations/],
    ['WEBHOOK_ALLOWED_NETWORKS', 'localhost', /WEBHOOK_ALLOWED_NETWORKS must be a comma-separated list of CIDR/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, got "loud"/],
    ['LOG_FORMAT', 'xml', /LOG_FORMAT must be one of json, short/],
    ['METRICS', 'maybe', /METRICS must be true or false/],
    ['TRACING', 'jaeger', /TRACING must be none, console or zipkin:<url>/],
    ['TRACING', 'jaeger:http://jaeger:14268', /for Jaeger, its Zipkin endpoint/],
    ['HEALTH_PORT', '-1', /HEALTH_PORT must be between 0 and 65535/],
    ['LOAD_DEMO_WORLD', 'please', /LOAD_DEMO_WORLD must be true or false/],
  ];

  it.each(malformed)('refuses %s=%p', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('tries a malformed value of every variable that takes less than any text', () => {
    const anyText = Object.entries(CONFIG_VARIABLES)
      .filter(([, spec]) => spec.kind.takes === 'text')
      .map(([name]) => name);
    expect(anyText.sort()).toEqual(['DATA_DIR', 'FILES_DIR', 'HOST', 'MAIL_FROM', 'NAMESPACE', 'NODE_ID']);
    const tried = new Set(malformed.map(([name]) => name));
    expect(Object.keys(CONFIG_VARIABLES).filter((name) => !anyText.includes(name) && !tried.has(name))).toEqual([]);
  });

  it('never repeats a credential into its error', () => {
    expect(() => loadConfig({ SMTP_URL: 'mail:secret@host' })).toThrow('SMTP_URL must');
    expect(() => loadConfig({ SMTP_URL: 'mail:secret@host' })).not.toThrow(/secret/);
    expect(() => loadConfig({ DATABASE_URL: 'pg :pw@db' })).not.toThrow(/pw/);
  });

  it('has no default for a credential outside embedded mode', () => {
    const variables = Object.entries(CONFIG_VARIABLES) as [string, ConfigVariable][];
    const secrets = variables.filter(([, spec]) => spec.secret);
    expect(secrets.map(([name]) => name)).toEqual(['DATABASE_URL', 'TRANSPORTER', 'REDIS_URL', 'SMTP_URL']);
    for (const [, spec] of secrets) expect(defaultOf(spec, 'distributed')).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: 'postgres://db/hub' })).toMatchObject({
      smtpUrl: undefined,
      redisUrl: undefined,
    });
  });
});

describe('the README configuration table', () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

  it('is the one the schema writes (npm run docs:config)', () => {
    expect(withConfigurationTable(readme)).toBe(readme);
  });

  it('lists every variable once, with what it takes and its default', () => {
    const table = configurationTable();
    for (const name of Object.keys(CONFIG_VARIABLES)) expect(table.split(`| \`${name}\` |`)).toHaveLength(2);
    expect(table).toContain('| `PORT` | whole number, 0 to 65535 | `3000` |');
    expect(table).toContain('| `LOG_FORMAT` | `json`, `short` | `short` embedded, `json` distributed |');
  });

  it('is found between its markers and nowhere else', () => {
    expect(() => withConfigurationTable('# A README without the table')).toThrow(/markers/);
    const stale = `before\n${CONFIG_TABLE_START}\n| old |\n${CONFIG_TABLE_END}\nafter`;
    expect(withConfigurationTable(stale)).toBe(
      `before\n${CONFIG_TABLE_START}\n${configurationTable()}\n${CONFIG_TABLE_END}\nafter`,
    );
  });
});
