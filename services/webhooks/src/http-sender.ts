/**
 * One HTTP delivery attempt: the signed request to the checked address, 2xx is success,
 * redirects are answers (not followed), and the whole attempt has one deadline.
 *
 * Requests go through undici's connection pools rather than Node's `http.request`: a keep-alive
 * POST and its answer cost less CPU there, and in an HTTP burst this process's CPU is what bounds
 * the rate (bench/results/webhooks.md).
 */
import type { LookupFunction } from 'node:net';
import { type Dispatcher, Pool } from 'undici';
import { CASE_SEQUENCE_HEADER, DELIVERY_SETTINGS, RESERVED_HEADERS, USER_AGENT } from './settings';
import { type AttemptOutcome, parseRetryAfter, type SignedMessage } from './outcome';
import { type CheckedAddress, type TargetResolver } from './target-safety';

export interface HttpTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** Connects to the address that was checked, whatever the name would resolve to now. */
function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  }) as LookupFunction;
}

/**
 * The attempt's headers: the subscription's own, Basic credentials from the URL's user part
 * unless those name an Authorization, then the hub's.
 */
function requestHeaders(url: URL, target: HttpTarget, message: SignedMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    if (!RESERVED_HEADERS.includes(name.toLowerCase())) headers[name] = value;
  }
  if ((url.username || url.password) && !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': USER_AGENT,
    'webhook-id': message.webhookId,
    'webhook-timestamp': String(message.timestampSeconds),
    'webhook-signature': message.signature,
    'webhook-event-type': message.eventType,
    ...(message.caseSequence === null ? {} : { [CASE_SEQUENCE_HEADER]: String(message.caseSequence) }),
  };
}

interface KeptPool {
  pool: Pool;
  usedAt: number;
}

/**
 * Sends attempts over kept connections: one pool per target origin and checked address, so a
 * host that moves is reached at its new address from its next lookup on, while attempts already
 * under way finish on the old one. A pool no attempt used for `idlePoolMs` is closed at a later
 * attempt.
 */
export class HttpSender {
  private readonly pools = new Map<string, KeptPool>();
  private prunedAt = Date.now();

  constructor(
    private readonly resolver: TargetResolver,
    private readonly idlePoolMs = DELIVERY_SETTINGS.idlePoolMs,
  ) {}

  async send(target: HttpTarget, message: SignedMessage, timeoutMs: number): Promise<AttemptOutcome> {
    const url = new URL(target.url);
    const deadline = Date.now() + timeoutMs;
    let checked: CheckedAddress;
    try {
      checked = await this.resolver.resolve(url.hostname);
    } catch (err) {
      return {
        ok: false,
        errorKind: (err as { kind?: 'dns' | 'blocked_address' }).kind ?? 'dns',
        error: (err as Error).message,
      };
    }
    const request: Dispatcher.DispatchOptions = {
      path: url.pathname + url.search,
      method: target.method as Dispatcher.HttpMethod,
      headers: requestHeaders(url, target, message),
      body: message.body,
    };
    return attempt(this.poolFor(url, checked), request, Math.max(0, deadline - Date.now()), timeoutMs);
  }

  /** Closes every kept connection; attempts under way finish first. */
  async closeAll(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map(({ pool }) => pool.close().catch(() => undefined)));
  }

  private poolFor(url: URL, checked: CheckedAddress): Pool {
    const now = Date.now();
    if (now - this.prunedAt > this.idlePoolMs) this.pruneIdle(now);
    const key = `${url.origin} ${checked.address}`;
    let kept = this.pools.get(key);
    if (!kept) {
      kept = {
        pool: new Pool(url.origin, {
          connections: DELIVERY_SETTINGS.connectionsPerTarget,
          connect: { lookup: pinnedLookup(checked) },
        }),
        usedAt: now,
      };
      this.pools.set(key, kept);
    }
    kept.usedAt = now;
    return kept.pool;
  }

  private pruneIdle(now: number): void {
    this.prunedAt = now;
    for (const [key, { pool, usedAt }] of this.pools) {
      if (now - usedAt <= this.idlePoolMs) continue;
      this.pools.delete(key);
      pool.close().catch(() => undefined);
    }
  }
}

/** The request on `pool`, settled by its whole answer, an error, or `waitMs` (the attempt's deadline). */
function attempt(
  pool: Pool,
  request: Dispatcher.DispatchOptions,
  waitMs: number,
  timeoutMs: number,
): Promise<AttemptOutcome> {
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      finish({ ok: false, errorKind: 'timeout', error: `No complete answer within ${timeoutMs} ms` });
      controller?.abort(new Error('The attempt timed out'));
    }, waitMs);
    let status: number | undefined;
    let headers: Record<string, string | string[] | undefined> = {};
    const chunks: Buffer[] = [];
    let kept = 0;
    // A request undici refuses to make (a header value it rejects) ends here as an error too.
    pool.dispatch(request, {
      onRequestStart(started) {
        // Still waiting for a connection when its deadline passed: it is not sent late.
        if (settled) started.abort(new Error('The attempt timed out'));
        else controller = started;
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        if (kept < DELIVERY_SETTINGS.responseExcerptBytes) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      },
      onResponseEnd() {
        const excerpt = Buffer.concat(chunks).subarray(0, DELIVERY_SETTINGS.responseExcerptBytes).toString('utf8');
        finish(outcomeOfAnswer(status ?? 0, headers, excerpt));
      },
      onResponseError(_controller, err) {
        finish({ ok: false, errorKind: 'connection', error: err.message, statusCode: status });
      },
    });
  });
}

function outcomeOfAnswer(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  excerpt: string,
): AttemptOutcome {
  if (status >= 200 && status < 300) return { ok: true, statusCode: status, responseExcerpt: excerpt };
  const outcome: AttemptOutcome = {
    ok: false,
    statusCode: status,
    responseExcerpt: excerpt,
    errorKind: 'http_status',
    error: `HTTP ${status}`,
  };
  if (status >= 300 && status < 400) {
    outcome.errorKind = 'redirect';
    outcome.error = `HTTP ${status} to ${firstValue(headers.location) ?? '(no location)'}; redirects are not followed`;
  } else if (status === 410) {
    outcome.errorKind = 'gone';
  } else if (status === 429 || status === 503) {
    outcome.retryAfterMs = parseRetryAfter(firstValue(headers['retry-after']));
  }
  return outcome;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
