/**
 * The keys the hub adds to a Moleculer action, declared on Moleculer's own `ActionSchema` (module
 * augmentation, as Moleculer's TypeScript template does for its `auth` key), so that a wrong value
 * such as `access: 'partnr'`, or a key no one reads (`acess`), fails to compile wherever an
 * action is written.
 */
// moleculer-web declares the `rest` key, on actions and on a service's settings, for every service.
/// <reference types="moleculer-web" preserve="true" />
import type { ServiceSchema as MoleculerServiceSchema } from 'moleculer';
import type { AccessLevel } from './access';
import type { JsonSchema } from './json-schema';

declare module 'moleculer' {
  interface ServiceSchema {
    /** Moleculer calls it once the mixins are merged, before the service is created; its typings leave it out. */
    merged?: (this: never, schema: MoleculerServiceSchema) => void;
  }

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
