/**
 * An older path's answer in the API reference: the current action's response where the older
 * form answers the same, its own where it changes the answer, and no form that changes the answer
 * without declaring it.
 */
import type { ActionSchema } from 'moleculer';
import { ACCESS, olderAction } from '../src';

const current: ActionSchema = {
  rest: 'GET /v3/things',
  access: ACCESS.PARTNER,
  summary: 'Things',
  response: { type: 'array', items: { type: 'string' } },
  handler: () => ['a'],
};

it('answers with the current response where the older form answers the same', () => {
  const older = olderAction(current, 'v2');
  expect(older).toMatchObject({ rest: 'GET /v2/things', deprecated: true, response: current.response });
});

it('declares the answer an older form makes of the current one', () => {
  const wrapped = { type: 'object', properties: { data: current.response! } } as const;
  const older = olderAction(current, 'v1', { answer: (things: string[]) => ({ data: things }), response: wrapped });
  expect(older.response).toBe(wrapped);
});

it('refuses a form that changes the answer without declaring it', () => {
  expect(() => olderAction(current, 'v1', { answer: (things: string[]) => ({ data: things }) })).toThrow(
    'the v1 form of GET /v3/things changes the answer: declare its response',
  );
  expect(() => olderAction(current, 'v1', { failure: () => ({ result: false }) })).toThrow(/declare its response/);
});
