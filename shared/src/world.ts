/**
 * The world file: all reference data and configuration in one JSON document (format in
 * docs/world.md). It is checked as a whole, shape and cross-references, before any service
 * writes its part, so a bad file changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import FastestValidator from 'fastest-validator';
import { millisecondsOf } from './config';
import { CONTACT_FIELDS, type ContactDataIn } from './contact';
import { WEBHOOK_EVENT_TYPES } from './events';
import { isCalendarDay } from './dates';
import { unstorablePath } from './stored-text';
import { INTEGER_COLUMN_MAX } from './validator';
import {
  SIMULATION_DELAY_STEPS,
  SIMULATION_INVOICE_STATUS,
  SIMULATION_LONGEST_DELAY_MS,
  SIMULATION_STATUS_KEYS,
  type WorldSimulation,
} from './simulated-provider';

const validator = new FastestValidator({ haltOnFirstError: false });

/**
 * Who books (Originator) and between whom (BookingType), as the product documents them:
 * `registered` is an organizational unit within the partner, `companyToCompany` a company
 * booking for another company. Only `helpdesk` may choose pickup and return destinations, and
 * only `privateToPrivate` takes no consumer.
 */
export const ORIGINATOR_TYPES = ['private', 'registered', 'helpdesk'] as const;
export const BOOKING_TYPES = ['companyToCompany', 'companyToPrivate', 'privateToPrivate'] as const;
/**
 * The direction of a shipment (the documentation's `actionType`, "inbound" by default): `inbound`
 * carries the product to the workshop, `outbound` back from it.
 */
export const ACTION_TYPES = ['inbound', 'outbound'] as const;
export const DEFAULT_ACTION_TYPE = 'inbound';

export interface WorldPartner {
  id: number;
  name: string;
  contactData?: ContactDataIn;
  settings?: {
    emailsEnabled?: boolean;
    supportsPackaging?: boolean;
    partnerSpecificKey?: string;
    mandatoryConsents?: string[];
  };
}
export interface WorldDepartment {
  id: number;
  name: string;
  externalData?: unknown;
  contactData?: ContactDataIn;
  /** The shipping methods the department's cases may use; null or left out: any. */
  shippingMethods?: number[] | null;
}
export interface WorldProvider {
  id: number;
  name: string;
  contactData?: ContactDataIn;
  /** The shipping methods the provider's cases may use; null or left out: any. */
  shippingMethods?: number[] | null;
  departments?: WorldDepartment[];
  statusKeys?: Array<{
    key: string;
    name: string;
    /** What the status means, as case/notifications shows it. */
    description?: string | null;
    /** Whether the consumer can be told of this status by sms, by email. */
    smsAvailable?: boolean;
    emailAvailable?: boolean;
  }>;
  invoiceStatuses?: Array<{ key: string; name?: string; sendToClient: boolean }>;
  /** The sandbox works this provider's cases on its own (simulated-provider.ts); null ends that. */
  simulated?: WorldSimulation | null;
}
export interface WorldNamed {
  id: number;
  name: string;
  aliases?: string[];
  properties?: Record<string, unknown>;
  externalData?: unknown;
}
export interface WorldAccessory {
  id: number;
  name: string;
  productTypes: number[];
}
export interface WorldPickupArea {
  postalCodeFrom: string;
  postalCodeTo: string;
  weekdays?: number[];
  window?: string;
}
export interface WorldShippingMethod {
  id: number;
  name: string;
  properties: { requirePickupDate: boolean; goodsTypeList: string[] | null };
  requireWeight?: boolean;
  requireVolume?: boolean;
  /** The directions the method ships in; left out: every direction. */
  actionTypes?: Array<(typeof ACTION_TYPES)[number]>;
  calendar?: {
    timeZone: string;
    weekdays: number[];
    cutoffHour: number;
    leadDays: number;
    horizonDays: number;
    holidays?: string[];
    window?: string;
    areas?: WorldPickupArea[];
  };
}
export interface WorldCompetence {
  id: number;
  partnerId: number;
  providerId: number;
  departmentId?: number | null;
  originatorTypes?: string[];
  bookingTypes?: string[];
  serviceTypes?: number[];
  manufacturers?: number[];
  productTypes?: number[];
  serviceLocations?: number[];
  shippingMethods?: number[];
  postalCodes?: Array<{ from: string; to: string }>;
  models?: string[];
  priority?: number;
  primary?: boolean;
  sesam?: string | null;
  persDep?: string | null;
  overrideCode?: string | null;
  partnerCompetence?: { id: number; overrideCode?: string | null } & Record<string, unknown>;
}
export interface WorldAccount {
  id: number;
  name: string;
  role: 'partner' | 'provider' | 'admin';
  partnerId?: number | null;
  providerId?: number | null;
  /** A plain token (demo worlds) or its SHA-256 hex digest (`tokenSha256`) for real ones. */
  token?: string;
  tokenSha256?: string;
  canForceProvider?: boolean;
  /** A provider account that may act for any provider (`X-Service-Provider` header). */
  allowAllProviders?: boolean;
}
export interface WorldSubscription {
  id: number;
  accountId: number;
  eventTypes: string[];
  target:
    | {
        kind: 'http';
        url: string;
        method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
        headers?: Record<string, string>;
      }
    | { kind: 'amqp'; url: string; queue: string };
  secret?: string;
  statusTransitions?: Array<{ from?: string | null; to?: string | null }>;
}
export interface World {
  partners?: WorldPartner[];
  providers?: WorldProvider[];
  manufacturers?: WorldNamed[];
  serviceTypes?: WorldNamed[];
  productTypes?: WorldNamed[];
  serviceLocations?: WorldNamed[];
  accessories?: WorldAccessory[];
  shippingMethods?: WorldShippingMethod[];
  competences?: WorldCompetence[];
  accounts?: WorldAccount[];
  webhooks?: {
    subscriptions?: WorldSubscription[];
    statusMappings?: Array<{ partnerId: number; providerKey: string; partnerKey: string }>;
    blacklists?: Array<{ partnerId: number; key: string }>;
  };
  models?: WorldModel[];
  tags?: WorldTag[];
}

