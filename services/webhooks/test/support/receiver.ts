/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request and answers as
 * the test tells it (status, headers, a delay, or a reset connection).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer only after this many milliseconds (the connection stays open meanwhile). */
  delayMs?: number;
  /** Destroy the connection without answering. */
  reset?: boolean;
  /** Hold the answer until the returned promise settles. */
  hold?: Promise<void>;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How each request is answered; the default answers 204. */
  answer: (request: Received) => Answer;
  /** Requests being answered right now, per path. */
  open: Map<string, number>;
  maxOpen: Map<string, number>;
  close(): Promise<void>;
}

/** `port`: listen where an earlier receiver listened, as a receiver back after an outage does (0: any free port). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver = {
    received: [] as Received[],
    answer: (() => ({})) as (request: Received) => Answer,
    open: new Map<string, number>(),
    maxOpen: new Map<string, number>(),
  } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void answerRequest());
    const answerRequest = async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const path = req.url ?? '/';
      const request: Received = { method: req.method ?? '', path, headers: req.headers, body, json, at: Date.now() };
      receiver.received.push(request);
      const open = (receiver.open.get(path) ?? 0) + 1;
      receiver.open.set(path, open);
      receiver.maxOpen.set(path, Math.max(open, receiver.maxOpen.get(path) ?? 0));
      const answer = receiver.answer(request);
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (answer.hold) await answer.hold;
      receiver.open.set(path, (receiver.open.get(path) ?? 1) - 1);
      if (answer.reset) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status ?? 204, answer.headers ?? {});
      res.end(answer.body ?? '');
    };
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
