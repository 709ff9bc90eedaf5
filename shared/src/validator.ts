/**
 * The broker's parameter validator: fastest-validator with the hub's defaults applied to every
 * schema, so no action can forget them.
 * - Unexpected fields are discarded at every level (the spec: "discarded without validation error").
 * - An integer fits a Postgres integer column unless its rule says otherwise, so an id out of that
 *   range is a validation error, not a database error.
 * - Types are not converted, with one exception the product documents: an integer sent as its
 *   digits (`"serviceType": "2"`) is that integer, at any depth of a JSON body. Any other string
 *   where a number belongs is refused. The params that arrived as text (a query string, a path)
 *   are named by the gateway in the call's meta, and only those are typed further, on the node
 *   that serves the action, from the action's own schema (a schema seen through the registry is
 *   not whole: Moleculer sends a rule object that several params share only once).
 */
import { type Middleware, Validators } from 'moleculer';
import { detailsFromValidator, FieldsValidationError, REFUSED_KEY_ERROR } from './errors';
import FastestValidator from 'fastest-validator';
import { REFUSED_RECORD_KEY } from './rule-schema';

type Rule = Record<string, unknown>;

/** The largest value of a Postgres `integer`, the type of every id column. */
export const INTEGER_COLUMN_MAX = 2_147_483_647;

const shorthandParser = new FastestValidator() as unknown as { parseShortHand(rule: string): Rule };

function normalizeRule(rule: unknown): unknown {
  if (typeof rule === 'string') return normalizeRule(shorthandParser.parseShortHand(rule));
  if (Array.isArray(rule)) return rule.map(normalizeRule);
  if (!rule || typeof rule !== 'object') return rule;
  const normalized: Rule = { ...(rule as Rule) };
  switch (normalized.type) {
    case 'object':
      if (normalized.props) {
        normalized.props = normalizeProps(normalized.props as Rule);
        normalized.strict ??= 'remove';
      }
      break;
    case 'array':
      if (normalized.items) normalized.items = normalizeRule(normalized.items);
      break;
    case 'multi':
      normalized.rules = (normalized.rules as unknown[]).map(normalizeRule);
      break;
    case 'record':
      normalized.key = keyRuleRefusingPrototype(normalizeRule(normalized.key ?? 'string') as Rule);
      break;
    case 'number':
      if (normalized.integer) {
        normalized.max ??= INTEGER_COLUMN_MAX;
        if (!normalized.positive) normalized.min ??= -INTEGER_COLUMN_MAX - 1;
      }
      break;
    default:
      break;
  }
  return normalized;
}

type CustomCheck = (value: unknown, errors: Array<Record<string, unknown>>, ...rest: unknown[]) => unknown;

function keyRuleRefusingPrototype(key: Rule): Rule {
  const ownCheck = key.custom as CustomCheck | undefined;
  const custom: CustomCheck = (value, errors, ...rest) => {
    if (value !== REFUSED_RECORD_KEY) return ownCheck ? ownCheck(value, errors, ...rest) : value;
    errors.push({ type: REFUSED_KEY_ERROR, actual: value });
    return value;
  };
  return { ...key, custom };
}

function normalizeProps(props: Rule): Rule {
  const normalized: Rule = {};
  for (const [key, rule] of Object.entries(props)) {
    normalized[key] = key.startsWith('$$') ? rule : normalizeRule(rule);
  }
  return normalized;
}

const NUMBER_TEXT = /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;
const BOOLEAN_TEXT: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

/**
 * A value that arrived as text (query string, path) as the rule declares it: a number or a
 * boolean when the text spells one, else the text unchanged for the validator to refuse.
 */
function typedText(rule: unknown, value: unknown): unknown {
  const normalized = normalizeRule(rule) as Rule | undefined;
  if (typeof value !== 'string' || !normalized || typeof normalized !== 'object') return value;
  switch (normalized.type) {
    case 'number':
      return NUMBER_TEXT.test(value) ? Number(value) : value;
    case 'boolean':
      return BOOLEAN_TEXT[value.trim().toLowerCase()] ?? value;
    case 'multi':
      for (const alternative of normalized.rules as unknown[]) {
        const typed = typedText(alternative, value);
        if (typed !== value) return typed;
      }
      return value;
    default:
      return value;
  }
}

const INTEGER_TEXT = /^\s*-?\d{1,15}\s*$/;

type Convert = (value: unknown) => unknown;

/**
 * A function that turns the integers sent as digits within a value into numbers, wherever the
 * rule declares an integer (through objects, arrays and alternatives), or null when the rule
 * declares none. Built once per schema; objects and arrays are changed in place.
 */
