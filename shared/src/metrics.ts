/**
 * The Prometheus text of a node's metrics, served on a port the process already has: the
 * gateway's own, or HEALTH_PORT for a process without the gateway. Every process reports the
 * calls it serves, so Prometheus scrapes every process (see infra/).
 */
import { MetricReporters, type MetricRegistry, type ServiceBroker } from 'moleculer';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Moleculer's Prometheus reporter without its own HTTP listener: the caller serves `render()`. */
export class ScrapedPrometheusReporter extends MetricReporters.Prometheus {
  override init(registry: MetricRegistry): void {
    MetricReporters.Base.prototype.init.call(this, registry);
    const self = this as unknown as { defaultLabels: unknown };
    const labels = this.opts.defaultLabels;
    self.defaultLabels = typeof labels === 'function' ? labels.call(this, registry) : labels;
  }

  override stop(): Promise<void> {
    return Promise.resolve();
  }

  render(): string {
    return this.generatePrometheusResponse();
  }
}

/** The reporter for a broker's metrics, or undefined when METRICS=false. */
export function prometheusReporterOf(broker: ServiceBroker): ScrapedPrometheusReporter | undefined {
  if (!broker.isMetricsEnabled()) return undefined;
  const reporter = new ScrapedPrometheusReporter({});
  reporter.init(broker.metrics);
  return reporter;
}