/** A case tag; `shippingMethods` are the methods a case carrying it may use (null or left out: any). */
export interface WorldTag {
  id: number;
  name: string;
  shippingMethods?: number[] | null;
}

/** A model as `POST /api/v3/models` takes it, without `id`: the registry matches it by name. */
export interface WorldModel {
  manufacturer: number | string;
  productType: number | string;
  name: string;
  mpn: string;
  aliases?: string[];
  tags?: Array<number | string>;
  countryOfOrigin?: string | null;
  taricSE?: string | null;
  taricNO?: string | null;
  value?: string | null;
  weight?: string | null;
}

/** A constant HTTP header value a webhook may carry: printable ASCII and tabs, never a line break. */
export const HEADER_VALUE = /^[\t\x20-\x7E]*$/;
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;

const id = { type: 'number', integer: true, positive: true, max: INTEGER_COLUMN_MAX };
const ids = { type: 'array', items: id, optional: true };
const text = (max: number, optional = false) => ({ type: 'string', min: 1, max, optional });
const nullableText = { type: 'string', max: 512, optional: true, nullable: true };
const contact = {
  type: 'object',
  optional: true,
  strict: true,
  props: {
    type: { type: 'enum', values: [0, 1], optional: true },
    ...Object.fromEntries(
      CONTACT_FIELDS.filter((field) => field !== 'countryCode').map((field) => [field, nullableText]),
    ),
    countryCode: { type: 'string', length: 2, optional: true, nullable: true },
  },
};
/** An optional list of entries with exactly these keys. */
const listOf = (props: Record<string, unknown>) => ({
  type: 'array',
  optional: true,
  items: { type: 'object', strict: true, props },
});
const named = (extra: Record<string, unknown> = {}) =>
  listOf({
    id,
    name: text(255),
    aliases: { type: 'array', items: text(255), optional: true },
    properties: { type: 'object', optional: true },
    externalData: { type: 'any', optional: true },
    ...extra,
  });
const postalCode = { type: 'string', min: 3, max: 10 };
/** The shipping methods a provider, department or tag allows: null (or left out) allows any. */
const allowedMethods = { ...ids, nullable: true };

