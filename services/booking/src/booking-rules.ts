/**
 * The booking rules of spec 4.4, written once as data: the structural rules between fields and
 * the twelve conditional rules. Which rules apply follows from the booking's choices and the
 * reference records it resolves to (product type, service type and shipping method properties,
 * partner settings), never from ids; what each rule then asks of the body is a list of cases
 * over the body's own fields. The same rules check a body here and become the JSON Schema of
 * `case/schema` (booking-schema.ts).
 */
import {
  FIELD_MESSAGES,
  type FieldDetails,
  isPlainObject,
  jsonBytes,
  RECORD_MAX_BYTES,
  RECORD_TOO_LARGE,
} from '@hub/shared';
import type { BookingBody } from './booking-body';

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
  partnerSettings?: { supportsPackaging?: boolean; mandatoryConsents?: string[] } | null;
}

/** The choices of a booking the structural rules depend on, as sent. */
export interface RuleChoices {
  originatorType?: unknown;
  bookingType?: unknown;
}

export const CONTACT_FIELDS_IN = ['customer', 'consumer', 'pickupDst', 'returnDst'] as const;

/** A custom destination, which takes its own contact (pickupDst or returnDst). */
export const CUSTOM_DESTINATIONS = ['customCompany', 'customPrivate'] as const;

/** A test of one body field (a dotted path): one of some values, or a non-empty object or list. */
export type FieldTest =
  { field: string; oneOf: ReadonlyArray<string | number | boolean> } | { field: string; nonEmpty: true };

/**
 * What a rule asks of one field: `present` (not missing, null or blank), `absent` (missing or
 * null), `unsent` (missing), `true`, `nonEmptyList`, one of `options`, or (of consents, in either
 * form they are sent in) each of `names` given.
 */
export type Demand =
  | { field: string; must: 'present' | 'absent' | 'unsent' | 'true' | 'nonEmptyList' }
  | { field: string; must: 'oneOf'; options: readonly string[] }
  | { field: string; must: 'consented'; names: readonly string[] };

/** A rule's cases: the first whose test holds (a case without one always does) says what the body must carry. */
export interface BookingRule {
  /** The rule of spec 4.4 by its number, or what a structural rule is about. */
  rule: string;
  cases: ReadonlyArray<{ when?: FieldTest; demands: readonly Demand[] }>;
}

const always = (rule: string, ...demands: Demand[]): BookingRule => ({ rule, cases: [{ demands }] });
const present = (field: string): Demand => ({ field, must: 'present' });

/** The rules between the body's fields that hold for the booking's choices (originator and booking type). */
export function structuralRuleSet(choices: RuleChoices): BookingRule[] {
  const rules: BookingRule[] = [];
  if (choices.bookingType === 'privateToPrivate')
    rules.push(
      always('consumer only when the booking is not private to private', { field: 'consumer', must: 'absent' }),
    );
  for (const [destination, contact] of [
    ['pickupDestination', 'pickupDst'],
    ['returnDestination', 'returnDst'],
  ] as const) {
    // Only help desks choose destinations; a custom one needs its contact, the consumer takes none.
    rules.push(
      choices.originatorType === 'helpdesk'
        ? {
            rule: `${contact} exactly for a custom ${destination}`,
            cases: [
              { when: { field: destination, oneOf: CUSTOM_DESTINATIONS }, demands: [present(contact)] },
              { demands: [{ field: contact, must: 'absent' }] },
            ],
          }
        : always(
            `${destination} only from help desks`,
            { field: destination, must: 'absent' },
            { field: contact, must: 'absent' },
          ),
    );
  }
  rules.push(always('files are attached after booking', { field: 'orderData.files', must: 'unsent' }));
  for (const contact of CONTACT_FIELDS_IN)
    rules.push({
      rule: '4 and 5',
      cases: [
        {
          // false and true as the product's Boolean type, which the body's check reads as 0 and 1.
          when: { field: `${contact}.type`, oneOf: [0, false] },
          demands: [present(`${contact}.firstName`), present(`${contact}.lastName`)],
        },
        {
          when: { field: `${contact}.type`, oneOf: [1, true] },
          demands: [present(`${contact}.organizationName`), present(`${contact}.organizationNumber`)],
        },
      ],
    });
  return rules;
}

