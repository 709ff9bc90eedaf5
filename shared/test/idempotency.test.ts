/**
 * Which actions take an Idempotency-Key, and that a service with one cannot start without a place
 * to keep its keys. What a key does to requests is tested through the gateway
 * (test/idempotency/).
 */
import { type ActionSchema, type ServiceSchema, ServiceBroker } from 'moleculer';
import { ACCESS, IdempotencyMiddleware, IdempotencyMixin, takesIdempotencyKey } from '../src';

type RoutedAction = Pick<ActionSchema, 'rest' | 'access' | 'readOnly'>;

describe('takesIdempotencyKey', () => {
  it.each<[string, RoutedAction]>([
    ['a POST of a partner', { rest: 'POST /v3/things', access: ACCESS.PARTNER }],
    ['a PUT of a provider', { rest: 'PUT /v3/things/:id', access: ACCESS.PROVIDER }],
    ['a DELETE of either', { rest: { method: 'DELETE', path: '/v3/things/:id' }, access: ACCESS.PARTNER_PROVIDER }],
    ['a POST of any account', { rest: ['GET /v3/things', 'POST /v3/things'], access: ACCESS.ANY }],
    ['a route served for every method', { rest: '/v3/things', access: ACCESS.PARTNER }],
  ])('is true for %s', (_what, action) => {
    expect(takesIdempotencyKey(action)).toBe(true);
  });

  it.each<[string, RoutedAction]>([
    ['a GET', { rest: 'GET /v3/things', access: ACCESS.PARTNER }],
    ['a POST that only reads', { rest: 'POST /v3/search', access: ACCESS.PARTNER, readOnly: true }],
    ["an admin's POST", { rest: 'POST /admin/things', access: ACCESS.ADMIN }],
    ['an action without a route', { access: ACCESS.PARTNER }],
  ])('is false for %s', (_what, action) => {
    expect(takesIdempotencyKey(action)).toBe(false);
  });
});

describe('IdempotencyMiddleware', () => {
  let broker: ServiceBroker;
  beforeEach(() => {
    broker = new ServiceBroker({ logger: false, internalServices: false, middlewares: [IdempotencyMiddleware] });
  });

  const service = (name: string, action: Record<string, unknown>, mixins: Array<Partial<ServiceSchema>> = []) =>
    ({ name, mixins, actions: { write: { ...action, handler: () => null } } }) as ServiceSchema;

  it('refuses a service with a write of a party and nowhere to keep its keys', () => {
    expect(() =>
      broker.createService(service('forgetful', { rest: 'POST /v3/things', access: ACCESS.PARTNER })),
    ).toThrow('forgetful.write takes Idempotency-Keys: its service needs IdempotencyMixin');
  });

  it("takes one that keeps them, and one whose writes are the admin's or only read", () => {
    broker.createService(
      service('keeping', { rest: 'POST /v3/things', access: ACCESS.PARTNER }, [IdempotencyMixin('keeping')]),
    );
    broker.createService(service('admin', { rest: 'POST /admin/things', access: ACCESS.ADMIN }));
    broker.createService(service('search', { rest: 'POST /v3/search', access: ACCESS.PARTNER, readOnly: true }));
    expect(broker.services.map((created) => created.name).sort()).toEqual(['admin', 'keeping', 'search']);
  });
});
