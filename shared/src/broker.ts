/**
 * Broker options built from the configuration: the same code runs embedded (in-process
 * transport, memory cacher) and distributed (NATS, Redis cacher).
 */
import { BrokerOptions, ServiceBroker, Errors } from 'moleculer';
import type { HubConfig } from './config';
import { OUTCOME_UNKNOWN_ERRORS } from './errors';
import { attachContext, openedDatabaseOf } from './context';
import { DatabaseOutageMiddleware } from './database-outage';
import type { EmbeddedDatabaseOptions } from './db';
import { IdempotencyMiddleware } from './idempotency';
import { NodeWatchdogMiddleware } from './node-watchdog';
import { hubLogger } from './logger';
import { RequestLogMiddleware } from './request-log';
import { tracingOptions } from './tracing';
import { TransportLimitsMiddleware } from './transport-limits';
import { HubValidator, WholeParamsMiddleware } from './validator';

/**
 * Names the cache keys' format in their Redis prefix. Moleculer builds a cached action's key from
 * its params, and a key of one format may stand for other params in another: a node never reads
 * an answer cached under a format it does not build (docs/upgrading.md).
 */
const CACHE_KEY_FORMAT = 'cache-v5';

export function brokerOptions(config: HubConfig): BrokerOptions {
  return {
    namespace: config.namespace,
    nodeID: config.nodeId,
    transporter: config.transporter ? { type: 'NATS', options: { url: config.transporter } } : null,
    serializer: 'JSON',
    cacher:
      config.cacher === 'memory'
        ? { type: 'Memory', options: { maxParamsLength: 200 } }
        : {
            type: 'Redis',
            options: {
              // ioredis takes the URL itself; Moleculer's typings only name its options object.
              redis: config.cacher as unknown as Record<string, unknown>,
              prefix: `${config.namespace}-${CACHE_KEY_FORMAT}`,
              ttl: 3600,
            },
          },
    logger: hubLogger(config),
    logLevel: config.logLevel,
    requestTimeout: config.requestTimeoutMs,
    retryPolicy: {
      enabled: true,
      retries: 3,
      delay: 100,
      maxDelay: 1000,
      factor: 2,
      check: isSafeToRetry,
    },
    registry: { strategy: 'RoundRobin', preferLocal: true },
    metrics: { enabled: config.metrics, reporter: [] },
    tracing: tracingOptions(config.tracing),
    validator: new HubValidator(),
    // The database outage middleware is the innermost, so the request log sees its 503, not the raw
    // error; the request log and kept idempotent answers see validation errors already bounded.
    middlewares: [
      DatabaseOutageMiddleware(),
      TransportLimitsMiddleware,
      RequestLogMiddleware,
      WholeParamsMiddleware,
      IdempotencyMiddleware,
      NodeWatchdogMiddleware(),
    ],
    // A node taken as gone by the watchdog while it was only slow or paused is back within this many seconds.
    heartbeatInterval: 2,
    // Finish in-flight requests on shutdown before the services stop.
    tracking: { enabled: true, shutdownTimeout: 10_000 },
    skipProcessEventRegistration: true,
  };
}

/**
 * Whether a failed call may be tried again: only when the error says it is passing
 * (MoleculerRetryableError: no node to take the call, a full queue, a transaction rolled back on a
 * serialization conflict) and the call surely did not take effect: trying one whose outcome is
 * unknown again could make a write twice.
 */
export function isSafeToRetry(err: Error): boolean {
  const error = err as Errors.MoleculerError;
  return Boolean(error.retryable) && !OUTCOME_UNKNOWN_ERRORS.has(error.type);
}

/** A broker whose services can reach the configuration and the database (see context.ts). */
export function createHubBroker(
  config: HubConfig,
  embedded?: EmbeddedDatabaseOptions,
  overrides: BrokerOptions = {},
): ServiceBroker {
  const broker = new ServiceBroker({
    ...brokerOptions(config),
    ...overrides,
    async stopped() {
      const database = openedDatabaseOf(broker);
      if (database) await (await database).close();
    },
  });
  attachContext(broker, config, embedded);
  return broker;
}

/** Whether a service of that name runs anywhere in the cluster, for callers that work without it. */
export function isServiceRunning(broker: ServiceBroker, name: string): boolean {
  // Moleculer's typings leave out the registry's hasService.
  return (broker.registry as unknown as { hasService(name: string): boolean }).hasService(name);
}
