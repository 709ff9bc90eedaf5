/** The gateway's kept answers (answer-cache.ts): generations, the size budget, the request key. */
import type { IncomingMessage } from 'node:http';
import type { Caller } from '@hub/shared';
import { ANSWER_CACHE_LIMITS, AnswerCache, answerKeyOf, type KeptAnswer } from '../src/answer-cache';

const caller = { role: 'partner', accountId: 1, partnerId: 1 } as unknown as Caller;

function answer(body: string): KeptAnswer {
  return {
    body,
    bytes: Buffer.byteLength(body),
    action: 'catalog.manufacturers',
    deprecated: false,
    resolvedCaller: caller,
    caller,
  };
}

const request = (headers: Record<string, string> = {}, method = 'GET') =>
  ({ method, url: '/api/v3/manufacturers?a=1', headers }) as unknown as IncomingMessage;

it('keeps an answer computed since the last clearing, and none computed before it', () => {
  const cache = new AnswerCache();
  const before = cache.generation;
  cache.keep('a', answer('[1]'), before);
  expect(cache.get('a')?.body).toBe('[1]');
  cache.clear();
  expect(cache.get('a')).toBeUndefined();
  cache.keep('b', answer('[2]'), before);
  expect(cache.get('b')).toBeUndefined();
  cache.keep('b', answer('[2]'), cache.generation);
  expect(cache.get('b')?.body).toBe('[2]');
});

it('counts keys and entries against its budget, so tiny answers under many URLs cannot grow it without end', () => {
  const cache = new AnswerCache();
  const key = (i: number) => `token\n\n/api/v3/manufacturers?clientPostalCode=${i}`;
  const perEntry = key(0).length + ANSWER_CACHE_LIMITS.entryBytes + 2;
  const fitting = Math.floor(ANSWER_CACHE_LIMITS.maxBytes / perEntry);
  for (let i = 0; i < fitting * 2; i++) cache.keep(key(i), answer('[]'), cache.generation);
  expect(cache.size).toBeLessThanOrEqual(fitting);
  expect(cache.size).toBeGreaterThan(0);
});

it('keeps no answer larger than its limit', () => {
  const cache = new AnswerCache();
  cache.keep('big', answer('x'.repeat(ANSWER_CACHE_LIMITS.maxAnswerBytes + 1)), cache.generation);
  expect(cache.get('big')).toBeUndefined();
});

it('keys a plain GET by token, acting provider and URL, and no request that carries more', () => {
  expect(answerKeyOf(request(), 't')).toBe('t\n\n/api/v3/manufacturers?a=1');
  expect(answerKeyOf(request({ 'x-service-provider': '20' }), 't')).toBe('t\n20\n/api/v3/manufacturers?a=1');
  expect(answerKeyOf(request({}, 'POST'), 't')).toBeUndefined();
  expect(answerKeyOf(request({ 'content-length': '2' }), 't')).toBeUndefined();
  expect(answerKeyOf(request({ 'content-length': '0' }), 't')).toBeDefined();
  expect(answerKeyOf(request({ 'transfer-encoding': 'chunked' }), 't')).toBeUndefined();
  expect(answerKeyOf(request({ 'idempotency-key': 'k' }), 't')).toBeUndefined();
});
