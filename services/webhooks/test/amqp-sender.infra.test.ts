/**
 * The AMQP sender against a real RabbitMQ: publishes made in one turn of the event loop leave in
 * one write to the broker and are each confirmed. The batching rests on amqplib keeping its
 * socket as the connection's `connection.stream`; if that moves, these tests fail.
 */
import { randomUUID } from 'node:crypto';
import { Socket } from 'node:net';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { INFRA } from '../../../test/support/hub';
import { AmqpChannels } from '../src/amqp-sender';
import type { SignedMessage } from '../src/outcome';
import { allowList, TargetResolver } from '../src/target-safety';

let connection: ChannelModel;
let channel: Channel;
let queue: string;
let sender: AmqpChannels;

beforeAll(async () => {
  connection = await amqp.connect(INFRA.amqp);
  channel = await connection.createChannel();
});
beforeEach(async () => {
  queue = `hub-test-${randomUUID()}`;
  await channel.assertQueue(queue, { durable: true, autoDelete: false });
  sender = new AmqpChannels(new TargetResolver(allowList(['127.0.0.0/8', '::1/128']), 30_000, 100));
});
afterEach(async () => {
  await sender.closeAll();
  await channel.deleteQueue(queue);
});
afterAll(() => connection.close());

const message = (n: number): SignedMessage => ({
  webhookId: `msg_${n}`,
  eventType: 'costProposal.created',
  timestampSeconds: 1_700_000_000,
  body: JSON.stringify({ n }),
  caseSequence: n,
  signature: 'v1,c2lnbmF0dXJl',
});

/** Counts the writes every socket of this process makes while `run` runs, and the chunks each carries. */
async function socketWrites<T>(run: () => Promise<T>): Promise<{ result: T; writes: number[] }> {
  const prototype = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const { _write: write, _writev: writev } = prototype;
  const writes: number[] = [];
  prototype._write = function (this: Socket, ...args: unknown[]) {
    writes.push(1);
    return write.apply(this, args);
  };
  prototype._writev = function (this: Socket, chunks: unknown, ...rest: unknown[]) {
    writes.push((chunks as unknown[]).length);
    return writev.apply(this, [chunks, ...rest]);
  };
  try {
    return { result: await run(), writes };
  } finally {
    Object.assign(prototype, { _write: write, _writev: writev });
  }
}

async function queued(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let polls = 0; ids.length < count && polls < 200; polls++) {
    const got = await channel.get(queue, { noAck: true });
    if (got) ids.push(got.properties.messageId as string);
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return ids;
}

it('sends the publishes of one turn in one write, each confirmed, in their order', async () => {
  const target = { url: INFRA.amqp, queue };
  // The connection opens first, so the writes counted are the publishes' alone.
  await expect(sender.publish(target, message(0), 5000)).resolves.toEqual({ ok: true });
  const { result, writes } = await socketWrites(() =>
    Promise.all(Array.from({ length: 20 }, (_, i) => sender.publish(target, message(i + 1), 5000))),
  );
  expect(result).toEqual(Array.from({ length: 20 }, () => ({ ok: true })));
  expect(writes).toEqual([20]);
  expect(await queued(21)).toEqual(Array.from({ length: 21 }, (_, i) => `msg_${i}`));
});

it('sends a publish made after the write left in a later write', async () => {
  const target = { url: INFRA.amqp, queue };
  await sender.publish(target, message(0), 5000);
  const { result, writes } = await socketWrites(async () => {
    const first = await sender.publish(target, message(1), 5000);
    return [first, await sender.publish(target, message(2), 5000)];
  });
  expect(result).toEqual([{ ok: true }, { ok: true }]);
  expect(writes).toEqual([1, 1]);
  expect(await queued(3)).toEqual(['msg_0', 'msg_1', 'msg_2']);
});
