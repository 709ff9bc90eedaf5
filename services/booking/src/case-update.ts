/**
 * case/update and case/append: the parts of a case they change and how those are checked. The
 * changed case is checked as a booking would be (the booking body schema, the structural rules
 * and the conditional rules against the case's reference records), and only the failures under
 * the parts sent are reported: what changes is validated, not what was already stored.
 */
import type { Context } from 'moleculer';
import { type ContactDataIn, FIELD_MESSAGES, type FieldDetails } from '@hub/shared';
import { checkBookingShape, toStoredForm } from './booking-body';
import { conditionalRules, mergeDetails, type RuleReference, structuralRules } from './booking-rules';
import type { CaseRow } from './case-shape';

export const CONTACT_PARTS = ['customer', 'consumer', 'pickupDst', 'returnDst'] as const;
export const UPDATE_PARTS = ['orderData', 'productData', ...CONTACT_PARTS] as const;
export type UpdatePart = (typeof UPDATE_PARTS)[number];

/** orderData keys only the hub sets: booking parameters, files and the lifecycle flags. */
export const HUB_ORDER_KEYS = [
  'files',
  'bookingType',
  'originatorType',
  'clientPostalCode',
  'pickupDestination',
  'returnDestination',
  'integrationsFinished',
  'serviceProviderExportStatus',
  'cancelReason',
];

/**
 * orderData keys each party keeps for itself: the other party's update or append leaves them as
 * stored, so a partner replacing orderData cannot wipe what the provider keeps there, nor the
 * other way round.
 */
export const PARTY_ORDER_KEYS: Record<'partner' | 'provider', string[]> = {
  partner: ['partnerSpecific', 'partnerOrderReference'],
  provider: ['providerSpecific', 'providerOrderReference'],
};

type Data = Record<string, unknown>;

export interface CaseParts {
  orderData: Data;
  productData: Data;
  customer: ContactDataIn | null;
  consumer: ContactDataIn | null;
  pickupDst: ContactDataIn | null;
  returnDst: ContactDataIn | null;
}

export type SentParts = Partial<Record<UpdatePart, Data | null>>;

const isObject = (value: unknown): value is Data =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const pickKeys = (data: Data, keys: string[]) =>
  Object.fromEntries(Object.entries(data).filter(([key]) => keys.includes(key)));
const omitKeys = (data: Data, keys: string[]) =>
  Object.fromEntries(Object.entries(data).filter(([key]) => !keys.includes(key)));

/**
 * The parts after the change by `party`: `replace` puts each part sent in place of the stored
 * one, `merge` sets the keys sent on it (one level deep; a key sent as null becomes null). The
 * hub's own orderData keys, and those the other party keeps, always stay as stored.
 */
export function nextParts(
  stored: CaseParts,
  sent: SentParts,
  mode: 'replace' | 'merge',
  party: 'partner' | 'provider' | null = null,
): CaseParts {
  const next = { ...stored } as Record<UpdatePart, Data | null>;
  for (const part of UPDATE_PARTS) {
    const value = sent[part];
    if (value === undefined) continue;
    const current = stored[part] as Data | null;
    next[part] = mode === 'merge' && isObject(value) && isObject(current) ? { ...current, ...value } : value;
  }
  const keptKeys = [
    ...HUB_ORDER_KEYS,
    ...(party ? PARTY_ORDER_KEYS[party === 'partner' ? 'provider' : 'partner'] : []),
  ];
  next.orderData = { ...omitKeys(next.orderData ?? {}, keptKeys), ...pickKeys(stored.orderData, keptKeys) };
  next.productData ??= {};
  return next as unknown as CaseParts;
}

/** The case, as parts, in the case/create body form the booking checks read. */
export function bookingBodyOf(row: CaseRow, parts: CaseParts): Data {
  const order = parts.orderData;
  const helpdesk = order.originatorType === 'helpdesk';
  const body: Data = {
    serviceType: row.service_type_id,
    manufacturer: row.manufacturer_id,
    productType: row.product_type_id,
    location: row.service_location_id,
    clientPostalCode: order.clientPostalCode,
    originatorType: order.originatorType,
    bookingType: order.bookingType,
    acceptConditions: true,
    customer: parts.customer,
    orderData: omitKeys(order, HUB_ORDER_KEYS),
    productData: parts.productData,
  };
  if (row.shipping_method_id !== null) body.shipping = row.shipping_method_id;
  if (helpdesk) {
    body.pickupDestination = order.pickupDestination;
    body.returnDestination = order.returnDestination;
  }
  for (const part of ['consumer', 'pickupDst', 'returnDst'] as const)
    if (parts[part] !== null) body[part] = parts[part];
  return body;
}

const under = (field: string, parts: string[]) =>
  parts.some((part) => field === part || field.startsWith(`${part}.`) || field.startsWith(`${part}[`));

/**
 * Checks the changed case; answers the parts as they will be stored (unexpected fields
 * discarded, numbers and booleans converted) and the failures under the parts sent.
 */
export function checkUpdate(
  row: CaseRow,
  parts: CaseParts,
  sent: SentParts,
  reference: RuleReference,
): { parts: CaseParts; details: FieldDetails } {
  const { body, details: shape } = checkBookingShape(bookingBodyOf(row, parts));
  const all = mergeDetails(shape, structuralRules(body), conditionalRules(body, reference));
  const sentParts = UPDATE_PARTS.filter((part) => sent[part] !== undefined);
  const details: FieldDetails = Object.fromEntries(Object.entries(all).filter(([field]) => under(field, sentParts)));
  if (isObject(sent.orderData) && sent.orderData.files !== undefined)
    details['orderData.files'] = [FIELD_MESSAGES.notAccepted];
  toStoredForm(body);
  return {
    details,
    parts: {
      orderData: { ...(body.orderData as Data), ...pickKeys(parts.orderData, HUB_ORDER_KEYS) },
      productData: body.productData as Data,
      customer: body.customer ?? null,
      consumer: body.consumer ?? null,
      pickupDst: body.pickupDst ?? null,
      returnDst: body.returnDst ?? null,
    },
  };
}

interface ReferenceAnswer {
  serviceType?: RuleReference['serviceType'];
  productType?: RuleReference['productType'];
  shippingMethod?: RuleReference['shippingMethod'];
}

/** The reference records the case's conditional rules read, asked of the catalog. */
export async function ruleReferenceOf(ctx: Context, row: CaseRow): Promise<RuleReference> {
  const reference = await ctx.call<ReferenceAnswer, Data>('catalog.bookingReference', {
    serviceType: row.service_type_id,
    productType: row.product_type_id,
    ...(row.shipping_method_id !== null ? { shippingMethod: row.shipping_method_id } : {}),
  });
  const parties = await ctx.call<{ partners: Array<{ settings?: RuleReference['partnerSettings'] }> }, Data>(
    'catalog.parties',
    { partnerIds: [row.partner_id] },
  );
  return {
    productType: reference.productType ?? null,
    serviceType: reference.serviceType ?? null,
    shippingMethod: row.shipping_method_id !== null ? (reference.shippingMethod ?? null) : null,
    partnerSettings: parties.partners[0]?.settings ?? null,
  };
}
