/**
 * The case/create and case/validate body: its wire types and its structural schema. The schema
 * is checked inside the action (not as the action's `params`) so the raw body, discarded fields
 * included, can still be written to the request log, and so structural and conditional failures
 * are reported together.
 */
import FastestValidator from 'fastest-validator';
import {
  CONTACT_FIELDS,
  BOOKING_TYPES,
  chosenKeys,
  detailsFromValidator,
  type ContactDataIn,
  FIELD_MESSAGES,
  type FieldDetails,
  integerTextReader,
  isCalendarDay,
  ORIGINATOR_TYPES,
  parseInstant,
  withHubDefaults,
} from '@hub/shared';

export const DESTINATIONS = ['consumer', 'customCompany', 'customPrivate'] as const;

export type ContactIn = ContactDataIn;

/** Consents as sent: `{ name: Boolean }` (the booking form) or the names given (the update form); stored as the names given. */
export type ConsentsIn = Record<string, boolean> | string[];

/** Per-case choice of the channels a status notification goes out on, keyed by status key. */
export type CaseNotificationsIn = Record<string, { sms?: boolean | null; email?: boolean | null }>;

export interface OrderDataIn {
  consents?: ConsentsIn | null;
  partnerSpecific?: Record<string, unknown> | null;
  providerSpecific?: Record<string, unknown> | null;
  chain?: string | null;
  refNo?: string | null;
  pickupDate?: string | null;
  goodsType?: string | null;
  mail?: string | null;
  emballage?: boolean | null;
  files?: unknown;
  partnerOrderReference?: string | null;
  providerOrderReference?: string | null;
  maxRepairPrice?: string | null;
  deductible?: string | null;
  proofOfPurchaseReference?: string | null;
  skipCostProposalAndRepairForAnyPrice?: boolean | null;
  contactPerson?: string | null;
  notifications?: CaseNotificationsIn | null;
  shipmentData?: Record<string, unknown> | null;
  infocareSesamOriginator?: string | null;
  activityNumber?: string | null;
  customerNumber?: string | null;
  serial?: string | null;
  /** Further shipment data (`exportShipmentData`, `forwardingShipmentData`, ...). */
  [shipmentData: `${string}ShipmentData`]: Record<string, unknown> | null | undefined;
}

/** Dimensions: the volume in m³, or the box's width, height and depth in cm. */
export type DimensionsIn = { volume: number } | { width: number; height: number; depth: number };

export interface ProductDataIn {
  model?: string | null;
  serial?: string | null;
  imei?: string | null;
  password?: string | null;
  noPassword?: boolean | null;
  problemText?: string | null;
  otherAccessory?: string | null;
  /** `{ id: Boolean }` at booking, or the ids; stored as the ids included, as text. */
  accessory?: Record<string, boolean> | Array<string | number> | null;
  purchaseDate?: string | null;
  insuranceNumber?: string | null;
  insuranceCompany?: string | null;
  solution?: string | null;
  damage?: string | null;
  weight?: number | null;
  /** Dimensions, or a bare number of m³. */
  volume?: DimensionsIn | number | null;
  attachedFiles?: unknown[] | null;
}

export interface BookingBody {
  serviceType: number;
  manufacturer: number | string;
  productType: number | string;
  shipping?: number | null;
  location: number;
  orderData: OrderDataIn;
  productData: ProductDataIn;
  pickupDestination?: (typeof DESTINATIONS)[number] | null;
  returnDestination?: (typeof DESTINATIONS)[number] | null;
  clientPostalCode: string;
  customer: ContactIn;
  consumer?: ContactIn | null;
  pickupDst?: ContactIn | null;
  returnDst?: ContactIn | null;
  originatorType: (typeof ORIGINATOR_TYPES)[number];
  bookingType: (typeof BOOKING_TYPES)[number];
  acceptConditions?: boolean | null;
  noPassword?: boolean | null;
  trackingId?: string | null;
  forcedProvider?: number | null;
}

const id = { type: 'number', integer: true, positive: true };
const optional = (rule: Record<string, unknown>) => ({ ...rule, optional: true, nullable: true });
const text = (max: number) => optional({ type: 'string', max });
const idOrName = { type: 'multi', rules: [id, { type: 'string', min: 1, max: 255 }] };
/**
 * A day that exists, with or without a time. A time is kept in UTC ("Every date will be converted
 * to UTC", the product's Data types page): `2012-04-23T20:25:43.511+02:00` is stored and answered
 * as `2012-04-23T18:25:43.511Z`; a day alone stays a day.
 */
