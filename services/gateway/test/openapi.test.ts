/**
 * The OpenAPI generator on hand-made registry listings: which actions become routes, how
 * fastest-validator rules become JSON Schema, and where parameters go.
 */
import { expandShorthand, ruleToSchema } from '@hub/shared';
import { apiRoutes, buildOpenApi, openApiPath, type ServiceInfo } from '../src/openapi';

const OPTIONS = { title: 'Test', version: '1.0.0', basePath: '/api' };

function service(name: string, actions: Record<string, Record<string, unknown>>, rest: unknown = ''): ServiceInfo {
  return {
    name,
    settings: { rest },
    actions: Object.fromEntries(
      Object.entries(actions).map(([raw, action]) => [
        `${name}.${raw}`,
        { name: `${name}.${raw}`, rawName: raw, ...action },
      ]),
    ),
  };
}

const doc = (services: ServiceInfo[]) => buildOpenApi(services, OPTIONS) as any;

describe('routes', () => {
  it('documents an action with rest and an access level, under its service base path', () => {
    const routes = apiRoutes([service('things', { list: { rest: 'GET /v3/things', access: 'partner' } }, 'shop')]);
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(['GET /shop/v3/things']);
  });

  it('leaves out actions without an access level, without rest, or not published', () => {
    const routes = apiRoutes([
      service('things', {
        open: { rest: 'GET /v3/open', access: 'any' },
        noAccess: { rest: 'GET /v3/no-access' },
        badAccess: { rest: 'GET /v3/bad-access', access: 'everyone' },
        internal: { access: 'admin', visibility: 'public', rest: 'GET /v3/internal' },
        noRest: { access: 'admin' },
      }),
    ]);
    expect(routes.map((route) => route.path)).toEqual(['/v3/open']);
  });

  it('reads object and array rest declarations and the service name as default base path', () => {
    const declared = service('things', {
      a: { rest: { method: 'PUT', path: '/a/:id' }, access: 'admin' },
      b: { rest: ['GET /b', 'POST /b'], access: 'admin' },
    });
    const routes = apiRoutes([{ ...declared, settings: {} }]);
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'PUT /things/a/:id',
      'GET /things/b',
      'POST /things/b',
    ]);
  });

  it('lists a service running on several nodes once', () => {
    const one = service('things', { list: { rest: 'GET /v3/things', access: 'partner' } });
    expect(apiRoutes([one, { ...one }])).toHaveLength(1);
  });
});

