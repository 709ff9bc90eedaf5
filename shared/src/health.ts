/**
 * Liveness and readiness of a process, for orchestrators, and its metrics, for Prometheus. The
 * gateway answers them on its own port; a process without the gateway serves the same endpoints
 * on HEALTH_PORT when set.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceBroker, ServiceSchema } from 'moleculer';
import { isServing, openedDatabaseOf } from './context';
import { isTransporterReachable } from './transporter-link';
import { PROMETHEUS_CONTENT_TYPE, prometheusReporterOf, type ScrapedPrometheusReporter } from './metrics';

export interface Readiness {
  ok: boolean;
  checks: Record<string, string>;
}

/** Ready when the local services have started (and the first start's world is in), the transporter is connected and this process's database (if any) answers. */
export async function readiness(broker: ServiceBroker): Promise<Readiness> {
  const checks: Record<string, string> = {};
  const serving = isServing(broker);
  checks.services = serving ? 'ok' : 'starting';
  checks.transporter = isTransporterReachable(broker) ? 'ok' : 'down';
  const database = openedDatabaseOf(broker);
  // While the services start, their migrations and the first world hold the embedded database's
  // one connection, so a ping would wait behind them: a process not yet serving is not ready
  // whatever the database says, and answers so at once.
  if (database && !serving) checks.database = 'starting';
  else if (database) {
    checks.database = await database
      .then((db) => db.ping())
      .then(
        () => 'ok',
        () => 'down',
      );
  }
  return { ok: Object.values(checks).every((value) => value === 'ok'), checks };
}

type HealthThis = {
  broker: ServiceBroker;
  server: http.Server;
  prometheus?: ScrapedPrometheusReporter;
  logger: { info(...args: unknown[]): void };
};

/** A service that listens on `port` with GET /health/live, GET /health/ready and GET /metrics. */
export function healthServiceSchema(port: number, host: string): ServiceSchema {
  const schema: ServiceSchema<Record<string, never>, HealthThis> = {
    name: '$health',

    created(this: HealthThis) {
      this.prometheus = prometheusReporterOf(this.broker);
      this.server = http.createServer((req, res) => {
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify(body));
        };
        if (req.method !== 'GET') return answer(405, { error: { message: 'Method not allowed' } });
        if (req.url === '/health/live') return answer(200, { status: 'ok' });
        if (req.url === '/metrics' && this.prometheus) {
          res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE });
          return res.end(this.prometheus.render());
        }
        if (req.url !== '/health/ready') return answer(404, { error: { message: 'Not found' } });
        readiness(this.broker).then(
          ({ ok, checks }) => answer(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', checks }),
          () => answer(503, { status: 'unavailable', checks: {} }),
        );
      });
    },

    started(this: HealthThis) {
      return new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(port, host, () => {
          this.logger.info(`Health and metrics endpoints on port ${(this.server.address() as AddressInfo).port}`);
          resolve();
        });
      });
    },

    stopped(this: HealthThis) {
      return new Promise<void>((resolve) => this.server.close(() => resolve()));
    },
  };
  return schema as unknown as ServiceSchema;
}
