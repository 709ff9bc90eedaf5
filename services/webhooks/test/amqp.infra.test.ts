/**
 * AMQP deliveries to a real RabbitMQ queue, on the Postgres server and NATS: a confirmed,
 * persistent publish with the Standard Webhooks values as message properties; a return (no such
 * queue), a nack (a full queue that rejects publishes) and a connection cut before the confirm
 * are failed attempts, retried.
 */
import { randomUUID } from 'node:crypto';
import amqp, { type ChannelModel, type Channel } from 'amqplib';
import { Webhook } from 'standardwebhooks';
import { DEMO_TOKENS, INFRA, startTestHub, type TestHub, waitFor } from '../../../test/support/hub';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { domainEvent } from './support/events';

let hub: TestHub;
let connection: ChannelModel;
let channel: Channel;

beforeAll(async () => {
  hub = await startTestHub({
    services: ['catalog', 'gateway', 'webhooks'],
    infra: true,
    env: {
      WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
    },
  });
  connection = await amqp.connect(INFRA.amqp);
  channel = await connection.createChannel();
});
afterAll(async () => {
  await connection.close();
  await hub.stop();
});

function admin(method: string, path: string, body?: unknown) {
  return hub.request(method, `/api/admin/webhooks${path}`, { token: DEMO_TOKENS.admin, body });
}

async function subscribe(queue: string) {
  const res = await admin('POST', '/subscriptions', {
    accountId: 3,
    eventTypes: ['costProposal.created'],
    target: { kind: 'amqp', url: INFRA.amqp, queue },
  });
  expect(res.status).toBe(200);
  return res.body.data as { id: number; secret: string };
}

async function deliveryIn(subscriptionId: number, state: string) {
  let found: { id: number; attempts: number } | undefined;
  await waitFor(async () => {
    [found] = (await admin('GET', `/deliveries?subscriptionId=${subscriptionId}&state=${state}`)).body.data;
    return Boolean(found);
  }, `a ${state} delivery`);
  return found!;
}

async function attemptKinds(deliveryId: number) {
  return (
    (await admin('GET', `/deliveries/${deliveryId}/attempts`)).body.data as Array<{ errorKind: string | null }>
  ).map((attempt) => attempt.errorKind);
}

const event = () => domainEvent('costProposal.created', { partnerId: 2 }, { id: 5, name: 'Repair' });

it('publishes a persistent, signed message to the receiver queue and counts it once confirmed', async () => {
  const queue = `hub-test-${randomUUID()}`;
  await channel.assertQueue(queue, { durable: true, autoDelete: false });
  const subscription = await subscribe(queue);
  const sent = event();
  await hub.broker.call('webhooks.ingest', { events: [sent] });
  await deliveryIn(subscription.id, 'succeeded');
  const message = await channel.get(queue, { noAck: true });
  expect(message).not.toBe(false);
  if (!message) return;
  expect(message.properties).toMatchObject({
    messageId: sent.id,
    deliveryMode: 2,
    contentType: 'application/json',
    type: 'costProposal.created',
  });
  const headers = message.properties.headers as Record<string, string>;
  expect(headers['webhook-id']).toBe(sent.id);
  // The first event of its case that the partner hears of.
  expect(headers['hub-case-sequence']).toBe('1');
  expect(new Webhook(subscription.secret).verify(message.content.toString('utf8'), headers)).toEqual({
    ...sent.payload,
    caseSequence: 1,
  });
  await channel.deleteQueue(queue);
});

it('fails an attempt the broker returns (no such queue) and delivers once the queue exists', async () => {
  const queue = `hub-test-${randomUUID()}`;
  const subscription = await subscribe(queue);
  await hub.broker.call('webhooks.ingest', { events: [event()] });
  const dead = await deliveryIn(subscription.id, 'dead');
  expect(await attemptKinds(dead.id)).toEqual(['amqp_returned', 'amqp_returned', 'amqp_returned']);
  await channel.assertQueue(queue, { durable: true });
  expect((await admin('POST', `/deliveries/${dead.id}/redeliver`)).status).toBe(200);
  await deliveryIn(subscription.id, 'succeeded');
  expect((await channel.checkQueue(queue)).messageCount).toBe(1);
  await channel.deleteQueue(queue);
});

it('fails an attempt the broker nacks (a full queue rejecting publishes)', async () => {
  const queue = `hub-test-${randomUUID()}`;
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' } });
  const subscription = await subscribe(queue);
  await hub.broker.call('webhooks.ingest', { events: [event()] });
  const dead = await deliveryIn(subscription.id, 'dead');
  expect(await attemptKinds(dead.id)).toEqual(['amqp_nack', 'amqp_nack', 'amqp_nack']);
  await channel.deleteQueue(queue);
});

/**
 * A proxy in front of RabbitMQ that, when told, cuts the connection carrying the next
 * basic.publish before the broker sees it, so the publisher's channel closes with the confirm
 * still owed.
 */
async function startCuttingProxy(broker: URL): Promise<{ url: string; cutNextPublish: () => void; proxy: TcpProxy }> {
  let armed = false;
  // A method frame (type 1) of class 60 (basic), method 40 (publish): type, channel (2), size (4), class (2), method (2).
  const carriesPublish = (data: Buffer) => {
    for (let at = 0; at + 11 <= data.length; at++) {
      if (data[at] === 1 && data.readUInt16BE(at + 7) === 60 && data.readUInt16BE(at + 9) === 40) return true;
    }
    return false;
  };
  const proxy = await startTcpProxy(
    { host: broker.hostname, port: Number(broker.port || 5672) },
    {
      cutWhen: (data) => {
        if (!armed || !carriesPublish(data)) return false;
        armed = false;
        return true;
      },
    },
  );
  const url = new URL(broker);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return {
    url: url.toString(),
    cutNextPublish: () => {
      armed = true;
    },
    proxy,
  };
}

it('fails an attempt whose connection closes before the confirm, and delivers on the retry', async () => {
  const queue = `hub-test-${randomUUID()}`;
  await channel.assertQueue(queue, { durable: true });
  const { url, cutNextPublish, proxy } = await startCuttingProxy(new URL(INFRA.amqp));
  try {
    const res = await admin('POST', '/subscriptions', {
      accountId: 3,
      eventTypes: ['costProposal.created'],
      target: { kind: 'amqp', url, queue },
    });
    expect(res.status).toBe(200);
    cutNextPublish();
    const sent = event();
    await hub.broker.call('webhooks.ingest', { events: [sent] });
    const delivered = await deliveryIn(res.body.data.id, 'succeeded');
    expect(proxy.cuts).toBe(1);
    expect(await attemptKinds(delivered.id)).toEqual(['amqp_closed', null]);
    const message = await channel.get(queue, { noAck: true });
    expect(message && message.properties.messageId).toBe(sent.id);
    expect(await channel.get(queue)).toBe(false);
  } finally {
    await proxy.close();
    await channel.deleteQueue(queue);
  }
});
