/**
 * The broker's parameter validator: fastest-validator with the hub's defaults applied to every
 * schema, so no action can forget them.
 * - Unexpected fields are discarded at every level (the spec: "discarded without validation error").
 * - Numbers and booleans are converted from strings, because query strings carry only strings.
 */
import { Validators } from 'moleculer';
import FastestValidator from 'fastest-validator';

type Rule = Record<string, unknown>;

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
    case 'number':
    case 'boolean':
      normalized.convert ??= true;
      break;
    default:
      break;
  }
  return normalized;
}

function normalizeProps(props: Rule): Rule {
  const normalized: Rule = {};
  for (const [key, rule] of Object.entries(props)) {
    normalized[key] = key.startsWith('$$') ? rule : normalizeRule(rule);
  }
  return normalized;
}

/** Applies the hub's defaults to an action's `params` schema. */
export function withHubDefaults(schema: Rule): Rule {
  return { $$strict: 'remove', ...normalizeProps(schema) };
}

// Moleculer's typings omit the options its Fastest validator passes on to fastest-validator.
const FastestWithOptions = Validators.Fastest as unknown as new (options: object) => Validators.Fastest;

export class HubValidator extends FastestWithOptions {
  constructor() {
    super({ useNewCustomCheckerFunction: true, haltOnFirstError: false });
  }

  override compile(schema: Rule) {
    return super.compile(withHubDefaults(schema));
  }
}
