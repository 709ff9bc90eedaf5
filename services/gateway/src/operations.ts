/**
 * What an operator sees of the cluster from the gateway: nodes and services up, each outbox's
 * backlog, webhook delivery health and each service's storage and retention (asked of the
 * services that own them through internal actions found in the registry), and those figures as
 * gauges on the gateway's /metrics: they are the cluster's, read once per scrape, not any one
 * process's.
 */
import type { ServiceBroker } from 'moleculer';
import { OUTBOX_BACKLOG_ACTION, STORAGE_ACTION, type StorageFigures } from '@hub/shared';

/** The webhooks service's internal summary of deliveries; absent while it does not run. */
export const WEBHOOK_HEALTH_ACTION = 'webhooks.deliveryHealth';

/** How long a figure for the console or a scrape may take before it is left out. */
const FIGURE_TIMEOUT_MS = 3000;
/** Storage figures count the rows of small tables, which takes longer than the other figures. */
const STORAGE_TIMEOUT_MS = 10_000;

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
  return (broker.registry.getActionList({ onlyAvailable: true, skipInternal: true }) as ActionListItem[]).map(
    (item) => item.name,
  );
}

/** Every outbox in the cluster: one call per service that has one (any of its instances answers). */
export async function outboxBacklogs(broker: ServiceBroker): Promise<OutboxBacklog[]> {
  const actions = availableActionNames(broker).filter((name) => name.endsWith(`.${OUTBOX_BACKLOG_ACTION}`));
  const results = await Promise.all(
    actions.map(async (action) => {
      const service = action.slice(0, -OUTBOX_BACKLOG_ACTION.length - 1);
      try {
        const answer = (await broker.call(action, {}, { timeout: FIGURE_TIMEOUT_MS, retries: 0 })) as {
          pending: number;
        };
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
    return (await broker.call(
      WEBHOOK_HEALTH_ACTION,
      { hours },
      { timeout: FIGURE_TIMEOUT_MS, retries: 0 },
    )) as WebhookHealth;
  } catch {
    return null;
  }
}

export interface ClusterStorage {
  services: StorageFigures[];
  /** Services with a database that did not answer in time. */
  unanswered: string[];
}

/** Every service's storage and retention figures: one call per service with a database. */
export async function clusterStorage(broker: ServiceBroker): Promise<ClusterStorage> {
  const actions = availableActionNames(broker).filter((name) => name.endsWith(`.${STORAGE_ACTION}`));
  const answers = await Promise.all(
    actions.map(async (action) => {
      try {
        return (await broker.call(action, {}, { timeout: STORAGE_TIMEOUT_MS, retries: 0 })) as StorageFigures;
      } catch {
        return action.slice(0, -STORAGE_ACTION.length - 1);
      }
    }),
  );
  return {
    services: answers
      .filter((answer): answer is StorageFigures => typeof answer !== 'string')
      .sort((a, b) => a.service.localeCompare(b.service)),
    unanswered: answers.filter((answer): answer is string => typeof answer === 'string').sort(),
  };
}

export async function clusterOverview(broker: ServiceBroker, hours: number): Promise<ClusterOverview> {
  type NodeItem = {
    id: string;
    available: boolean;
    local: boolean;
    hostname?: string;
    services?: Array<{ name: string }>;
  };
  const registry = broker.registry as unknown as {
    getNodeList(opts: { onlyAvailable: boolean; withServices: boolean }): NodeItem[];
  };
  const nodes = registry
    .getNodeList({ onlyAvailable: false, withServices: true })
    .map((node) => ({
      id: node.id,
      available: node.available,
      local: node.local,
      hostname: node.hostname ?? null,
      services: (node.services ?? [])
        .map((service) => service.name)
        .filter((name) => !name.startsWith('$'))
        .sort(),
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
    services: [...byService.entries()]
      .map(([name, ids]) => ({ name, nodes: ids }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    outbox,
    webhooks,
  };
}

export const HUB_METRICS = {
  OUTBOX_BACKLOG: 'hub.outbox.backlog',
  WEBHOOK_DELIVERIES: 'hub.webhooks.deliveries',
  STORAGE_ROWS: 'hub.storage.rows',
  STORAGE_BYTES: 'hub.storage.bytes',
  STORAGE_OLDEST_ROW_AGE: 'hub.storage.oldest_row_age_seconds',
  STORAGE_PARTITIONS: 'hub.storage.partitions',
  RETENTION_LAST_RUN: 'hub.retention.last_run_timestamp_seconds',
  RETENTION_LAST_REMOVED: 'hub.retention.last_removed_rows',
  KEPT_ANSWERS: 'hub.gateway.kept_answers.total',
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
    description:
      'Webhook deliveries by state: pending (due or waiting), failing (pending after a failed attempt), dead (dead-lettered)',
  });
  const storage: Array<[string, string[], string]> = [
    [HUB_METRICS.STORAGE_ROWS, ['service', 'table'], 'Rows of a table (the planner estimate above 100,000)'],
    [HUB_METRICS.STORAGE_BYTES, ['service', 'table'], 'Bytes of a table with its indexes and TOAST'],
    [HUB_METRICS.STORAGE_OLDEST_ROW_AGE, ['service', 'table'], 'Age of the oldest row kept, for tables that age'],
    [HUB_METRICS.STORAGE_PARTITIONS, ['service', 'table'], 'Partitions of a table partitioned by time'],
    [HUB_METRICS.RETENTION_LAST_RUN, ['service', 'rule'], 'When a retention rule last ran (Unix seconds)'],
    [HUB_METRICS.RETENTION_LAST_REMOVED, ['service', 'rule'], 'Rows a retention rule removed in its last run'],
  ];
  for (const [name, labelNames, description] of storage)
    broker.metrics.register({ name, type: 'gauge', labelNames, description });
  broker.metrics.register({
    name: HUB_METRICS.KEPT_ANSWERS,
    type: 'counter',
    labelNames: ['action'],
    description: 'Requests the gateway answered from the lookup answers it keeps, without calling the action',
  });
}

/** Sets the gauges from the owning services just before a scrape reads them. */
export async function refreshHubMetrics(broker: ServiceBroker): Promise<void> {
  const [outbox, webhooks, storage] = await Promise.all([
    outboxBacklogs(broker),
    webhookHealth(broker, 1),
    clusterStorage(broker),
  ]);
  for (const { service, pending } of outbox) {
    if (pending !== null) broker.metrics.set(HUB_METRICS.OUTBOX_BACKLOG, pending, { service });
  }
  if (webhooks) {
    for (const [state, count] of Object.entries(webhooks.totals))
      broker.metrics.set(HUB_METRICS.WEBHOOK_DELIVERIES, count, { state });
  }
  for (const { service, tables, retention } of storage.services) {
    for (const { table, rows, bytes, partitions, oldestRowAgeSeconds } of tables) {
      broker.metrics.set(HUB_METRICS.STORAGE_ROWS, rows, { service, table });
      broker.metrics.set(HUB_METRICS.STORAGE_BYTES, bytes, { service, table });
      if (partitions !== undefined) broker.metrics.set(HUB_METRICS.STORAGE_PARTITIONS, partitions, { service, table });
      if (oldestRowAgeSeconds !== undefined && oldestRowAgeSeconds !== null)
        broker.metrics.set(HUB_METRICS.STORAGE_OLDEST_ROW_AGE, oldestRowAgeSeconds, { service, table });
    }
    for (const { rule, lastRunAt, lastRemoved } of retention.rules) {
      if (lastRunAt === null) continue;
      broker.metrics.set(HUB_METRICS.RETENTION_LAST_RUN, Date.parse(lastRunAt) / 1000, { service, rule });
      broker.metrics.set(HUB_METRICS.RETENTION_LAST_REMOVED, lastRemoved, { service, rule });
    }
  }
}
