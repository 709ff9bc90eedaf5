/**
 * Starts the services this process runs (`SERVICES`, all by default) on one broker, and in
 * embedded mode loads the demo world on the first start.
 */
import type { BrokerOptions, ServiceBroker, ServiceSchema } from 'moleculer';
import {
  createHubBroker,
  DEMO_WORLD_FILE,
  type EmbeddedDatabaseOptions,
  healthServiceSchema,
  type HubConfig,
  readWorld,
  type ServiceName,
  setLoadingFirstWorld,
  type World,
} from '@hub/shared';

/** The service schema a package exports, or undefined while the package has nothing to serve. */
export function serviceSchemaOf(name: ServiceName): ServiceSchema | undefined {
  let entry: string;
  try {
    entry = require.resolve(`@hub/${name}`);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a package that may be absent loads by name at run time
  return (require(entry) as { default?: ServiceSchema }).default;
}

export interface StartOptions {
  embedded?: EmbeddedDatabaseOptions;
  /** A world to load when the database holds none yet. */
  initialWorld?: World;
  brokerOverrides?: BrokerOptions;
}

export async function startHub(config: HubConfig, options: StartOptions = {}): Promise<ServiceBroker> {
  const broker = createHubBroker(config, options.embedded, options.brokerOverrides);
  for (const name of config.services) {
    const schema = serviceSchemaOf(name);
    if (schema) broker.createService(schema);
    else broker.logger.debug(`Service '${name}' has nothing to serve yet`);
  }
  if (config.healthPort !== undefined && !config.services.includes('gateway'))
    broker.createService(healthServiceSchema(config.healthPort, config.host));
  const world = options.initialWorld ?? (config.loadDemoWorld ? readWorld(DEMO_WORLD_FILE) : undefined);
  const loadsWorld = world !== undefined && config.services.includes('catalog');
  // Requests wait (503, as while starting) for the world, rather than meet unknown tokens.
  setLoadingFirstWorld(broker, loadsWorld);
  await broker.start();
  try {
    if (loadsWorld && !(await broker.call('catalog.hasWorld'))) {
      // The first-start world is loaded with what this process runs; an explicit load is strict.
      const { data } = (await broker.call('catalog.loadWorld', { world, skipUnowned: true })) as {
        data: { skipped?: string[] };
      };
      if (data.skipped)
        broker.logger.warn(`World loaded without ${data.skipped.join(', ')}: no running service loads them`);
      else broker.logger.info('Loaded the initial world');
    }
  } finally {
    setLoadingFirstWorld(broker, false);
  }
  return broker;
}