/** The fields of one model entry; the models service checks its POST body with the same rules. */
export const MODEL_ENTRY_RULES = {
  manufacturer: {
    type: 'multi',
    rules: [
      { type: 'number', integer: true, positive: true },
      { type: 'string', min: 1, max: 255, trim: true },
    ],
  },
  productType: {
    type: 'multi',
    rules: [
      { type: 'number', integer: true, positive: true },
      { type: 'string', min: 1, max: 255, trim: true },
    ],
  },
  name: { type: 'string', min: 1, max: 255, trim: true },
  mpn: { type: 'string', min: 1, max: 255, trim: true },
  aliases: { type: 'array', optional: true, max: 100, items: { type: 'string', min: 1, max: 255, trim: true } },
  tags: {
    type: 'array',
    optional: true,
    max: 100,
    items: { type: 'multi', rules: [{ type: 'number' }, { type: 'string', max: 255 }] },
  },
  countryOfOrigin: { type: 'string', max: 255, optional: true, nullable: true },
  taricSE: { type: 'string', max: 64, optional: true, nullable: true },
  taricNO: { type: 'string', max: 64, optional: true, nullable: true },
  // `#.##`: EUR and kg with at most two decimals, sent as strings so no float rounding creeps in.
  value: { type: 'string', pattern: /^\d{1,10}(\.\d{1,2})?$/, optional: true, nullable: true },
  weight: { type: 'string', pattern: /^\d{1,10}(\.\d{1,2})?$/, optional: true, nullable: true },
} as const;
/** `HH:MM-HH:MM` of times that exist, the first before the second. */
const timeWindow = { type: 'string', pattern: /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/, optional: true };
const weekdays = { type: 'array', items: { type: 'number', integer: true, min: 1, max: 7 }, optional: true };

