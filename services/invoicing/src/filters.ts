/**
 * invoices/find filters translated to SQL. Every column name in the output comes from the
 * whitelist below and every value travels as a binding, so nothing a caller sends ever becomes
 * SQL text. A filter that cannot be read is a 400 naming it, never a silently wider search.
 *
 * Forms: `{ field: value }` (equality; null means "is null"), `{ field: { $op: value, ... } }`
 * with $eq, $ne, $gt, $gte, $lt, $lte, $in; `customData: { key: scalar, ... }` (equality per
 * key); `details: { name: 'Screen', ... }` or an array of such (an invoice with such lines).
 */
import {
  allOf,
  type Caller,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
  isCalendarDay,
  isPlainObject,
  parseInstant,
  type SqlFragment,
  UUID_PATTERN,
} from '@hub/shared';
import { isKept } from './custom-values.store';

type Kind = 'uuid' | 'text' | 'number' | 'boolean' | 'date' | 'timestamp';

/** The spec's searchable fields (4.8) and the column each reads, of the invoices' alias. */
const FIELDS: Record<string, { column: string; kind: Kind }> = {
  guid: { column: 'guid', kind: 'uuid' },
  externalId: { column: 'external_id', kind: 'text' },
  type: { column: 'type', kind: 'text' },
  priceNet: { column: 'price_net', kind: 'number' },
  currency: { column: 'currency', kind: 'text' },
  dueDate: { column: 'due_date', kind: 'date' },
  isSent: { column: 'is_sent', kind: 'boolean' },
  isPaid: { column: 'is_paid', kind: 'boolean' },
  status: { column: 'status', kind: 'text' },
  createdAt: { column: 'created_at', kind: 'timestamp' },
  updatedAt: { column: 'updated_at', kind: 'timestamp' },
};
export const SEARCHABLE_FIELDS = [...Object.keys(FIELDS), 'customData', 'details'];

