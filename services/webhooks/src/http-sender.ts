/**
 * One HTTP delivery attempt: the signed request to the checked address, 2xx is success,
 * redirects are answers (not followed), and the whole attempt has one deadline.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { CASE_SEQUENCE_HEADER, DELIVERY_SETTINGS, RESERVED_HEADERS, USER_AGENT } from './settings';
import { type AttemptOutcome, parseRetryAfter, type SignedMessage } from './outcome';
import { type CheckedAddress, type TargetResolver } from './target-safety';

export interface HttpTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** Connects to the address that was checked, whatever the name would resolve to now. */
function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  }) as LookupFunction;
}

export function requestHeaders(target: HttpTarget, message: SignedMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    if (!RESERVED_HEADERS.includes(name.toLowerCase())) headers[name] = value;
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

export async function sendHttp(
  target: HttpTarget,
  message: SignedMessage,
  timeoutMs: number,
  resolver: TargetResolver,
): Promise<AttemptOutcome> {
  const url = new URL(target.url);
  const deadline = Date.now() + timeoutMs;
  let checked: CheckedAddress;
  try {
    checked = await resolver.resolve(url.hostname);
  } catch (err) {
    return {
      ok: false,
      errorKind: (err as { kind?: 'dns' | 'blocked_address' }).kind ?? 'dns',
      error: (err as Error).message,
    };
  }
  const secure = url.protocol === 'https:';
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = (secure ? https : http).request(
      url,
      {
        method: target.method,
        headers: requestHeaders(target, message),
        agent: secure ? agents.https : agents.http,
        lookup: pinnedLookup(checked),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < DELIVERY_SETTINGS.responseExcerptBytes) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        response.on('error', (err) =>
          finish({ ok: false, errorKind: 'connection', error: err.message, statusCode: response.statusCode }),
        );
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const excerpt = Buffer.concat(chunks).subarray(0, DELIVERY_SETTINGS.responseExcerptBytes).toString('utf8');
          if (status >= 200 && status < 300) return finish({ ok: true, statusCode: status, responseExcerpt: excerpt });
          const outcome: AttemptOutcome = {
            ok: false,
            statusCode: status,
            responseExcerpt: excerpt,
            errorKind: 'http_status',
            error: `HTTP ${status}`,
          };
          if (status >= 300 && status < 400) {
            outcome.errorKind = 'redirect';
            outcome.error = `HTTP ${status} to ${String(response.headers.location ?? '(no location)')}; redirects are not followed`;
          } else if (status === 410) {
            outcome.errorKind = 'gone';
          } else if (status === 429 || status === 503) {
            outcome.retryAfterMs = parseRetryAfter(response.headers['retry-after']);
          }
          finish(outcome);
        });
      },
    );
    const timer = setTimeout(
      () => {
        finish({ ok: false, errorKind: 'timeout', error: `No complete answer within ${timeoutMs} ms` });
        request.destroy();
      },
      Math.max(0, deadline - Date.now()),
    );
    request.on('error', (err) => finish({ ok: false, errorKind: 'connection', error: err.message }));
    request.end(message.body);
  });
}