function integersFromText(rule: unknown): Convert | null {
  const normalized = normalizeRule(rule) as Rule | undefined;
  if (!normalized || typeof normalized !== 'object') return null;
  switch (normalized.type) {
    case 'number':
      return normalized.integer
        ? (value) => (typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value)
        : null;
    case 'object':
      return normalized.props ? propsConverter(normalized.props as Rule) : null;
    case 'array': {
      const item = integersFromText(normalized.items);
      return item
        ? (value) => {
            if (Array.isArray(value)) value.forEach((entry, index) => (value[index] = item(entry)));
            return value;
          }
        : null;
    }
    case 'enum': {
      // An option that is a number, sent as its digits; text that is itself an option stays text.
      const options = normalized.values as unknown[];
      return options.some((option) => typeof option === 'number')
        ? (value) =>
            typeof value === 'string' &&
            INTEGER_TEXT.test(value) &&
            !options.includes(value) &&
            options.includes(Number(value))
              ? Number(value)
              : value
        : null;
    }
    case 'multi': {
      const alternatives = (normalized.rules as unknown[]).map(integersFromText).filter(Boolean) as Convert[];
      // Only text is read as a number: an object matches its own alternative as it is.
      return alternatives.length ? (value) => (typeof value === 'string' ? alternatives[0](value) : value) : null;
    }
    default:
      return null;
  }
}

function propsConverter(props: Rule): Convert | null {
  const converters = Object.entries(props)
    .filter(([key]) => !key.startsWith('$$'))
    .map(([key, rule]) => [key, integersFromText(rule)] as const)
    .filter((entry): entry is readonly [string, Convert] => entry[1] !== null);
  if (converters.length === 0) return null;
  return (value) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const record = value as Rule;
      for (const [key, convert] of converters)
        if (Object.prototype.hasOwnProperty.call(record, key)) record[key] = convert(record[key]);
    }
    return value;
  };
}

/** Turns integers sent as digits into numbers wherever `schema` (an action's params) declares an integer. */
export function integerTextReader(schema: Rule): (params: Rule) => void {
  const convert = propsConverter(schema);
  return convert ? (params) => void convert(params) : () => undefined;
}

/** An array longer than its rule allows, in the form of fastest-validator's errors. */
export interface OversizedValue {
  type: 'arrayMax';
  field: string;
  expected: number;
  actual: number;
}

type SizeCheck = (value: unknown, path: string) => OversizedValue | null;

/**
 * A function that finds the first array longer than its rule's `max` within a value, or null when
 * the rule sets no array length anywhere. It reads lengths only, never validates, and stops at the
 * first array too long before looking at its items: the validator would check every item of a
 * long array (and name each wrong one) after its length. A string too long costs the validator
 * no more than any other, which names it beside the value's other faults.
 */
function sizeCheckOf(rule: unknown): SizeCheck | null {
  const normalized = normalizeRule(rule) as Rule | undefined;
  if (!normalized || typeof normalized !== 'object') return null;
  const max = typeof normalized.max === 'number' ? normalized.max : undefined;
  switch (normalized.type) {
    case 'array': {
      const item = sizeCheckOf(normalized.items);
      if (max === undefined && !item) return null;
      return (value, field) => {
        if (!Array.isArray(value)) return null;
        if (max !== undefined && value.length > max)
          return { type: 'arrayMax', field, expected: max, actual: value.length };
        if (item)
          for (let index = 0; index < value.length; index++) {
            const found = item(value[index], `${field}[${index}]`);
            if (found) return found;
          }
        return null;
      };
    }
    case 'object':
      return normalized.props ? propsSizeCheck(normalized.props as Rule) : null;
    case 'record': {
      const entry = sizeCheckOf(normalized.value);
      return entry
        ? (value, field) => {
            if (!value || typeof value !== 'object') return null;
            for (const [key, item] of Object.entries(value)) {
              const found = entry(item, field ? `${field}.${key}` : key);
              if (found) return found;
            }
            return null;
          }
        : null;
    }
    case 'multi': {
      // Too long only when too long for every alternative; one that does not apply leaves it to the validator.
      const alternatives = (normalized.rules as unknown[]).map(sizeCheckOf);
      if (alternatives.some((alternative) => alternative === null)) return null;
      return (value, field) => {
        let first: OversizedValue | null = null;
        for (const alternative of alternatives as SizeCheck[]) {
          const found = alternative(value, field);
          if (!found) return null;
          first ??= found;
        }
        return first;
      };
    }
    default:
      return null;
  }
}

function propsSizeCheck(props: Rule): SizeCheck | null {
  const checks = Object.entries(props)
    .filter(([key]) => !key.startsWith('$$'))
    .map(([key, rule]) => [key, sizeCheckOf(rule)] as const)
    .filter((entry): entry is readonly [string, SizeCheck] => entry[1] !== null);
  if (checks.length === 0) return null;
  return (value, field) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    const record = value as Rule;
    for (const [key, check] of checks) {
      if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
      const found = check(record[key], field ? `${field}.${key}` : key);
      if (found) return found;
    }
    return null;
  };
}

