/**
 * search-cases and unexported-cases filters translated to SQL over `booking.cases as c`. Column
 * names come only from the list below, productData/orderData keys only of `[A-Za-z0-9_]`, and
 * every value is a binding; a filter that cannot be read is a 400 naming it, never a silently
 * wider search.
 *
 * Forms: `{ field: value }` (equality; a list means any of them), `{ field: { $lt, $gt } }`,
 * `productData.<key>` / `orderData.<key>` (compared as text), `commonSearch` (case-insensitive
 * substring of the guid, orderData, productData and contacts) and `tags` (names, all must match).
 */
import { FIELD_MESSAGES, type FieldDetails, FieldsValidationError, INTEGER_COLUMN_MAX, parseInstant } from '@hub/shared';

export interface SqlFragment {
  sql: string;
  bindings: Array<string | number>;
}

type Kind = 'id' | 'uuid' | 'text' | 'timestamp';

const FIELDS: Record<string, { column: string; kind: Kind }> = {
  id: { column: 'c.id', kind: 'id' },
  guid: { column: 'c.guid', kind: 'uuid' },
  partnerId: { column: 'c.partner_id', kind: 'id' },
  serviceProviderId: { column: 'c.service_provider_id', kind: 'id' },
  manufacturerId: { column: 'c.manufacturer_id', kind: 'id' },
  serviceTypeId: { column: 'c.service_type_id', kind: 'id' },
  serviceLocationId: { column: 'c.service_location_id', kind: 'id' },
  productTypeId: { column: 'c.product_type_id', kind: 'id' },
  currentStatus: { column: 'c.current_status', kind: 'text' },
  createdAt: { column: 'c.created_at', kind: 'timestamp' },
};
const JSON_COLUMNS: Record<string, string> = { productData: 'c.product_data', orderData: 'c.order_data' };

