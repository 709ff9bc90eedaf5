/**
 * The OpenAPI document the gateway serves matches the routes it mounts: every route of the API
 * documented, nothing documented that is not a route, with every service that exists running.
 */
import { ALL_SERVICES, isAccessLevel } from '../../shared/src';
import { serviceSchemaOf } from '../../cli/src';
import { startTestHub, type TestHub } from '../support/hub';

let hub: TestHub;
const running = ALL_SERVICES.filter((name) => name === 'gateway' || serviceSchemaOf(name));

beforeAll(async () => {
  hub = await startTestHub({ services: running });
});
afterAll(() => hub.stop());

interface GatewayAlias {
  method: string;
  fullPath: string;
  action: string | null;
  route: { path: string };
}

function documentedRoutes(document: any): string[] {
  const routes: string[] = [];
  for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
    for (const method of Object.keys(item))
      routes.push(`${method.toUpperCase()} ${document.servers[0].url}${path.replace(/\{(\w+)\}/g, ':$1')}`);
  }
  return routes.sort();
}

function mountedApiRoutes(): string[] {
  const gateway = hub.broker.getLocalService('gateway') as unknown as { aliases: GatewayAlias[] };
  const actions = new Map(hub.broker.registry.getActionList({}).map((item: any) => [item.name, item.action]));
  return gateway.aliases
    .filter(
      (alias) =>
        alias.route.path === '/api' &&
        alias.action &&
        isAccessLevel((actions.get(alias.action) as { access?: unknown })?.access),
    )
    .map((alias) => `${alias.method} ${alias.fullPath}`)
    .sort();
}

it('serves an OpenAPI 3.1 document without a token', async () => {
  const res = await hub.request('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.openapi).toBe('3.1.0');
});

it("documents exactly the gateway's API routes", async () => {
  const { body } = await hub.request('GET', '/api/openapi.json');
  const mounted = mountedApiRoutes();
  expect(mounted.length).toBeGreaterThan(20);
  expect(documentedRoutes(body)).toEqual(mounted);
});

it('has each documented operation answer as a route of the API (401 without a token, not 404)', async () => {
  const { body } = await hub.request('GET', '/api/openapi.json');
  for (const route of documentedRoutes(body)) {
    const [method, path] = route.split(' ');
    const res = await hub.request(method, path.replace(/:\w+/g, '1'));
    expect({ route, status: res.status }).toEqual({ route, status: 401 });
  }
  const unknown = await hub.request('GET', '/api/v3/not-documented');
  expect(unknown.status).toBe(404);
});

it('documents the access level, deprecation and parameters the actions declare', async () => {
  const { body } = await hub.request('GET', '/api/openapi.json');
  const provider = body.paths['/v3/provider'].get;
  expect(provider['x-access']).toBe('any');
  expect(provider.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'query', required: true }));
  const deprecated = Object.values<any>(body.paths)
    .flatMap((item) => Object.values<any>(item))
    .filter((operation) => operation.deprecated);
  const declared = hub.broker.registry
    .getActionList({})
    .filter((item: any) => item.action.deprecated && item.action.rest && isAccessLevel(item.action.access));
  expect(deprecated.map((operation) => operation['x-action']).sort()).toEqual(
    declared.map((item: any) => item.name).sort(),
  );
});

it('gives every operation a summary of its own and a schema of its success answer', async () => {
  const { body } = await hub.request('GET', '/api/openapi.json');
  const unsaid: string[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(body.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const [answer] = Object.values<{ schema: Record<string, unknown> }>(operation.responses[200].content);
      if (!operation.summary || operation.summary === operation['x-action'] || Object.keys(answer.schema).length === 0)
        unsaid.push(`${method.toUpperCase()} ${path}`);
    }
  }
  expect(unsaid).toEqual([]);
});

it('documents the headers the hub reads and the error envelopes on every operation', async () => {
  const { body } = await hub.request('GET', '/api/openapi.json');
  const create = body.paths['/v3/case/create'].post;
  const refs = create.parameters.map((parameter: { $ref?: string }) => parameter.$ref);
  expect(refs).toEqual(
    expect.arrayContaining([
      '#/components/parameters/ServiceProvider',
      '#/components/parameters/IdempotencyKey',
      '#/components/parameters/RequestId',
    ]),
  );
  expect(create.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
  expect(create.responses['409']).toEqual({ $ref: '#/components/responses/IdempotencyConflict' });
  const read = body.paths['/v3/case'].get;
  expect(read.parameters.map((parameter: { $ref?: string }) => parameter.$ref)).not.toContain(
    '#/components/parameters/IdempotencyKey',
  );
  expect(body.components.schemas.Case.required).toContain('guid');
});
