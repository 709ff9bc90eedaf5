/**
 * Health and metrics endpoints of a process that runs no gateway (HEALTH_PORT), as
 * orchestrators probe them and Prometheus scrapes them.
 */
import type { AddressInfo } from 'node:net';
import type { ServiceBroker } from 'moleculer';
import { readiness } from '../src';
import { startTestHub, type TestHub } from '../../test/support/hub';
import { sample } from '../../test/support/prometheus';

let hub: TestHub;
let base: string;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog'], env: { HEALTH_PORT: '0', METRICS: 'true' } });
  const health = hub.broker.getLocalService('$health') as unknown as { server: { address(): AddressInfo } };
  base = `http://127.0.0.1:${health.server.address().port}`;
});
afterAll(() => hub.stop());

it('answers live and ready with the checks that passed', async () => {
  const live = await fetch(`${base}/health/live`);
  expect(live.status).toBe(200);
  expect(await live.json()).toEqual({ status: 'ok' });
  const ready = await fetch(`${base}/health/ready`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ok', checks: { services: 'ok', transporter: 'ok', database: 'ok' } });
  expect((await fetch(`${base}/other`)).status).toBe(404);
});

it("serves this process's metrics in the Prometheus format, the calls it served counted", async () => {
  await hub.broker.call('catalog.provider', { id: 10 });
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(
    sample(await res.text(), 'moleculer_request_total', { action: 'catalog.provider', nodeID: hub.broker.nodeID }),
  ).toBe(1);
});

it('is not ready while the broker starts or the transporter is down', async () => {
  const starting = { started: false, transit: { connected: false } } as unknown as ServiceBroker;
  expect(await readiness(starting)).toEqual({ ok: false, checks: { services: 'starting', transporter: 'down' } });
});

it('is left out of a process that runs the gateway, which answers on its own port', async () => {
  const withGateway = await startTestHub({ services: ['catalog', 'gateway'], env: { HEALTH_PORT: '0' } });
  try {
    expect(withGateway.broker.getLocalService('$health')).toBeFalsy();
    expect((await withGateway.request('GET', '/health/ready')).status).toBe(200);
  } finally {
    await withGateway.stop();
  }
});

it('has no metrics endpoint when metrics are off', async () => {
  const unmeasured = await startTestHub({ services: ['catalog'], env: { HEALTH_PORT: '0', METRICS: 'false' } });
  try {
    const health = unmeasured.broker.getLocalService('$health') as unknown as { server: { address(): AddressInfo } };
    expect((await fetch(`http://127.0.0.1:${health.server.address().port}/metrics`)).status).toBe(404);
  } finally {
    await unmeasured.stop();
  }
});