export const FILTER_LIMITS = { anyOf: 100, textLength: 255, tags: 20 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_KEY = /^[A-Za-z0-9_]{1,64}$/;

/**
 * How `currentStatus` reads for the caller (see the shared status view): the provider keys a key it names
 * stands for, and for a partner with hidden statuses the status it sees as current instead of
 * the stored one.
 */
export interface StatusReading {
  keysOf(key: string): string[];
  current?: SqlFragment;
}
const PROVIDER_READING: StatusReading = { keysOf: (key) => [key] };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bindingOf(kind: Kind, value: unknown): string | number | undefined {
  switch (kind) {
    case 'id':
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= INTEGER_COLUMN_MAX ? value : undefined;
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
    case 'text':
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return typeof value === 'string' && value.length <= FILTER_LIMITS.textLength ? value : undefined;
    case 'timestamp':
      return typeof value === 'string' ? parseInstant(value)?.toISOString() : undefined;
  }
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** The filters as one SQL condition; throws the 400 envelope naming every filter it cannot read. */
export function translateCaseFilters(filters: unknown, statusReading: StatusReading = PROVIDER_READING): SqlFragment {
  if (filters === undefined || filters === null) return { sql: 'true', bindings: [] };
  if (!isPlainObject(filters)) throw new FieldsValidationError({ filters: [FIELD_MESSAGES.wrongFormat] });
  const errors: FieldDetails = {};
  const fragments: SqlFragment[] = [];
  const fail = (at: string, message: string = FIELD_MESSAGES.wrongFormat) => {
    (errors[at] ??= []).push(message);
  };

  const compare = (columnName: string, kind: Kind, value: unknown, at: string, status: boolean) => {
    const values = (raw: unknown): Array<string | number> | undefined => {
      const bound = bindingOf(kind, raw);
      if (bound === undefined) return undefined;
      return status ? statusReading.keysOf(String(bound)) : [bound];
    };
    const read = status && statusReading.current ? statusReading.current : { sql: columnName, bindings: [] };
    const column = read.sql;
    const anyOf = (bound: Array<string | number>): SqlFragment =>
      bound.length ? { sql: `${column} in (${bound.map(() => '?').join(', ')})`, bindings: [...read.bindings, ...bound] } : { sql: 'false', bindings: [] };
    if (value === null) {
      fragments.push({ sql: `${column} is null`, bindings: [...read.bindings] });
      return;
    }
    if (Array.isArray(value)) {
      if (value.length > FILTER_LIMITS.anyOf) return fail(at);
      const bound = value.map(values);
      if (bound.some((entry) => entry === undefined)) return fail(at);
      fragments.push(anyOf(bound.flat() as Array<string | number>));
      return;
    }
    if (isPlainObject(value)) {
      if (Object.keys(value).length === 0) return fail(at);
      for (const [operator, operand] of Object.entries(value)) {
        if (operator !== '$lt' && operator !== '$gt') {
          fail(`${at}.${operator}`, FIELD_MESSAGES.notAccepted);
          continue;
        }
        const bound = status || kind === 'uuid' ? undefined : bindingOf(kind, operand);
        if (bound === undefined) {
          fail(`${at}.${operator}`, status || kind === 'uuid' ? FIELD_MESSAGES.notAccepted : FIELD_MESSAGES.wrongFormat);
          continue;
        }
        fragments.push({ sql: `${column} ${operator === '$lt' ? '<' : '>'} ?`, bindings: [bound] });
      }
      return;
    }
    const bound = values(value);
    if (bound === undefined) return fail(at);
    fragments.push(anyOf(bound));
  };

  for (const [field, value] of Object.entries(filters)) {
    const at = `filters.${field}`;
    if (field === 'commonSearch') {
      if (typeof value !== 'string' || value.trim().length === 0 || value.length > FILTER_LIMITS.textLength) {
        fail(at);
        continue;
      }
      const pattern = `%${escapeLike(value.trim())}%`;
      fragments.push({
        sql:
          "c.guid::text ilike ? escape '\\' or c.order_data::text ilike ? escape '\\' or c.product_data::text ilike ? escape '\\'" +
          " or exists (select 1 from booking.case_contacts cc where cc.case_id = c.id and cc.data::text ilike ? escape '\\')",
        bindings: [pattern, pattern, pattern, pattern],
      });
      continue;
    }
    if (field === 'tags') {
      const names = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(names) || names.length > FILTER_LIMITS.tags || names.some((name) => typeof name !== 'string' || name.length === 0 || name.length > 255)) {
        fail(at);
        continue;
      }
      for (const name of names as string[]) {
        fragments.push({
          sql: 'exists (select 1 from booking.case_tags ct join booking.tags t on t.id = ct.tag_id where ct.case_id = c.id and lower(t.name) = lower(?))',
          bindings: [name],
        });
      }
      continue;
    }
    const dot = field.indexOf('.');
    if (dot > 0 && Object.hasOwn(JSON_COLUMNS, field.slice(0, dot))) {
      const key = field.slice(dot + 1);
      if (!JSON_KEY.test(key)) {
        fail(at, FIELD_MESSAGES.notAccepted);
        continue;
      }
      compare(`(${JSON_COLUMNS[field.slice(0, dot)]} ->> '${key}')`, 'text', value, at, false);
      continue;
    }
    // Own keys only: `constructor` or `__proto__` must not find something on the prototype.
    const spec = Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
    if (!spec) {
      fail(at, FIELD_MESSAGES.notAccepted);
      continue;
    }
    compare(spec.column, spec.kind, value, at, field === 'currentStatus');
  }
  if (Object.keys(errors).length) throw new FieldsValidationError(errors);
  if (fragments.length === 0) return { sql: 'true', bindings: [] };
  return { sql: fragments.map((fragment) => `(${fragment.sql})`).join(' and '), bindings: fragments.flatMap((fragment) => fragment.bindings) };
}
