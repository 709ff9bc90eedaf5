/**
 * The previous versions of the API (v1, v2) that the product's documentation still describes:
 * its basics say every endpoint of a previous version stays callable in the next. An older path
 * is the same action as its v3 path, declared beside it by `OlderPathsMixin`, with the older
 * names translated on the way in (params) and out (answer, and the fields an error names). The
 * gateway marks every answer of an older path, errors too, with `Deprecation:
 * OLDER_VERSIONS_DEPRECATION` and `Sunset: OLDER_VERSIONS_SUNSET`, and the OpenAPI document shows
 * it deprecated.
 * docs/compatibility.md lists each older path.
 */
import type { ActionParams, ActionSchema, Context, Service, ServiceSchema } from 'moleculer';
import type { JsonSchema } from './json-schema';

/**
 * Since when the older paths are deprecated (RFC 9745 `Deprecation`, a structured-field date in
 * Unix seconds): the hub's first release served them only for clients written against them.
 */
export const OLDER_VERSIONS_DEPRECATION = `@${Date.UTC(2026, 10, 22) / 1000}`;

/**
 * When the older paths may stop answering (RFC 8594 `Sunset`), announced on each of their
 * answers; the README's deprecation policy and docs/compatibility.md name the same dates.
 */
export const OLDER_VERSIONS_SUNSET = 'Fri, 31 Dec 2027 23:59:59 GMT';

export type OlderVersion = 'v1' | 'v2';

/** How an older version's form of an action differs from the current one; nothing: it does not. */
export interface OlderForm {
  /** The older path when it is not the current one with the version swapped (`GET /v1/brands`). */
  rest?: string;
  /** Top-level params the older version names differently: current name -> older name. */
  renamed?: Record<string, string>;
  /** Params rules the older form declares differently (after renaming), e.g. one it did not require. */
  params?: Record<string, unknown>;
  /** The older answer, made from the current action's answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the current answer, each form reading the fields it knows
  answer?(this: Service, answer: any, ctx: Context<any, any>): unknown;
  /**
   * An answer the older form gives instead of an error (v1 validation answered its failures),
   * the error's fields already under their older names; undefined rethrows it.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any error, each form reading the fields it knows
  failure?(this: Service, error: any, ctx: Context<any, any>): unknown;
  /**
   * The older answer's schema for the API reference: required with `answer` or `failure`, which
   * make an answer the current action's `response` does not describe.
   */
  response?: JsonSchema;
}

/**
 * Per action name, the older versions it is served at and how each differs; `of` names the
 * current action when an older one had a name of its own (v1 `brands` is today's `manufacturers`).
 */
export type OlderPaths = Record<string, { of?: string } & Partial<Record<OlderVersion, OlderForm>>>;

type Rules = Record<string, unknown>;

function renamedKeys<T>(record: Record<string, T>, renamed: Record<string, string>): Record<string, T> {
  const result: Record<string, T> = {};
  for (const [key, value] of Object.entries(record)) result[renamed[key] ?? key] = value;
  return result;
}

/** A field path (`productData.password`, `items[0].type`) under its older top-level name. */
function olderFieldPath(path: string, renamed: Record<string, string>): string {
  const top = /^[^.[]+/.exec(path)?.[0];
  return top && renamed[top] ? renamed[top] + path.slice(top.length) : path;
}

/** The error an older form throws: the fields it names under their older names. */
function withOlderFields(error: unknown, renamed: Record<string, string>): unknown {
  const data = (error as { data?: { details?: unknown } } | null | undefined)?.data;
  const details = data?.details;
  if (data && details && typeof details === 'object' && !Array.isArray(details)) {
    data.details = Object.fromEntries(
      Object.entries(details).map(([path, messages]) => [olderFieldPath(path, renamed), messages]),
    );
  }
  return error;
}

/** The actions `olderAction` made, which run their current action's handler. */
const olderForms = new WeakSet<object>();

/** Whether the action is an older path's form of a current action (whose handler it runs). */
export function isOlderForm(action: object): boolean {
  return olderForms.has(action);
}

/** The action as an older version serves it: same access, rules and handler, older names, deprecated. */
export function olderAction(action: ActionSchema, version: OlderVersion, form: OlderForm = {}): ActionSchema {
  if (typeof action.rest !== 'string' || !action.rest.includes('/v3/'))
    throw new Error(`an older form needs a v3 rest route, not ${JSON.stringify(action.rest)}`);
  if ((form.answer || form.failure) && !form.response)
    throw new Error(`the ${version} form of ${action.rest} changes the answer: declare its response`);
  const renamed = form.renamed ?? {};
  const current = Object.fromEntries(Object.entries(renamed).map(([now, older]) => [older, now]));
  const cache = action.cache;
  const older: ActionSchema = {
    ...action,
    rest: form.rest ?? action.rest.replace('/v3/', `/${version}/`),
    deprecated: true,
    response: form.response ?? action.response,
    params: action.params && ({ ...renamedKeys(action.params as Rules, renamed), ...form.params } as ActionParams),
    cache:
      cache && typeof cache === 'object' && cache.keys
        ? { ...cache, keys: cache.keys.map((key) => renamed[key] ?? key) }
        : cache,
    async handler(this: Service, ctx: Context<Record<string, unknown>>) {
      ctx.params = renamedKeys(ctx.params, current);
      let answer: unknown;
      try {
        // The current handler as it is when called: the middleware that gives writes their
        // Idempotency-Key wraps it as the service is created, after this form was made.
        answer = await action.handler!.call(this, ctx);
      } catch (err) {
        const error = withOlderFields(err, renamed);
        const instead = form.failure?.call(this, error, ctx);
        if (instead !== undefined) return instead;
        throw error;
      }
      return form.answer ? form.answer.call(this, answer, ctx) : answer;
    },
  };
  olderForms.add(older);
  return older;
}

/**
 * Declares the older paths of a service's actions (named in `paths`) as actions of their own,
 * `<name>V1` / `<name>V2`, once the service's schema is whole.
 */
export function OlderPathsMixin(paths: OlderPaths): Partial<ServiceSchema> {
  return {
    merged(schema: ServiceSchema) {
      const actions = schema.actions ?? {};
      for (const [name, { of, ...versions }] of Object.entries(paths)) {
        const action = actions[of ?? name];
        if (!action || typeof action !== 'object')
          throw new Error(`${schema.name}.${of ?? name}: no action to serve at an older path`);
        for (const [version, form] of Object.entries(versions) as Array<[OlderVersion, OlderForm]>) {
          actions[`${name}${version.toUpperCase()}`] = olderAction(action as ActionSchema, version, form);
        }
      }
      schema.actions = actions;
    },
  };
}
