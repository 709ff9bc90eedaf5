/**
 * search-cases and unexported-cases filters translated to SQL over `booking.cases as c`. Column
 * names come only from the list below, productData/orderData keys only of `[A-Za-z0-9_]`, and
 * every value is a binding; a filter that cannot be read is a 400 naming it, never a silently
 * wider search.
 *
 * Forms: `{ field: value }` (equality; a list means any of them), `{ field: { $lt, $gt } }`,
 * `productData.<key>` / `orderData.<key>` at any depth (compared as text), written dotted
 * (`"orderData.partnerSpecific.acme.ref"`) or nested as the product documents it
 * (`{ orderData: { partnerSpecific: { acme: { ref } } } }`), `commonSearch` (a case-insensitive
 * substring of a value the product lists: see commonSearchSql) and `tags` (names, all must match).
 */
import {
  allOf,
  escapeLike,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
  INTEGER_COLUMN_MAX,
  isPlainObject,
  parseInstant,
  PROVIDER_ORDER_DATA_KEY,
  type SqlFragment,
  UUID_PATTERN,
} from '@hub/shared';

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
/** Every filter's name at its top level (productData and orderData also dotted to any key). */
export const SEARCHABLE_FIELDS = [...Object.keys(FIELDS), ...Object.keys(JSON_COLUMNS), 'commonSearch', 'tags'];
/** The comparisons a field's object may hold; a list is any of its values. */
export const OPERATORS = ['$lt', '$gt'] as const;

export const FILTER_LIMITS = { anyOf: 100, textLength: 255, tags: 20 };

const JSON_KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** How deep a productData/orderData filter may reach. */
const JSON_PATH_DEPTH = 8;

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

/** An object of `$` operators (`{ $lt, $gt }`) is a comparison, not a level of nesting. */
const isOperatorObject = (value: Record<string, unknown>) => Object.keys(value).some((key) => key.startsWith('$'));

/**
 * The filters with nested productData/orderData objects written as dotted keys, so
 * `{ orderData: { partnerSpecific: { acme: { ref: 1 } } } }` reads as
 * `{ "orderData.partnerSpecific.acme.ref": 1 }`; every other entry stays as sent.
 */
function dottedFilters(filters: Record<string, unknown>): Array<[string, unknown]> {
  const entries: Array<[string, unknown]> = [];
  const walk = (path: string, value: unknown) => {
    if (isPlainObject(value) && Object.keys(value).length > 0 && !isOperatorObject(value)) {
      for (const [key, nested] of Object.entries(value)) walk(`${path}.${key}`, nested);
    } else entries.push([path, value]);
  };
  for (const [field, value] of Object.entries(filters)) {
    if (Object.hasOwn(JSON_COLUMNS, field.split('.')[0]) && isPlainObject(value)) walk(field, value);
    else entries.push([field, value]);
  }
  return entries;
}

/** `c.order_data -> 'a' ->> 'b'` for the path `a.b`, or null when a key cannot be one. */
function jsonPathSql(column: string, path: string): string | null {
  const keys = path.split('.');
  if (keys.length > JSON_PATH_DEPTH || !keys.every((key) => JSON_KEY.test(key))) return null;
  const last = keys.pop()!;
  return `(${[column, ...keys.map((key) => `'${key}'`)].join(' -> ')} ->> '${last}')`;
}

function bindingOf(kind: Kind, value: unknown): string | number | undefined {
  switch (kind) {
    case 'id':
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= INTEGER_COLUMN_MAX
        ? value
        : undefined;
    case 'uuid':
      return typeof value === 'string' && UUID_PATTERN.test(value) ? value.toLowerCase() : undefined;
    case 'text':
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return typeof value === 'string' && value.length <= FILTER_LIMITS.textLength ? value : undefined;
    case 'timestamp':
      return typeof value === 'string' ? parseInstant(value)?.toISOString() : undefined;
  }
}

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * For an equality on a JSON key's text with these texts (see scalarTexts), the containment tests
 * one of which every matching case passes, so the column's GIN index finds the candidates (`->>`
 * has no index). The text equality stays beside it and decides; without the hint the scope's
 * every case would be read. The text of an object or array can equal a value sent too, but no
 * containment test finds those, so such a value gets no hint.
 */
