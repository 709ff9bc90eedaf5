/**
 * Where spans go (TRACING): nowhere, the console, or a Zipkin-compatible collector (Zipkin
 * itself, or Jaeger, which takes the Zipkin format on its port 9411).
 */
import { createHash } from 'node:crypto';
import { type Span, TracerExporters, type TracerOptions } from 'moleculer';
import type { TracingExporter } from './config';

/**
 * A request id as a Zipkin trace id (32 lower-case hex digits): a UUID keeps its digits, so the
 * trace is found under the request id without its dashes; any other id is hashed.
 */
export function zipkinTraceId(requestId: string): string {
  const digits = requestId.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(digits) ? digits : createHash('sha256').update(requestId).digest('hex').slice(0, 32);
}

/**
 * Moleculer's Zipkin exporter cuts every id to its first 16 characters, which is not a valid
 * Zipkin id when a client sent a request id of its own (the collector then refuses the whole
 * batch), and loses half of a UUID request id.
 */
class ZipkinExporter extends TracerExporters.Zipkin {
  override makePayload(span: Span): Record<string, unknown> {
    const payload = super.makePayload(span);
    payload.traceId = zipkinTraceId(span.traceID);
    return payload;
  }
}

/** Spans leave out call params: they hold tokens and consumers' personal data. */
const SPAN_TAGS = { action: { params: false }, event: { params: false } };

export function tracingOptions(tracing: TracingExporter): TracerOptions {
  if (tracing.kind === 'none') return { enabled: false };
  // Moleculer takes an exporter instance, which its typings leave out.
  const exporter =
    tracing.kind === 'console' ? 'Console' : (new ZipkinExporter({ baseURL: tracing.endpoint }) as never);
  return { enabled: true, exporter: [exporter], tags: SPAN_TAGS };
}
