/** The HTTP sender against real receivers: where its connections go, and how long they are kept. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpSender } from '../src/http-sender';
import type { SignedMessage } from '../src/outcome';
import { allowList, type LookUp, TargetResolver } from '../src/target-safety';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Receiver {
  port: number;
  /** The host header, webhook-id and Authorization (when sent) of each request read. */
  requests: Array<{ host: string | undefined; id: string | undefined; authorization?: string }>;
  /** Connections open now. */
  open: number;
  close(): Promise<void>;
}

async function startReceiver(address: string, port = 0): Promise<Receiver> {
  const receiver = { requests: [], open: 0 } as unknown as Receiver;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const { host, authorization } = req.headers;
      const id = req.headers['webhook-id'] as string | undefined;
      receiver.requests.push(authorization === undefined ? { host, id } : { host, id, authorization });
      res.writeHead(204).end();
    });
  });
  server.on('connection', (socket) => {
    receiver.open += 1;
    socket.on('close', () => (receiver.open -= 1));
  });
  await new Promise<void>((resolve) => server.listen(port, address, resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

function message(webhookId: string): SignedMessage {
  return {
    webhookId,
    eventType: 'case.created',
    timestampSeconds: 1,
    body: '{}',
    caseSequence: null,
    signature: 'v1,x',
  };
}

/** A lookup answering each host from `addresses`, which a test may change. */
function lookUpFrom(addresses: Map<string, string>): LookUp {
  return (host) => Promise.resolve([{ address: addresses.get(host) ?? '192.0.2.1', family: 4 }]);
}

describe('HTTP sender', () => {
  const loopback = allowList(['127.0.0.0/8']);
  const receivers: Receiver[] = [];
  let sender: HttpSender | undefined;

  afterEach(async () => {
    await sender?.closeAll();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  it('connects to the checked address of a named target and names the host in the request', async () => {
    const receiver = await startReceiver('127.0.0.1');
    receivers.push(receiver);
    // The name resolves nowhere but through the checked lookup.
    sender = new HttpSender(
      new TargetResolver(loopback, 30_000, 10, lookUpFrom(new Map([['receiver.invalid', '127.0.0.1']]))),
    );
    const outcome = await sender.send(
      { url: `http://receiver.invalid:${receiver.port}/hooks`, method: 'POST', headers: {} },
      message('msg_1'),
      2_000,
    );
    expect(outcome).toMatchObject({ ok: true, statusCode: 204 });
    expect(receiver.requests).toEqual([{ host: `receiver.invalid:${receiver.port}`, id: 'msg_1' }]);
  });

  it("sends to a host's new address from its next lookup on, though a connection to the old one is kept", async () => {
    const first = await startReceiver('127.0.0.1');
    const moved = await startReceiver('127.0.0.2', first.port);
    receivers.push(first, moved);
    const addresses = new Map([['receiver.invalid', '127.0.0.1']]);
    sender = new HttpSender(new TargetResolver(loopback, 50, 10, lookUpFrom(addresses)));
    const target = { url: `http://receiver.invalid:${first.port}/hooks`, method: 'POST', headers: {} };

    expect(await sender.send(target, message('msg_1'), 2_000)).toMatchObject({ ok: true });
    expect(first.open).toBe(1);
    addresses.set('receiver.invalid', '127.0.0.2');
    await sleep(80);
    expect(await sender.send(target, message('msg_2'), 2_000)).toMatchObject({ ok: true });

    expect(first.requests.map(({ id }) => id)).toEqual(['msg_1']);
    expect(moved.requests.map(({ id }) => id)).toEqual(['msg_2']);
    expect(first.open).toBe(1);
  });

  it("sends a URL's user part as Basic credentials, unless the subscription's headers name an Authorization", async () => {
    const receiver = await startReceiver('127.0.0.1');
    receivers.push(receiver);
    sender = new HttpSender(new TargetResolver(loopback, 30_000, 10));
    const url = `http://hub%40partner:p%3Ass@127.0.0.1:${receiver.port}/hooks`;

    expect(await sender.send({ url, method: 'POST', headers: {} }, message('msg_1'), 2_000)).toMatchObject({
      ok: true,
    });
    const ownHeader = { url, method: 'POST', headers: { Authorization: 'Bearer own' } };
    expect(await sender.send(ownHeader, message('msg_2'), 2_000)).toMatchObject({ ok: true });

    expect(receiver.requests.map(({ authorization }) => authorization)).toEqual([
      `Basic ${Buffer.from('hub@partner:p:ss').toString('base64')}`,
      'Bearer own',
    ]);
  });

  it('closes the connections of a target no attempt used for a while, at a later attempt', async () => {
    const idle = await startReceiver('127.0.0.1');
    const busy = await startReceiver('127.0.0.1');
    receivers.push(idle, busy);
    sender = new HttpSender(new TargetResolver(loopback, 30_000, 10), 100);
    const to = (receiver: Receiver) => ({
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      method: 'POST',
      headers: {},
    });

    expect(await sender.send(to(idle), message('msg_1'), 2_000)).toMatchObject({ ok: true });
    await sleep(150);
    expect(idle.open).toBe(1);
    expect(await sender.send(to(busy), message('msg_2'), 2_000)).toMatchObject({ ok: true });
    for (let waited = 0; idle.open > 0 && waited < 2_000; waited += 20) await sleep(20);

    expect(idle.open).toBe(0);
    expect(busy.open).toBe(1);
  });
});
