import { ConfigError, loadConfig } from '../src/config';

describe('loadConfig', () => {
  it('defaults to embedded mode with every service', () => {
    const config = loadConfig({});
    expect(config.mode).toBe('embedded');
    expect(config.services).toContain('gateway');
    expect(config.port).toBe(3000);
    expect(config.cacher).toBe('memory');
    expect(config.loadDemoWorld).toBe(true);
  });

  it('keeps case files under the data directory and leaves email off unless SMTP_URL is set', () => {
    expect(loadConfig({}).filesDir).toBe('data/files');
    expect(loadConfig({ DATA_DIR: '/srv/hub' }).filesDir).toBe('/srv/hub/files');
    expect(loadConfig({ DATA_DIR: '/srv/hub', FILES_DIR: '/mnt/files' }).filesDir).toBe('/mnt/files');
    expect(loadConfig({}).smtpUrl).toBeUndefined();
    expect(loadConfig({ SMTP_URL: 'smtp://mail:25', FILE_MAX_SIZE: '2mb' })).toMatchObject({
      smtpUrl: 'smtp://mail:25',
      fileMaxBytes: 2 * 1024 * 1024,
    });
  });

  it('keeps Idempotency-Keys a day unless IDEMPOTENCY_KEY_TTL says otherwise', () => {
    expect(loadConfig({}).idempotencyKeyTtlMs).toBe(24 * 3_600_000);
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL: '90m' }).idempotencyKeyTtlMs).toBe(90 * 60_000);
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL: '2d' }).idempotencyKeyTtlMs).toBe(2 * 86_400_000);
  });

  it('applies the documented retention policy unless told otherwise', () => {
    const day = 86_400_000;
    expect(loadConfig({}).retention).toEqual({
      enabled: true,
      intervalMs: 10 * 60_000,
      batchSize: 1000,
      relayedEventsMs: 7 * day,
      deliveredMs: 30 * day,
      deadLettersMs: 90 * day,
      eventFeedMs: 30 * day,
      requestLogMs: 90 * day,
      partitionSpanMs: 7 * day,
    });
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

  it('runs the clock at wall time unless CLOCK_RATE compresses time', () => {
    expect(loadConfig({}).clockRate).toBe(1);
    expect(loadConfig({ CLOCK_RATE: '8760' }).clockRate).toBe(8760);
  });

  it('lets the sandbox look for work every 2 s unless SANDBOX_POLL_INTERVAL says otherwise', () => {
    expect(loadConfig({}).sandboxPollIntervalMs).toBe(2000);
    expect(loadConfig({ SANDBOX_POLL_INTERVAL: '250ms' }).sandboxPollIntervalMs).toBe(250);
  });

  it('switches to distributed mode with a database or a transporter', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://db/hub',
      TRANSPORTER: 'nats://nats:4222',
      CACHER: 'redis://redis:6379',
      SERVICES: 'booking,gateway',
    });
    expect(config.mode).toBe('distributed');
    expect(config.services).toEqual(['booking', 'gateway']);
    expect(config.redisUrl).toBe('redis://redis:6379');
    expect(config.loadDemoWorld).toBe(false);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ SERVICES: 'booking,billing' }, /unknown service "billing"/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use postgres/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ METRICS: 'maybe' }, /METRICS must be true or false/],
    [{ BODY_LIMIT: 'big' }, /BODY_LIMIT must be a size/],
    [{ TRACING: 'jaeger' }, /TRACING must be/],
    [{ TRACING: 'jaeger:http://jaeger:14268' }, /for Jaeger, its Zipkin endpoint/],
    [{ SMTP_URL: 'http://mail' }, /SMTP_URL must use smtp: or smtps:/],
    [{ FILE_MAX_SIZE: 'ten' }, /FILE_MAX_SIZE must be a size/],
    [{ IDEMPOTENCY_KEY_TTL: '1w' }, /IDEMPOTENCY_KEY_TTL must be a positive duration/],
    [{ RETENTION: 'sometimes' }, /RETENTION must be true or false/],
    [{ RETENTION_RELAYED_EVENTS: '7 days' }, /RETENTION_RELAYED_EVENTS must be a positive duration/],
    [{ RETENTION_DELIVERED_WEBHOOKS: '6d' }, /RETENTION_DELIVERED_WEBHOOKS must be at least 7d/],
    [{ RETENTION_DEAD_LETTERS: '24h' }, /RETENTION_DEAD_LETTERS must be at least 7d/],
    [{ RETENTION_EVENT_FEED: '29d' }, /RETENTION_EVENT_FEED must be at least 30d \(what the event feed promises/],
    [{ RETENTION_BATCH_SIZE: '0' }, /RETENTION_BATCH_SIZE must be between/],
    [{ RETENTION_PARTITION_SPAN: '30m' }, /RETENTION_PARTITION_SPAN must be from 1h to 7d, got "30m"/],
    [{ RETENTION_PARTITION_SPAN: '8d' }, /RETENTION_PARTITION_SPAN must be from 1h to 7d/],
    [{ CLOCK_RATE: '0.5' }, /CLOCK_RATE must be a number of 1 or more/],
    [{ CLOCK_RATE: 'fast' }, /CLOCK_RATE must be a number of 1 or more/],
    [{ IDEMPOTENCY_KEY_TTL: '0' }, /IDEMPOTENCY_KEY_TTL must be a positive duration/],
    [{ SANDBOX_POLL_INTERVAL: 'often' }, /SANDBOX_POLL_INTERVAL must be a positive duration/],
  ])('refuses %p', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