function containmentHint(column: string, path: string[], texts: string[]): SqlFragment {
  // `{"a": {"b": <value>}}` for the path a.b; keys are `[A-Za-z0-9_]` only (see jsonPathSql).
  const at = (json: string) => path.reduceRight((inner, key) => `{"${key}": ${inner}}`, json);
  const documents = texts.flatMap((text) => {
    const forms = [at(JSON.stringify(text))];
    if (JSON_NUMBER.test(text) || text === 'true' || text === 'false') forms.push(at(text));
    return forms;
  });
  return {
    sql: documents.map(() => `${column} @> ?::jsonb`).join(' or '),
    bindings: documents,
  };
}

/** A partner's or provider's cases, by the column that holds the caller's id in the tables that keep a case's scope. */
export interface CallerScope {
  column: 'partner_id' | 'service_provider_id';
  id: number;
}

/**
 * How a `tags` filter reads (see tagReadingOf in case-search.ts): for each name sent, the ids of
 * the tags so named; the caller's scope as booking.case_tags keeps it (none for an admin); and
 * the name, if any, whose entries in that scope are few enough to look their cases up by id.
 */
export interface TagReading {
  idsOf: ReadonlyMap<string, number[]>;
  scope?: CallerScope;
  probed?: string;
}

/**
 * The cases carrying a tag of this name, by the tag's ids (with the name the planner hashed
 * every row of `case_tags`), among the entries of the caller's scope (the index on the tag and
 * the scope reads only those). The probed name's entries are an array, computed once, whose
 * cases are looked up by id: left the choice, the planner hashes them against every index entry
 * of the scope's cases instead, which reads far more than the probes do.
 */
function taggedWith(name: string, reading: TagReading): SqlFragment {
  const entries = tagEntries(name, reading);
  if (!entries) return { sql: 'false', bindings: [] };
  return {
    sql: name === reading.probed ? `c.id = any(array(${entries.sql}))` : `c.id in (${entries.sql})`,
    bindings: entries.bindings,
  };
}

/** The case ids (`columns`) of a name's tags' entries in the caller's scope; none when no tag has the name. */
function tagEntries(name: string, { idsOf, scope }: TagReading, columns = 'ct.case_id'): SqlFragment | undefined {
  const ids = idsOf.get(name) ?? [];
  if (ids.length === 0) return undefined;
  return {
    sql:
      `select ${columns} from booking.case_tags ct where ct.tag_id in (${ids.map(() => '?').join(', ')})` +
      (scope ? ` and ct.${scope.column} = ?` : ''),
    bindings: scope ? [...ids, scope.id] : ids,
  };
}

/**
 * The ids, as column `id`, of the cases carrying a tag of every name, read from the tags'
 * entries alone: each entry keeps its case's scope, so they are the scope's matches without a
 * look at the cases. A case carrying two tags of one name ("VIP" and "vip") is one match.
 */
function taggedIdsOf(names: string[], reading: TagReading): SqlFragment {
  const perName = names.map((name, index) =>
    tagEntries(name, reading, index === 0 ? 'distinct ct.case_id as id' : 'ct.case_id'),
  );
  if (perName.some((entries) => entries === undefined))
    return { sql: 'select null::bigint as id where false', bindings: [] };
  const selects = perName as SqlFragment[];
  return {
    sql: selects.map((entries) => entries.sql).join(' intersect '),
    bindings: selects.flatMap((entries) => entries.bindings),
  };
}

/**
 * For each text a commonSearch reads through a trigram index of its own, the pieces of the
 * search text by which the index is searched (see search-pieces.ts); the whole text where none.
 */
export type SearchPieces = Partial<Record<'contacts' | 'orderData' | 'productData', string[]>>;

/** The manufacturers, product types and service types whose names hold a commonSearch text. */
export interface NamedMatches {
  manufacturers: number[];
  productTypes: number[];
  serviceTypes: number[];
}

/** How a commonSearch text is found: the pieces each text's index is searched by, and the lookups it names. */
export interface CommonSearchReading {
  pieces?: SearchPieces;
  named?: NamedMatches;
}

