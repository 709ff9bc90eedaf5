/**
 * One AMQP delivery attempt: a persistent, mandatory publish to the receiver's queue on a
 * confirm channel. Only a confirm counts; a return (no such queue), a nack or a channel that
 * closes first is a failed attempt. Connections are kept per target and reopened when lost.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { type AttemptOutcome, type SignedMessage } from './outcome';
import { CASE_SEQUENCE_HEADER } from './settings';
import type { TargetResolver } from './target-safety';

export interface AmqpTarget {
  url: string;
  queue: string;
}

interface OpenChannel {
  connection: ChannelModel;
  socket: Socket;
  channel: ConfirmChannel;
  /** Publish ids the broker returned as unroutable, until their confirm arrives. */
  returned: Set<string>;
}

const PUBLISH_ID_HEADER = 'hub-publish-id';

export class AmqpChannels {
  private readonly open = new Map<string, Promise<OpenChannel>>();
  /** The channels open now, so that a publish on one waits for nothing but its confirm. */
  private readonly ready = new Map<string, OpenChannel>();

  constructor(private readonly resolver: TargetResolver) {}

  private async connect(url: string): Promise<OpenChannel> {
    const parsed = new URL(url);
    const checked = await this.resolver.resolve(parsed.hostname);
    const host = parsed.hostname;
    parsed.hostname = checked.family === 6 ? `[${checked.address}]` : checked.address;
    const connection = await amqp.connect(parsed.toString(), parsed.protocol === 'amqps:' ? { servername: host } : {});
    const channel = await connection.createConfirmChannel();
    const open: OpenChannel = { connection, socket: socketOf(connection), channel, returned: new Set() };
    const forget = () => {
      if (this.open.get(url) === opened) this.open.delete(url);
      if (this.ready.get(url) === open) this.ready.delete(url);
    };
    const opened = Promise.resolve(open);
    channel.on('return', (message: ConsumeMessage) => {
      const id = message.properties.headers?.[PUBLISH_ID_HEADER];
      if (typeof id === 'string') open.returned.add(id);
    });
    // A channel error (e.g. an access refusal) closes the channel; the next attempt opens a new one.
    channel.on('error', () => undefined);
    channel.on('close', () => {
      forget();
      connection.close().catch(() => undefined);
    });
    connection.on('error', () => undefined);
    connection.on('close', forget);
    this.open.set(url, opened);
    this.ready.set(url, open);
    return open;
  }

  private channelFor(url: string): Promise<OpenChannel> {
    const existing = this.open.get(url);
    if (existing) return existing;
    const opening = this.connect(url);
    this.open.set(url, opening);
    opening.catch(() => {
      if (this.open.get(url) === opening) this.open.delete(url);
    });
    return opening;
  }

  /**
   * Publishes on the target's open channel, or opens one first within the attempt's deadline.
   * A publish on an open channel makes one promise and one timer: in a burst this is the path
   * of every delivery, and each promise costs again for the request ids kept for logging.
   */
  publish(target: AmqpTarget, message: SignedMessage, timeoutMs: number): Promise<AttemptOutcome> {
    const open = this.ready.get(target.url);
    if (open) return publishConfirmed(open, target, message, timeoutMs);
    const deadline = Date.now() + timeoutMs;
    return withDeadline(this.channelFor(target.url), timeoutMs).then(
      (opened) => publishConfirmed(opened, target, message, Math.max(deadline - Date.now(), 0)),
      (err: Error) => {
        const kind =
          (err as { kind?: 'dns' | 'blocked_address' }).kind ?? (err.message === 'timeout' ? 'timeout' : 'connection');
        return { ok: false, errorKind: kind, error: err.message };
      },
    );
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    this.ready.clear();
    await Promise.all(all.map((opening) => opening.then((open) => open.connection.close()).catch(() => undefined)));
  }
}

/** One persistent, mandatory publish, settled by its confirm, a return, the channel closing or `timeoutMs`. */
function publishConfirmed(
  open: OpenChannel,
  target: AmqpTarget,
  message: SignedMessage,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  const publishId = randomUUID();
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      open.returned.delete(publishId);
      resolve(outcome);
    };
    const timer = setTimeout(
      () => settle({ ok: false, errorKind: 'timeout', error: `No confirm within ${timeoutMs} ms` }),
      timeoutMs,
    );
    try {
      open.channel.publish(
        '',
        target.queue,
        Buffer.from(message.body),
        {
          persistent: true,
          mandatory: true,
          contentType: 'application/json',
          messageId: message.webhookId,
          timestamp: message.timestampSeconds,
          type: message.eventType,
          headers: {
            'webhook-id': message.webhookId,
            'webhook-timestamp': String(message.timestampSeconds),
            'webhook-signature': message.signature,
            'webhook-event-type': message.eventType,
            ...(message.caseSequence === null ? {} : { [CASE_SEQUENCE_HEADER]: String(message.caseSequence) }),
            [PUBLISH_ID_HEADER]: publishId,
          },
        },
        (err) => {
          if (err) {
            const closed = /closed/i.test(err.message);
            settle({ ok: false, errorKind: closed ? 'amqp_closed' : 'amqp_nack', error: err.message });
          } else if (open.returned.has(publishId)) {
            settle({
              ok: false,
              errorKind: 'amqp_returned',
              error: `The broker could not route the message to queue "${target.queue}"`,
            });
          } else {
            settle({ ok: true });
          }
        },
      );
    } catch (err) {
      settle({ ok: false, errorKind: 'amqp_closed', error: (err as Error).message });
      return;
    }
    holdWritesForThisTurn(open.socket);
  });
}

/**
 * amqplib's connection writes to its socket as `connection.stream`, which the sender's
 * infrastructure test pins (amqp-sender.infra.test.ts).
 */
function socketOf(connection: ChannelModel): Socket {
  return (connection as unknown as { connection: { stream: Socket } }).connection.stream;
}

/**
 * amqplib writes each message to its socket as a write of its own, and each write on loopback
 * wakes the broker for one message, which in a burst costs the broker much of its CPU. Called
 * after a publish, this
 * corks the socket until amqplib's writer has run: a message queued wakes the writer on the next
 * tick, and it writes on `setImmediate`, so an uncork set up on a later tick for `setImmediate`
 * comes right after it. The messages of one turn of the event loop leave in one write.
 */
function holdWritesForThisTurn(socket: Socket): void {
  if (socket.writableCorked > 0) return;
  socket.cork();
  process.nextTick(() => setImmediate(() => socket.uncork()));
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: Error) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