const date = optional({
  type: 'string',
  max: 64,
  // What the schema of case/schema offers: the day alone, which is always taken.
  jsonSchema: { format: 'date', description: 'A day (YYYY-MM-DD); a time (ISO 8601) may follow' },
  // Called for an absent value too.
  custom: (value: unknown, errors: Array<Record<string, unknown>>) => {
    if (typeof value !== 'string') return value;
    const instant = parseInstant(value);
    if (instant === null) errors.push({ type: 'date', actual: value });
    return instant === null || isCalendarDay(value.trim()) ? value : instant.toISOString();
  },
});

const freeObject = optional({ type: 'object' });
const positive = { type: 'number', positive: true };

/** Dimensions (`{ volume }` in m³ or `{ width, height, depth }` in cm), or a bare number of m³ as before. */
const dimensions = optional({
  type: 'multi',
  rules: [
    positive,
    {
      type: 'object',
      props: {
        volume: { ...positive, optional: true },
        width: { ...positive, optional: true },
        height: { ...positive, optional: true },
        depth: { ...positive, optional: true },
      },
      jsonSchema: { anyOf: [{ required: ['volume'] }, { required: ['width', 'height', 'depth'] }] },
      custom: (value: Record<string, unknown>, errors: Array<Record<string, unknown>>) => {
        const box = ['width', 'height', 'depth'].every((side) => value[side] !== undefined);
        if (value.volume === undefined && !box) errors.push({ type: 'dimensions' });
        return value;
      },
    },
  ],
});

const contact = (required: boolean) => ({
  type: 'object',
  optional: !required,
  nullable: !required,
  props: {
    // Which of rules 4 and 5 the contact answers to: a private person (0) or a company (1). The
    // product's Data types page calls it a Boolean, so false and true stand for 0 and 1.
    type: {
      type: 'enum',
      values: [0, 1, false, true],
      custom: (value: unknown) => (typeof value === 'boolean' ? Number(value) : value),
    },
    ...Object.fromEntries(
      CONTACT_FIELDS.filter((field) => field !== 'email' && field !== 'countryCode').map((field) => [field, text(255)]),
    ),
    email: optional({ type: 'email', max: 255 }),
    countryCode: optional({ type: 'string', pattern: /^[A-Za-z]{2}$/ }),
  },
});

