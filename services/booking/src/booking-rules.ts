/**
 * The booking rules of spec 4.4 as pure functions: the structural rules between fields and the
 * twelve conditional rules, each driven by the reference records the case resolves to (product
 * type, service type and shipping method properties, partner settings), never by ids.
 */
import { FIELD_MESSAGES, type FieldDetails } from '@hub/shared';
import type { BookingBody, ContactIn } from './booking-body';

export interface ProductTypeFlags {
  requireSerial?: boolean;
  requireImei?: boolean;
  allowPassword?: boolean;
  requirePassword?: boolean;
  lowCost?: boolean;
}
export interface ServiceTypeFlags {
  requirePurchaseDate?: boolean;
  requireInsuranceNumber?: boolean;
}
export interface ShippingRules {
  properties?: { requirePickupDate?: boolean; goodsTypeList?: string[] | null };
  requireWeight?: boolean;
  requireVolume?: boolean;
}

/** What the conditional rules depend on; an absent record (an invalid id) switches its rules off. */
export interface RuleReference {
  productType?: { properties?: ProductTypeFlags | null } | null;
  serviceType?: { properties?: ServiceTypeFlags | null } | null;
  /** The method the case will ship with (sent or assigned); none when shipping does not apply. */
  shippingMethod?: ShippingRules | null;
  partnerSettings?: { supportsPackaging?: boolean } | null;
}

export const CONTACT_FIELDS_IN = ['customer', 'consumer', 'pickupDst', 'returnDst'] as const;

export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function add(details: FieldDetails, field: string, message: string): void {
  const messages = (details[field] ??= []);
  if (!messages.includes(message)) messages.push(message);
}

function requireField(details: FieldDetails, field: string, value: unknown): void {
  if (isBlank(value)) add(details, field, FIELD_MESSAGES.required);
}

const present = (value: unknown) => value !== undefined && value !== null;

/** Rules 4 and 5: what a contact must carry for its type (0 private person, 1 company). */
export function contactRules(details: FieldDetails, field: string, contact: ContactIn | null | undefined): void {
  if (!contact) return;
  if (contact.type === 0) {
    requireField(details, `${field}.firstName`, contact.firstName);
    requireField(details, `${field}.lastName`, contact.lastName);
  } else if (contact.type === 1) {
    requireField(details, `${field}.organizationName`, contact.organizationName);
    requireField(details, `${field}.organizationNumber`, contact.organizationNumber);
  }
}

/**
 * Which contacts and destinations a body may carry: consumer only when the booking is not
 * private-to-private; pickup/return destinations only from help desks; a custom destination
 * needs its contact and the consumer destination takes none; orderData.files never.
 */
export function structuralRules(body: BookingBody): FieldDetails {
  const details: FieldDetails = {};
  if (body.bookingType === 'privateToPrivate' && present(body.consumer)) add(details, 'consumer', FIELD_MESSAGES.notAccepted);

  const helpdesk = body.originatorType === 'helpdesk';
  for (const [destinationField, contactField] of [
    ['pickupDestination', 'pickupDst'],
    ['returnDestination', 'returnDst'],
  ] as const) {
    const destination = body[destinationField];
    if (present(destination) && !helpdesk) add(details, destinationField, FIELD_MESSAGES.notAccepted);
    const effective = helpdesk && present(destination) ? destination : 'consumer';
    if (effective === 'consumer') {
      if (present(body[contactField])) add(details, contactField, FIELD_MESSAGES.notAccepted);
    } else if (!present(body[contactField])) {
      add(details, contactField, FIELD_MESSAGES.required);
    }
  }

  if (body.orderData && body.orderData.files !== undefined) add(details, 'orderData.files', FIELD_MESSAGES.notAccepted);
  for (const field of CONTACT_FIELDS_IN) contactRules(details, field, body[field]);
  return details;
}

/** Rule 8: acceptConditions must be true unless a non-empty consents object is sent. */
export function acceptConditionsRule(body: BookingBody): FieldDetails {
  const details: FieldDetails = {};
  const consents = body.orderData?.consents;
  if (consents && Object.keys(consents).length > 0) return details;
  if (!present(body.acceptConditions)) add(details, 'acceptConditions', FIELD_MESSAGES.required);
  else if (body.acceptConditions !== true) add(details, 'acceptConditions', FIELD_MESSAGES.mustBeTrue);
  return details;
}

/** Rules 1, 2, 3, 6, 7, 9, 10, 11 and 12, from the reference records the case resolves to. */
export function conditionalRules(body: BookingBody, reference: RuleReference): FieldDetails {
  const details: FieldDetails = {};
  const product = body.productData ?? {};
  const order = body.orderData ?? {};

  const productFlags = reference.productType?.properties ?? {};
  // Where a type only says a password is allowed, it is one where a password is common.
  const needsPassword = productFlags.requirePassword ?? productFlags.allowPassword ?? false;
  const noPassword = body.noPassword === true || product.noPassword === true;
  if (needsPassword && !noPassword) requireField(details, 'productData.password', product.password);
  if (productFlags.requireImei) requireField(details, 'productData.imei', product.imei);
  // A low-cost product needs no serial, and where the IMEI is required it identifies the unit.
  if (productFlags.requireSerial && !productFlags.lowCost && !productFlags.requireImei) {
    requireField(details, 'productData.serial', product.serial);
  }

  const serviceFlags = reference.serviceType?.properties ?? {};
  if (serviceFlags.requirePurchaseDate) {
    requireField(details, 'productData.purchaseDate', product.purchaseDate);
    if (!Array.isArray(product.attachedFiles) || product.attachedFiles.length === 0) add(details, 'productData.attachedFiles', FIELD_MESSAGES.required);
  }
  if (serviceFlags.requireInsuranceNumber) {
    requireField(details, 'productData.insuranceNumber', product.insuranceNumber);
    requireField(details, 'productData.insuranceCompany', product.insuranceCompany);
  }

  const shipping = reference.shippingMethod;
  if (shipping) {
    if (shipping.properties?.requirePickupDate !== false) requireField(details, 'orderData.pickupDate', order.pickupDate);
    if (shipping.requireWeight) requireField(details, 'productData.weight', product.weight);
    if (shipping.requireVolume) requireField(details, 'productData.volume', product.volume);
    const goodsTypes = shipping.properties?.goodsTypeList;
    if (goodsTypes) {
      if (isBlank(order.goodsType)) add(details, 'orderData.goodsType', FIELD_MESSAGES.required);
      else if (!goodsTypes.includes(order.goodsType!)) add(details, 'orderData.goodsType', FIELD_MESSAGES.notAnOption);
    }
  }

  if (reference.partnerSettings?.supportsPackaging && order.emballage === true) requireField(details, 'orderData.mail', order.mail);
  return details;
}

/** Merges detail maps, keeping each field's messages once and in order. */
export function mergeDetails(...maps: FieldDetails[]): FieldDetails {
  const merged: FieldDetails = {};
  for (const map of maps) for (const [field, messages] of Object.entries(map)) for (const message of messages) add(merged, field, message);
  return merged;
}
