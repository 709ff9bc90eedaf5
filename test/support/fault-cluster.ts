/**
 * A distributed hub for fault tests, on servers of its own that a test may kill or stop without
 * touching the ones other suites share: a NATS server and a Postgres cluster on free ports, a
 * front process (gateway, catalog, routing, models), two booking processes and a webhooks
 * process, with Power's `status.new` webhooks going to an HTTP receiver and, through a TCP proxy
 * the test can cut, to a RabbitMQ queue. A stream of bookings counts what the API acknowledged;
 * the suite compares that with the cases stored and the webhooks delivered.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import knexFactory, { type Knex } from 'knex';
import type { ServiceBroker } from 'moleculer';
import { createHubBroker, loadConfig } from '../../shared/src';
import { caseBody } from './cases';
import { DEMO_TOKENS, httpRequest, INFRA, waitFor } from './hub';
import {
  clusterEnv,
  demoWorldFor,
  freePort,
  privateNatsServer,
  privatePostgresServer,
  requestCount,
  runHub,
  spawnHub,
  waitForOk,
  writeWorldFile,
  type HubProcess,
  type NatsServer,
  type PostgresServer,
} from './processes';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

/** The processes of the cluster, by node id, with the services each runs. */
export const NODES = {
  'front-1': 'gateway,catalog,routing,models',
  'booking-1': 'booking',
  'booking-2': 'booking',
  'webhooks-1': 'webhooks',
} as const;
export type NodeName = keyof typeof NODES;
export const BOOKING_NODES: NodeName[] = ['booking-1', 'booking-2'];

/** A call between services times out after this; an answer this late would be a hang. */
export const CALL_TIMEOUT_MS = 10_000;

export const SUBSCRIPTIONS = { http: 1, amqp: 2 };

export interface Delivery {
  webhookId: string;
  caseGuid: string;
}

export interface FaultCluster {
  baseUrl: string;
  nats: NatsServer;
  postgres: PostgresServer;
  /** The hub's database, from outside the cluster, to count what it stored. */
  knex: Knex;
  /** A node of the test's own on the cluster, to see which nodes are up and what they run. */
  observer: ServiceBroker;
  processes: Record<NodeName, HubProcess>;
  rabbitLink: TcpProxy;
  /** The webhooks each receiver took, in order of arrival. */
  received: { http: Delivery[]; amqp: Delivery[] };
  /** Starts a process of the cluster (again) under its node id. */
  start(node: NodeName): HubProcess;
  /** Waits until the observer sees the nodes available. */
  waitForNodes(nodes: NodeName[], timeoutMs?: number): Promise<void>;
  /** Waits until the booking nodes run no booking.create: a call they took earlier has ended. */
  waitForBookingsToSettle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFaultCluster(): Promise<FaultCluster> {
  const nats = await privateNatsServer();
  await nats.start();
  const postgres = await privatePostgresServer();
  await postgres.start();
  const httpReceiver = await startReceiver();
  const rabbit = new URL(INFRA.amqp);
  const rabbitLink = await startTcpProxy({ host: rabbit.hostname, port: Number(rabbit.port || 5672) });
  const queue = `hub-faults-${randomUUID()}`;
  const consumer = await startQueueConsumer(INFRA.amqp, queue);
  const { env, baseUrl } = await clusterEnv(postgres.url, {
    TRANSPORTER: nats.url,
    RATE_LIMIT_PER_MINUTE: '1000000',
    REQUEST_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: '0,200ms,500ms,1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    LOAD_DEMO_WORLD: 'false',
  });
  const start = (node: NodeName) => spawnHub(['start'], { ...env, SERVICES: NODES[node], NODE_ID: node });
  // The front first: the other processes wait for the catalog, and migrating one at a time is
  // kinder to a loaded machine than four processes at once.
  const processes = { 'front-1': start('front-1') } as Record<NodeName, HubProcess>;
  await waitForOk(baseUrl, '/health/ready', 'the front process', { timeoutMs: 120_000 });
  for (const node of ['booking-1', 'booking-2', 'webhooks-1'] as const) processes[node] = start(node);

  const observer = createHubBroker({ ...loadConfig({ ...env, LOG_LEVEL: 'error' }), services: [] }, undefined, {
    nodeID: `observer-${randomBytes(3).toString('hex')}`,
  });
  await observer.start();
  const rabbitUrl = new URL(INFRA.amqp);
  rabbitUrl.hostname = '127.0.0.1';
  rabbitUrl.port = String(rabbitLink.port);
  const world = demoWorldFor(['catalog', 'routing', 'models', 'booking', 'webhooks']);
  world.webhooks = {
    ...(world.webhooks as object),
    // Account 3 is Power (partner 2), whose demo cases go to Nordic Repair Center.
    subscriptions: [
      {
        id: SUBSCRIPTIONS.http,
        accountId: 3,
        eventTypes: ['status.new'],
        target: { kind: 'http', url: `http://127.0.0.1:${httpReceiver.port}/power` },
      },
      {
        id: SUBSCRIPTIONS.amqp,
        accountId: 3,
        eventTypes: ['status.new'],
        target: { kind: 'amqp', url: rabbitUrl.toString(), queue },
      },
    ],
  };
  const worldFile = writeWorldFile(world);
  const cluster: FaultCluster = {
    baseUrl,
    nats,
    postgres,
    // Idle connections close soon, so a stopped server leaves none to report their loss.
    knex: knexFactory({ client: 'pg', connection: postgres.url, pool: { min: 0, max: 2, idleTimeoutMillis: 500 } }),
    observer,
    processes,
    rabbitLink,
    received: { http: httpReceiver.received, amqp: consumer.received },
    start(node) {
      processes[node] = start(node);
      return processes[node];
    },
    waitForNodes: (nodes, timeoutMs = 90_000) =>
      waitFor(
        () => nodes.every((node) => observer.registry.nodes.get(node)?.available),
        `nodes ${nodes.join(', ')}`,
        timeoutMs,
      ),
    async waitForBookingsToSettle() {
      await cluster.waitForNodes(BOOKING_NODES);
      await waitFor(
        async () => {
          for (const node of BOOKING_NODES) {
            const running = await requestCount(
              observer,
              node,
              'booking.create',
              'local',
              'moleculer.request.active',
            ).catch(() => 1);
            if (running > 0) return false;
          }
          return true;
        },
        'the booking processes to finish their bookings',
        60_000,
      );
    },
    async stop() {
      await observer.stop();
      for (const child of Object.values(processes)) await child.stop();
      await cluster.knex.destroy();
      await consumer.stop();
      await rabbitLink.close();
      await httpReceiver.stop();
      await nats.kill();
      await postgres.remove();
    },
  };
  await cluster.waitForNodes(Object.keys(NODES) as NodeName[], 120_000);
  await waitFor(
    async () => (await runHub(['world', 'load', worldFile], env)).code === 0,
    'the world to load into every service',
    90_000,
  );
  return cluster;
}

/** One booking the stream sent, and how the API answered it. */
export interface Attempt {
  refNo: string;
  /** The HTTP status, or 0 when no answer came within a minute. */
  status: number;
  guid?: string;
  sentAt: number;
  ms: number;
  retryAfter: string | null;
  /** Whether an error answer carried the error envelope. */
  enveloped: boolean;
}

/** A failed client waits this long before its next booking, as a client honouring a 503 would. */
const CLIENT_BACKOFF_MS = 100;

/**
 * Clients booking back to back, each booking with a refNo of its own (no client ever sends a
 * refNo twice), until stopped.
 */
export class BookingStream {
  readonly attempts: Attempt[] = [];
  private stopping = false;
  private readonly clients: Promise<void>[];

