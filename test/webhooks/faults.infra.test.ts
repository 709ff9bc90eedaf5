/**
 * Nothing lost under faults: the producers and the gateway in one OS process, the webhooks
 * service in another, over NATS and a database on the Postgres server. During a stream of
 * provider messages the HTTP receiver goes away and comes back, and the webhooks process is
 * killed with SIGKILL and started again; afterwards every message has reached the partner's
 * receiver, and a message that arrived more than once carried the same webhook-id each time.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DEMO_WORLD_FILE, readWorld } from '../../shared/src';
import { caseBody } from '../support/cases';
import { createServerDatabase, DEMO_TOKENS, httpRequest, INFRA, waitFor } from '../support/hub';
import { runHub, spawnHub, type HubProcess } from '../support/processes';

const SECRET = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
const PER_PHASE = 15;

interface Delivery {
  webhookId: string;
  body: string;
  headers: Record<string, string>;
  messageId: number;
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
        this.received.push({ webhookId: String(req.headers['webhook-id']), body, headers: req.headers as Record<string, string>, messageId: JSON.parse(body).id });
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

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let database: { url: string; drop(): Promise<void> };
let env: Record<string, string>;
let producers: HubProcess;
let webhooks: HubProcess;
let receiver: Receiver;
let baseUrl: string;

const startWebhooks = () => spawnHub(['start'], { ...env, SERVICES: 'webhooks', NODE_ID: `webhooks-${randomBytes(3).toString('hex')}` });

beforeAll(async () => {
  database = await createServerDatabase();
  receiver = new Receiver(await freePort());
  await receiver.start();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    DATABASE_URL: database.url,
    TRANSPORTER: INFRA.nats,
    CACHER: INFRA.redis,
    NAMESPACE: `test-${randomBytes(4).toString('hex')}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: '0,200ms,500ms,1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000',
  };
  producers = spawnHub(['start'], { ...env, SERVICES: 'catalog,routing,models,booking,cost-proposals,messaging,invoicing,gateway', NODE_ID: 'producers-1' });
  webhooks = startWebhooks();
  const demo = readWorld(DEMO_WORLD_FILE);
  const world = {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      // Account 3 is Power (partner 2), whose demo cases go to Nordic Repair Center.
      subscriptions: [{ id: 1, accountId: 3, eventTypes: ['message.created'], target: { kind: 'http', url: `http://127.0.0.1:${receiver.port}/power` }, secret: SECRET }],
    },
  };
  const worldFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-world-')), 'world.json');
  fs.writeFileSync(worldFile, JSON.stringify(world));
  await waitFor(async () => {
    try {
      return (await httpRequest(baseUrl, 'GET', '/health/ready')).status === 200;
    } catch {
      return false;
    }
  }, 'the producers process', 60_000);
  await waitFor(async () => (await runHub(['world', 'load', worldFile], env)).code === 0, 'the world to load into every service', 60_000);
}, 180_000);

afterAll(async () => {
  await webhooks?.stop();
  await producers?.stop();
  await receiver?.stop().catch(() => undefined);
  await database?.drop();
});

it('delivers every message webhook through a receiver outage and a killed webhooks process, duplicates under one webhook-id', async () => {
  const booked = await httpRequest(baseUrl, 'POST', '/api/v3/case/create', { token: DEMO_TOKENS.power, body: caseBody(DEMO_TOKENS.power) });
  expect(booked.status).toBe(200);
  const guid = booked.body.guid as string;
  const sent: number[] = [];
  const stream = async () => {
    for (let i = 0; i < PER_PHASE; i++) {
      const res = await httpRequest(baseUrl, 'POST', '/api/v3/case-messages/create', { token: DEMO_TOKENS.nrc, body: { guid, type: 'serviceComment', content: `Update ${sent.length}` } });
      expect(res.status).toBe(200);
      sent.push(res.body.id);
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

  await waitFor(() => sent.every((id) => receiver.received.some((delivery) => delivery.messageId === id)), `all ${sent.length} message webhooks`, 120_000);
  expect(sent).toHaveLength(5 * PER_PHASE);
  const idsOf = new Map<number, Set<string>>();
  for (const delivery of receiver.received) {
    expect(new Webhook(SECRET).verify(delivery.body, delivery.headers)).toMatchObject({ id: delivery.messageId, guid });
    idsOf.set(delivery.messageId, (idsOf.get(delivery.messageId) ?? new Set()).add(delivery.webhookId));
  }
  expect([...idsOf.keys()].sort((a, b) => a - b)).toEqual([...sent].sort((a, b) => a - b));
  for (const ids of idsOf.values()) expect(ids.size).toBe(1);
}, 300_000);