/**
 * What commonSearch reads, as the product's Working with cases page lists it: the values of
 * orderData and productData but those keys, and these contact fields. The case's guid is read
 * too (see docs/compatibility.md).
 */
const UNSEARCHED_ORDER_DATA = ['files', 'consents', 'webhooks'];
const UNSEARCHED_PRODUCT_DATA = ['problemText', 'accessory', 'purchaseDate', 'otherAccessory', 'password'];
const SEARCHED_CONTACT_FIELDS = [
  'firstName',
  'lastName',
  'organizationName',
  'organizationNumber',
  'postalCode',
  'city',
  'phone',
  'mobile',
  'email',
];

/** A constant list of keys as an SQL array; the keys are this file's own. */
const keysSql = (keys: string[]) => `array[${keys.map((key) => `'${key}'`).join(', ')}]`;

/** Whether a value of the document at any depth (a string, a number or a boolean, as text) matches `?`. */
function valueMatches(document: string): string {
  return `exists (select from jsonb_path_query(${document}, 'strict $.**') v
    where jsonb_typeof(v) in ('string', 'number', 'boolean') and v #>> '{}' ilike ? escape '\\')`;
}

/**
 * The cases with a searched value that holds the text (see the lists above), as a set of ids
 * found through the trigram index of each whole text (one OR over the case's texts and its
 * contacts' would read every case in the caller's scope); a value holds the text only where its
 * document's text does, so the index finds every candidate (but for a text with a double quote, a
 * backslash or a control character, which the document's text escapes). Each text's candidates
 * are found and rechecked on their own: one scan over the three indexes rechecks every candidate
 * against all three texts, so an order number's candidates each had their productData converted
 * and matched too. A text searched by pieces finds candidates that are then checked for the whole
 * text: materialized, so the planner cannot hand the whole text to the index as well. For a
 * partner, the provider's private orderData key is not searched. Cases of a manufacturer, product
 * type or service type whose name holds the text match by the lookup's id.
 */
function commonSearchSql(text: string, forPartner: boolean, { pieces = {}, named }: CommonSearchReading): SqlFragment {
  const pattern = `%${escapeLike(text)}%`;
  const searched = (column: string, byPieces: string[] | undefined): SqlFragment =>
    byPieces?.length
      ? {
          sql: `(${byPieces.map(() => `${column} ilike ? escape '\\'`).join(' and ')})`,
          bindings: byPieces.map((piece) => `%${escapeLike(piece)}%`),
        }
      : { sql: `${column} ilike ? escape '\\'`, bindings: [pattern] };
  const unsearchedOrderData = forPartner ? [...UNSEARCHED_ORDER_DATA, PROVIDER_ORDER_DATA_KEY] : UNSEARCHED_ORDER_DATA;
  const valueOf = (column: string, unsearched: string[]): SqlFragment => ({
    sql: `(${column}::text ilike ? escape '\\' and ${valueMatches(`(${column} - ${keysSql(unsearched)})`)})`,
    bindings: [pattern, pattern],
  });
  const orderData = valueOf('s.order_data', unsearchedOrderData);
  const productData = valueOf('s.product_data', UNSEARCHED_PRODUCT_DATA);
  const wholeText = {
    sql: `s.guid::text ilike ? escape '\\' or ${orderData.sql} or ${productData.sql}`,
    bindings: [pattern, ...orderData.bindings, ...productData.bindings],
  };
  const caseTexts = [
    searched('s.guid::text', undefined),
    searched('s.order_data::text', pieces.orderData),
    searched('s.product_data::text', pieces.productData),
  ];
  const candidates: SqlFragment[] = [
    {
      sql: `found_cases as materialized (${caseTexts
        .map((part) => `select s.id, s.guid, s.order_data, s.product_data from booking.cases s where ${part.sql}`)
        .join(' union all ')})`,
      bindings: caseTexts.flatMap((part) => part.bindings),
    },
  ];
  let contacts = 'booking.case_contacts cc';
  if (pieces.contacts?.length) {
    const found = searched('cc.data::text', pieces.contacts);
    candidates.push({
      sql: `found_contacts as materialized (select cc.case_id, cc.data from booking.case_contacts cc where ${found.sql})`,
      bindings: found.bindings,
    });
    contacts = 'found_contacts cc';
  }
  const byText: SqlFragment = {
    sql:
      `c.id in (with ${candidates.map((part) => part.sql).join(', ')} select s.id from found_cases s where ${wholeText.sql}` +
      ` union all select cc.case_id from ${contacts} where cc.data::text ilike ? escape '\\'` +
      ` and exists (select from unnest(${keysSql(SEARCHED_CONTACT_FIELDS)}) field where cc.data ->> field ilike ? escape '\\'))`,
    bindings: [...candidates.flatMap((part) => part.bindings), ...wholeText.bindings, pattern, pattern],
  };
  const byName = [
    ['c.manufacturer_id', named?.manufacturers ?? []],
    ['c.product_type_id', named?.productTypes ?? []],
    ['c.service_type_id', named?.serviceTypes ?? []],
  ].filter(([, ids]) => ids.length > 0) as Array<[string, number[]]>;
  if (byName.length === 0) return byText;
  return {
    sql: `(${byText.sql} or ${byName.map(([column, ids]) => `${column} in (${ids.map(() => '?').join(', ')})`).join(' or ')})`,
    bindings: [...byText.bindings, ...byName.flatMap(([, ids]) => ids)],
  };
}