const worldSchema = {
  $$strict: true,
  partners: listOf({
    id,
    name: text(255),
    contactData: contact,
    settings: {
      type: 'object',
      optional: true,
      strict: true,
      props: {
        emailsEnabled: { type: 'boolean', optional: true },
        supportsPackaging: { type: 'boolean', optional: true },
        partnerSpecificKey: text(64, true),
        mandatoryConsents: {
          type: 'array',
          optional: true,
          max: 50,
          items: { type: 'string', min: 1, max: 255 },
        },
      },
    },
  }),
  providers: listOf({
    id,
    name: text(255),
    contactData: contact,
    shippingMethods: allowedMethods,
    departments: listOf({
      id,
      name: text(255),
      externalData: { type: 'any', optional: true },
      contactData: contact,
      shippingMethods: allowedMethods,
    }),
    statusKeys: listOf({
      key: { type: 'string', pattern: /^[a-z0-9_.-]{1,64}$/ },
      name: text(255),
      description: text(1000, true),
      smsAvailable: { type: 'boolean', optional: true },
      emailAvailable: { type: 'boolean', optional: true },
    }),
    invoiceStatuses: listOf({ key: text(255), name: text(255, true), sendToClient: 'boolean' }),
    simulated: {
      type: 'object',
      optional: true,
      nullable: true,
      strict: true,
      props: {
        accountId: id,
        delays: {
          type: 'object',
          optional: true,
          strict: true,
          props: Object.fromEntries(
            SIMULATION_DELAY_STEPS.map((step) => [step, { type: 'string', optional: true, max: 16 }]),
          ),
        },
      },
    },
  }),
  manufacturers: named(),
  serviceTypes: named(),
  productTypes: named(),
  serviceLocations: named(),
  accessories: listOf({ id, name: text(255), productTypes: { type: 'array', items: id } }),
  shippingMethods: named({
    properties: {
      type: 'object',
      strict: true,
      props: {
        requirePickupDate: 'boolean',
        goodsTypeList: { type: 'array', items: text(64), nullable: true },
      },
    },
    requireWeight: { type: 'boolean', optional: true },
    requireVolume: { type: 'boolean', optional: true },
    actionTypes: { type: 'array', optional: true, min: 1, items: { type: 'enum', values: ACTION_TYPES } },
    calendar: {
      type: 'object',
      optional: true,
      strict: true,
      props: {
        timeZone: text(64),
        weekdays: { ...weekdays, optional: false },
        cutoffHour: { type: 'number', integer: true, min: 0, max: 23 },
        leadDays: { type: 'number', integer: true, min: 0, max: 30 },
        horizonDays: { type: 'number', integer: true, min: 1, max: 120 },
        holidays: { type: 'array', optional: true, items: { type: 'string', pattern: /^\d{4}-\d{2}-\d{2}$/ } },
        window: timeWindow,
        areas: listOf({ postalCodeFrom: postalCode, postalCodeTo: postalCode, weekdays, window: timeWindow }),
      },
    },
  }),
  competences: listOf({
    id,
    partnerId: id,
    providerId: id,
    departmentId: { ...id, optional: true, nullable: true },
    originatorTypes: { type: 'array', optional: true, items: { type: 'enum', values: ORIGINATOR_TYPES } },
    bookingTypes: { type: 'array', optional: true, items: { type: 'enum', values: BOOKING_TYPES } },
    serviceTypes: ids,
    manufacturers: ids,
    productTypes: ids,
    serviceLocations: ids,
    shippingMethods: ids,
    postalCodes: listOf({ from: postalCode, to: postalCode }),
    models: { type: 'array', optional: true, items: text(255) },
    priority: { type: 'number', integer: true, optional: true },
    primary: { type: 'boolean', optional: true },
    sesam: nullableText,
    persDep: nullableText,
    overrideCode: nullableText,
    partnerCompetence: { type: 'object', optional: true, props: { id, overrideCode: nullableText } },
  }),
  accounts: listOf({
    id,
    name: text(255),
    role: { type: 'enum', values: ['partner', 'provider', 'admin'] },
    partnerId: { ...id, optional: true, nullable: true },
    providerId: { ...id, optional: true, nullable: true },
    token: { type: 'string', min: 16, max: 256, optional: true },
    tokenSha256: { type: 'string', pattern: /^[0-9a-f]{64}$/, optional: true },
    canForceProvider: { type: 'boolean', optional: true },
    allowAllProviders: { type: 'boolean', optional: true },
  }),
  webhooks: {
    type: 'object',
    optional: true,
    strict: true,
    props: {
      subscriptions: listOf({
        id,
        accountId: id,
        eventTypes: { type: 'array', min: 1, items: text(64) },
        target: { type: 'object' },
        secret: { type: 'string', pattern: /^whsec_[A-Za-z0-9+/=]{24,122}$/, optional: true },
        statusTransitions: listOf({ from: { ...nullableText }, to: { ...nullableText } }),
      }),
      statusMappings: listOf({ partnerId: id, providerKey: text(64), partnerKey: text(64) }),
      blacklists: listOf({ partnerId: id, key: text(64) }),
    },
  },
  models: listOf(MODEL_ENTRY_RULES),
  tags: listOf({ id, name: text(255), shippingMethods: allowedMethods }),
};

const checkShape = validator.compile(worldSchema);

export interface WorldError {
  field: string;
  message: string;
}

/** An entry whose key (by `keyOf`) an earlier entry of the list has is an error on its `field`. */
function twice<T>(
  errors: WorldError[],
  list: T[] | undefined,
  keyOf: (entry: T) => string,
  at: string,
  field: string,
): void {
  const seen = new Set<string>();
  list?.forEach((entry, index) => {
    const key = keyOf(entry);
    if (seen.has(key)) errors.push({ field: `${at}[${index}].${field}`, message: 'appears twice' });
    seen.add(key);
  });
}

function duplicateIds(errors: WorldError[], list: Array<{ id: number }> | undefined, field: string): Set<number> {
  const seen = new Set<number>();
  list?.forEach((entry, index) => {
    if (seen.has(entry.id)) errors.push({ field: `${field}[${index}].id`, message: `id ${entry.id} appears twice` });
    seen.add(entry.id);
  });
  return seen;
}

/** Each id in `wanted` (one value or a list, indexed in the field path) must be in `known`. */
function references(
  errors: WorldError[],
  field: string,
  wanted: number | null | undefined | number[],
  known: Set<number>,
  what: string,
): void {
  const check = (value: number | null | undefined, at: string) => {
    if (value !== null && value !== undefined && !known.has(value))
      errors.push({ field: at, message: `${what} ${value} is not in the world` });
  };
  if (Array.isArray(wanted)) wanted.forEach((value, index) => check(value, `${field}[${index}]`));
  else check(wanted, field);
}