  constructor(
    private readonly baseUrl: string,
    readonly phase: string,
    clients = 4,
  ) {
    this.clients = Array.from({ length: clients }, (_, client) => this.client(client));
  }

  /** Acknowledged bookings sent from `since` on. */
  acknowledged(since = 0): number {
    return this.attempts.filter((attempt) => attempt.sentAt >= since && attempt.status === 200).length;
  }

  /** Refused bookings sent from `since` on. */
  refused(since = 0): number {
    return this.attempts.filter((attempt) => attempt.sentAt >= since && attempt.status !== 200).length;
  }

  /** Lets the stream run until the condition holds. */
  until(condition: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
    return waitFor(condition, `${what} (${this.phase}: ${this.attempts.length} bookings sent)`, timeoutMs);
  }

  async stop(): Promise<Attempt[]> {
    this.stopping = true;
    await Promise.all(this.clients);
    return this.attempts;
  }

  private async client(client: number): Promise<void> {
    for (let n = 0; !this.stopping; n++) {
      const refNo = `${this.phase}-${client}-${n}`;
      const sentAt = Date.now();
      const attempt: Attempt = { refNo, status: 0, sentAt, ms: 0, retryAfter: null, enveloped: false };
      try {
        const res = await Promise.race([
          httpRequest(this.baseUrl, 'POST', '/api/v3/case/create', {
            token: DEMO_TOKENS.power,
            body: caseBody(DEMO_TOKENS.power, { orderData: { refNo } }),
          }),
          new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('no answer')), 60_000).unref()),
        ]);
        attempt.status = res.status;
        attempt.guid = res.status === 200 ? (res.body as { guid: string }).guid : undefined;
        attempt.retryAfter = res.headers.get('retry-after');
        attempt.enveloped = typeof (res.body as { error?: { message?: unknown } })?.error?.message === 'string';
      } catch {
        attempt.status = 0;
      }
      attempt.ms = Date.now() - sentAt;
      this.attempts.push(attempt);
      if (attempt.status !== 200) await new Promise((resolve) => setTimeout(resolve, CLIENT_BACKOFF_MS));
    }
  }
}

