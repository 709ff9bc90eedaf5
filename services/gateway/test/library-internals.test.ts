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

describe("Moleculer's registry internals (gateway.service.ts, takesLargeBody)", () => {
  it("registry.actions.get(name).endpoints[0].action is the action's schema with the hub's keys", () => {
    const actions = (broker.registry as unknown as { actions: { get(name: string): unknown } }).actions;
    expect(actions.get('probe.upload')).toMatchObject({ endpoints: [{ action: { largeBody: true } }] });
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
