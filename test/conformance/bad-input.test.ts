/**
 * Every route the gateway serves, found from its aliases (not a list kept by hand), answers a
 * client's mistake with a 4xx and an error envelope, never a 5xx, whatever the access level;
 * and every operation of the OpenAPI document takes a stream of generated requests
 * (test/support/request-fuzzer.ts) without a 5xx, with the envelope on every 4xx, and without a
 * row written by a request it refused.
 */
import type { Knex } from 'knex';
import { ALL_SERVICES, databaseOf, type ServiceName } from '../../shared/src';
import { serviceSchemaOf } from '../../cli/src';
import { bookCase } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';
import {
  FUZZ_TOKENS_BY_ACCESS,
  fuzzExamplesFor,
  fuzzOperations,
  RequestFuzzer,
  type FuzzOperation,
  type OpenApiDocument,
} from '../support/request-fuzzer';

let hub: TestHub;

interface Alias {
  method: string;
  path: string;
  action: string;
}

const TOKEN_BY_ACCESS: Record<string, string> = {
  partner: DEMO_TOKENS.elkjop,
  provider: DEMO_TOKENS.nrc,
  'partner+provider': DEMO_TOKENS.elkjop,
  any: DEMO_TOKENS.power,
  admin: DEMO_TOKENS.admin,
};

const BAD_QUERIES = [
  'id=abc',
  'guid=not-a-guid',
  'guid=00000000-0000-0000-0000-000000000000',
  'ids=1,,2',
  'manufacturer[]=1&productType[$gt]=2',
  'limit=-5',
  'limit=99999999999999999999',
  'active=maybe',
  '',
];
const BAD_BODIES: unknown[] = [
  {},
  [],
  [{}],
  [null],
  [{ guid: 7, id: 'x', items: 'y' }],
  { guid: 12, id: 'x', items: 'y', filters: 'z', pagination: -1, world: [] },
  {
    guid: '00000000-0000-0000-0000-000000000000',
    id: 2147483648,
    filters: { createdAt: { $gt: { nested: true } } },
    pagination: { limit: 'many' },
  },
  { guid: '00000000-0000-0000-0000-000000000000', files: [{ name: {}, data: 5 }], key: [], items: [{ guid: [] }] },
  { orderData: 'x', productData: [], customer: 5, consumer: 'y', filters: [[]], $where: '1=1' },
];
const RAW_BODIES = ['{"unterminated": ', 'null', '"a string"', '12', 'true'];

function aliasesOf(h: TestHub): Alias[] {
  const gateway = h.broker.getLocalService('gateway') as unknown as {
    aliases: Array<{ method: string; path: string; action: string; route: { path: string } }>;
  };
  return gateway.aliases
    .filter((alias) => alias.route.path === '/api')
    .map((alias) => ({
      method: alias.method,
      path: `/api${alias.path.startsWith('/') ? '' : '/'}${alias.path}`,
      action: alias.action,
    }));
}

function accessOf(h: TestHub, action: string): string {
  const endpoint = h.broker.registry.getActionList({}).find((entry: { name: string }) => entry.name === action) as
    { action?: { access?: string } } | undefined;
  return endpoint?.action?.access ?? 'any';
}

