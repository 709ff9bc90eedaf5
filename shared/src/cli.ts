/**
 * The `hub` command: start the hub, load a world, create an account, open the REPL.
 * In embedded mode the commands that write open the local database themselves, so they refuse
 * while a hub is running on it (the admin API does the same job then).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ServiceBroker } from 'moleculer';
import { createHubBroker } from './broker';
import { ALL_SERVICES, type HubConfig, loadConfig, type ServiceName } from './config';
import { DEMO_WORLD_FILE, readWorld, startHub } from './runner';
import { ERROR_TYPES } from './errors';
import { validateWorld, type World } from './world';

const USAGE = `Usage:
  hub start                       run the services named by SERVICES (all by default)
  hub world load FILE [--if-empty]
                                  check a world file and load it (with --if-empty: only into a
                                  hub that holds no world yet, so a restart keeps what is there)
  hub world check FILE            check a world file without loading it
  hub account create --name NAME --role partner|provider|admin [--partner-id N] [--provider-id N] [--can-force-provider]
                                  create an account and print its token (shown once)
  hub repl                        open the Moleculer REPL (on the cluster, or an embedded hub)`;

function lockFile(config: HubConfig): string {
  return path.resolve(config.dataDir, 'hub.pid');
}

function runningHubPid(config: HubConfig): number | undefined {
  try {
    const pid = Number(fs.readFileSync(lockFile(config), 'utf8'));
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

function stopOnSignals(broker: ServiceBroker, onStop: () => void = () => {}) {
  const stop = async () => {
    await broker.stop();
    onStop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * Embedded mode keeps its database in one directory that only one process may open: the pid
 * file says which. Returns the release to call on shutdown.
 */
function lockDataDir(config: HubConfig): () => void {
  if (config.mode !== 'embedded') return () => {};
  const pid = runningHubPid(config);
  if (pid) throw new Error(`A hub is already running on ${path.resolve(config.dataDir)} (pid ${pid})`);
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.writeFileSync(lockFile(config), String(process.pid));
  return () => fs.rmSync(lockFile(config), { force: true });
}

async function start(config: HubConfig) {
  const release = lockDataDir(config);
  const broker = await startHub(config);
  stopOnSignals(broker, release);
  if (config.services.includes('gateway')) {
    const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
    console.log(`\nService hub listening on http://${host}:${config.port}/api`);
  }
  if (config.mode === 'embedded' && config.loadDemoWorld) {
    console.log('Demo tokens (send as ?accessToken=, X-Hub-Api-Token or Authorization: Bearer):');
    for (const account of readWorld(DEMO_WORLD_FILE).accounts ?? []) {
      if (account.token) console.log(`  ${account.role.padEnd(8)} ${account.name.padEnd(28)} ${account.token}`);
    }
  }
}

/**
 * A broker that can call the cluster's actions: joined over NATS in distributed mode; in
 * embedded mode the services that own data, on the local database.
 */
async function clusterBroker(config: HubConfig): Promise<ServiceBroker> {
  if (config.mode === 'distributed') {
    // The logger's own level is the configured one; a CLI node prints only what goes wrong.
    const broker = createHubBroker({ ...config, services: [], logLevel: 'warn' });
    await broker.start();
    await broker.waitForServices(['catalog'], 30_000);
    return broker;
  }
  const pid = runningHubPid(config);
  if (pid) {
    throw new Error(`The hub is running on this data directory (pid ${pid}): use the admin API (POST /api/admin/world, POST /api/admin/accounts) or stop it first`);
  }
  const services = ALL_SERVICES.filter((name) => name !== 'gateway') as ServiceName[];
  return startHub({ ...config, services, loadDemoWorld: false, logLevel: 'warn' });
}

/** While a cluster starts, the services owning parts of the file may not be up yet: wait for them. */
async function loadWorldWhenOwnersRun(broker: ServiceBroker, world: World, timeoutMs = 60_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await broker.call('catalog.loadWorld', { world });
    } catch (err) {
      if ((err as { type?: string }).type !== ERROR_TYPES.SERVICE_MISSING || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

export async function main(argv: string[]): Promise<void> {
  const config = loadConfig();
  const [command, sub, ...rest] = argv;
  if (command === 'start') return start(config);

  if (command === 'world' && (sub === 'load' || sub === 'check') && rest[0]) {
    const world = readWorld(rest[0]);
    const errors = validateWorld(world);
    if (errors.length) {
      for (const error of errors) console.error(`${error.field || 'world'}: ${error.message}`);
      throw new Error(`${rest[0]} is not a valid world (${errors.length === 1 ? 'one error' : `${errors.length} errors`}); nothing was loaded`);
    }
    if (sub === 'check') return console.log(`${rest[0]} is a valid world`);
    const broker = await clusterBroker(config);
    try {
      if (rest.includes('--if-empty') && (await broker.call('catalog.hasWorld'))) {
        return console.log(`The hub holds a world already; ${rest[0]} was not loaded`);
      }
      const result = await loadWorldWhenOwnersRun(broker, world);
      console.log(`Loaded ${rest[0]}:`, JSON.stringify(result));
    } finally {
      await broker.stop();
    }
    return;
  }

  if (command === 'account' && sub === 'create') {
    const params = {
      name: option(rest, '--name'),
      role: option(rest, '--role'),
      partnerId: option(rest, '--partner-id') ? Number(option(rest, '--partner-id')) : undefined,
      providerId: option(rest, '--provider-id') ? Number(option(rest, '--provider-id')) : undefined,
      canForceProvider: rest.includes('--can-force-provider') || undefined,
    };
    const broker = await clusterBroker(config);
    try {
      const { data } = (await broker.call('catalog.createAccount', params)) as { data: { id: number; token: string } };
      console.log(`Created account ${data.id}. Its token, shown only now:\n${data.token}`);
    } finally {
      await broker.stop();
    }
    return;
  }

  if (command === 'repl') {
    if (config.mode === 'distributed') {
      await (await clusterBroker(config)).repl();
      return;
    }
    const release = lockDataDir(config);
    const broker = await startHub(config);
    stopOnSignals(broker, release);
    await broker.repl();
    return;
  }

  console.error(USAGE);
  process.exitCode = 2;
}
