/**
 * Everything a booking needs decided before a case can be written: the body checked against its
 * schema, the structural and conditional rules, its values against what the lookups offer this
 * partner, the shipping method, and the provider (routing, or forcedProvider for accounts allowed
 * to use it). All calls to other services happen here, before any transaction opens.
 */
import type { Context } from 'moleculer';
import {
  type Caller,
  CannotProcessCaseError,
  FIELD_MESSAGES,
  type FieldDetails,
  NotEnoughDataError,
} from '@hub/shared';
import { type BookingBody, checkBookingShape, toStoredForm } from './booking-body';
import { chooseShipping, findOption, type LookupOption } from './booking-options';
import {
  acceptConditionsRule,
  conditionalRules,
  mergeDetails,
  type ProductTypeFlags,
  type ServiceTypeFlags,
  type ShippingRules,
  structuralRules,
} from './booking-rules';
import type { Named } from './case-shape';

export interface BookingPlan {
  body: BookingBody;
  partner: Named;
  manufacturer: LookupOption;
  productType: LookupOption;
  serviceType: LookupOption;
  serviceLocation: LookupOption;
  shippingMethod: LookupOption | null;
  provider: Named;
  department: Named | null;
  competence: Record<string, unknown> | null;
}

export type PlanResult =
  | { details: FieldDetails; body: BookingBody; plan?: undefined }
  | { details: null; body: BookingBody; plan: BookingPlan };

export interface ShippingOption extends LookupOption, ShippingRules {}

/** What catalog.checkBooking answers (see there): the combination resolved, checked and routed. */
export interface CheckedBooking {
  reached: Record<'serviceType' | 'manufacturer' | 'productType' | 'serviceLocation' | 'shippingMethod', boolean>;
  serviceType: (LookupOption & { properties?: ServiceTypeFlags | null }) | null;
  manufacturer: LookupOption | null;
  productType: (LookupOption & { properties?: ProductTypeFlags | null }) | null;
  serviceLocation: LookupOption | null;
  shippingMethods: ShippingOption[] | null;
  accessories: LookupOption[] | null;
  partner: (Named & { settings?: { supportsPackaging?: boolean } | null }) | null;
  forcedProvider: Named | null;
  decision:
    | {
        kind: 'chosen';
        provider: Named;
        department: Named | null;
        serviceProviderCompetence: Record<string, unknown>;
      }
    | { kind: 'notEnoughData'; paramsNeeded: string[] }
    | { kind: 'none' }
    | null;
}

const defined = (params: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null));

/**
 * The records a booking's choices resolve to, each where its lookup step was asked and the value
 * was valid so far, and the shipping method it ships with (sent or assigned); a value the
 * lookups do not offer is named in `details`.
 */
export function offeredChoices(
  checked: CheckedBooking,
  shipping: number | null | undefined,
  valid: (field: string) => boolean,
  details: FieldDetails,
) {
  const notAnOption = (field: string) => {
    (details[field] ??= []).push(FIELD_MESSAGES.notAnOption);
  };
  const pick = <T extends LookupOption>(field: string, step: keyof CheckedBooking['reached'], found: T | null) => {
    if (!valid(field) || !checked.reached[step]) return undefined;
    if (!found) notAnOption(field);
    return found ?? undefined;
  };
  let shippingMethod: ShippingOption | null = null;
  if (valid('shipping') && checked.shippingMethods) {
    const choice = chooseShipping(checked.shippingMethods, shipping);
    if ('error' in choice) notAnOption('shipping');
    else shippingMethod = choice.method;
  }
  return {
    serviceType: pick('serviceType', 'serviceType', checked.serviceType),
    manufacturer: pick('manufacturer', 'manufacturer', checked.manufacturer),
    productType: pick('productType', 'productType', checked.productType),
    serviceLocation: pick('location', 'serviceLocation', checked.serviceLocation),
    shippingMethod,
  };
}

