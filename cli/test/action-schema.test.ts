/**
 * The hub's action keys: a wrong value or a key no one reads fails to compile (`npm run lint`
 * type-checks this file, so an `@ts-expect-error` that stops erroring fails it).
 */
import type { ActionSchema } from 'moleculer';
import { ACCESS } from '@hub/shared';

const wellDeclared: ActionSchema = {
  rest: 'GET /v3/probe',
  access: ACCESS.PARTNER,
  largeBody: false,
  summary: 'A probe',
  response: { type: 'object', properties: { id: { type: 'integer' } }, examples: [{ id: 1 }] },
  handler: () => null,
};

const misdeclared: ActionSchema = {
  rest: 'GET /v3/probe',
  // @ts-expect-error: an access level the hub does not have
  access: 'partnr',
  // @ts-expect-error: a summary is text
  summary: 1,
  response: {
    type: 'object',
    // @ts-expect-error: a JSON Schema keyword misspelt
    propertys: { id: { type: 'integer' } },
  },
  handler: () => null,
};

const misspelt: ActionSchema = {
  ...wellDeclared,
  // @ts-expect-error: a key the hub does not read
  acess: ACCESS.ADMIN,
};

it('declares the keys the hub reads', () => {
  expect({ wellDeclared, misdeclared, misspelt }).toBeDefined();
});