export const BOOKING_BODY_SCHEMA = {
  serviceType: id,
  manufacturer: idOrName,
  productType: idOrName,
  shipping: optional(id),
  location: id,
  orderData: {
    type: 'object',
    props: {
      consents: optional({
        type: 'multi',
        rules: [
          { type: 'record', key: { type: 'string', min: 1, max: 255 }, value: { type: 'boolean' } },
          { type: 'array', max: 100, items: { type: 'string', min: 1, max: 255 } },
        ],
      }),
      partnerSpecific: freeObject,
      providerSpecific: freeObject,
      chain: text(255),
      refNo: text(255),
      pickupDate: date,
      goodsType: text(64),
      // The product documents it as the address the packing materials go to, not only an email.
      mail: text(255),
      emballage: optional({ type: 'boolean' }),
      // Kept so the rules can refuse it by name; files are attached after creation.
      files: { type: 'any', optional: true },
      partnerOrderReference: text(255),
      providerOrderReference: text(255),
      maxRepairPrice: text(64),
      deductible: text(64),
      proofOfPurchaseReference: text(255),
      skipCostProposalAndRepairForAnyPrice: optional({ type: 'boolean' }),
      contactPerson: text(255),
      notifications: optional({
        type: 'record',
        key: { type: 'string', min: 1, max: 64 },
        value: {
          type: 'object',
          props: { sms: optional({ type: 'boolean' }), email: optional({ type: 'boolean' }) },
        },
      }),
      shipmentData: freeObject,
      infocareSesamOriginator: text(255),
      activityNumber: text(255),
      customerNumber: text(255),
      serial: text(255),
    },
  },
  productData: {
    type: 'object',
    props: {
      model: text(255),
      serial: text(255),
      // "Product's IMEI (20 chars)": an IMEISV's 16 digits and a grouped form fit too.
      imei: text(20),
      password: text(255),
      noPassword: optional({ type: 'boolean' }),
      problemText: text(5000),
      otherAccessory: text(1000),
      accessory: optional({
        type: 'multi',
        rules: [
          { type: 'record', key: { type: 'string', numeric: true }, value: { type: 'boolean' } },
          {
            type: 'array',
            max: 200,
            items: { type: 'multi', rules: [id, { type: 'string', pattern: /^[1-9]\d{0,9}$/ }] },
          },
        ],
      }),
      purchaseDate: date,
      insuranceNumber: text(255),
      insuranceCompany: text(255),
      solution: text(5000),
      damage: text(5000),
      weight: optional(positive),
      volume: dimensions,
      attachedFiles: optional({
        type: 'array',
        max: 50,
        items: {
          type: 'object',
          props: { url: { type: 'string', min: 1, max: 2048 }, name: text(255), type: text(64) },
        },
      }),
    },
  },
  pickupDestination: optional({ type: 'enum', values: DESTINATIONS }),
  returnDestination: optional({ type: 'enum', values: DESTINATIONS }),
  // Trimmed before its length is checked: the schema of case/schema offers it without the spaces.
  clientPostalCode: { type: 'string', trim: true, min: 3, max: 10, jsonSchema: { pattern: '^\\S(.*\\S)?$' } },
  customer: contact(true),
  consumer: contact(false),
  pickupDst: contact(false),
  returnDst: contact(false),
  originatorType: { type: 'enum', values: ORIGINATOR_TYPES },
  bookingType: { type: 'enum', values: BOOKING_TYPES },
  acceptConditions: optional({ type: 'boolean' }),
  noPassword: optional({ type: 'boolean' }),
  trackingId: optional({ type: 'string', min: 1, max: 255 }),
  forcedProvider: optional(id),
};

const readIntegers = integerTextReader(BOOKING_BODY_SCHEMA);
const checkShape = new FastestValidator({ haltOnFirstError: false, useNewCustomCheckerFunction: true }).compile(
  withHubDefaults(BOOKING_BODY_SCHEMA),
);

/** orderData keys of further shipment data, which the product names freely (`exportShipmentData`). */
const SHIPMENT_DATA_KEY = /^[a-z][A-Za-z0-9]{0,63}ShipmentData$/;
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `*ShipmentData` keys of the orderData sent, which a fixed schema cannot name: each must be
 * an object (or null), and is kept as sent.
 */
function shipmentDataOf(sent: unknown, details: FieldDetails): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (!isPlainObject(sent)) return kept;
  for (const [key, value] of Object.entries(sent)) {
    if (!SHIPMENT_DATA_KEY.test(key) || key === 'shipmentData') continue;
    if (value === null || isPlainObject(value)) kept[key] = value;
    else details[`orderData.${key}`] = [FIELD_MESSAGES.wrongFormat];
  }
  return kept;
}

/**
 * A checked body's consents and accessories in the one form the hub stores and answers everywhere
 * (reads, exports, webhooks, as the product's webhooks show them): the consent names given and
 * the accessory ids included, as text. Changes the body in place.
 */
export function toStoredForm(body: Pick<BookingBody, 'orderData' | 'productData'>): void {
  const order = body.orderData;
  if (isPlainObject(order) && order.consents) order.consents = chosenKeys(order.consents) ?? [];
  const product = body.productData;
  if (isPlainObject(product) && product.accessory)
    product.accessory = [...new Set(chosenKeys(product.accessory) ?? [])];
}

/**
 * The body with unexpected fields discarded, and the structural failures keyed by field path.
 * The input is not changed.
 */
export function checkBookingShape(raw: unknown): { body: BookingBody; details: FieldDetails } {
  const body = structuredClone(raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as BookingBody;
  // Taken before the check, which discards every key its schema does not name.
  const sentOrderData = isPlainObject(body.orderData) ? { ...body.orderData } : undefined;
  readIntegers(body as unknown as Record<string, unknown>);
  const result = checkShape(body);
  const details: FieldDetails = result === true ? {} : detailsFromValidator(result);
  if (isPlainObject(body.orderData)) Object.assign(body.orderData, shipmentDataOf(sentOrderData, details));
  return { body, details };
}
