/**
 * Answers of cached lookups kept by the gateway as they were sent. A lookup's answer changes
 * only when a world is loaded, yet each request for it went through moleculer-web's routing and
 * two calls through Moleculer's middlewares (the gateway's handler, then the action, answered by
 * its cacher), which cost about three quarters of the request. A request the gateway has answered
 * before, with the same token, acting provider and URL, is answered again from here after the
 * same token check, rate limit, request id and access log as any other (ARCHITECTURE.md, "Who
 * calls whom").
 */
import type { IncomingMessage } from 'node:http';
import type { Caller } from '@hub/shared';
import { SERVICE_PROVIDER_HEADER } from './acting-provider';

/** A kept answer and what it was answered for. */
export interface KeptAnswer {
  /** The JSON body as sent: text, which Node writes in one piece with the headers (a Buffer takes a writev). */
  body: string;
  /** Its length in bytes. */
  bytes: number;
  /** The action that answered, for the metrics. */
  action: string;
  /** Whether the route is an older version's (Deprecation and Sunset on every answer). */
  deprecated: boolean;
  /**
   * The token's resolution the answer was authorized under. The answer is served only while the
   * gateway's token cache still holds this very resolution, so it lives no longer than it.
   */
  resolvedCaller: Caller;
  /** The caller the request acted as (its access log line names the account). */
  caller: Caller;
}

/** How much the kept answers may take; when full they are all dropped and kept again as asked. */
export const ANSWER_CACHE_LIMITS = {
  maxBytes: 16 * 1024 * 1024,
  /** A larger answer is not kept: it would crowd out many small ones. */
  maxAnswerBytes: 64 * 1024,
  /**
   * What an entry costs beside its body and key (the record and the map's slot), so that many
   * URLs with tiny answers (`[]` for each postal code a client tries) fill the budget too.
   */
  entryBytes: 256,
};

const costOf = (key: string, answer: KeptAnswer) => answer.bytes + key.length + ANSWER_CACHE_LIMITS.entryBytes;

export class AnswerCache {
  private readonly answers = new Map<string, KeptAnswer>();
  private bytes = 0;
  /** Counts the clearings: an answer computed before the last one is not kept. */
  generation = 0;

  get size(): number {
    return this.answers.size;
  }

  get(key: string): KeptAnswer | undefined {
    return this.answers.get(key);
  }

  /** Keeps an answer computed since `generation`, when it is not too large. */
  keep(key: string, answer: KeptAnswer, generation: number): void {
    if (generation !== this.generation || answer.bytes > ANSWER_CACHE_LIMITS.maxAnswerBytes) return;
    const previous = this.answers.get(key);
    if (previous) this.bytes -= costOf(key, previous);
    if (this.bytes + costOf(key, answer) > ANSWER_CACHE_LIMITS.maxBytes) {
      // Full: start again. The answers being computed stay good, so the generation stays.
      this.answers.clear();
      this.bytes = 0;
    }
    this.bytes += costOf(key, answer);
    this.answers.set(key, answer);
  }

  /** Forgets every answer, and any answer being computed now. */
  clear(): void {
    this.answers.clear();
    this.bytes = 0;
    this.generation += 1;
  }
}

/**
 * What an answer depends on besides the reference data: the token, the provider the caller acts
 * as, and the URL (path and query as sent). Requests that carry more (a body, an Idempotency-Key
 * the gateway checks) are neither kept nor answered from here.
 */
export function answerKeyOf(req: IncomingMessage, token: string): string | undefined {
  const { headers } = req;
  if (req.method !== 'GET' || headers['transfer-encoding'] !== undefined || headers['idempotency-key'] !== undefined)
    return undefined;
  if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return undefined;
  const provider = headers[SERVICE_PROVIDER_HEADER.toLowerCase()];
  // moleculer-web cuts the route's path off `url` once it routes the request.
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
  return `${token}\n${Array.isArray(provider) ? provider.join(',') : (provider ?? '')}\n${url}`;
}
