/**
 * The hub's action keys: a wrong value fails to compile (`npm run lint` type-checks this file, so
 * an `@ts-expect-error` that stops erroring fails it), and a key no one reads, which the compiler
 * lets through Moleculer's index signature, fails here for every service.
 */
import type { ActionSchema, ServiceSchema } from 'moleculer';
import { ACCESS, ACTION_KEYS, ALL_SERVICES } from '@hub/shared';
import { serviceSchemaOf } from '../src';

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

/** `service.action.key` for each key of each action (its mixins' included) that the hub does not know. */
function unknownActionKeys(schema: ServiceSchema): string[] {
  const found: string[] = [];
  for (const source of [...((schema.mixins ?? []) as ServiceSchema[]), schema]) {
    for (const [name, action] of Object.entries(source.actions ?? {})) {
      if (typeof action !== 'object' || action === null) continue;
      for (const key of Object.keys(action)) if (!ACTION_KEYS.has(key)) found.push(`${schema.name}.${name}.${key}`);
    }
  }
  return found;
}

it('finds a misspelt key that compiles', () => {
  const schema: ServiceSchema = { name: 'probe', actions: { misspelt: { ...wellDeclared, acess: ACCESS.ADMIN } } };
  expect(unknownActionKeys(schema)).toEqual(['probe.misspelt.acess']);
  expect(unknownActionKeys({ name: 'probe', actions: { wellDeclared, misdeclared } })).toEqual([]);
});

it('holds every service to the keys the hub reads', () => {
  const schemas = ALL_SERVICES.map((name) => serviceSchemaOf(name)).filter((schema) => schema !== undefined);
  expect(schemas.length).toBe(ALL_SERVICES.length);
  expect(schemas.flatMap(unknownActionKeys)).toEqual([]);
});