const COMPARISONS = { $eq: '=', $ne: 'is distinct from', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
type Operator = keyof typeof COMPARISONS | '$in';
export const OPERATORS: Operator[] = [...(Object.keys(COMPARISONS) as Operator[]), '$in'];

/** Ordering makes no sense for these; equality and $in do. */
const UNORDERED: Kind[] = ['uuid', 'boolean'];

const DETAIL_FIELDS = [
  'name',
  'count',
  'article',
  'vatRate',
  'vatAmount',
  'priceExclVat',
  'priceInclVat',
  'totalAmountExclVat',
  'totalAmountInclVat',
];

/** Bounds that keep one request's SQL small. */
export const FILTER_LIMITS = { inValues: 1000, textLength: 1000, customDataKeys: 50, detailLines: 20 };

type Scalar = string | number | boolean;

/** A timestamp bound as ISO text in UTC (a value without a zone is taken as UTC); undefined for any other value. */
function instantOf(value: unknown): string | undefined {
  return typeof value === 'string' ? parseInstant(value)?.toISOString() : undefined;
}

/** The value as it will be bound, or undefined when it is not of the field's kind. */
function bindingOf(kind: Kind, value: unknown): Scalar | undefined {
  switch (kind) {
    case 'uuid':
      return typeof value === 'string' && UUID_PATTERN.test(value) ? value.toLowerCase() : undefined;
    case 'text':
      return typeof value === 'string' && value.length <= FILTER_LIMITS.textLength ? value : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'date':
      // A day, or a Date as invoices answer it: its day counts, as a saved dueDate's does.
      if (typeof value !== 'string' || !isCalendarDay(value.slice(0, 10))) return undefined;
      return value.length === 10 || parseInstant(value) ? value.slice(0, 10) : undefined;
    case 'timestamp':
      return instantOf(value);
  }
}

function comparison(
  column: string,
  kind: Kind,
  operator: Operator,
  value: unknown,
  at: string,
  errors: FieldDetails,
): SqlFragment | undefined {
  const fail = (message: string = FIELD_MESSAGES.wrongFormat) => {
    (errors[at] ??= []).push(message);
    return undefined;
  };
  if (operator === '$in') {
    if (!Array.isArray(value) || value.length > FILTER_LIMITS.inValues) return fail();
    if (value.length === 0) return { sql: 'false', bindings: [] };
    const bindings = value.map((item) => bindingOf(kind, item));
    if (bindings.some((binding) => binding === undefined)) return fail();
    return { sql: `${column} in (${bindings.map(() => '?').join(', ')})`, bindings: bindings as Scalar[] };
  }
  if (value === null) {
    if (operator === '$eq') return { sql: `${column} is null`, bindings: [] };
    if (operator === '$ne') return { sql: `${column} is not null`, bindings: [] };
    return fail();
  }
  if (UNORDERED.includes(kind) && operator !== '$eq' && operator !== '$ne') return fail(FIELD_MESSAGES.notAccepted);
  const binding = bindingOf(kind, value);
  if (binding === undefined) return fail();
  return { sql: `${column} ${COMPARISONS[operator]} ?`, bindings: [binding] };
}

function isScalarOrNull(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** customData equality per key, as one containment test so the GIN index answers it. */
function customDataFilter(column: string, value: unknown, errors: FieldDetails): SqlFragment | undefined {
  if (!isPlainObject(value) || Object.keys(value).length > FILTER_LIMITS.customDataKeys) {
    errors['filters.customData'] = [FIELD_MESSAGES.wrongFormat];
    return undefined;
  }
  let valid = true;
  for (const [key, item] of Object.entries(value)) {
    if (key.length === 0 || key.length > 255 || !isScalarOrNull(item)) {
      errors[`filters.customData.${key}`] = [FIELD_MESSAGES.wrongFormat];
      valid = false;
    }
  }
  if (!valid) return undefined;
  if (Object.keys(value).length === 0) return { sql: 'true', bindings: [] };
  return { sql: `${column} @> ?::jsonb`, bindings: [JSON.stringify(value)] };
}

/** Invoices that have, for each object given, a detail line with those values. */
function detailsFilter(column: string, value: unknown, errors: FieldDetails): SqlFragment | undefined {
  const lines = Array.isArray(value) ? value : [value];
  let valid = lines.length > 0 && lines.length <= FILTER_LIMITS.detailLines;
  lines.forEach((line, index) => {
    const at = Array.isArray(value) ? `filters.details[${index}]` : 'filters.details';
    if (!isPlainObject(line) || Object.keys(line).length === 0) {
      errors[at] = [FIELD_MESSAGES.wrongFormat];
      valid = false;
      return;
    }
    for (const [key, item] of Object.entries(line)) {
      if (!DETAIL_FIELDS.includes(key)) errors[`${at}.${key}`] = [FIELD_MESSAGES.notAccepted];
      else if (!isScalarOrNull(item)) errors[`${at}.${key}`] = [FIELD_MESSAGES.wrongFormat];
      else continue;
      valid = false;
    }
  });
  if (!valid) {
    errors['filters.details'] ??= [FIELD_MESSAGES.wrongFormat];
    return undefined;
  }
  return { sql: `${column} @> ?::jsonb`, bindings: [JSON.stringify(lines)] };
}

/**
 * The filters of one find request as one SQL condition on the invoices as `alias`; throws the 400
 * envelope naming every bad filter.
 */
export function translateFilters(filters: unknown, alias = 'i'): SqlFragment {
  if (filters === undefined || filters === null) return allOf([]);
  if (!isPlainObject(filters)) throw new FieldsValidationError({ filters: [FIELD_MESSAGES.wrongFormat] });
  const errors: FieldDetails = {};
  const fragments: SqlFragment[] = [];
  const add = (fragment: SqlFragment | undefined) => fragment && fragments.push(fragment);

  for (const [field, value] of Object.entries(filters)) {
    const at = `filters.${field}`;
    if (field === 'customData') {
      add(customDataFilter(`${alias}.custom_data`, value, errors));
      continue;
    }
    if (field === 'details') {
      add(detailsFilter(`${alias}.details`, value, errors));
      continue;
    }
    // Own keys only: `constructor` or `__proto__` must not find something on the prototype.
    const spec = Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
    if (!spec) {
      errors[at] = [FIELD_MESSAGES.notAccepted];
      continue;
    }
    if (!isPlainObject(value)) {
      add(comparison(`${alias}.${spec.column}`, spec.kind, '$eq', value, at, errors));
      continue;
    }
    if (Object.keys(value).length === 0) errors[at] = [FIELD_MESSAGES.wrongFormat];
    for (const [operator, operand] of Object.entries(value)) {
      if (!(OPERATORS as string[]).includes(operator)) {
        errors[`${at}.${operator}`] = [FIELD_MESSAGES.notAccepted];
        continue;
      }
      add(comparison(`${alias}.${spec.column}`, spec.kind, operator as Operator, operand, `${at}.${operator}`, errors));
    }
  }
  if (Object.keys(errors).length) throw new FieldsValidationError(errors);
  return allOf(fragments);
}

/**
 * What a caller may find, as SQL on rows with the invoice's scope as `alias`: a partner its own
 * cases' invoices, a provider those of its cases.
 */
export function callerScope(caller: Caller, alias = 'i'): SqlFragment {
  if (caller.role === 'partner' && caller.partnerId !== null)
    return { sql: `${alias}.partner_id = ?`, bindings: [caller.partnerId] };
  if (caller.role === 'provider' && caller.providerId !== null)
    return { sql: `${alias}.provider_id = ?`, bindings: [caller.providerId] };
  return { sql: 'false', bindings: [] };
}

/**
 * Matches whose count can sum day counts: of one customData key's value, read from the kept values
 * and their day counts, or of every invoice in a createdAt range, from the invoices and theirs.
 */
export interface DayCountedMatches {
  /** What is counted entry by entry: the kept values or the invoices. */
  entries: 'values' | 'invoices';
  /** The matches as a condition on the entries as `v`. */
  values: SqlFragment;
  /** The key's value, if any, in the caller's scope as a condition on the day counts as `d`. */
  days: SqlFragment;
  /**
   * When the createdAt filter is a range (or absent): its greatest lower and least upper bound as
   * ISO instants, either absent when unbounded. Undefined for any other createdAt form.
   */
  createdWithin?: { from?: string; to?: string };
}

const LOWER_BOUNDS = ['$gt', '$gte'];
const UPPER_BOUNDS = ['$lt', '$lte'];

/**
 * The bounds of a createdAt filter that is a range: only $gt, $gte, $lt and $lte, each with an
 * instant. Undefined for any other form ($eq, $ne or $in, a null bound), whose matches are counted
 * one by one.
 */
function rangeOf(createdAt: unknown): DayCountedMatches['createdWithin'] {
  if (createdAt === undefined) return {};
  if (!isPlainObject(createdAt)) return undefined;
  const range: { from?: string; to?: string } = {};
  for (const [operator, bound] of Object.entries(createdAt)) {
    const lower = LOWER_BOUNDS.includes(operator);
    if (!lower && !UPPER_BOUNDS.includes(operator)) return undefined;
    const at = instantOf(bound);
    if (at === undefined) return undefined;
    if (lower) range.from = range.from === undefined || at > range.from ? at : range.from;
    else range.to = range.to === undefined || at < range.to ? at : range.to;
  }
  return range;
}

/**
 * The matches of `callerScope` and `translateFilters` together, read from the kept customData
 * values (custom-values.store.ts): when the filters are one customData key whose value is kept,
 * and createdAt, the invoices that match are exactly those with a kept value that does, since the
 * containment test of a scalar is equality with the key's value (jsonb equality: `1` is `1.0`,
 * never `"1"`). Undefined for any other form, which reads the invoices. Only for filters
 * `translateFilters` accepted.
 */
export function keptValueMatches(caller: Caller, filters: unknown): DayCountedMatches | undefined {
  const scope = callerScope(caller, 'v');
  if (scope.sql === 'false' || !isPlainObject(filters)) return undefined;
  const { customData, createdAt, ...others } = filters;
  if (Object.keys(others).length > 0 || !isPlainObject(customData)) return undefined;
  const pairs = Object.entries(customData);
  if (pairs.length !== 1 || !isKept(...pairs[0])) return undefined;
  const [key, value] = pairs[0];
  const keyValue = (alias: string) => ({
    sql: `${alias}.key = ? and ${alias}.value = ?::jsonb`,
    bindings: [key, JSON.stringify(value)],
  });
  return {
    entries: 'values',
    values: allOf([scope, keyValue('v'), translateFilters(createdAt === undefined ? {} : { createdAt }, 'v')]),
    days: allOf([callerScope(caller, 'd'), keyValue('d')]),
    createdWithin: rangeOf(createdAt),
  };
}

/**
 * The matches of `callerScope` and `translateFilters` together when the filters are none but a
 * createdAt range: every invoice of the caller's in it, counted from the invoices' day counts.
 * Undefined for any other form. Only for filters `translateFilters` accepted.
 */
export function invoiceDayMatches(caller: Caller, filters: unknown): DayCountedMatches | undefined {
  const scope = callerScope(caller, 'v');
  if (scope.sql === 'false') return undefined;
  if (filters !== undefined && filters !== null && !isPlainObject(filters)) return undefined;
  const { createdAt, ...others } = filters ?? {};
  if (Object.keys(others).length > 0) return undefined;
  const createdWithin = rangeOf(createdAt);
  if (createdWithin === undefined) return undefined;
  return {
    entries: 'invoices',
    values: allOf([scope, translateFilters(createdAt === undefined ? {} : { createdAt }, 'v')]),
    days: callerScope(caller, 'd'),
    createdWithin,
  };
}
