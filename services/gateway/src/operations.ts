/**
 * What an operator sees of the cluster from the gateway: nodes and services up, each outbox's
 * backlog and webhook delivery health (asked of the services that own them through internal
 * actions found in the registry), and those figures as gauges on the gateway's /metrics: they
 * are the cluster's, read once per scrape, not any one process's.
 */
import type { ServiceBroker } from 'moleculer';
import { OUTBOX_BACKLOG_ACTION } from '@hub/shared';

/** The webhooks service's internal summary of deliveries; absent while it does not run. */
export const WEBHOOK_HEALTH_ACTION = 'webhooks.deliveryHealth';

/** How long a figure for the console or a scrape may take before it is left out. */
const FIGURE_TIMEOUT_MS = 3000;

export interface OutboxBacklog {
  service: string;
  pending: number | null;
}

export interface WebhookHealth {
  totals: { pending: number; failing: number; dead: number };
  receivers: Array<Record<string, unknown>>;
}

export interface ClusterOverview {
  nodes: Array<{ id: string; available: boolean; local: boolean; hostname: string | null; services: string[] }>;
  services: Array<{ name: string; nodes: string[] }>;
  outbox: OutboxBacklog[];
  webhooks: WebhookHealth | null;
}

type ActionListItem = { name: string; available?: boolean };

function availableActionNames(broker: ServiceBroker): string[] {
  return (broker.registry.getActionList({ onlyAvailable: true, skipInternal: true }) as ActionListItem[]).map((item) => item.name);
}

/** Every outbox in the cluster: one call per service that has one (any of its instances answers). */
export async function outboxBacklogs(broker: ServiceBroker): Promise<OutboxBacklog[]> {
  const actions = availableActionNames(broker).filter((name) => name.endsWith(`.${OUTBOX_BACKLOG_ACTION}`));
  const results = await Promise.all(
    actions.map(async (action) => {
      const service = action.slice(0, -OUTBOX_BACKLOG_ACTION.length - 1);
      try {
        const answer = (await broker.call(action, {}, { timeout: FIGURE_TIMEOUT_MS, retries: 0 })) as { pending: number };
        return { service, pending: answer.pending };
      } catch {
        return { service, pending: null };
      }
    }),
  );
  return results.sort((a, b) => a.service.localeCompare(b.service));
}

export async function webhookHealth(broker: ServiceBroker, hours: number): Promise<WebhookHealth | null> {
  if (!availableActionNames(broker).includes(WEBHOOK_HEALTH_ACTION)) return null;
  try {
    return (await broker.call(WEBHOOK_HEALTH_ACTION, { hours }, { timeout: FIGURE_TIMEOUT_MS, retries: 0 })) as WebhookHealth;
  } catch {
    return null;
  }
}

export async function clusterOverview(broker: ServiceBroker, hours: number): Promise<ClusterOverview> {
  type NodeItem = { id: string; available: boolean; local: boolean; hostname?: string; services?: Array<{ name: string }> };
  const registry = broker.registry as unknown as { getNodeList(opts: { onlyAvailable: boolean; withServices: boolean }): NodeItem[] };
  const nodes = registry
    .getNodeList({ onlyAvailable: false, withServices: true })
    .map((node) => ({
      id: node.id,
      available: node.available,
      local: node.local,
      hostname: node.hostname ?? null,
      services: (node.services ?? []).map((service) => service.name).filter((name) => !name.startsWith('$')).sort(),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const byService = new Map<string, string[]>();
  for (const node of nodes) {
    if (!node.available) continue;
    for (const service of node.services) byService.set(service, [...(byService.get(service) ?? []), node.id]);
  }
  const [outbox, webhooks] = await Promise.all([outboxBacklogs(broker), webhookHealth(broker, hours)]);
  return {
    nodes,
    services: [...byService.entries()].map(([name, ids]) => ({ name, nodes: ids })).sort((a, b) => a.name.localeCompare(b.name)),
    outbox,
    webhooks,
  };
}

export const HUB_METRICS = {
  OUTBOX_BACKLOG: 'hub.outbox.backlog',
  WEBHOOK_DELIVERIES: 'hub.webhooks.deliveries',
} as const;

export function registerHubMetrics(broker: ServiceBroker): void {
  broker.metrics.register({
    name: HUB_METRICS.OUTBOX_BACKLOG,
    type: 'gauge',
    labelNames: ['service'],
    description: 'Events written to a service outbox and not yet handed to the webhooks service',
  });
  broker.metrics.register({
    name: HUB_METRICS.WEBHOOK_DELIVERIES,
    type: 'gauge',
    labelNames: ['state'],
    description: 'Webhook deliveries by state: pending (due or waiting), failing (pending after a failed attempt), dead (dead-lettered)',
  });
}

/** Sets the gauges from the owning services just before a scrape reads them. */
export async function refreshHubMetrics(broker: ServiceBroker): Promise<void> {
  const [outbox, webhooks] = await Promise.all([outboxBacklogs(broker), webhookHealth(broker, 1)]);
  for (const { service, pending } of outbox) {
    if (pending !== null) broker.metrics.set(HUB_METRICS.OUTBOX_BACKLOG, pending, { service });
  }
  if (webhooks) {
    for (const [state, count] of Object.entries(webhooks.totals)) broker.metrics.set(HUB_METRICS.WEBHOOK_DELIVERIES, count, { state });
  }
}
