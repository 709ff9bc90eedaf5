/**
 * The distributed hub under a stream of generated requests over every operation of its OpenAPI
 * document (test/support/request-fuzzer.ts), some of them carrying values of up to megabytes:
 * each service group its own process over a NATS server of the suite's own at its default
 * settings (1 MiB messages), on the Postgres server. No request may end or block a process: no
 * 5xx, no connection reset, every process alive and ready at the end. The figures go to
 * test/RELIABILITY.md.
 */
import { bookCase } from '../support/cases';
import { createServerDatabase, DEMO_TOKENS, httpRequest, type TestHub, waitFor } from '../support/hub';
import {
  clusterEnv,
  freePort,
  privateNatsServer,
  runHub,
  spawnHub,
  waitForOk,
  type HubProcess,
  type NatsServer,
} from '../support/processes';
import {
  FUZZ_TOKENS_BY_ACCESS,
  fuzzExamplesFor,
  fuzzOperations,
  RequestFuzzer,
  type FuzzRequest,
  type OpenApiDocument,
} from '../support/request-fuzzer';
import { DEMO_WORLD_FILE } from '../../shared/src';

/** The processes, as the issue that found the crashes ran them. */
const GROUPS = {
  front: 'gateway,catalog',
  routing: 'routing,models',
  booking: 'booking',
  records: 'cost-proposals,messaging,invoicing,sandbox',
  webhooks: 'webhooks',
};

/** Requests sent at least; `FUZZ_SEED` explores others. */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? 23);
/** Of every hundred requests, this many carry a value of up to megabytes. */
const OVERSIZED_PER_HUNDRED = 1;
/** Requests in flight at once. */
const CONCURRENCY = 8;

let nats: NatsServer;
let database: { url: string; drop(): Promise<void> };
let baseUrl: string;
/** Each process and where it answers /health/*: the gateway's own port, a HEALTH_PORT for the others. */
const processes: Record<string, { process: HubProcess; healthUrl: string }> = {};

beforeAll(async () => {
  nats = await privateNatsServer();
  await nats.start();
  database = await createServerDatabase();
  const cluster = await clusterEnv(database.url, {
    TRANSPORTER: nats.url,
    RATE_LIMIT_PER_MINUTE: '10000000',
    LOAD_DEMO_WORLD: 'false',
  });
  baseUrl = cluster.baseUrl;
  for (const [name, services] of Object.entries(GROUPS)) {
    const healthPort = name === 'front' ? undefined : await freePort();
    const started = spawnHub(['start'], {
      ...cluster.env,
      SERVICES: services,
      NODE_ID: `fuzz-${name}`,
      ...(healthPort ? { HEALTH_PORT: String(healthPort) } : {}),
    });
    processes[name] = { process: started, healthUrl: healthPort ? `http://127.0.0.1:${healthPort}` : baseUrl };
    // The front first: the others wait for the catalog, and one migration at a time suits a small machine.
    if (name === 'front') await waitForOk(baseUrl, '/health/ready', 'the front process', { timeoutMs: 120_000 });
  }
  // A first start is ready once its world is in.
  for (const { healthUrl } of Object.values(processes))
    await waitForOk(healthUrl, '/health/live', 'every process', { timeoutMs: 120_000 });
  let lastLoad = '';
  await waitFor(
    async () => {
      const load = await runHub(['world', 'load', DEMO_WORLD_FILE], cluster.env);
      lastLoad = load.output;
      return load.code === 0;
    },
    'the world to load into every service',
    120_000,
  ).catch((err: Error) => {
    const printed = Object.entries(processes).map(
      ([name, { process }]) => `${name}:\n${process.output().slice(-1500)}`,
    );
    throw new Error(`${err.message}; the last try printed:\n${lastLoad.slice(-3000)}\n${printed.join('\n')}`);
  });
  for (const { healthUrl } of Object.values(processes))
    await waitForOk(healthUrl, '/health/ready', 'every process', { timeoutMs: 60_000 });
}, 300_000);

afterAll(async () => {
  for (const { process } of Object.values(processes)) await process.stop();
  await nats?.kill();
  await database?.drop();
});

it(`takes ${REQUESTS} generated requests, oversized ones among them: no 5xx, no reset, every process alive`, async () => {
  const hub = { request: (method, path, options) => httpRequest(baseUrl, method, path, options) } as TestHub;
  const document = (await hub.request('GET', '/api/openapi.json')).body as OpenApiDocument;
  const operations = fuzzOperations(document);
  expect(operations.length).toBeGreaterThan(100);
  const guids = [
    await bookCase(hub, DEMO_TOKENS.elkjop),
    await bookCase(hub, DEMO_TOKENS.power),
    await bookCase(hub, DEMO_TOKENS.elkjop),
  ];
  const examples = fuzzExamplesFor(guids[0]);
  const fuzzer = new RequestFuzzer(SEED, { guids, ids: [1, 2, 3, 10, 20, 30, 999999] });

  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let resets = 0;
  let oversized = 0;
  let next = 0;
  const startedAt = Date.now();
  /** The slowest answers, to see what a request costs the hub at worst. */
  const slowest: Array<{ label: string; ms: number }> = [];
  const send = async (request: FuzzRequest, token: string) => {
    const label = `${request.method} ${request.path.slice(0, 120)}`;
    const sentAt = Date.now();
    try {
      const res = await hub.request(request.method, `/api${request.path}`, {
        token,
        body: request.body,
        rawBody: request.rawBody,
        headers: request.headers,
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      slowest.push({ label: `${label} -> ${res.status}`, ms: Date.now() - sentAt });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
      if (res.status >= 500) failures.push(`${label} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    } catch (err) {
      resets += 1;
      failures.push(`${label} -> ${String((err as { cause?: unknown }).cause ?? err)}`);
    }
  };
  const worker = async () => {
    for (let sent = next++; sent < REQUESTS; sent = next++) {
      const operation = operations[sent % operations.length];
      const large = sent % 100 < OVERSIZED_PER_HUNDRED;
      if (large) oversized += 1;
      const request = large
        ? fuzzer.oversized(operation, examples[operation.path])
        : fuzzer.request(operation, examples[operation.path]);
      const tokens = FUZZ_TOKENS_BY_ACCESS[operation.access];
      await send(request, tokens[sent % tokens.length]);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  const alive = Object.entries(processes).map(([name, { process }]) => [name, process.child.exitCode === null]);
  const ready = await Promise.all(
    Object.entries(processes).map(async ([name, { healthUrl }]) => [
      name,
      (await fetch(`${healthUrl}/health/ready`)).status,
    ]),
  );
  console.log(
    `Fuzz figures: ${JSON.stringify({
      seed: SEED,
      requests: REQUESTS,
      oversized,
      seconds: Math.round((Date.now() - startedAt) / 1000),
      statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
      resets,
      slowest,
    })}`,
  );
  expect({ failures: failures.slice(0, 30), count: failures.length }).toEqual({ failures: [], count: 0 });
  expect(Object.fromEntries(alive)).toEqual(Object.fromEntries(Object.keys(GROUPS).map((name) => [name, true])));
  expect(Object.fromEntries(ready)).toEqual(Object.fromEntries(Object.keys(GROUPS).map((name) => [name, 200])));
  // The stream reached past the gate: some requests were refused by validation, some succeeded.
  expect(statuses.get(400)).toBeGreaterThan(REQUESTS / 10);
  expect(statuses.get(200)).toBeGreaterThan(REQUESTS / 20);
}, 1_800_000);
