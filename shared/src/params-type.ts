/**
 * The TypeScript type of the params a fastest-validator schema accepts, so an action's handler
 * takes its params type from the schema it declares instead of a hand-written copy that can drift.
 * Declare the schema `as const` so its strings stay literal:
 *
 *     const FEEDBACK_PARAMS = { id: 'number|integer|positive', comment: { type: 'string', optional: true } } as const;
 *     type FeedbackParams = ParamsOf<typeof FEEDBACK_PARAMS>;   // { id: number; comment?: string }
 *
 * What validation guarantees is what the type says: a rule with a `default` is present after
 * validation, `optional` makes a key optional, `nullable` adds null, `convert` is not modelled (a
 * converted value has the rule's type). A rule the mapping does not know is `unknown`, never `any`.
 */

type TypeNameOf<Shorthand extends string> = Shorthand extends `${infer Name}|${string}` ? Name : Shorthand;

/** The value of a rule named by its type ('number', 'string', ...). */
type ValueOfTypeName<Name> = Name extends 'number'
  ? number
  : Name extends 'string' | 'email' | 'uuid' | 'url' | 'currency'
    ? string
    : Name extends 'boolean'
      ? boolean
      : Name extends 'date'
        ? Date
        : Name extends 'array'
          ? unknown[]
          : Name extends 'object'
            ? Record<string, unknown>
            : unknown;

type ValueOfObjectRule<Rule> = Rule extends { type: 'enum'; values: ReadonlyArray<infer Value> }
  ? Value
  : Rule extends { type: 'equal'; value: infer Value }
    ? Value
    : Rule extends { type: 'array'; items: infer Items }
      ? Array<ValueOfRule<Items>>
      : Rule extends { type: 'object'; props: infer Props }
        ? ParamsOf<Props>
        : Rule extends { type: 'multi'; rules: ReadonlyArray<infer Each> }
          ? ValueOfRule<Each>
          : Rule extends { type: infer Name }
            ? ValueOfTypeName<Name>
            : unknown;

/** The value a rule accepts: a shorthand string, a rule object, or a list of rules (any of them). */
export type ValueOfRule<Rule> = Rule extends string
  ? ValueOfTypeName<TypeNameOf<Rule>>
  : Rule extends ReadonlyArray<infer Each>
    ? ValueOfRule<Each>
    : Rule extends { nullable: true }
      ? ValueOfObjectRule<Rule> | null
      : ValueOfObjectRule<Rule>;

/** Whether a key may be missing after validation: optional and without a default. */
type IsOptional<Rule> = Rule extends string
  ? Rule extends `${string}|optional${string}`
    ? true
    : false
  : Rule extends { default: unknown }
    ? false
    : Rule extends { optional: true }
      ? true
      : false;

type OptionalKeys<Schema> = { [Key in keyof Schema]: IsOptional<Schema[Key]> extends true ? Key : never }[keyof Schema];

type Flatten<T> = { [Key in keyof T]: T[Key] } & {};

/** The params a schema accepts ($$-keys such as `$$strict` are settings, not params). */
export type ParamsOf<Schema> = Flatten<
  {
    -readonly [Key in Exclude<keyof Schema, OptionalKeys<Schema> | `$$${string}`>]: ValueOfRule<Schema[Key]>;
  } & {
    -readonly [Key in Exclude<OptionalKeys<Schema>, `$$${string}`>]?: ValueOfRule<Schema[Key]>;
  }
>;