/** What went wrong between what the API answered and what the database holds. */
export interface BookingAccount {
  acknowledged: number;
  refused: number;
  /** Acknowledged bookings with no case. */
  lost: string[];
  /** refNos with more than one case. */
  doubled: string[];
  /** Acknowledged bookings whose case has another guid than the one answered. */
  wrongGuid: string[];
  /** Cases of a refNo never sent. */
  unsent: string[];
  /** Bookings answered 504 (outcome unknown) and stored all the same, as they may be. */
  refusedButStored: number;
  /** Bookings answered 503 (not carried out) and stored all the same: a 503 that lied. */
  unavailableButStored: string[];
}

/** Counts the cases stored per refNo of the attempts' phases against what the API answered. */
export async function accountFor(knex: Knex, attempts: Attempt[], phases: string[]): Promise<BookingAccount> {
  const rows = (await knex('booking.cases')
    .select(knex.raw("order_data->>'refNo' as ref_no"), 'guid')
    .where((query) => {
      for (const phase of phases) query.orWhereRaw("order_data->>'refNo' like ?", [`${phase}-%`]);
    })) as Array<{ ref_no: string; guid: string }>;
  const stored = new Map<string, string[]>();
  for (const row of rows) stored.set(row.ref_no, [...(stored.get(row.ref_no) ?? []), row.guid]);
  const sent = new Set(attempts.map((attempt) => attempt.refNo));
  const account: BookingAccount = {
    acknowledged: 0,
    refused: 0,
    lost: [],
    doubled: [],
    wrongGuid: [],
    unsent: [...stored.keys()].filter((refNo) => !sent.has(refNo)),
    refusedButStored: 0,
    unavailableButStored: [],
  };
  for (const attempt of attempts) {
    const cases = stored.get(attempt.refNo) ?? [];
    if (cases.length > 1) account.doubled.push(attempt.refNo);
    if (attempt.status === 200) {
      account.acknowledged += 1;
      if (cases.length === 0) account.lost.push(attempt.refNo);
      else if (!cases.includes(attempt.guid!)) account.wrongGuid.push(attempt.refNo);
    } else {
      account.refused += 1;
      if (cases.length > 0 && attempt.status === 503) account.unavailableButStored.push(attempt.refNo);
      else if (cases.length > 0) account.refusedButStored += 1;
    }
  }
  return account;
}

/** Cases' webhooks: the deliveries stored per subscription and the webhook ids each receiver got, per case. */
export async function webhooksOf(
  cluster: FaultCluster,
  guids: string[],
): Promise<Record<'http' | 'amqp', { stored: Map<string, number>; delivered: Map<string, Set<string>> }>> {
  const rows = (await cluster
    .knex('webhooks.deliveries')
    .select('subscription_id', 'case_guid')
    .count('* as n')
    .whereIn('case_guid', guids)
    .groupBy('subscription_id', 'case_guid')) as Array<{ subscription_id: number; case_guid: string; n: string }>;
  const of = (kind: 'http' | 'amqp') => {
    const delivered = new Map<string, Set<string>>();
    for (const { caseGuid, webhookId } of cluster.received[kind])
      delivered.set(caseGuid, (delivered.get(caseGuid) ?? new Set()).add(webhookId));
    return {
      stored: new Map(
        rows.filter((row) => row.subscription_id === SUBSCRIPTIONS[kind]).map((row) => [row.case_guid, Number(row.n)]),
      ),
      delivered,
    };
  };
  return { http: of('http'), amqp: of('amqp') };
}

/** An HTTP receiver of `status.new` webhooks: each delivery's webhook-id and the case it is of. */
async function startReceiver(): Promise<{ port: number; received: Delivery[]; stop(): Promise<void> }> {
  const received: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { guid: string };
      received.push({ webhookId: String(req.headers['webhook-id']), caseGuid: payload.guid });
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Takes every message of a queue on the shared RabbitMQ (straight, not through the proxy). */
async function startQueueConsumer(
  url: string,
  queue: string,
): Promise<{ received: Delivery[]; stop(): Promise<void> }> {
  const received: Delivery[] = [];
  const connection: ChannelModel = await amqp.connect(url);
  const channel: Channel = await connection.createChannel();
  await channel.assertQueue(queue, { durable: true });
  await channel.consume(queue, (message) => {
    if (!message) return;
    const payload = JSON.parse(message.content.toString('utf8')) as { guid: string };
    received.push({ webhookId: String(message.properties.messageId), caseGuid: payload.guid });
    channel.ack(message);
  });
  return {
    received,
    async stop() {
      await channel.deleteQueue(queue);
      await connection.close();
    },
  };
}