const EVENT_TYPES: readonly string[] = WEBHOOK_EVENT_TYPES;

/** A manufacturer, product type or other named reference as the catalog keeps it. */
export interface NamedEntry {
  id: number;
  name: string;
  aliases?: string[];
}

/**
 * An entry by id, or (for text that is not all digits) by name or alias, ignoring case. Query
 * strings carry every value as text, so "3" is the id 3.
 */
export function findNamed<T extends NamedEntry>(list: T[], value: number | string): T | null {
  if (typeof value === 'number' || /^\d+$/.test(value.trim())) {
    const id = Number(value);
    return list.find((entry) => entry.id === id) ?? null;
  }
  const wanted = value.trim().toLowerCase();
  return (
    list.find(
      (entry) =>
        entry.name.toLowerCase() === wanted || (entry.aliases ?? []).some((alias) => alias.toLowerCase() === wanted),
    ) ?? null
  );
}

/**
 * What the catalog holds before a load, for the references a file may make to entries it does
 * not carry itself (models naming a manufacturer or product type).
 */
export interface StoredReferences {
  manufacturers: NamedEntry[];
  productTypes: NamedEntry[];
}

/** The entries a list will hold after a load: the file's own, then the stored ones it does not replace. */
function afterLoad(fromFile: NamedEntry[] | undefined, stored: NamedEntry[]): NamedEntry[] {
  const replaced = new Set((fromFile ?? []).map((entry) => entry.id));
  return [...(fromFile ?? []), ...stored.filter((entry) => !replaced.has(entry.id))];
}

/** The manufacturers and product types the catalog will hold once the world is loaded. */
export function referencesAfterLoad(world: World, stored: StoredReferences): StoredReferences {
  return {
    manufacturers: afterLoad(world.manufacturers, stored.manufacturers),
    productTypes: afterLoad(world.productTypes, stored.productTypes),
  };
}

/** An IANA time zone this runtime knows, as pickup calendars need. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The demo world: what an embedded hub loads on its first start, and what tests build on. */
export const DEMO_WORLD_FILE = path.resolve(__dirname, '../../world/demo.json');

/** A world file as it is written, not yet checked (`validateWorld`). */
export function readWorld(file: string): World {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as World;
}

/**
 * Checks a whole world; an empty list means it may be loaded. With `stored` (what the catalog
 * holds now) the models' manufacturers and product types are checked too, so a file naming an
 * unknown one is refused before the catalog's part is written.
 */
