/**
 * Starts chosen services on a fresh database for one suite and talks to them over real HTTP.
 * Embedded suites get a copy of the migrated template; infra suites (`infra: true`) get a new
 * database on the Postgres server and their own NATS namespace and Redis prefix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Middleware, ServiceBroker } from 'moleculer';
import knexFactory from 'knex';
import {
  brokerOptions,
  hubLogger,
  loadConfig,
  type ServiceName,
  type World,
  readWorld,
  DEMO_WORLD_FILE,
} from '../../shared/src';
import { startHub } from '../../cli/src';
import { TEMPLATE_ENV } from './global-setup';
import { testLogger } from './test-logger';

export const INFRA = {
  postgres: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  nats: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
  redis: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  amqp: process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
};

export const DEMO_TOKENS = {
  admin: 'demo-admin-token-0000000000000001',
  elkjop: 'demo-partner-elkjop-000000000001',
  power: 'demo-partner-power-0000000000001',
  trygg: 'demo-partner-trygg-0000000000001',
  nrc: 'demo-provider-nrc-00000000000001',
  svea: 'demo-provider-svea-0000000000001',
  fixit: 'demo-provider-fixit-000000000001',
  /** Sandbox Shop (partner 4), whose cases go to the simulated Sandbox Workshop (provider 40, account 8). */
  sandboxShop: 'demo-partner-sandbox-00000000001',
  sandboxWorkshop: 'demo-provider-sandbox-0000000001',
};

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestHub {
  broker: ServiceBroker;
  url: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  /** The lines the hub's own logger wrote, with `hubLogger: true`. */
  logLines: string[];
  stop(): Promise<void>;
}

export interface TestHubOptions {
  services: ServiceName[];
  /** 'demo' (the default) loads the demo world; a World loads that one; null loads none. */
  world?: World | 'demo' | null;
  env?: Record<string, string>;
  infra?: boolean;
  /** Broker middlewares added after the hub's own, to observe what requests do. */
  middlewares?: Middleware[];
  /** Log through the hub's own logger, as a process does, into `logLines`, for a test that reads them. */
  hubLogger?: boolean;
}

export async function createServerDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hub_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: INFRA.postgres, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(INFRA.postgres);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = knexFactory({ client: 'pg', connection: INFRA.postgres, pool: { min: 0, max: 1 } });
      await dropper.raw(`drop database if exists ${name} with (force)`);
      await dropper.destroy();
    },
  };
}

export async function startTestHub(options: TestHubOptions): Promise<TestHub> {
  const server = options.infra ? await createServerDatabase() : undefined;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-files-'));
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    LOAD_DEMO_WORLD: 'false',
    METRICS: 'false',
    FILES_DIR: filesDir,
    ...(server
      ? {
          DATABASE_URL: server.url,
          TRANSPORTER: INFRA.nats,
          CACHER: INFRA.redis,
          NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
        }
      : {}),
    ...options.env,
  };
  const config = { ...loadConfig(env), services: options.services };
  const logLines: string[] = [];
  const template = process.env[TEMPLATE_ENV];
  const world =
    options.world === undefined || options.world === 'demo' ? readWorld(DEMO_WORLD_FILE) : (options.world ?? undefined);
  const broker = await startHub(config, {
    embedded: server ? undefined : { template: template ? new Blob([fs.readFileSync(template)]) : undefined },
    initialWorld: world,
    brokerOverrides: {
      logger: options.hubLogger
        ? hubLogger(
            config,
            new Writable({
              write(chunk: Buffer, _encoding, written) {
                logLines.push(...chunk.toString().split('\n').filter(Boolean));
                written();
              },
            }),
          )
        : testLogger(config.logLevel),
      ...(options.middlewares && {
        middlewares: [...(brokerOptions(config).middlewares ?? []), ...options.middlewares],
      }),
    },
  });
  const gateway = broker.getLocalService('gateway') as unknown as { server?: { address(): AddressInfo } } | undefined;
  const url = gateway?.server ? `http://127.0.0.1:${gateway.server.address().port}` : '';
  if (gateway) await waitForAliases(url);

  return {
    broker,
    url,
    request: (method, path, requestOptions = {}) => httpRequest(url, method, path, requestOptions),
    logLines,
    stop: async () => {
      await broker.stop();
      await server?.drop();
      fs.rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

export async function httpRequest<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers['X-Hub-Api-Token'] = options.token;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  } else if (body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the raw text is what the test sees.
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** The gateway builds aliases shortly after services register; wait until routes answer. */
async function waitForAliases(url: string): Promise<void> {
  await waitFor(async () => (await fetch(`${url}/api/v3/providers`)).status === 401, 'gateway routes');
}

/** Polls a condition until it holds, failing after the deadline (no fixed sleeps in tests). */
export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