/** Rule 8: acceptConditions must be true unless a non-empty consents object is sent. */
export const ACCEPT_CONDITIONS_RULE: BookingRule = {
  rule: '8',
  cases: [
    { when: { field: 'orderData.consents', nonEmpty: true }, demands: [] },
    { demands: [{ field: 'acceptConditions', must: 'true' }] },
  ],
};

/** Rules 1, 2, 3, 6, 7, 9, 10, 11 and 12, as the reference records the case resolves to set them. */
export function referenceRuleSet(reference: RuleReference): BookingRule[] {
  const rules: BookingRule[] = [];
  const productFlags = reference.productType?.properties ?? {};
  // Where a type only says a password is allowed, it is one where a password is common.
  if (productFlags.requirePassword ?? productFlags.allowPassword ?? false)
    rules.push({
      rule: '1',
      cases: [
        { when: { field: 'noPassword', oneOf: [true] }, demands: [] },
        { when: { field: 'productData.noPassword', oneOf: [true] }, demands: [] },
        { demands: [present('productData.password')] },
      ],
    });
  if (productFlags.requireImei) rules.push(always('2', present('productData.imei')));
  // A low-cost product needs no serial, and where the IMEI is required it identifies the unit.
  if (productFlags.requireSerial && !productFlags.lowCost && !productFlags.requireImei)
    rules.push(always('3', present('productData.serial')));

  const serviceFlags = reference.serviceType?.properties ?? {};
  if (serviceFlags.requirePurchaseDate)
    rules.push(
      always('6', present('productData.purchaseDate'), { field: 'productData.attachedFiles', must: 'nonEmptyList' }),
    );
  if (serviceFlags.requireInsuranceNumber)
    rules.push(always('7', present('productData.insuranceNumber'), present('productData.insuranceCompany')));

  const shipping = reference.shippingMethod;
  if (shipping) {
    if (shipping.properties?.requirePickupDate !== false) rules.push(always('9', present('orderData.pickupDate')));
    if (shipping.requireWeight) rules.push(always('10', present('productData.weight')));
    if (shipping.requireVolume) rules.push(always('10', present('productData.volume')));
    const goodsTypes = shipping.properties?.goodsTypeList;
    if (goodsTypes) rules.push(always('11', { field: 'orderData.goodsType', must: 'oneOf', options: goodsTypes }));
  }

  if (reference.partnerSettings?.supportsPackaging)
    rules.push({
      rule: '12',
      cases: [{ when: { field: 'orderData.emballage', oneOf: [true] }, demands: [present('orderData.mail')] }],
    });
  // "Certain consents can be mandatory, so the validation will fail if they're false or missing"
  // (the product's Data types page): the partner's list, in the world file.
  const mandatoryConsents = reference.partnerSettings?.mandatoryConsents ?? [];
  if (mandatoryConsents.length > 0)
    rules.push(
      always('mandatory consents', { field: 'orderData.consents', must: 'consented', names: mandatoryConsents }),
    );
  return rules;
}

/** Every rule a booking with these choices and reference records answers to. */
export function bookingRuleSet(choices: RuleChoices, reference: RuleReference): BookingRule[] {
  return [...structuralRuleSet(choices), ACCEPT_CONDITIONS_RULE, ...referenceRuleSet(reference)];
}

export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

const isAbsent = (value: unknown) => value === undefined || value === null;

