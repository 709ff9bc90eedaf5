/**
 * Trace ids as a Zipkin-compatible collector (Zipkin, Jaeger) requires them: 32 hex digits.
 */
import { zipkinTraceId } from '../src';

it('keeps the digits of a UUID request id, so the trace is found under it', () => {
  expect(zipkinTraceId('5f0c6a52-1b1e-4b8e-9d6c-0a4a3c2f7e11')).toBe('5f0c6a521b1e4b8e9d6c0a4a3c2f7e11');
});

it("hashes a client's own request id into a valid trace id, the same one every time", () => {
  const traceId = zipkinTraceId('order-4711.retry-2');
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(zipkinTraceId('order-4711.retry-2')).toBe(traceId);
  expect(zipkinTraceId('order-4712.retry-2')).not.toBe(traceId);
});
