/**
 * The keys the hub adds to a Moleculer action, declared on Moleculer's own `ActionSchema` (module
 * augmentation, as Moleculer's TypeScript template does for its `auth` key), so that a wrong value
 * such as `access: 'partnr'` fails to compile wherever an action is written.
 *
 * Moleculer 0.14 keeps an `any` index signature on `ActionSchema`, so the compiler cannot refuse a
 * misspelt key (`acess`): `ACTION_KEYS` lists every key an action may carry, and a test holds
 * every service's actions to it.
 */
import type { AccessLevel } from './access';
import type { JsonSchema } from './json-schema';

declare module 'moleculer' {
  interface ActionSchema {
    /** Who may call the action through the gateway; an action without it is not published. */
    access?: AccessLevel;
    /** The action takes uploads: the gateway accepts its body up to `uploadBodyLimitBytes`. */
    largeBody?: boolean;
    /** One line for the API reference (the OpenAPI operation's summary). */
    summary?: string;
    /** What the API reference says beyond the summary, where the behaviour needs it. */
    description?: string;
    /** A route kept for older clients: documented as deprecated, answered with `Deprecation`. */
    deprecated?: boolean;
    /**
     * The success answer for the API reference: the JSON Schema of its body, with `examples`
     * (or, for a file, `contentMediaType`). Shapes shared between actions are declared once and
     * titled (see `JsonSchema`).
     */
    response?: JsonSchema;
    /**
     * A POST that changes nothing a retry could repeat (a search or a check with a body): it takes
     * no Idempotency-Key (idempotency.ts), which every other write of a partner or provider takes.
     */
    readOnly?: boolean;
  }
}

/** Moleculer's own action keys (its ActionSchema). */
const MOLECULER_ACTION_KEYS = [
  'name',
  'rest',
  'visibility',
  'params',
  'service',
  'cache',
  'handler',
  'tracing',
  'bulkhead',
  'circuitBreaker',
  'retryPolicy',
  'fallback',
  'hooks',
  'timeout',
];

/** Every key an action of the hub may carry. */
export const ACTION_KEYS: ReadonlySet<string> = new Set([
  ...MOLECULER_ACTION_KEYS,
  'access',
  'largeBody',
  'summary',
  'description',
  'deprecated',
  'response',
  'readOnly',
]);
