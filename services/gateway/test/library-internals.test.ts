/**
 * The parts of Moleculer and moleculer-web the hub uses that they do not document. Each test names
 * the hub code that depends on the part: when a library upgrade breaks one, this file says where
 * to look, instead of uploads or /metrics failing somewhere downstream.
 */
import { ServiceBroker, type Service } from 'moleculer';
import ApiGateway from 'moleculer-web';
import { ScrapedPrometheusReporter } from '@hub/shared';

let broker: ServiceBroker;
let gateway: Service & Record<string, unknown>;

beforeAll(async () => {
  broker = new ServiceBroker({ logger: false, metrics: { enabled: true, reporter: [] } });
  broker.createService({
    name: 'probe',
    actions: {
      upload: { rest: 'POST /upload', largeBody: true, handler: () => null },
    },
  });
  gateway = broker.createService({
    name: 'api',
    mixins: [ApiGateway],
    settings: { server: false, routes: [{ path: '/api', autoAliases: true }] },
  }) as Service & Record<string, unknown>;
  await broker.start();
});
afterAll(() => broker.stop());

describe("moleculer-web's routing internals (gateway.service.ts)", () => {
  it('regenerateAllAutoAliases is a debounced function with flush(), called on $broker.started', () => {
    const regenerate = gateway.regenerateAllAutoAliases as { flush?: unknown };
    expect(typeof regenerate).toBe('function');
    expect(typeof regenerate.flush).toBe('function');
  });

  it('resolveAlias(url, method) finds the alias and its action name (takesLargeBody)', () => {
    (gateway.regenerateAllAutoAliases as { flush(): void }).flush();
    const resolveAlias = gateway.resolveAlias as (url: string, method: string) => unknown;
    expect(resolveAlias.call(gateway, '/api/probe/upload', 'POST')).toMatchObject({
      alias: { action: 'probe.upload' },
    });
    expect(resolveAlias.call(gateway, '/api/probe/nothing', 'POST')).toBe(false);
  });
});

describe("moleculer-web's internals the kept answers use (gateway.service.ts, answerFromCache)", () => {
  it('parseQueryString(req) answers the query string parsed', () => {
    const parse = gateway.parseQueryString as (req: { url: string }) => { query: Record<string, unknown> };
    expect(parse.call(gateway, { url: '/api/x?a=1&accessToken=t' }).query).toEqual({ a: '1', accessToken: 't' });
  });

  it("routes[] hold each route's path and rate limiter: key(req), limit, headers, store.inc(key) and resetTime", async () => {
    const limited = broker.createService({
      name: 'limited',
      mixins: [ApiGateway],
      settings: {
        server: false,
        routes: [{ path: '/api', rateLimit: { window: 60_000, limit: 5, headers: true, key: () => 'k' } }],
      },
    }) as Service & { routes: Array<{ path: string; rateLimit: Record<string, unknown> }> };
    try {
      const route = limited.routes.find((entry) => entry.path === '/api')!;
      const rateLimit = route.rateLimit as {
        key(req: unknown): string;
        limit: number;
        headers: boolean;
        store: { inc(key: string): number; resetTime: number };
      };
      expect(rateLimit.key({})).toBe('k');
      expect(rateLimit).toMatchObject({ limit: 5, headers: true });
      expect(rateLimit.store.inc('k')).toBe(1);
      expect(rateLimit.store.inc('k')).toBe(2);
      expect(rateLimit.store.resetTime).toBeGreaterThan(Date.now());
    } finally {
      await broker.destroyService(limited);
    }
  });
});

describe("Moleculer's registry internals (gateway.service.ts, takesLargeBody and answerFromCache)", () => {
  const actions = () => (broker.registry as unknown as { actions: { get(name: string): unknown } }).actions;

  it("registry.actions.get(name).endpoints[0].action is the action's schema with the hub's keys", () => {
    expect(actions().get('probe.upload')).toMatchObject({ endpoints: [{ action: { largeBody: true } }] });
  });

  it('registry.actions.get(name).hasAvailable() says whether any node serves the action now', () => {
    expect((actions().get('probe.upload') as { hasAvailable(): boolean }).hasAvailable()).toBe(true);
  });
});

describe("Moleculer's Prometheus reporter internals (shared/src/metrics.ts)", () => {
  it("MetricReporters.Base.prototype.init sets the registry up without the Prometheus reporter's own HTTP server", () => {
    const reporter = new ScrapedPrometheusReporter({});
    reporter.init(broker.metrics);
    expect((reporter as unknown as { server?: unknown }).server).toBeUndefined();
    expect((reporter as unknown as { registry: unknown }).registry).toBe(broker.metrics);
  });

  it('generatePrometheusResponse() renders the registry as Prometheus text (render)', () => {
    const reporter = new ScrapedPrometheusReporter({});
    reporter.init(broker.metrics);
    broker.metrics.register({ type: 'counter', name: 'probe_pinned_total', description: 'a probe' });
    broker.metrics.increment('probe_pinned_total');
    expect(reporter.render()).toMatch(/^probe_pinned_total\{[^}]*\} 1$/m);
  });
});
