/**
 * Every route the gateway serves, found from its aliases (not a list kept by hand), answers a
 * client's mistake with a 4xx and an error envelope, never a 5xx, whatever the access level.
 */
import { ALL_SERVICES, type ServiceName, serviceSchemaOf } from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

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

const BAD_QUERIES = ['id=abc', 'guid=not-a-guid', 'guid=00000000-0000-0000-0000-000000000000', 'ids=1,,2', 'manufacturer[]=1&productType[$gt]=2', 'limit=-5', 'limit=99999999999999999999', 'active=maybe', ''];
const BAD_BODIES: unknown[] = [
  {},
  [],
  [{}],
  [null],
  [{ guid: 7, id: 'x', items: 'y' }],
  { guid: 12, id: 'x', items: 'y', filters: 'z', pagination: -1, world: [] },
  { guid: '00000000-0000-0000-0000-000000000000', id: 2147483648, filters: { createdAt: { $gt: { nested: true } } }, pagination: { limit: 'many' } },
  { guid: '00000000-0000-0000-0000-000000000000', files: [{ name: {}, data: 5 }], key: [], items: [{ guid: [] }] },
  { orderData: 'x', productData: [], customer: 5, consumer: 'y', filters: [[]], $where: '1=1' },
];
const RAW_BODIES = ['{"unterminated": ', 'null', '"a string"', '12', 'true'];

function aliasesOf(h: TestHub): Alias[] {
  const gateway = h.broker.getLocalService('gateway') as unknown as { aliases: Array<{ method: string; path: string; action: string; route: { path: string } }> };
  return gateway.aliases
    .filter((alias) => alias.route.path === '/api')
    .map((alias) => ({ method: alias.method, path: `/api${alias.path.startsWith('/') ? '' : '/'}${alias.path}`, action: alias.action }));
}

function accessOf(h: TestHub, action: string): string {
  const endpoint = h.broker.registry.getActionList({}).find((entry: { name: string }) => entry.name === action) as { action?: { access?: string } } | undefined;
  return endpoint?.action?.access ?? 'any';
}

beforeAll(async () => {
  const services = ALL_SERVICES.filter((name) => serviceSchemaOf(name as ServiceName)) as ServiceName[];
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
    const hasEnvelope = Boolean(body && typeof body === 'object' && 'error' in (body as object));
    if (status >= 500 || (status >= 400 && !hasEnvelope)) failures.push(`${label} -> ${status} ${JSON.stringify(body).slice(0, 200)}`);
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