export async function planBooking(ctx: Context, caller: Caller, raw: unknown): Promise<PlanResult> {
  const { body, details: shapeDetails } = checkBookingShape(raw);
  const details = mergeDetails(shapeDetails, structuralRules(body), acceptConditionsRule(body));
  const valid = (field: string) => !details[field];
  const notAnOption = (field: string) => {
    (details[field] ??= []).push(FIELD_MESSAGES.notAnOption);
  };
  const forcing = body.forcedProvider !== undefined && body.forcedProvider !== null && valid('forcedProvider');
  if (forcing && !caller.canForceProvider) (details.forcedProvider ??= []).push(FIELD_MESSAGES.notAccepted);

  // One call checks the whole combination: names and aliases resolve to records, each lookup
  // step must offer the value sent, and (when nothing is wrong so far) routing picks the provider.
  const lookupsApply = valid('originatorType') && valid('bookingType');
  const checked = await ctx.call<CheckedBooking, Record<string, unknown>>(
    'catalog.checkBooking',
    defined({
      partnerId: caller.partnerId,
      originatorType: lookupsApply ? body.originatorType : undefined,
      bookingType: lookupsApply ? body.bookingType : undefined,
      clientPostalCode: valid('clientPostalCode') ? body.clientPostalCode : undefined,
      serviceType: valid('serviceType') ? body.serviceType : undefined,
      manufacturer: valid('manufacturer') ? body.manufacturer : undefined,
      productType: valid('productType') ? body.productType : undefined,
      serviceLocation: valid('location') ? body.location : undefined,
      model: body.productData?.model || undefined,
      forcedProvider: forcing && caller.canForceProvider ? body.forcedProvider : undefined,
      route: Object.keys(details).length === 0,
    }),
  );

  const { serviceType, manufacturer, productType, serviceLocation, shippingMethod } = offeredChoices(
    checked,
    body.shipping,
    valid,
    details,
  );
  if (productType && body.productData?.accessory && valid('productData.accessory')) {
    const sent = body.productData.accessory;
    // Every id sent must be one the product type has, even one marked false.
    for (const id of Array.isArray(sent) ? sent.map(String) : Object.keys(sent)) {
      if (!findOption(checked.accessories ?? [], Number(id))) notAnOption(`productData.accessory.${id}`);
    }
  }

  const { partner } = checked;
  const ruleDetails = conditionalRules(body, {
    productType: productType ? checked.productType : null,
    serviceType: serviceType ? checked.serviceType : null,
    shippingMethod,
    partnerSettings: partner?.settings ?? null,
  });
  const forced = forcing && caller.canForceProvider ? checked.forcedProvider : null;
  if (forcing && caller.canForceProvider && !forced) notAnOption('forcedProvider');

  const allDetails = mergeDetails(details, ruleDetails);
  if (
    Object.keys(allDetails).length > 0 ||
    !serviceType ||
    !manufacturer ||
    !productType ||
    !serviceLocation ||
    !partner
  ) {
    return { details: allDetails, body };
  }

  let provider: Named;
  let department: Named | null = null;
  let competence: Record<string, unknown> | null = null;
  if (forced) {
    provider = forced;
  } else {
    const { decision } = checked;
    if (decision?.kind === 'none') throw new CannotProcessCaseError();
    if (decision?.kind === 'notEnoughData') throw new NotEnoughDataError(decision.paramsNeeded);
    // Every step accepted and nothing was wrong when asked, so routing decided.
    if (decision?.kind !== 'chosen') throw new Error('The booking check did not route a complete case');
    provider = decision.provider;
    department = decision.department;
    competence = decision.serviceProviderCompetence;
  }

  toStoredForm(body);
  return {
    details: null,
    body,
    plan: {
      body,
      partner: { id: partner.id, name: partner.name },
      manufacturer,
      productType,
      serviceType,
      serviceLocation,
      shippingMethod: shippingMethod && withoutShippingRules(shippingMethod),
      provider: { id: provider.id, name: provider.name },
      department,
      competence,
    },
  };
}

/** The shipping method as a case records it, without the booking rules it came with. */
function withoutShippingRules({ requireWeight: _weight, requireVolume: _volume, ...method }: ShippingOption) {
  return method;
}
