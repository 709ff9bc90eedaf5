/** What one delivery attempt came to, as the attempt log records it. */
export type ErrorKind =
  | 'http_status'
  | 'redirect'
  | 'gone'
  | 'timeout'
  | 'connection'
  | 'dns'
  | 'blocked_address'
  | 'amqp_returned'
  | 'amqp_nack'
  | 'amqp_closed';

export interface AttemptOutcome {
  ok: boolean;
  statusCode?: number;
  errorKind?: ErrorKind;
  error?: string;
  responseExcerpt?: string;
  /** The receiver's `Retry-After` on 429/503, in milliseconds. */
  retryAfterMs?: number;
}

/** The message every transport carries: the body and its Standard Webhooks values. */
export interface SignedMessage {
  webhookId: string;
  eventType: string;
  timestampSeconds: number;
  signature: string;
  body: string;
  /** The receiver's number for the event in its case, sent as `Hub-Case-Sequence`; null for an event of no case. */
  caseSequence: number | null;
}

/** `Retry-After` as seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
