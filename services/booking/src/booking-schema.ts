/**
 * The JSON Schema (2020-12) of the case/create body for one combination of booking choices
 * (`case/schema`), made from what validates a body and nothing else: the body's own schema
 * (booking-body.ts, through the shared rule converter), the choices and option lists the lookups
 * resolved, and the booking rules (booking-rules.ts). A rule that always holds for these choices
 * makes its fields required (or refused) in place; a rule that depends on the body's own values
 * becomes `if`/`then`/`else` on the object holding its fields, in the order of its cases.
 */
import { objectSchema, withHubDefaults } from '@hub/shared';
import { BOOKING_BODY_SCHEMA } from './booking-body';
import type { LookupOption } from './booking-options';
import type { BookingRule, Demand, FieldTest } from './booking-rules';

type Schema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The resolved choices of a booking, and what they offer. */
export interface SchemaChoices {
  originatorType: string;
  bookingType: string;
  serviceType: LookupOption;
  manufacturer: LookupOption;
  productType: LookupOption;
  serviceLocation: LookupOption;
  /** The method the case ships with (sent or assigned); null when the choices offer none. */
  shippingMethod: LookupOption | null;
  /** Whether the choices named the method (the body must then too) or the hub assigned it (the body may leave it out). */
  shippingNamed: boolean;
  clientPostalCode?: string;
  /** The accessories of the product type. */
  accessories: LookupOption[];
  /** The providers the caller may force the case to; null when it may not force one. */
  forcedProviders: number[] | null;
}

const properties = (node: Schema) => (node.properties ??= {}) as Record<string, Schema>;
const named = (option: LookupOption) => `${option.name} (${option.id})`;

function withoutNull(schema: Schema): Schema {
  const copy = { ...schema };
  if (Array.isArray(copy.type)) {
    const types = (copy.type as string[]).filter((type) => type !== 'null');
    copy.type = types.length === 1 ? types[0] : types;
  }
  if (Array.isArray(copy.enum)) copy.enum = (copy.enum as unknown[]).filter((value) => value !== null);
  if (Array.isArray(copy.anyOf))
    copy.anyOf = (copy.anyOf as Schema[]).filter(
      (branch) => !(branch.type === 'null' && Object.keys(branch).length === 1),
    );
  return copy;
}

const typesOf = (schema: Schema): unknown[] =>
  Array.isArray(schema.anyOf)
    ? (schema.anyOf as Schema[]).flatMap(typesOf)
    : Array.isArray(schema.type)
      ? schema.type
      : [schema.type];

/** A value that is there and not blank: not null, and text with something besides spaces. */
function presentOf(schema: Schema): Schema {
  const kept = withoutNull(schema);
  // A field's own pattern already says what its text looks like.
  return typesOf(kept).includes('string') && kept.pattern === undefined ? { ...kept, pattern: '\\S' } : kept;
}

/** A non-empty object or list, of the shapes the field takes. */
function nonEmptyOf(schema: Schema): Schema {
  const branch = (shape: Schema): Schema =>
    shape.type === 'object'
      ? { ...shape, minProperties: 1 }
      : shape.type === 'array'
        ? { ...shape, minItems: 1 }
        : shape;
  const kept = withoutNull(schema);
  return Array.isArray(kept.anyOf) ? { ...kept, anyOf: (kept.anyOf as Schema[]).map(nonEmptyOf) } : branch(kept);
}

/** The base schema of a field, by its path from `node`. */
function fieldOf(node: Schema, path: string[]): Schema {
  let schema = node;
  for (const key of path) schema = properties(schema)[key] ?? {};
  return schema;
}

/** What a demand makes of a field: its schema, and whether it must be there. */
function demanded(demand: Demand, base: Schema): { schema: Schema; required: boolean } {
  switch (demand.must) {
    case 'present':
      return { schema: presentOf(base), required: true };
    case 'absent':
      return { schema: { type: 'null', description: 'Not accepted for these choices' }, required: false };
    case 'unsent':
      return { schema: { not: {}, description: 'Not accepted' }, required: false };
    case 'true':
      return { schema: { const: true }, required: true };
    case 'nonEmptyList':
      return { schema: { ...withoutNull(base), minItems: 1 }, required: true };
    case 'oneOf':
      return { schema: { enum: demand.options }, required: true };
    case 'consented':
      // Either form consents are sent in: each name true in the object, or each among the names given.
      return {
        schema: {
          description: `${demand.names.join(', ')}: mandatory consents`,
          allOf: [
            withoutNull(base),
            {
              anyOf: [
                {
                  type: 'object',
                  properties: Object.fromEntries(demand.names.map((name) => [name, { const: true }])),
                  required: [...demand.names],
                },
                { type: 'array', allOf: demand.names.map((name) => ({ contains: { const: name } })) },
              ],
            },
          ],
        },
        required: true,
      };
  }
}

function tested(test: FieldTest, base: Schema): Schema {
  if ('nonEmpty' in test) return nonEmptyOf(base);
  return test.oneOf.length === 1 ? { const: test.oneOf[0] } : { enum: test.oneOf };
}

/** A schema that sets `leaf` at `path` below the object it applies to, and requires it there when asked. */
function patchAt(path: string[], leaf: Schema, required: boolean): Schema {
  const [key, ...rest] = path;
  const patch: Schema = { properties: { [key]: rest.length ? patchAt(rest, leaf, required) : leaf } };
  if (required && rest.length === 0) patch.required = [key];
  return patch;
}

