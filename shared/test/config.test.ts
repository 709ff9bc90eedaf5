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
    expect(loadConfig({ SMTP_URL: 'smtp://mail:25', FILE_MAX_SIZE: '2mb' })).toMatchObject({ smtpUrl: 'smtp://mail:25', fileMaxBytes: 2 * 1024 * 1024 });
  });

  it('keeps Idempotency-Keys a day unless IDEMPOTENCY_KEY_TTL says otherwise', () => {
    expect(loadConfig({}).idempotencyKeyTtlMs).toBe(24 * 3_600_000);
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL: '90m' }).idempotencyKeyTtlMs).toBe(90 * 60_000);
  });

  it('switches to distributed mode with a database or a transporter', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/hub', TRANSPORTER: 'nats://nats:4222', CACHER: 'redis://redis:6379', SERVICES: 'booking,gateway' });
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
    [{ IDEMPOTENCY_KEY_TTL: '1d' }, /IDEMPOTENCY_KEY_TTL must be a positive duration/],
    [{ IDEMPOTENCY_KEY_TTL: '0' }, /IDEMPOTENCY_KEY_TTL must be a positive duration/],
  ])('refuses %p', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
