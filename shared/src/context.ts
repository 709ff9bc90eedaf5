/**
 * What a broker's services share within one process: the configuration, the clock and the database.
 * The database opens on first use, so a process that runs only the gateway never opens one.
 */
import type { ServiceBroker } from 'moleculer';
import { HubClock } from './clock';
import type { HubConfig } from './config';
import { Database, EmbeddedDatabaseOptions, openDatabase } from './db';

interface HubContext {
  config: HubConfig;
  clock: HubClock;
  embedded?: EmbeddedDatabaseOptions;
  database?: Promise<Database>;
  /** The first start's world is still loading: its accounts and reference data are not there yet. */
  loadingFirstWorld?: boolean;
}

const contexts = new WeakMap<ServiceBroker, HubContext>();

export function attachContext(broker: ServiceBroker, config: HubConfig, embedded?: EmbeddedDatabaseOptions): void {
  contexts.set(broker, { config, clock: new HubClock(config.clockRate), embedded });
}

function contextOf(broker: ServiceBroker): HubContext {
  const context = contexts.get(broker);
  if (!context) throw new Error('This broker was not created by createHubBroker()');
  return context;
}

export function configOf(broker: ServiceBroker): HubConfig {
  return contextOf(broker).config;
}

/** The process's clock (see clock.ts): wall time unless configuration or a test says otherwise. */
export function clockOf(broker: ServiceBroker): HubClock {
  return contextOf(broker).clock;
}

export function databaseOf(broker: ServiceBroker): Promise<Database> {
  const context = contextOf(broker);
  context.database ??= openDatabase(context.config, context.embedded, (message) =>
    broker.getLogger('database').warn(message),
  );
  return context.database;
}

/** The database if one was opened; closing a broker closes it. */
export function openedDatabaseOf(broker: ServiceBroker): Promise<Database> | undefined {
  return contexts.get(broker)?.database;
}

/** Marks the first start's world as loading (true) or loaded (false); see `isServing`. */
export function setLoadingFirstWorld(broker: ServiceBroker, loading: boolean): void {
  contextOf(broker).loadingFirstWorld = loading;
}

/**
 * Whether the process serves requests: its services have started and the world it loads on a
 * first start is in, so a demo token is known by the time the hub answers at all.
 */
export function isServing(broker: ServiceBroker): boolean {
  return broker.started && !contexts.get(broker)?.loadingFirstWorld;
}