const sizeChecks = new WeakMap<Rule, SizeCheck | null>();

/**
 * The first array of `params` longer than an action's `params` schema allows, or null. The
 * gateway asks before it sends a call, and each serving node before it validates one.
 */
export function oversizedValue(schema: Rule, params: Rule): OversizedValue | null {
  let check = sizeChecks.get(schema);
  if (check === undefined) {
    check = propsSizeCheck(schema);
    sizeChecks.set(schema, check);
  }
  return check ? check(params, '') : null;
}

/** Applies the hub's defaults to an action's `params` schema. */
export function withHubDefaults(schema: Rule): Rule {
  return { $$strict: 'remove', ...normalizeProps(schema) };
}

/** The meta key under which the gateway names the params that arrived as text. */
export const TEXT_PARAMS_META = 'textParams';

type Check = (params: Rule, options?: { meta?: { meta?: Record<string, unknown> } }) => unknown;

// Moleculer's typings omit the options its Fastest validator passes on to fastest-validator.
export class HubValidator extends Validators.Fastest {
  constructor() {
    super({ useNewCustomCheckerFunction: true, haltOnFirstError: false });
  }

  override compile(schema: Rule) {
    const check = super.compile(withHubDefaults(schema)) as unknown as Check;
    const readIntegers = integerTextReader(schema);
    // Moleculer hands the call's context to the check as `meta`.
    const typedCheck: Check = (params, options) => {
      readIntegers(params);
      const meta = options?.meta?.meta;
      const textParams = meta?.[TEXT_PARAMS_META];
      if (Array.isArray(textParams)) {
        // The action's own calls get typed params from it.
        delete meta![TEXT_PARAMS_META];
        for (const key of textParams)
          if (Object.prototype.hasOwnProperty.call(params, key)) params[key] = typedText(schema[key], params[key]);
      }
      const oversized = oversizedValue(schema, params);
      return oversized ? [oversized] : check(params, options);
    };
    return typedCheck as never;
  }

  /**
   * Moleculer's middleware, whose validation error (one entry per failing value) becomes the
   * hub's FieldsValidationError, which names the first fields and counts the rest: the answer
   * must stay small whatever the input. Moleculer runs the validator outside the user's
   * middlewares, so the error is turned here, before it leaves the node.
   */
  // Moleculer's typings give `middleware` neither its broker argument nor its hooks object.
  override middleware(broker?: unknown): never {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on `this` on the next line
    const baseMiddleware = super.middleware as unknown as (broker: unknown) => { localAction: LocalActionHook };
    const base = baseMiddleware.call(this, broker);
    const validated = base.localAction;
    return {
      ...base,
      localAction(this: unknown, handler: ActionHandler, action: unknown) {
        const wrapped = validated.call(this, handler, action);
        if (wrapped === handler) return handler;
        return (ctx: unknown) => wrapped(ctx).catch(boundedValidationError);
      },
    } as never;
  }
}

type ActionHandler = (ctx: unknown) => Promise<unknown>;
type LocalActionHook = (handler: ActionHandler, action: unknown) => ActionHandler;

function boundedValidationError(err: unknown): Promise<never> {
  const error = err as Error & { type?: unknown; data?: unknown };
  return Promise.reject(
    error?.type === 'VALIDATION_ERROR' ? new FieldsValidationError(detailsFromValidator(error.data)) : error,
  );
}

/**
 * A copy of a rule or schema in which no object or array appears twice. Moleculer publishes an
 * action's definition to the other nodes through a serializer that drops every repeat of an
 * object it has already written, so a rule object shared by two params would leave the second
 * param out of the schema the gateway reads on another node (and it would refuse that param as
 * unknown), and a response shape shared by two actions would vanish from the second one's
 * OpenAPI answer.
 */
function unshared(rule: unknown): unknown {
  if (Array.isArray(rule)) return rule.map(unshared);
  if (rule === null || typeof rule !== 'object' || Object.getPrototypeOf(rule) !== Object.prototype) return rule;
  return Object.fromEntries(Object.entries(rule).map(([key, value]) => [key, unshared(value)]));
}

type ActionSchemaLike = { params?: unknown; response?: unknown } | ((...args: unknown[]) => unknown) | boolean;

/** Gives every action its own copy of its params and response schemas before the service registers it. */
export const WholeParamsMiddleware = {
  name: 'WholeParams',
  serviceCreating(_service: unknown, schema: { actions?: Record<string, ActionSchemaLike> }): void {
    for (const action of Object.values(schema.actions ?? {})) {
      if (!action || typeof action !== 'object') continue;
      if (action.params) action.params = unshared(action.params);
      if (action.response) action.response = unshared(action.response);
    }
  },
} as unknown as Middleware;
