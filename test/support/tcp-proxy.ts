/**
 * A TCP proxy in front of a server the suites share (RabbitMQ), so a test can cut the network
 * between the hub and that server without touching the server itself: every connection through
 * the proxy can be ended at once, new ones refused until the link is back, or one connection cut
 * when the client sends bytes a test picks.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections the proxy ended on purpose (by `cut` or by `cutWhen`). */
  cuts: number;
  /** Ends every open connection and resets each new one until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /** Looks at each chunk a client sends; true ends that connection instead of forwarding the chunk. */
  cutWhen?: (data: Buffer) => boolean;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  let refusing = false;
  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on('error', () => undefined);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    for (const socket of pair) {
      socket.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.on('data', (data: Buffer) => client.write(data));
    client.on('data', (data: Buffer) => {
      if (options.cutWhen?.(data)) {
        proxy.cuts += 1;
        client.resetAndDestroy();
        return;
      }
      upstream.write(data);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endAll = () => {
    for (const [client, upstream] of pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
  };
  const proxy: TcpProxy = {
    port: (server.address() as net.AddressInfo).port,
    cuts: 0,
    cut() {
      refusing = true;
      proxy.cuts += pairs.size;
      endAll();
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        endAll();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