beforeAll(async () => {
  const services = ALL_SERVICES.filter((name) => serviceSchemaOf(name)) as ServiceName[];
  hub = await startTestHub({ services, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
});
afterAll(() => hub.stop());

it('finds the routes to try', () => {
  expect(aliasesOf(hub).length).toBeGreaterThan(10);
});

it('answers malformed input on every route with a 4xx and an error envelope', async () => {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const check = (label: string, status: number, body: unknown) => {
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const hasEnvelope = Boolean(body && typeof body === 'object' && 'error' in body);
    if (status >= 500 || (status >= 400 && !hasEnvelope))
      failures.push(`${label} -> ${status} ${JSON.stringify(body).slice(0, 200)}`);
  };
  for (const alias of aliasesOf(hub)) {
    const token = TOKEN_BY_ACCESS[accessOf(hub, alias.action)];
    const method = alias.method === '*' ? 'POST' : alias.method;
    if (method === 'GET' || method === 'DELETE') {
      for (const query of BAD_QUERIES) {
        const res = await hub.request(method, `${alias.path}?${query}`, { token });
        check(`${method} ${alias.path}?${query}`, res.status, res.body);
      }
      continue;
    }
    for (const body of BAD_BODIES) {
      const res = await hub.request(method, alias.path, { token, body });
      check(`${method} ${alias.path} ${JSON.stringify(body).slice(0, 80)}`, res.status, res.body);
    }
    for (const rawBody of RAW_BODIES) {
      const res = await hub.request(method, alias.path, { token, rawBody });
      check(`${method} ${alias.path} raw ${rawBody}`, res.status, res.body);
    }
  }
  expect(failures).toEqual([]);
  // Each request reached its action: the right token for the right level, so none stopped at auth.
  expect(statuses.get(401) ?? 0).toBe(0);
  expect(statuses.get(403) ?? 0).toBe(0);
  expect(statuses.get(400) ?? 0).toBeGreaterThan(100);
}, 600_000);

/** Generated requests the fuzz run sends at least, spread over every operation. */
const FUZZ_REQUESTS = 20_000;
/** Past this, the fuzz run stops sending (and fails, short of FUZZ_REQUESTS). */
const FUZZ_TIME_BOX_MS = 10 * 60_000;
/** Another seed explores other requests: `FUZZ_SEED=7 npm test -- test/conformance/bad-input.test.ts`. */
const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 19);

/**
 * Writes the hub makes apart from the requests, by design: the outbox relays mark their events
 * handed on, the webhooks service takes them in (deliveries, the event feed) and attempts the
 * deliveries, and each service's retention job records its runs (every RETENTION_INTERVAL, which
 * a long run on a slow machine reaches). A refused request must write none of the others.
 */
const LATER_WRITES = [
  /\.outbox UPDATE$/,
  /^webhooks\.(deliveries|attempts|feed|feed_heads|case_sequences) /,
  /\.retention_runs INSERT$/,
];

/**
 * Records every row a statement inserts, updates or deletes in the services' tables, in a table of
 * the test's own; `take` answers the writes recorded since it was last asked, less LATER_WRITES.
 */
async function recordWrites(knex: Knex): Promise<{ take(): Promise<string[]> }> {
  const schemas = ALL_SERVICES.map((name) => name.replace(/-/g, '_'));
  await knex.raw(`
    create schema fuzz_watch;
    create table fuzz_watch.writes (id bigserial primary key, what text not null);
    create function fuzz_watch.record() returns trigger language plpgsql as $$
      begin
        insert into fuzz_watch.writes (what) values (tg_table_schema || '.' || tg_table_name || ' ' || tg_op);
        return null;
      end $$;
  `);
  // A partitioned table's trigger is every partition's, those made later included.
  const tables = (await knex('pg_class as c')
    .join('pg_namespace as n', 'n.oid', 'c.relnamespace')
    .select({ table_schema: 'n.nspname', table_name: 'c.relname' })
    .whereIn('n.nspname', schemas)
    .whereIn('c.relkind', ['r', 'p'])
    .where('c.relispartition', false)
    .whereNot('c.relname', 'like', 'knex_migrations%')) as Array<{ table_schema: string; table_name: string }>;
  for (const table of tables)
    await knex.raw(
      'create trigger fuzz_watch after insert or update or delete on ??.?? for each row execute function fuzz_watch.record()',
      [table.table_schema, table.table_name],
    );
  let seen = 0;
  return {
    async take() {
      const rows = (await knex('fuzz_watch.writes').where('id', '>', seen).orderBy('id')) as Array<{
        id: number;
        what: string;
      }>;
      seen = rows.at(-1)?.id ?? seen;
      return rows.map((row) => row.what).filter((what) => !LATER_WRITES.some((later) => later.test(what)));
    },
  };
}

it(
  'takes 20,000 generated requests over every operation of the OpenAPI document: no 5xx, the envelope on each 4xx, no row written by one',
  async () => {
    const document = (await hub.request('GET', '/api/openapi.json')).body as OpenApiDocument;
    const operations = fuzzOperations(document);
    expect(operations.length).toBeGreaterThan(100);
    const guids = [
      await bookCase(hub, DEMO_TOKENS.elkjop),
      await bookCase(hub, DEMO_TOKENS.power),
      await bookCase(hub, DEMO_TOKENS.elkjop),
    ];
    const examples = fuzzExamplesFor(guids[0]);
    const fuzzer = new RequestFuzzer(FUZZ_SEED, { guids, ids: [1, 2, 3, 10, 20, 30, 999999] });
    const writes = await recordWrites((await databaseOf(hub.broker)).knex);
    await writes.take();

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const answered = new Map<FuzzOperation, Set<number>>();
    const startedAt = Date.now();
    let sent = 0;
    while (sent < FUZZ_REQUESTS && Date.now() - startedAt < FUZZ_TIME_BOX_MS) {
      for (const operation of operations) {
        const request = fuzzer.request(operation, examples[operation.path]);
        const tokens = FUZZ_TOKENS_BY_ACCESS[operation.access];
        const res = await hub.request(request.method, `/api${request.path}`, {
          token: tokens[sent % tokens.length],
          body: request.body,
          rawBody: request.rawBody,
          headers: request.headers,
        });
        sent += 1;
        const written = await writes.take();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        answered.set(operation, (answered.get(operation) ?? new Set()).add(res.status));
        const label = () =>
          `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.body ?? request.rawBody ?? '').slice(0, 300)}`;
        if (res.status >= 500) failures.push(`${label()} -> ${res.status}`);
        else if (res.status >= 400) {
          const body = res.body as { error?: unknown } | undefined;
          if (typeof body?.error !== 'object' && typeof body?.error !== 'string')
            failures.push(
              `${label()} -> ${res.status} without the envelope: ${JSON.stringify(res.body).slice(0, 200)}`,
            );
          if (written.length)
            failures.push(`${label()} -> ${res.status} but wrote ${[...new Set(written)].join(', ')}`);
        }
      }
    }
    expect({ seed: FUZZ_SEED, failures: failures.slice(0, 50), count: failures.length }).toEqual({
      seed: FUZZ_SEED,
      failures: [],
      count: 0,
    });
    expect(sent).toBeGreaterThanOrEqual(FUZZ_REQUESTS);
    // The stream reached past the gate: some requests were refused by validation, some succeeded.
    expect(statuses.get(400)).toBeGreaterThan(FUZZ_REQUESTS / 10);
    expect(statuses.get(200)).toBeGreaterThan(FUZZ_REQUESTS / 20);
    expect(answered.size).toBe(operations.length);
  },
  FUZZ_TIME_BOX_MS + 120_000,
);