describe('rules to JSON Schema', () => {
  it('expands the shorthand form', () => {
    expect(expandShorthand('number|integer|positive')).toEqual({ type: 'number', integer: true, positive: true });
    expect(expandShorthand('string|min:1|max:255')).toEqual({ type: 'string', min: 1, max: 255 });
    expect(expandShorthand('string?')).toEqual({ type: 'string', optional: true });
  });

  it('maps scalar rules with their limits', () => {
    expect(ruleToSchema('number|integer|positive')).toEqual({ type: 'integer', exclusiveMinimum: 0 });
    expect(ruleToSchema({ type: 'number', min: 1, max: 5 })).toEqual({ type: 'number', minimum: 1, maximum: 5 });
    expect(ruleToSchema({ type: 'string', pattern: /^[A-Z]{3}$/, max: 3 })).toEqual({
      type: 'string',
      pattern: '^[A-Z]{3}$',
      maxLength: 3,
    });
    expect(ruleToSchema({ type: 'enum', values: ['a', 'b'] })).toEqual({ enum: ['a', 'b'] });
    expect(ruleToSchema({ type: 'uuid' })).toEqual({ type: 'string', format: 'uuid' });
    expect(ruleToSchema({ type: 'date', convert: true })).toEqual({ type: 'string', format: 'date-time' });
    expect(ruleToSchema({ type: 'equal', value: true })).toEqual({ const: true });
    expect(ruleToSchema({ type: 'boolean', default: false })).toEqual({ type: 'boolean', default: false });
    expect(ruleToSchema({ type: 'custom', check: () => true })).toEqual({});
  });

  it('allows null where the rule is nullable', () => {
    expect(ruleToSchema({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(ruleToSchema({ type: 'enum', values: ['x'], nullable: true })).toEqual({ enum: ['x', null] });
  });

  it('maps nested objects, arrays and alternatives with what is required', () => {
    const schema = ruleToSchema({
      type: 'object',
      props: {
        name: 'string',
        tags: { type: 'array', items: 'number|integer', max: 3, optional: true },
        size: { type: 'number', default: 1 },
        either: [{ type: 'string' }, { type: 'number' }],
      },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        tags: { type: 'array', items: { type: 'integer' }, maxItems: 3 },
        size: { type: 'number', default: 1 },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['name', 'either'],
    });
  });

  it('turns Express path parameters into OpenAPI ones', () => {
    expect(openApiPath('/admin/things/:id/redo')).toBe('/admin/things/{id}/redo');
  });
});

describe('operations', () => {
  const services = [
    service('things', {
      find: {
        rest: 'GET /v3/things',
        access: 'partner',
        params: { guid: { type: 'uuid' }, active: { type: 'boolean', optional: true } },
      },
      save: {
        rest: 'POST /v3/things',
        access: 'provider',
        params: { items: { type: 'array', items: { type: 'object', props: { name: 'string' } }, min: 1 } },
      },
      update: {
        rest: 'PUT /v3/things/:id',
        access: 'admin',
        params: { id: 'number|integer|positive', name: 'string' },
        summary: 'Rename a thing',
        description: 'Why one would.',
      },
      old: {
        rest: 'POST /v1/things',
        access: 'partner+provider',
        deprecated: true,
        params: { $$strict: 'remove', note: { type: 'string', optional: true } },
      },
      free: { rest: 'POST /v3/free', access: 'partner' },
    }),
  ].map((info) => ({ ...info, metadata: { description: 'Things to find and keep' } }));
  const document = doc(services);

  it('is an OpenAPI 3.1 document served under the API base path with the three token transports', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/api' }]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['accessToken', 'bearer', 'hubApiToken']);
    expect(document.components.securitySchemes.accessToken).toMatchObject({
      type: 'apiKey',
      in: 'query',
      name: 'accessToken',
    });
    expect(document.components.securitySchemes.hubApiToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Hub-Api-Token',
    });
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('puts GET parameters in the query, required unless optional', () => {
    expect(document.paths['/v3/things'].get.parameters.filter((parameter: any) => parameter.in === 'query')).toEqual([
      { name: 'guid', in: 'query', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'active', in: 'query', required: false, schema: { type: 'boolean' } },
    ]);
    expect(document.paths['/v3/things'].get.requestBody).toBeUndefined();
  });

  it('documents an items param as an array body', () => {
    expect(document.paths['/v3/things'].post.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'array',
            items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            minItems: 1,
          },
        },
      },
    });
  });

  it('documents path parameters in the path and the rest as a JSON body, with summary and description', () => {
    const operation = document.paths['/v3/things/{id}'].put;
    expect(operation.parameters.filter((parameter: any) => parameter.in === 'path')).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', exclusiveMinimum: 0 } },
    ]);
    expect(operation.requestBody.content['application/json'].schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
    expect(operation.summary).toBe('Rename a thing');
    expect(operation.description).toBe('Why one would.\n\nAccess: admin.');
  });

  it('marks deprecated actions and names the access level', () => {
    const operation = document.paths['/v1/things'].post;
    expect(operation.deprecated).toBe(true);
    expect(operation['x-access']).toBe('partner+provider');
    expect(operation.description).toBe('Access: partner or provider.');
    expect(operation.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } } },
    });
    expect(document.paths['/v3/things'].get.deprecated).toBeUndefined();
  });

  it('documents the headers the gateway reads on every operation, Idempotency-Key on the writes of parties', () => {
    const headers = (operation: any) =>
      operation.parameters.filter((parameter: any) => parameter.$ref).map((parameter: any) => parameter.$ref);
    const common = ['#/components/parameters/RequestId', '#/components/parameters/ServiceProvider'];
    expect(headers(document.paths['/v3/things'].get)).toEqual(common);
    expect(headers(document.paths['/v3/things'].post)).toEqual([...common, '#/components/parameters/IdempotencyKey']);
    expect(document.paths['/v3/things'].post.responses['409']).toEqual({
      $ref: '#/components/responses/IdempotencyConflict',
    });
    expect(headers(document.paths['/v3/things/{id}'].put)).toEqual(common);
    expect(document.components.parameters.ServiceProvider).toMatchObject({ name: 'X-Service-Provider', in: 'header' });
    expect(document.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    expect(document.components.parameters.RequestId).toMatchObject({ name: 'X-Request-Id', in: 'header' });
  });

  it('documents the headers of the answers: the rate limit on all, a replay on keyed writes, dates on deprecated paths', () => {
    const rateLimit = {
      'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
      RateLimit: { $ref: '#/components/headers/RateLimit' },
    };
    expect(document.paths['/v3/things'].get.responses['200'].headers).toEqual(rateLimit);
    expect(document.paths['/v3/things'].post.responses['200'].headers).toEqual({
      ...rateLimit,
      'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
    });
    expect(document.paths['/v1/things'].post.responses['200'].headers).toMatchObject({
      Deprecation: { $ref: '#/components/headers/Deprecation' },
      Sunset: { $ref: '#/components/headers/Sunset' },
    });
    for (const response of Object.values<any>(document.components.responses))
      expect(response.headers).toMatchObject(rateLimit);
    expect(Object.keys(document.components.headers).sort()).toEqual([
      'Deprecation',
      'IdempotentReplayed',
      'RateLimit',
      'RateLimitPolicy',
      'Sunset',
    ]);
  });

  it("describes each service's operations with the service's own description, admin and older paths apart", () => {
    expect(document.tags).toEqual([
      { name: 'things', description: 'Things to find and keep' },
      {
        name: 'admin',
        description:
          "The operator's endpoints (admin token): accounts, the world, webhook subscriptions and deliveries, the cluster's overview and storage.",
      },
      {
        name: 'things (v1/v2)',
        description:
          'Deprecated v1 and v2 paths of things, answered by its v3 actions; each answer carries Deprecation and Sunset headers. New clients call the v3 paths.',
      },
    ]);
  });

  it('takes any JSON object where an action declares no params', () => {
    expect(document.paths['/v3/free'].post.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: { type: 'object' } } },
    });
  });

  it('answers every operation with the error envelopes, 413 only where there is a body', () => {
    const get = document.paths['/v3/things'].get.responses;
    const post = document.paths['/v3/things'].post.responses;
    expect(Object.keys(get).sort()).toEqual(['200', '400', '401', '403', '404', '429']);
    expect(Object.keys(post).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '429']);
    expect(document.components.responses.BadRequest.content['application/json'].schema.anyOf).toContainEqual({
      $ref: '#/components/schemas/ValidationError',
    });
    expect(document.components.responses.BadRequest.content['application/json'].schema.anyOf).toContainEqual({
      $ref: '#/components/schemas/NotEnoughData',
    });
    expect(document.components.responses.NotFound.content['application/json'].schema.anyOf).toContainEqual({
      $ref: '#/components/schemas/CannotProcessCase',
    });
    expect(document.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
  });

  it('gives every operation a unique id and resolvable references', () => {
    const operations = Object.values(document.paths).flatMap((item: any) => Object.values(item)) as any[];
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) {
      const pointer = JSON.parse(`{${ref}}`).$ref.slice(2).split('/');
      expect(pointer.reduce((node: any, key: string) => node?.[key], document)).toBeDefined();
    }
  });
});

