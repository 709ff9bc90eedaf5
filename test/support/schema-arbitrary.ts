/**
 * Values drawn from a JSON Schema (2020-12) with fast-check, for property tests of schemas the
 * hub answers. It covers the keywords those schemas use: types, `const`, `enum`, `not`, `anyOf`,
 * `allOf`, `if`/`then`/`else`, `properties`/`required`, `additionalProperties`/`propertyNames`,
 * `items`, lengths, bounds, `pattern` and the `date` and `email` formats. An `anyOf`, `then` or
 * `else` on an object is applied as a patch to the object drawn from its properties; an `if` is
 * made to hold or to fail, each as often. Every value drawn should be checked against the schema
 * with a validator (`schemaValidator`): the drawing is only as exact as this module.
 */
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';

type Schema = Record<string, any>;
type Json = Record<string, unknown>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A validator of the schemas' keywords and formats (`date`, `email` as the hub's validator reads them). */
export function schemaValidator(): Ajv2020 {
  return new Ajv2020({
    strict: true,
    strictTypes: false,
    // A `required` beside an object's properties, not under them, is how an alternative names its fields.
    strictRequired: false,
    allErrors: true,
    formats: {
      date: (text: string) => DATE.test(text) && !Number.isNaN(Date.parse(text)),
      email: /^\S+@\S+\.\S+$/,
      'date-time': (text: string) => !Number.isNaN(Date.parse(text)),
    },
  });
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema that only patches the properties of the object it applies to. */
const isPatch = (schema: Schema) =>
  schema.properties !== undefined && ['type', 'const', 'enum', 'anyOf', 'not', 'if'].every((key) => !(key in schema));

const isNever = (schema: Schema) => isObject(schema.not) && Object.keys(schema.not).length === 0;

const FREE_KEY = fc.stringMatching(/^[a-z]{1,6}$/);
const FREE_VALUE = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean());

