/**
 * The Prometheus text of a node's metrics, served on a port the process already has: the
 * gateway's own, or HEALTH_PORT for a process without the gateway. Every process reports the
 * calls it serves, so Prometheus scrapes every process (see infra/).
 */
import { MetricReporters, type ServiceBroker } from 'moleculer';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Moleculer's Prometheus reporter without its own HTTP listener: the caller serves `render()`. */
export class ScrapedPrometheusReporter extends MetricReporters.Prometheus {
  override init(registry: unknown): void {
    (MetricReporters.Base.prototype as unknown as { init(registry: unknown): void }).init.call(this, registry);
    const self = this as unknown as { opts: { defaultLabels?: unknown }; defaultLabels: unknown };
    const labels = self.opts.defaultLabels;
    self.defaultLabels = typeof labels === 'function' ? labels.call(this, registry) : labels;
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  render(): string {
    return (this as unknown as { generatePrometheusResponse(): string }).generatePrometheusResponse();
  }
}

/** The reporter for a broker's metrics, or undefined when METRICS=false. */
export function prometheusReporterOf(broker: ServiceBroker): ScrapedPrometheusReporter | undefined {
  if (!broker.isMetricsEnabled()) return undefined;
  const reporter = new ScrapedPrometheusReporter({});
  reporter.init(broker.metrics);
  return reporter;
}
