/**
 * The `hub` command: start the hub, load a world, create an account, open the REPL, write the
 * OpenAPI document.
 * In embedded mode the commands that write open the local database themselves, so they refuse
 * while a hub is running on it (the admin API does the same job then).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ServiceBroker } from 'moleculer';
import {
  ALL_SERVICES,
  createHubBroker,
  DEMO_WORLD_FILE,
  ERROR_TYPES,
  type HubConfig,
  loadConfig,
  readWorld,
  type ServiceName,
  validateWorld,
  type World,
} from '@hub/shared';
import { startHub } from './runner';

const USAGE = `Usage:
  hub start                       run the services named by SERVICES (all by default)
  hub world load FILE [--if-empty]
                                  check a world file and load it (with --if-empty: only into a
                                  hub that holds no world yet, so a restart keeps what is there)
  hub world check FILE            check a world file without loading it
  hub account create --name NAME --role partner|provider|admin [--partner-id N] [--provider-id N] [--can-force-provider] [--allow-all-providers]
                                  create an account and print its token (shown once)
  hub repl                        open the Moleculer REPL (on the cluster, or an embedded hub)
  hub openapi FILE                write the OpenAPI document of every service to FILE (from a hub of
                                  its own on a scratch database, whatever the environment says)`;

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
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
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
  const demoAccounts = config.mode === 'embedded' && config.loadDemoWorld ? readWorld(DEMO_WORLD_FILE).accounts : [];
  if (config.services.includes('gateway')) console.log(banner(config, demoAccounts ?? []));
}

/** Where a newcomer goes next: the explorer, the console, and the demo tokens to open them with. */
function banner(config: HubConfig, accounts: NonNullable<World['accounts']>): string {
  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  const base = `http://${host}:${config.port}`;
  const withToken = (role: string) => {
    const token = accounts.find((account) => account.role === role && account.token)?.token;
    return token ? `?accessToken=${token}` : '';
  };
  const lines = [
    '',
    `Service hub listening on ${base}`,
    `  API explorer  ${base}/api/docs${withToken('partner')}`,
    `  API base URL  ${base}/api`,
    `  Console       ${base}/console${withToken('admin')}`,
  ];
  const tokens = accounts.filter((account) => account.token);
  if (tokens.length) {
    lines.push('Demo tokens (send as ?accessToken=, X-Hub-Api-Token or Authorization: Bearer):');
    for (const account of tokens) lines.push(`  ${account.role.padEnd(8)} ${account.name.padEnd(28)} ${account.token}`);
  }
  return lines.join('\n');
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
    throw new Error(
      `The hub is running on this data directory (pid ${pid}): use the admin API (POST /api/admin/world, POST /api/admin/accounts) or stop it first`,
    );
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

/** A command line the CLI cannot run; the message names the flag or argument at fault. */
export class UsageError extends Error {
  constructor(problem: string) {
    super(`${problem}\n\n${USAGE}`);
    this.name = 'UsageError';
  }
}

/**
 * A command's flags and its positional arguments, exactly `positionals` of them: an unknown flag,
 * a flag without its value and a stray argument are errors naming it.
 */
function parseCommand<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length < positionals) throw new UsageError('A file is missing');
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`Unexpected argument '${parsed.positionals[positionals]}'`);
  }
  return parsed;
}

/**
 * The API reference as the gateway serves it with every service running: a hub of its own on a
 * scratch embedded database, holding no world, so the document depends on the code alone.
 */
async function writeOpenApiDocument(file: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-openapi-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOAD_DEMO_WORLD: 'false',
    RETENTION: 'false',
    METRICS: 'false',
    LOG_LEVEL: 'warn',
  });
  try {
    const broker = await startHub(config);
    try {
      const document = await broker.call('gateway.openApi');
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    } finally {
      await broker.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** An id flag's value: a positive whole number, or absent. */
function idFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2147483647) {
    throw new UsageError(`--${flag} must be a positive whole number, not '${value}'`);
  }
  return Number(value);
}

export async function main(argv: string[]): Promise<void> {
  const config = loadConfig();
  const [command, sub, ...rest] = argv;
  if (command === 'start') {
    parseCommand(argv.slice(1), {});
    return start(config);
  }

  if (command === 'world' && (sub === 'load' || sub === 'check')) {
    const { values, positionals } = parseCommand(rest, sub === 'load' ? { 'if-empty': { type: 'boolean' } } : {}, 1);
    const [file] = positionals;
    const world = readWorld(file);
    const errors = validateWorld(world);
    if (errors.length) {
      for (const error of errors) console.error(`${error.field || 'world'}: ${error.message}`);
      throw new Error(
        `${file} is not a valid world (${errors.length === 1 ? 'one error' : `${errors.length} errors`}); nothing was loaded`,
      );
    }
    if (sub === 'check') return console.log(`${file} is a valid world`);
    const broker = await clusterBroker(config);
    try {
      if (values['if-empty'] && (await broker.call('catalog.hasWorld'))) {
        return console.log(`The hub holds a world already; ${file} was not loaded`);
      }
      const result = await loadWorldWhenOwnersRun(broker, world);
      console.log(`Loaded ${file}:`, JSON.stringify(result));
    } finally {
      await broker.stop();
    }
    return;
  }

  if (command === 'account' && sub === 'create') {
    const { values } = parseCommand(rest, {
      name: { type: 'string' },
      role: { type: 'string' },
      'partner-id': { type: 'string' },
      'provider-id': { type: 'string' },
      'can-force-provider': { type: 'boolean' },
      'allow-all-providers': { type: 'boolean' },
    });
    const params = {
      name: values.name,
      role: values.role,
      partnerId: idFlag(values['partner-id'], 'partner-id'),
      providerId: idFlag(values['provider-id'], 'provider-id'),
      canForceProvider: values['can-force-provider'],
      allowAllProviders: values['allow-all-providers'],
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
    parseCommand(argv.slice(1), {});
    if (config.mode === 'distributed') {
      (await clusterBroker(config)).repl();
      return;
    }
    const release = lockDataDir(config);
    const broker = await startHub(config);
    stopOnSignals(broker, release);
    broker.repl();
    return;
  }

  if (command === 'openapi') {
    const { positionals } = parseCommand(argv.slice(1), {}, 1);
    return writeOpenApiDocument(positionals[0]);
  }

  console.error(USAGE);
  process.exitCode = 2;
}
