/**
 * Nothing lost under faults: the producers and the gateway in one OS process, the webhooks
 * service in another, over a NATS server of the test's own and a database on the Postgres
 * server. During a stream of bookings, each given a status and a message by the provider, the
 * HTTP receiver goes away and comes back, the webhooks process is killed with SIGKILL and started
 * again, and so is the NATS server; afterwards every webhook of what the API accepted has reached
 * the partner's receiver, and one that arrived more than once carried the same webhook-id each time.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { caseBody } from '../support/cases';
import { createServerDatabase, DEMO_TOKENS, httpRequest, waitFor } from '../support/hub';
import {
  clusterEnv,
  demoWorldFor,
  freePort,
  privateNatsServer,
  runHub,
  spawnHub,
  waitForOk,
  writeWorldFile,
  type HubProcess,
  type NatsServer,
} from '../support/processes';

const SECRET = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
const PER_PHASE = 15;

interface Delivery {
  webhookId: string;
  body: string;
  headers: Record<string, string>;
  /** What the webhook tells of: `status.new <case guid> <key>` or `message.created <message id>`. */
  event: string;
}

/** An HTTP receiver on a fixed port that can be stopped and started again. */
class Receiver {
  received: Delivery[] = [];
  private server?: http.Server;
  constructor(readonly port: number) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const type = String(req.headers['webhook-event-type']);
        const payload = JSON.parse(body);
        const event = type === 'status.new' ? `${type} ${payload.guid} ${payload.key}` : `${type} ${payload.id}`;
        this.received.push({
          webhookId: String(req.headers['webhook-id']),
          body,
          headers: req.headers as Record<string, string>,
          event,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server!;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let database: { url: string; drop(): Promise<void> };
let nats: NatsServer;
let env: Record<string, string>;
let producers: HubProcess;
let webhooks: HubProcess;
let receiver: Receiver;
let baseUrl: string;

const startWebhooks = () =>
  spawnHub(['start'], { ...env, SERVICES: 'webhooks', NODE_ID: `webhooks-${randomBytes(3).toString('hex')}` });

beforeAll(async () => {
  database = await createServerDatabase();
  nats = await privateNatsServer();
  await nats.start();
  receiver = new Receiver(await freePort());
  await receiver.start();
  ({ env, baseUrl } = await clusterEnv(database.url, {
    TRANSPORTER: nats.url,
    RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: '0,200ms,500ms,1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000',
    // A relay call into the NATS outage waits this long (and is retried) before the relay backs off.
    REQUEST_TIMEOUT_MS: '5000',
  }));
  const producerServices = ['catalog', 'routing', 'models', 'booking', 'cost-proposals', 'messaging', 'invoicing'];
  producers = spawnHub(['start'], {
    ...env,
    SERVICES: [...producerServices, 'gateway'].join(','),
    NODE_ID: 'producers-1',
  });
  webhooks = startWebhooks();
  // The demo world's parts whose owners run here: a world load refuses a part no running service owns.
  const demo = demoWorldFor([...producerServices, 'webhooks']);
  const world = {
    ...demo,
    webhooks: {
      ...(demo.webhooks as object),
      // Account 3 is Power (partner 2), whose demo cases go to Nordic Repair Center.
      subscriptions: [
        {
          id: 1,
          accountId: 3,
          eventTypes: ['status.new', 'message.created'],
          target: { kind: 'http', url: `http://127.0.0.1:${receiver.port}/power` },
          secret: SECRET,
        },
      ],
    },
  };
  await waitForOk(baseUrl, '/health/ready', 'the producers process', { timeoutMs: 60_000 });
  const worldFile = writeWorldFile(world);
  await waitFor(
    async () => (await runHub(['world', 'load', worldFile], env)).code === 0,
    'the world to load into every service',
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await webhooks?.stop();
  await producers?.stop();
  await receiver?.stop().catch(() => undefined);
  await nats?.kill();
  await database?.drop();
});

it('delivers every webhook of a stream of bookings through a receiver outage, a killed webhooks process and a killed NATS server, duplicates under one webhook-id', async () => {
  /** The webhooks the API's answers promise, named as the receiver names them, with the case each is of. */
  const expected = new Map<string, string>();
  // Each booking starts with its first status and gets another and a message from the provider:
  // two New status and a New message for the partner. While NATS is down a request may fail where
  // it needs another process; only what the API accepted counts.
  const stream = async (natsDown = false) => {
    for (let i = 0; i < PER_PHASE; i++) {
      const accepted = (res: { status: number }) => {
        if (!natsDown) expect(res.status).toBe(200);
        return res.status === 200;
      };
      const booked = await httpRequest(baseUrl, 'POST', '/api/v3/case/create', {
        token: DEMO_TOKENS.power,
        body: caseBody(DEMO_TOKENS.power),
      });
      if (!accepted(booked)) continue;
      const guid = booked.body.guid as string;
      expected.set(`status.new ${guid} registered`, guid);
      const status = await httpRequest(baseUrl, 'POST', '/api/v3/case/status', {
        token: DEMO_TOKENS.nrc,
        body: { guid, key: 'arrived' },
      });
      if (accepted(status)) expected.set(`status.new ${guid} arrived`, guid);
      const message = await httpRequest(baseUrl, 'POST', '/api/v3/case-messages/create', {
        token: DEMO_TOKENS.nrc,
        body: { guid, type: 'serviceComment', content: 'Arrived at the workshop' },
      });
      if (accepted(message)) expected.set(`message.created ${message.body.id}`, guid);
    }
  };

  await stream();
  await receiver.stop();
  await stream();
  await receiver.start();
  await stream();
  expect(await webhooks.stop('SIGKILL')).toBeNull();
  await stream();
  webhooks = startWebhooks();
  await stream();
  const acceptedBeforeNatsDown = expected.size;
  const relayFailuresBefore = relayFailures();
  await nats.kill();
  await stream(true);
  // The relay has met the outage: these events wait in the outboxes.
  await waitFor(() => relayFailures() > relayFailuresBefore, 'an outbox relay to fail while NATS is down', 60_000);
  await stream(true);
  const acceptedWhileNatsDown = expected.size - acceptedBeforeNatsDown;
  await nats.start();
  await stream();

  // The gateway and the producers share a process, so the API books and takes messages without NATS.
  expect(acceptedWhileNatsDown).toBeGreaterThan(0);
  const arrived = () => new Set(receiver.received.map((delivery) => delivery.event));
  await waitFor(
    () => [...expected.keys()].every((event) => arrived().has(event)),
    `all ${expected.size} webhooks`,
    120_000,
  );
  const idsOf = new Map<string, Set<string>>();
  for (const delivery of receiver.received) {
    expect(new Webhook(SECRET).verify(delivery.body, delivery.headers)).toMatchObject({
      guid: expected.get(delivery.event),
    });
    idsOf.set(delivery.event, (idsOf.get(delivery.event) ?? new Set()).add(delivery.webhookId));
  }
  expect([...idsOf.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const ids of idsOf.values()) expect(ids.size).toBe(1);
}, 300_000);

function relayFailures(): number {
  return producers.output().split('Outbox relay failed').length - 1;
}