/**
 * The filters' condition; with `currentStatus` as the only filter, read from the stored column
 * (no hidden statuses), also the stored keys it matches, so a count can come from the kept counts.
 */
export interface CaseCondition extends SqlFragment {
  statuses?: string[];
  /** With `tags` as the only filter: the matching case ids (column `id`), from the tags' entries in the caller's scope. */
  taggedIds?: SqlFragment;
  /**
   * With an equality on one top-level orderData key as the only filter, and only texts a string,
   * number or boolean can have: the key and those texts, whose matches the kept orderData values
   * hold (order-values.ts).
   */
  orderValue?: { key: string; texts: string[] };
}

/**
 * The filters as one SQL condition; throws the 400 envelope naming every filter it cannot read.
 * `forPartner`: the provider's private orderData is neither a filter nor found by `commonSearch`,
 * so a partner cannot probe for what it may not read. `tags`: how the `tags` filter reads.
 * `commonSearchReading`: the pieces of the `commonSearch` text by which each text's index is
 * searched, and the lookups whose names hold it.
 */
export function translateCaseFilters(
  filters: unknown,
  statusReading: StatusReading = PROVIDER_READING,
  forPartner = false,
  tags: TagReading = { idsOf: new Map() },
  commonSearchReading: CommonSearchReading = {},
): CaseCondition {
  if (filters === undefined || filters === null) return { sql: 'true', bindings: [] };
  if (!isPlainObject(filters)) throw new FieldsValidationError({ filters: [FIELD_MESSAGES.wrongFormat] });
  const errors: FieldDetails = {};
  const fragments: SqlFragment[] = [];
  const fail = (at: string, message: string = FIELD_MESSAGES.wrongFormat) => {
    (errors[at] ??= []).push(message);
  };

  let statuses: string[] | undefined;
  let taggedIds: SqlFragment | undefined;
  let orderValue: CaseCondition['orderValue'];
  const compare = (columnName: string, kind: Kind, value: unknown, at: string, status: boolean) => {
    const values = (raw: unknown): Array<string | number> | undefined => {
      const bound = bindingOf(kind, raw);
      if (bound === undefined) return undefined;
      return status ? statusReading.keysOf(String(bound)) : [bound];
    };
    const read = status && statusReading.current ? statusReading.current : { sql: columnName, bindings: [] };
    const column = read.sql;
    const anyOf = (bound: Array<string | number>): SqlFragment =>
      bound.length
        ? { sql: `${column} in (${bound.map(() => '?').join(', ')})`, bindings: [...read.bindings, ...bound] }
        : { sql: 'false', bindings: [] };
    if (value === null) {
      fragments.push({ sql: `${column} is null`, bindings: [...read.bindings] });
      return;
    }
    // Stored status keys are also kept aside: a search by them alone can take its count from the kept counts.
    const pushAnyOf = (bound: Array<string | number>) => {
      if (status && !statusReading.current) statuses = bound.map(String);
      fragments.push(anyOf(bound));
    };
    if (Array.isArray(value)) {
      if (value.length > FILTER_LIMITS.anyOf) return fail(at);
      const bound = value.map(values);
      if (bound.some((entry) => entry === undefined)) return fail(at);
      pushAnyOf(bound.flat() as Array<string | number>);
      return;
    }
    if (isPlainObject(value)) {
      if (Object.keys(value).length === 0) return fail(at);
      for (const [operator, operand] of Object.entries(value)) {
        if (!(OPERATORS as readonly string[]).includes(operator)) {
          fail(`${at}.${operator}`, FIELD_MESSAGES.notAccepted);
          continue;
        }
        const bound = status || kind === 'uuid' ? undefined : bindingOf(kind, operand);
        if (bound === undefined) {
          fail(
            `${at}.${operator}`,
            status || kind === 'uuid' ? FIELD_MESSAGES.notAccepted : FIELD_MESSAGES.wrongFormat,
          );
          continue;
        }
        fragments.push({ sql: `${column} ${operator === '$lt' ? '<' : '>'} ?`, bindings: [bound] });
      }
      return;
    }
    const bound = values(value);
    if (bound === undefined) return fail(at);
    pushAnyOf(bound);
  };

  const entries = dottedFilters(filters);
  for (const [field, value] of entries) {
    const at = `filters.${field}`;
    if (field === 'commonSearch') {
      if (typeof value !== 'string' || value.trim().length === 0 || value.length > FILTER_LIMITS.textLength) {
        fail(at);
        continue;
      }
      fragments.push(commonSearchSql(value.trim(), forPartner, commonSearchReading));
      continue;
    }
    if (field === 'tags') {
      const names = typeof value === 'string' ? [value] : value;
      if (
        !Array.isArray(names) ||
        names.length > FILTER_LIMITS.tags ||
        names.some((name) => typeof name !== 'string' || name.length === 0 || name.length > 255)
      ) {
        fail(at);
        continue;
      }
      for (const name of names as string[]) fragments.push(taggedWith(name, tags));
      if (entries.length === 1 && names.length > 0) taggedIds = taggedIdsOf(names as string[], tags);
      continue;
    }
    const dot = field.indexOf('.');
    if (dot > 0 && Object.hasOwn(JSON_COLUMNS, field.slice(0, dot))) {
      if (forPartner && field.split('.').slice(0, 2).join('.') === `orderData.${PROVIDER_ORDER_DATA_KEY}`) {
        fail(at, FIELD_MESSAGES.notAccepted);
        continue;
      }
      const column = jsonPathSql(JSON_COLUMNS[field.slice(0, dot)], field.slice(dot + 1));
      if (!column) {
        fail(at, FIELD_MESSAGES.notAccepted);
        continue;
      }
      compare(column, 'text', value, at, false);
      const key = field.slice(dot + 1);
      const texts = scalarTexts(value);
      if (!texts) continue;
      fragments.push(containmentHint(JSON_COLUMNS[field.slice(0, dot)], key.split('.'), texts));
      if (entries.length === 1 && field.slice(0, dot) === 'orderData' && !key.includes('.'))
        orderValue = { key, texts };
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
  if (entries.length === 1 && statuses) return { ...allOf(fragments), statuses };
  if (orderValue) return { ...allOf(fragments), orderValue };
  return taggedIds ? { ...allOf(fragments), taggedIds } : allOf(fragments);
}

/**
 * The texts an equality filter's value (or list) compares a JSON key's text with, when only a
 * string, number or boolean can have them: an object's or array's text starts with `{` or `[`.
 * Undefined for anything else (null, operators, an empty list, a value the filter refuses).
 */
function scalarTexts(value: unknown): string[] | undefined {
  const values = Array.isArray(value) ? value : [value];
  const texts = values.map((item) => bindingOf('text', item));
  if (texts.length === 0 || texts.some((text) => typeof text !== 'string' || /^\s*[[{]/.test(text))) return undefined;
  return texts as string[];
}
