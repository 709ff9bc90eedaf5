/**
 * The case/create and case/validate body: its wire types and its structural schema. The schema
 * is checked inside the action (not as the action's `params`) so the raw body, discarded fields
 * included, can still be written to the request log, and so structural and conditional failures
 * are reported together.
 */
import FastestValidator from 'fastest-validator';
import { detailsFromValidator, type ContactDataIn, type FieldDetails, parseInstant, withHubDefaults } from '@hub/shared';

export const ORIGINATOR_TYPES = ['private', 'helpdesk'] as const;
export const BOOKING_TYPES = ['companyToPrivate', 'privateToPrivate'] as const;
export const DESTINATIONS = ['consumer', 'customCompany', 'customPrivate'] as const;

export type ContactIn = ContactDataIn;

export interface OrderDataIn {
  consents?: Record<string, boolean> | null;
  partnerSpecific?: Record<string, unknown> | null;
  refNo?: string | null;
  pickupDate?: string | null;
  goodsType?: string | null;
  mail?: string | null;
  emballage?: boolean | null;
  files?: unknown;
  activityNumber?: string | null;
  customerNumber?: string | null;
  serial?: string | null;
}

export interface ProductDataIn {
  model?: string | null;
  serial?: string | null;
  imei?: string | null;
  password?: string | null;
  noPassword?: boolean | null;
  problemText?: string | null;
  otherAccessory?: string | null;
  accessory?: Record<string, boolean> | null;
  purchaseDate?: string | null;
  insuranceNumber?: string | null;
  insuranceCompany?: string | null;
  weight?: number | null;
  volume?: number | null;
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
/** A day that exists, with or without a time. */
const date = optional({
  type: 'string',
  max: 64,
  // Called for an absent value too.
  custom: (value: unknown, errors: Array<Record<string, unknown>>) => {
    if (typeof value === 'string' && parseInstant(value) === null) errors.push({ type: 'date', actual: value });
    return value;
  },
});

const contact = (required: boolean) => ({
  type: 'object',
  optional: !required,
  nullable: !required,
  props: {
    // Which of rules 4 and 5 the contact answers to: a private person (0) or a company (1).
    type: { type: 'enum', values: [0, 1] },
    ...Object.fromEntries(
      ['name', 'firstName', 'lastName', 'organizationName', 'organizationNumber', 'addName', 'address', 'postalCode', 'city', 'phone', 'mobile', 'floor', 'entrance', 'doorCode'].map(
        (field) => [field, text(255)],
      ),
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
      consents: optional({ type: 'record', key: { type: 'string', min: 1, max: 255 }, value: { type: 'boolean' } }),
      partnerSpecific: optional({ type: 'object' }),
      refNo: text(255),
      pickupDate: date,
      goodsType: text(64),
      mail: optional({ type: 'email', max: 255 }),
      emballage: optional({ type: 'boolean' }),
      // Kept so the rules can refuse it by name; files are attached after creation.
      files: { type: 'any', optional: true },
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
      imei: optional({ type: 'string', pattern: /^\d{15}$/ }),
      password: text(255),
      noPassword: optional({ type: 'boolean' }),
      problemText: text(5000),
      otherAccessory: text(1000),
      accessory: optional({ type: 'record', key: { type: 'string', numeric: true }, value: { type: 'boolean' } }),
      purchaseDate: date,
      insuranceNumber: text(255),
      insuranceCompany: text(255),
      weight: optional({ type: 'number', positive: true }),
      volume: optional({ type: 'number', positive: true }),
      attachedFiles: optional({
        type: 'array',
        max: 50,
        items: { type: 'object', props: { url: { type: 'string', min: 1, max: 2048 }, name: text(255), type: text(64) } },
      }),
    },
  },
  pickupDestination: optional({ type: 'enum', values: DESTINATIONS }),
  returnDestination: optional({ type: 'enum', values: DESTINATIONS }),
  clientPostalCode: { type: 'string', trim: true, min: 3, max: 10 },
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

const checkShape = new FastestValidator({ haltOnFirstError: false, useNewCustomCheckerFunction: true }).compile(withHubDefaults(BOOKING_BODY_SCHEMA));

/**
 * The body with unexpected fields discarded, and the structural failures keyed by field path.
 * The input is not changed.
 */
export function checkBookingShape(raw: unknown): { body: BookingBody; details: FieldDetails } {
  const body = structuredClone(raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as BookingBody;
  const result = checkShape(body);
  return { body, details: result === true ? {} : detailsFromValidator(result) };
}