describe('responses', () => {
  const thing = {
    title: 'Thing',
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' } },
    required: ['id'],
    examples: [{ id: 7, name: 'Lamp' }],
  } as const;
  const document = doc([
    service('things', {
      read: {
        rest: 'GET /v3/thing',
        access: 'partner',
        response: thing,
      },
      list: {
        rest: 'GET /v3/things',
        access: 'partner',
        response: { type: 'object', properties: { items: { type: 'array', items: thing } } },
      },
      file: {
        rest: 'GET /v3/thing/file',
        access: 'partner',
        response: { description: 'The file as uploaded', contentMediaType: 'application/octet-stream' },
      },
      unsaid: { rest: 'GET /v3/unsaid', access: 'partner' },
    }),
    service('others', {
      read: {
        rest: 'GET /v3/x-other',
        access: 'partner',
        response: { title: 'Thing', type: 'string' },
      },
      error: { rest: 'GET /v3/error', access: 'partner', response: { title: 'Error', type: 'string' } },
    }),
  ]);
  const ok = (path: string) => document.paths[path].get.responses['200'];

  it('answers 200 with the declared schema and its first example', () => {
    expect(ok('/v3/thing').content['application/json']).toEqual({
      schema: { $ref: '#/components/schemas/Thing' },
      example: { id: 7, name: 'Lamp' },
    });
  });

  it('lists a titled shape once and refers to it wherever it appears', () => {
    expect(ok('/v3/things').content['application/json'].schema).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } },
    });
    expect(document.components.schemas.Thing).toEqual(thing);
  });

  it('keeps a second shape of the same title under a name of its own, and the built-in ones whole', () => {
    expect(ok('/v3/x-other').content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Thing2' });
    expect(document.components.schemas.Thing2).toEqual({ title: 'Thing', type: 'string' });
    expect(ok('/v3/error').content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error2' });
    expect(document.components.schemas.Error.properties.error).toBeDefined();
  });

  it('serves a file answer as its media type with its description', () => {
    expect(ok('/v3/thing/file')).toEqual({
      description: 'The file as uploaded',
      content: {
        'application/octet-stream': {
          schema: { description: 'The file as uploaded', contentMediaType: 'application/octet-stream' },
        },
      },
      headers: expect.any(Object),
    });
  });

  it('says nothing of an answer no action declares', () => {
    expect(ok('/v3/unsaid').content['application/json'].schema).toEqual({});
  });
});