/** Two patches as one: their properties merged at every depth, their required fields together. */
function mergePatches(a: Schema, b: Schema): Schema {
  const merged: Schema = { ...a, ...b };
  if (a.properties && b.properties) {
    const props: Record<string, Schema> = { ...(a.properties as Record<string, Schema>) };
    for (const [key, value] of Object.entries(b.properties as Record<string, Schema>))
      props[key] = props[key] && value.properties && props[key].properties ? mergePatches(props[key], value) : value;
    merged.properties = props;
  }
  if (a.required || b.required)
    merged.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
  return merged;
}

const relative = (field: string, at: string[]) => field.split('.').slice(at.length);

/** The rule's cases as `if`/`then`/`else` on the object at `at`. */
function casesSchema(node: Schema, at: string[], cases: BookingRule['cases']): Schema {
  const [first, ...rest] = cases;
  const then = first.demands
    .map((demand) => {
      const path = relative(demand.field, at);
      const { schema, required } = demanded(demand, fieldOf(node, path));
      return patchAt(path, schema, required);
    })
    .reduce(mergePatches, {});
  if (!first.when) return then;
  const path = relative(first.when.field, at);
  const conditional: Schema = { if: patchAt(path, tested(first.when, fieldOf(node, path)), true), then };
  if (rest.length) conditional.else = casesSchema(node, at, rest);
  return conditional;
}

/** The deepest object that holds every field the rule reads or demands. */
function holderOf(rule: BookingRule): string[] {
  const parents = rule.cases
    .flatMap((entry) => [...(entry.when ? [entry.when.field] : []), ...entry.demands.map((demand) => demand.field)])
    .map((field) => field.split('.').slice(0, -1));
  const [first, ...others] = parents;
  let depth = 0;
  while (depth < first.length && others.every((parent) => parent[depth] === first[depth])) depth++;
  return first.slice(0, depth);
}

/** Sets a demand that always holds on the field itself. */
function applyDemand(root: Schema, demand: Demand): void {
  const path = demand.field.split('.');
  const key = path.pop()!;
  const holder = fieldOf(root, path);
  const { schema, required } = demanded(demand, properties(holder)[key] ?? {});
  properties(holder)[key] = schema;
  const kept = ((holder.required as string[] | undefined) ?? []).filter((name) => name !== key);
  holder.required = required ? [...kept, key] : kept;
}

function describe(rule: BookingRule): string {
  return /^\d/.test(rule.rule) ? `Booking rule ${rule.rule} (spec 4.4)` : `Booking rule: ${rule.rule}`;
}

/** The schema of the body case/create takes for these choices, under these rules. */
export function bookingSchema(choices: SchemaChoices, rules: readonly BookingRule[]): Schema {
  const root = objectSchema(withHubDefaults(BOOKING_BODY_SCHEMA));
  const props = properties(root);
  props.serviceType = { const: choices.serviceType.id, description: named(choices.serviceType) };
  props.manufacturer = { enum: [choices.manufacturer.id, choices.manufacturer.name] };
  props.productType = { enum: [choices.productType.id, choices.productType.name] };
  props.location = { const: choices.serviceLocation.id, description: named(choices.serviceLocation) };
  props.originatorType = { const: choices.originatorType };
  props.bookingType = { const: choices.bookingType };
  if (!choices.shippingMethod) props.shipping = { type: 'null', description: 'These choices offer no shipping method' };
  else if (choices.shippingNamed) {
    props.shipping = { const: choices.shippingMethod.id, description: named(choices.shippingMethod) };
    (root.required as string[]).push('shipping');
  } else
    props.shipping = {
      enum: [choices.shippingMethod.id, null],
      description: `${named(choices.shippingMethod)}, which the hub assigns when none is sent (the first offered by name)`,
    };
  if (choices.clientPostalCode !== undefined) props.clientPostalCode = { const: choices.clientPostalCode };
  props.forcedProvider = choices.forcedProviders
    ? { enum: [...choices.forcedProviders, null], description: 'A provider to send the case to, bypassing routing' }
    : { type: 'null', description: 'Not accepted from this account' };
  const accessoryIds = choices.accessories.map((accessory) => accessory.id);
  properties(props.productData).accessory = {
    description: `Accessories of the product type: ${choices.accessories.map(named).join(', ') || 'none'}`,
    anyOf: [
      {
        type: 'object',
        propertyNames: { enum: accessoryIds.map(String) },
        additionalProperties: { type: 'boolean' },
      },
      { type: 'array', maxItems: 200, items: { enum: [...accessoryIds, ...accessoryIds.map(String)] } },
      { type: 'null' },
    ],
  };

  // Rules on deeper objects first, so a rule above that demands such an object takes it whole.
  const placed = rules.map((rule) => ({ rule, at: holderOf(rule) })).sort((a, b) => b.at.length - a.at.length);
  for (const { rule, at } of placed) {
    if (rule.cases.length === 1 && !rule.cases[0].when) {
      for (const demand of rule.cases[0].demands) applyDemand(root, demand);
      continue;
    }
    const holder = fieldOf(root, at);
    const conditional = { description: describe(rule), ...casesSchema(holder, at, rule.cases) };
    holder.allOf = [...((holder.allOf as Schema[] | undefined) ?? []), conditional];
  }
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'case/create body',
    description:
      `The body case/create and case/validate accept for ${choices.originatorType} ${choices.bookingType} bookings of ` +
      `${named(choices.serviceType)} for ${named(choices.manufacturer)} ${named(choices.productType)} at ` +
      `${named(choices.serviceLocation)}. Fields it does not name are discarded.`,
    ...root,
  };
}