export function arbitraryOf(schema: Schema, ajv: Ajv2020): fc.Arbitrary<unknown> {
  const valueOf = (node: Schema): fc.Arbitrary<unknown> => {
    if (node.not !== undefined) {
      const { not, ...rest } = node;
      const excluded = ajv.compile(not);
      return valueOf(rest).filter((value) => !excluded(value));
    }
    if ('const' in node) return fc.constant(node.const);
    if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum);
    const isObjectNode = node.type === 'object' || node.properties !== undefined;
    if (Array.isArray(node.anyOf) && !isObjectNode) {
      const { anyOf, ...rest } = node;
      return fc.oneof(...anyOf.map((branch: Schema) => valueOf({ ...rest, ...branch })));
    }
    if (Array.isArray(node.type)) return fc.oneof(...node.type.map((type: string) => valueOf({ ...node, type })));
    switch (node.type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({
          min: node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : -1000),
          max: node.maximum ?? 1000,
        });
      case 'number':
        return fc.double({
          min: node.exclusiveMinimum ?? node.minimum ?? -1e6,
          minExcluded: node.exclusiveMinimum !== undefined,
          max: node.maximum ?? 1e6,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case 'string':
        return stringOf(node);
      case 'array':
        return fc.array(node.items ? valueOf(node.items) : FREE_VALUE, {
          minLength: node.minItems ?? 0,
          maxLength: Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? 3, 3)),
        });
      case 'object':
      case undefined:
        return isObjectNode ? objectOf(node) : fc.oneof(FREE_VALUE, fc.constant(null));
      default:
        throw new Error(`No values drawn for type ${String(node.type)}`);
    }
  };

  const objectOf = (node: Schema): fc.Arbitrary<unknown> => {
    let base: fc.Arbitrary<Json>;
    if (node.properties) {
      const required = new Set<string>(node.required ?? []);
      const entries = Object.entries(node.properties as Record<string, Schema>).filter(([, sub]) => !isNever(sub));
      base = fc.record(Object.fromEntries(entries.map(([key, sub]) => [key, valueOf(sub)])), {
        requiredKeys: entries.map(([key]) => key).filter((key) => required.has(key)),
      }) as fc.Arbitrary<Json>;
    } else if (isObject(node.additionalProperties)) {
      const keys = node.propertyNames ? valueOf({ type: 'string', ...node.propertyNames }) : FREE_KEY;
      base = fc.dictionary(keys as fc.Arbitrary<string>, valueOf(node.additionalProperties), {
        minKeys: node.minProperties ?? 0,
        maxKeys: Math.max(node.minProperties ?? 0, 3),
      });
    } else {
      base = fc.dictionary(FREE_KEY, FREE_VALUE, { minKeys: node.minProperties ?? 0, maxKeys: 3 });
    }
    const conditions: Schema[] = [...(node.allOf ?? [])];
    if (node.anyOf) conditions.push({ anyOf: node.anyOf });
    if (node.if) conditions.push({ if: node.if, then: node.then, else: node.else });
    return conditions.reduce<fc.Arbitrary<unknown>>(
      (drawn, condition) => drawn.chain((value) => applied(value, condition, node)),
      base,
    );
  };

  /** The value with a condition (`anyOf` of patches, `if`/`then`/`else`, or a patch) made to hold. */
  const applied = (value: unknown, condition: Schema, own: Schema): fc.Arbitrary<unknown> => {
    if (!isObject(value)) return fc.constant(value);
    if (condition.anyOf)
      return fc.constantFrom(...(condition.anyOf as Schema[])).chain((branch) => applied(value, branch, own));
    if (condition.if) {
      const holds = ajv.compile(condition.if);
      // What a branch draws must not undo the test that chose it (a nested `if` reads the same fields).
      return fc.boolean().chain((makeHold) =>
        makeHold
          ? patched(value, condition.if, own)
              .chain((next) => (condition.then ? applied(next, condition.then, own) : fc.constant(next)))
              .filter((next) => holds(next))
          : (holds(value) ? broken(value, condition.if, own).filter((next) => !holds(next)) : fc.constant(value))
              .chain((next) => (condition.else ? applied(next, condition.else, own) : fc.constant(next)))
              .filter((next) => !holds(next)),
      );
    }
    return patched(value, condition, own);
  };

  /** The value with the patch's properties drawn from it (an optional one may go) and its required ones there. */
  const patched = (value: Json, patch: Schema, own: Schema): fc.Arbitrary<Json> => {
    const keys = [...new Set([...Object.keys(patch.properties ?? {}), ...(patch.required ?? [])])];
    const required = new Set<string>(patch.required ?? []);
    const drawn = keys.map((key) => {
      const sub: Schema | undefined = patch.properties?.[key];
      const ownSub: Schema = own.properties?.[key] ?? {};
      if (sub && isPatch(sub)) {
        const inner = value[key];
        return isObject(inner) ? patched(inner, sub, ownSub) : fc.constant(inner);
      }
      const leaf = valueOf(sub ?? ownSub);
      return required.has(key) ? leaf : fc.option(leaf, { nil: undefined });
    });
    return fc.tuple(...drawn).map((values) => {
      const next: Json = { ...value };
      keys.forEach((key, index) => {
        if (values[index] === undefined) delete next[key];
        else next[key] = values[index];
      });
      return next;
    });
  };

  /** The value with each field the test reads drawn again from the object's own schema, or left out where it may be. */
  const broken = (value: Json, test: Schema, own: Schema): fc.Arbitrary<Json> => {
    const keys = Object.keys(test.properties ?? {});
    const drawn = keys.map((key) => {
      const sub: Schema = test.properties[key];
      const ownSub: Schema = own.properties?.[key] ?? {};
      if (isPatch(sub)) {
        const inner = value[key];
        return isObject(inner) ? broken(inner, sub, ownSub) : fc.constant(inner);
      }
      const leaf = valueOf(ownSub);
      return (own.required ?? []).includes(key) ? leaf : fc.option(leaf, { nil: undefined });
    });
    return fc.tuple(...drawn).map((values) => {
      const next: Json = { ...value };
      keys.forEach((key, index) => {
        if (values[index] === undefined) delete next[key];
        else next[key] = values[index];
      });
      return next;
    });
  };

  const stringOf = (node: Schema): fc.Arbitrary<string> => {
    const min = node.minLength ?? 0;
    const max = node.maxLength ?? 40;
    const fits = (text: string) => text.length >= min && text.length <= max;
    if (node.format === 'date')
      return fc
        .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    if (node.format === 'email') return fc.emailAddress().filter(fits);
    if (node.pattern) return fc.stringMatching(new RegExp(node.pattern, 'u')).filter(fits);
    return fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, 12)) });
  };

  return valueOf(schema);
}

/**
 * The paths of the fields a value carries that the schema requires of it: the required properties
 * of every object, and of the `then` or `else` its `if` picks for the value, at any depth (the
 * fields an `if` reads are not required by it).
 */
export function requiredPaths(schema: Schema, value: unknown, ajv: Ajv2020, prefix = ''): string[] {
  if (!isObject(value)) return [];
  const paths: string[] = (schema.required ?? [])
    .filter((key: string) => key in value)
    .map((key: string) => prefix + key);
  for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    if (isObject(value[key]) && sub.properties) paths.push(...requiredPaths(sub, value[key], ajv, `${prefix}${key}.`));
  for (const condition of [...(schema.allOf ?? []), ...(schema.if ? [schema] : [])] as Schema[]) {
    if (!condition.if) continue;
    const branch = ajv.validate(condition.if, value) ? condition.then : condition.else;
    if (branch) paths.push(...requiredPaths(branch, value, ajv, prefix));
  }
  return [...new Set(paths)];
}
