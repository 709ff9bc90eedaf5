/**
 * Broker options built from the configuration: the same code runs embedded (in-process
 * transport, memory cacher) and distributed (NATS, Redis cacher).
 */
import { BrokerOptions, ServiceBroker, Errors } from 'moleculer';
import type { HubConfig } from './config';
import { attachContext, openedDatabaseOf } from './context';
import type { EmbeddedDatabaseOptions } from './db';
import { jsonLogLine, RequestLogMiddleware } from './request-log';
import { tracingOptions } from './tracing';
import { HubValidator } from './validator';

export function brokerOptions(config: HubConfig): BrokerOptions {
  return {
    namespace: config.namespace,
    nodeID: config.nodeId,
    transporter: config.transporter ? { type: 'NATS', options: { url: config.transporter } } : null,
    serializer: 'JSON',
    cacher: config.cacher === 'memory' ? { type: 'Memory', options: { maxParamsLength: 200 } } : { type: 'Redis', options: { redis: config.cacher, prefix: `${config.namespace}-cache`, ttl: 3600 } },
    logger: {
      type: 'Console',
      options: { level: config.logLevel, formatter: config.logFormat === 'json' ? jsonLogLine : 'short', colors: config.logFormat !== 'json' },
    },
    logLevel: config.logLevel,
    requestTimeout: config.requestTimeoutMs,
    // Only errors that say they are retryable (MoleculerRetryableError) are tried again.
    retryPolicy: { enabled: true, retries: 3, delay: 100, maxDelay: 1000, factor: 2, check: (err: Error) => Boolean((err as Errors.MoleculerError).retryable) },
    registry: { strategy: 'RoundRobin', preferLocal: true },
    metrics: { enabled: config.metrics, reporter: [] },
    tracing: tracingOptions(config.tracing),
    validator: new HubValidator(),
    middlewares: [RequestLogMiddleware],
    // Finish in-flight requests on shutdown before the services stop.
    tracking: { enabled: true, shutdownTimeout: 10_000 },
    skipProcessEventRegistration: true,
  };
}

/** A broker whose services can reach the configuration and the database (see context.ts). */
export function createHubBroker(config: HubConfig, embedded?: EmbeddedDatabaseOptions, overrides: BrokerOptions = {}): ServiceBroker {
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