/** The value at a dotted path of the body; undefined where any step is missing. */
export function valueAt(body: unknown, field: string): unknown {
  let value = body;
  for (const key of field.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function testHolds(body: unknown, test: FieldTest): boolean {
  const value = valueAt(body, test.field);
  if ('nonEmpty' in test) return !!value && typeof value === 'object' && Object.keys(value).length > 0;
  return test.oneOf.includes(value as string | number | boolean);
}

/** The message of a demand the value fails, or null when it keeps it. */
function demandFailure(demand: Demand, value: unknown): string | null {
  switch (demand.must) {
    case 'present':
      return isBlank(value) ? FIELD_MESSAGES.required : null;
    case 'absent':
      return isAbsent(value) ? null : FIELD_MESSAGES.notAccepted;
    case 'unsent':
      return value === undefined ? null : FIELD_MESSAGES.notAccepted;
    case 'true':
      return isAbsent(value) ? FIELD_MESSAGES.required : value === true ? null : FIELD_MESSAGES.mustBeTrue;
    case 'nonEmptyList':
      return Array.isArray(value) && value.length > 0 ? null : FIELD_MESSAGES.required;
    case 'oneOf':
      if (isBlank(value)) return FIELD_MESSAGES.required;
      return demand.options.includes(value as string) ? null : FIELD_MESSAGES.notAnOption;
    case 'consented':
      // Named per consent, not as the whole field: checkRules asks consentFailures.
      return null;
  }
}

/** Each consent of `names` not given in `consents` (`{ name: Boolean }` or the names given), with its message. */
function consentFailures(names: readonly string[], consents: unknown): Array<[string, string]> {
  const given = (name: string): unknown =>
    Array.isArray(consents)
      ? consents.includes(name) || undefined
      : isPlainObject(consents)
        ? consents[name]
        : undefined;
  return names
    .map((name) => [name, demandFailure({ field: name, must: 'true' }, given(name))] as const)
    .filter((entry): entry is [string, string] => entry[1] !== null);
}

function add(details: FieldDetails, field: string, message: string): void {
  const messages = (details[field] ??= []);
  if (!messages.includes(message)) messages.push(message);
}

/** Checks a body against rules: each failing field named with the spec's message. */
export function checkRules(body: BookingBody, rules: readonly BookingRule[]): FieldDetails {
  const details: FieldDetails = {};
  for (const rule of rules) {
    const applied = rule.cases.find((entry) => !entry.when || testHolds(body, entry.when));
    for (const demand of applied?.demands ?? []) {
      if (demand.must === 'consented') {
        // Named per consent, as a field of the consents object: `orderData.consents.ConsentTerms`.
        for (const [name, failure] of consentFailures(demand.names, valueAt(body, demand.field)))
          add(details, `${demand.field}.${name}`, failure);
        continue;
      }
      const failure = demandFailure(demand, valueAt(body, demand.field));
      if (failure) add(details, demand.field, failure);
    }
  }
  return details;
}

/**
 * Which contacts and destinations a body may carry: consumer only when the booking is not
 * private-to-private; pickup/return destinations only from help desks; a custom destination
 * needs its contact and the consumer destination takes none; orderData.files never; rules 4
 * and 5 on every contact. orderData and productData, whose free keys (partnerSpecific,
 * providerSpecific, shipmentData) take any JSON, each at most RECORD_MAX_BYTES as JSON: a case is
 * answered whole, and embedded in each of its invoices.
 */
export function structuralRules(body: BookingBody): FieldDetails {
  const details = checkRules(body, structuralRuleSet(body));
  for (const part of ['orderData', 'productData'] as const)
    if (jsonBytes(body[part]) > RECORD_MAX_BYTES) add(details, part, RECORD_TOO_LARGE);
  return details;
}

/** Rule 8: acceptConditions must be true unless a non-empty consents object is sent. */
export function acceptConditionsRule(body: BookingBody): FieldDetails {
  return checkRules(body, [ACCEPT_CONDITIONS_RULE]);
}

/** Rules 1, 2, 3, 6, 7, 9, 10, 11 and 12, from the reference records the case resolves to. */
export function conditionalRules(body: BookingBody, reference: RuleReference): FieldDetails {
  return checkRules(body, referenceRuleSet(reference));
}

/** Merges detail maps, keeping each field's messages once and in order. */
export function mergeDetails(...maps: FieldDetails[]): FieldDetails {
  const merged: FieldDetails = {};
  for (const map of maps)
    for (const [field, messages] of Object.entries(map)) for (const message of messages) add(merged, field, message);
  return merged;
}