export function validateWorld(input: unknown, stored?: StoredReferences): WorldError[] {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    return [{ field: '', message: 'A world must be a JSON object' }];
  const unstorable = unstorablePath(input);
  if (unstorable !== null)
    return [
      {
        field: unstorable,
        message: 'holds text no database can store (a NUL character or half a surrogate pair) or nests too deep',
      },
    ];
  const shape = checkShape(input);
  if (shape !== true) {
    return (shape as Array<{ type?: string; field?: string; message?: string; actual?: unknown }>).flatMap((item) => {
      const field = item.field ?? '';
      // An unknown key is named as its own field, so a typo points at itself.
      if (item.type === 'objectStrict') {
        return String(item.actual)
          .split(', ')
          .map((key) => ({ field: field ? `${field}.${key}` : key, message: 'is not a known key' }));
      }
      return [{ field, message: item.message ?? 'Wrong format' }];
    });
  }
  const world = input as World;
  const errors: WorldError[] = [];
  const partners = duplicateIds(errors, world.partners, 'partners');
  const providers = duplicateIds(errors, world.providers, 'providers');
  const departments = new Set<number>();
  world.providers?.forEach((provider, p) => {
    provider.departments?.forEach((department, d) => {
      if (departments.has(department.id))
        errors.push({
          field: `providers[${p}].departments[${d}].id`,
          message: `department ${department.id} appears twice`,
        });
      departments.add(department.id);
    });
  });
  const manufacturers = duplicateIds(errors, world.manufacturers, 'manufacturers');
  const serviceTypes = duplicateIds(errors, world.serviceTypes, 'serviceTypes');
  const productTypes = duplicateIds(errors, world.productTypes, 'productTypes');
  const serviceLocations = duplicateIds(errors, world.serviceLocations, 'serviceLocations');
  duplicateIds(errors, world.accessories, 'accessories');
  const shippingMethods = duplicateIds(errors, world.shippingMethods, 'shippingMethods');
  duplicateIds(errors, world.competences, 'competences');
  const accounts = duplicateIds(errors, world.accounts, 'accounts');
  duplicateIds(errors, world.webhooks?.subscriptions, 'webhooks.subscriptions');
  duplicateIds(errors, world.tags, 'tags');

  world.accessories?.forEach((accessory, i) =>
    references(errors, `accessories[${i}].productTypes`, accessory.productTypes, productTypes, 'product type'),
  );
  world.shippingMethods?.forEach((method, i) => {
    const calendar = method.calendar;
    if (!calendar) return;
    const at = `shippingMethods[${i}].calendar`;
    if (!isTimeZone(calendar.timeZone))
      errors.push({ field: `${at}.timeZone`, message: `unknown time zone "${calendar.timeZone}"` });
    calendar.holidays?.forEach((day, d) => {
      if (!isCalendarDay(day))
        errors.push({ field: `${at}.holidays[${d}]`, message: `${day} is not a day that exists` });
    });
    const windows = [
      { field: `${at}.window`, window: calendar.window },
      ...(calendar.areas ?? []).map((area, a) => ({ field: `${at}.areas[${a}].window`, window: area.window })),
    ];
    for (const { field, window } of windows) {
      if (window && window.slice(0, 5) >= window.slice(6))
        errors.push({ field, message: 'the window must end after it starts' });
    }
    calendar.areas?.forEach((area, a) => {
      if (area.postalCodeFrom > area.postalCodeTo)
        errors.push({ field: `${at}.areas[${a}]`, message: 'postalCodeFrom must not be after postalCodeTo' });
    });
  });
  world.providers?.forEach((provider, p) => {
    twice(errors, provider.statusKeys, (entry) => entry.key, `providers[${p}].statusKeys`, 'key');
    const at = `providers[${p}]`;
    references(errors, `${at}.shippingMethods`, provider.shippingMethods, shippingMethods, 'shipping method');
    provider.departments?.forEach((department, d) =>
      references(
        errors,
        `${at}.departments[${d}].shippingMethods`,
        department.shippingMethods,
        shippingMethods,
        'shipping method',
      ),
    );
  });
  world.tags?.forEach((tag, t) =>
    references(errors, `tags[${t}].shippingMethods`, tag.shippingMethods, shippingMethods, 'shipping method'),
  );
  twice(errors, world.tags, (tag) => tag.name.toLowerCase(), 'tags', 'name');
  twice(
    errors,
    world.webhooks?.statusMappings,
    (mapping) => `${mapping.partnerId} ${mapping.providerKey}`,
    'webhooks.statusMappings',
    'providerKey',
  );
  twice(errors, world.webhooks?.blacklists, (entry) => `${entry.partnerId} ${entry.key}`, 'webhooks.blacklists', 'key');
  world.competences?.forEach((competence, i) => {
    const at = `competences[${i}]`;
    references(errors, `${at}.partnerId`, competence.partnerId, partners, 'partner');
    references(errors, `${at}.providerId`, competence.providerId, providers, 'provider');
    references(errors, `${at}.departmentId`, competence.departmentId, departments, 'department');
    references(errors, `${at}.serviceTypes`, competence.serviceTypes, serviceTypes, 'service type');
    references(errors, `${at}.manufacturers`, competence.manufacturers, manufacturers, 'manufacturer');
    references(errors, `${at}.productTypes`, competence.productTypes, productTypes, 'product type');
    references(errors, `${at}.serviceLocations`, competence.serviceLocations, serviceLocations, 'service location');
    references(errors, `${at}.shippingMethods`, competence.shippingMethods, shippingMethods, 'shipping method');
    competence.postalCodes?.forEach((range, r) => {
      if (range.from > range.to)
        errors.push({ field: `${at}.postalCodes[${r}]`, message: 'from must not be after to' });
    });
  });
  world.providers?.forEach((provider, p) => checkSimulation(errors, world, provider, `providers[${p}]`));
  const tokens = new Set<string>();
  world.accounts?.forEach((account, i) => {
    const at = `accounts[${i}]`;
    if (account.role === 'partner' && !account.partnerId)
      errors.push({ field: `${at}.partnerId`, message: 'a partner account needs partnerId' });
    if (account.role === 'provider' && !account.providerId)
      errors.push({ field: `${at}.providerId`, message: 'a provider account needs providerId' });
    if (account.role !== 'partner' && account.partnerId)
      errors.push({ field: `${at}.partnerId`, message: `a ${account.role} account has no partnerId` });
    if (account.role !== 'provider' && account.providerId)
      errors.push({ field: `${at}.providerId`, message: `a ${account.role} account has no providerId` });
    if (account.role !== 'provider' && account.allowAllProviders)
      errors.push({ field: `${at}.allowAllProviders`, message: `a ${account.role} account acts for no provider` });
    references(errors, `${at}.partnerId`, account.partnerId, partners, 'partner');
    references(errors, `${at}.providerId`, account.providerId, providers, 'provider');
    if (!account.token && !account.tokenSha256)
      errors.push({ field: `${at}.token`, message: 'an account needs token or tokenSha256' });
    if (account.token) {
      if (tokens.has(account.token)) errors.push({ field: `${at}.token`, message: 'token is used by another account' });
      tokens.add(account.token);
    }
  });
  world.webhooks?.subscriptions?.forEach((subscription, i) => {
    const at = `webhooks.subscriptions[${i}]`;
    references(errors, `${at}.accountId`, subscription.accountId, accounts, 'account');
    subscription.eventTypes.forEach((type, t) => {
      if (!EVENT_TYPES.includes(type))
        errors.push({
          field: `${at}.eventTypes[${t}]`,
          message: `unknown event type "${type}" (known: ${EVENT_TYPES.join(', ')})`,
        });
    });
    const target = subscription.target as Record<string, unknown>;
    if (target.kind === 'http') {
      if (typeof target.url !== 'string' || !/^https?:\/\//.test(target.url))
        errors.push({ field: `${at}.target.url`, message: 'an http target needs an http(s) url' });
      if (target.method !== undefined && !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(target.method as string)) {
        errors.push({ field: `${at}.target.method`, message: 'method must be GET, POST, PUT, PATCH or DELETE' });
      }
      if (typeof target.url === 'string' && !URL.canParse(target.url))
        errors.push({ field: `${at}.target.url`, message: 'is not a url' });
      const headers = target.headers;
      const fit = ([name, value]: [string, unknown]) =>
        HEADER_NAME.test(name) && typeof value === 'string' && value.length <= 4096 && HEADER_VALUE.test(value);
      if (
        headers !== undefined &&
        (typeof headers !== 'object' ||
          headers === null ||
          Object.keys(headers).length > 50 ||
          !Object.entries(headers).every(fit))
      ) {
        errors.push({
          field: `${at}.target.headers`,
          message: 'at most 50 headers, each a token name and a value of up to 4096 printable ASCII characters',
        });
      }
    } else if (target.kind === 'amqp') {
      if (typeof target.url !== 'string' || !/^amqps?:\/\//.test(target.url))
        errors.push({ field: `${at}.target.url`, message: 'an amqp target needs an amqp(s) url' });
      if (typeof target.queue !== 'string' || target.queue.length === 0 || target.queue.length > 255)
        errors.push({ field: `${at}.target.queue`, message: 'an amqp target needs a queue of up to 255 characters' });
    } else {
      errors.push({ field: `${at}.target.kind`, message: 'kind must be http or amqp' });
    }
  });
  world.webhooks?.statusMappings?.forEach((mapping, i) =>
    references(errors, `webhooks.statusMappings[${i}].partnerId`, mapping.partnerId, partners, 'partner'),
  );
  world.webhooks?.blacklists?.forEach((entry, i) =>
    references(errors, `webhooks.blacklists[${i}].partnerId`, entry.partnerId, partners, 'partner'),
  );
  if (stored && world.models?.length) {
    const after = referencesAfterLoad(world, stored);
    const known = { manufacturer: after.manufacturers, productType: after.productTypes };
    world.models.forEach((model, i) => {
      for (const field of ['manufacturer', 'productType'] as const) {
        if (!findNamed(known[field], model[field])) {
          const what = field === 'manufacturer' ? 'manufacturer' : 'product type';
          errors.push({
            field: `models[${i}].${field}`,
            message: `${what} ${JSON.stringify(model[field])} is neither in the file nor in the catalog`,
          });
        }
      }
    });
  }
  return errors;
}

/**
 * A simulated provider acts through an account of its own and posts the status keys and the
 * invoice status of its life, so its entry names them: the file's own entries are what is
 * checked, as for every other cross-reference.
 */
function checkSimulation(errors: WorldError[], world: World, provider: WorldProvider, at: string): void {
  const simulation = provider.simulated;
  if (!simulation) return;
  const account = world.accounts?.find((entry) => entry.id === simulation.accountId);
  if (!account)
    errors.push({ field: `${at}.simulated.accountId`, message: `account ${simulation.accountId} is not in the world` });
  else if (account.role !== 'provider' || account.providerId !== provider.id)
    errors.push({
      field: `${at}.simulated.accountId`,
      message: `account ${simulation.accountId} is not an account of provider ${provider.id}`,
    });
  for (const [step, delay] of Object.entries(simulation.delays ?? {})) {
    const ms = millisecondsOf(delay ?? '');
    if (ms === null || ms > SIMULATION_LONGEST_DELAY_MS)
      errors.push({
        field: `${at}.simulated.delays.${step}`,
        message: 'must be a duration of at most 30d, such as 0, 500ms, 30s, 5m, 2h or 1d',
      });
  }
  const keys = new Set((provider.statusKeys ?? []).map((status) => status.key));
  const missing = Object.values(SIMULATION_STATUS_KEYS).filter((key) => !keys.has(key));
  if (missing.length)
    errors.push({
      field: `${at}.statusKeys`,
      message: `a simulated provider lists the status keys its cases go through; missing: ${missing.join(', ')}`,
    });
  if (!provider.invoiceStatuses?.some((status) => status.key === SIMULATION_INVOICE_STATUS && status.sendToClient))
    errors.push({
      field: `${at}.invoiceStatuses`,
      message: `a simulated provider lists the invoice status "${SIMULATION_INVOICE_STATUS}" with sendToClient true, which its invoices take`,
    });
}

/**
 * Which service loads each part of a world (`list.key`: a key inside the entries of a list;
 * `object.key`: a key of an object whose parts have different owners).
 */
export const WORLD_PART_OWNERS: Record<string, string> = {
  partners: 'catalog',
  providers: 'catalog',
  accounts: 'catalog',
  manufacturers: 'catalog',
  serviceTypes: 'catalog',
  productTypes: 'catalog',
  serviceLocations: 'catalog',
  accessories: 'catalog',
  shippingMethods: 'catalog',
  competences: 'routing',
  models: 'models',
  'webhooks.subscriptions': 'webhooks',
  // How a partner sees status keys is reference data: its reads must not need the webhooks service.
  'webhooks.statusMappings': 'catalog',
  'webhooks.blacklists': 'catalog',
  'providers.statusKeys': 'booking',
  tags: 'booking',
  'providers.invoiceStatuses': 'invoicing',
  'providers.simulated': 'sandbox',
};

/**
 * The parts a world fills: top-level keys with content, the nested parts any entry of a list
 * sets, and the keys an object of separately owned parts sets (in place of the object).
 */
export function worldKeysPresent(world: World): string[] {
  const record = world as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => {
    const value = record[key];
    return (
      key in WORLD_PART_OWNERS && value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)
    );
  });
  for (const part of Object.keys(WORLD_PART_OWNERS).filter((key) => key.includes('.'))) {
    const [outer, inner] = part.split('.');
    const value = record[outer];
    const sets = (entry: unknown) => Boolean(entry) && (entry as Record<string, unknown>)[inner] !== undefined;
    if (Array.isArray(value) ? value.some(sets) : sets(value)) keys.push(part);
  }
  return keys;
}
