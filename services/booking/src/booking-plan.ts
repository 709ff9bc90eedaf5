/**
 * Everything a booking needs decided before a case can be written: the body checked against its
 * schema, the structural and conditional rules, its values against what the lookups offer this
 * partner, the shipping method, and the provider (routing, or forcedProvider for accounts allowed
 * to use it). All calls to other services happen here, before any transaction opens.
 */
import type { Context } from 'moleculer';
import { type Caller, FIELD_MESSAGES, type FieldDetails } from '@hub/shared';
import { type BookingBody, checkBookingShape } from './booking-body';
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

export type PlanResult = { details: FieldDetails; body: BookingBody; plan?: undefined } | { details: null; body: BookingBody; plan: BookingPlan };

interface PartyRecord extends Named {
  settings?: { supportsPackaging?: boolean } | null;
}
interface PartiesAnswer {
  partners: PartyRecord[];
  providers: PartyRecord[];
  departments: Array<PartyRecord & { providerId?: number }>;
}
interface RoutingAnswer {
  servicePartner?: Named | null;
  serviceProvider: Named;
  serviceProviderCompetence?: ({ departmentId?: number | null } & Record<string, unknown>) | null;
}
interface BookingReferenceAnswer {
  serviceType?: (LookupOption & { properties?: ServiceTypeFlags | null }) | null;
  manufacturer?: LookupOption | null;
  productType?: (LookupOption & { properties?: ProductTypeFlags | null }) | null;
  serviceLocation?: LookupOption | null;
  shippingMethod?: (LookupOption & ShippingRules) | null;
}

/** A lookup that refuses its parameters offers nothing; any other failure is not the caller's. */
async function offered(ctx: Context, action: string, params: Record<string, unknown>): Promise<LookupOption[]> {
  try {
    const answer = await ctx.call<LookupOption[] | { data: LookupOption[] }, Record<string, unknown>>(action, params);
    return Array.isArray(answer) ? answer : answer?.data ?? [];
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (typeof code === 'number' && code >= 400 && code < 500) return [];
    throw err;
  }
}

const defined = (params: Record<string, unknown>) => Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null));

export async function planBooking(ctx: Context, caller: Caller, raw: unknown): Promise<PlanResult> {
  const { body, details: shapeDetails } = checkBookingShape(raw);
  const details = mergeDetails(shapeDetails, structuralRules(body), acceptConditionsRule(body));
  const valid = (field: string) => !details[field];
  const notAnOption = (field: string) => {
    (details[field] ??= []).push(FIELD_MESSAGES.notAnOption);
  };

  // Names and aliases resolve to records first; each lookup is then asked with the values
  // already found valid, in the order the lookups narrow, and must offer the record's id.
  const sentReference = await ctx.call<BookingReferenceAnswer, Record<string, unknown>>(
    'catalog.bookingReference',
    defined({
      serviceType: valid('serviceType') ? body.serviceType : undefined,
      manufacturer: valid('manufacturer') ? body.manufacturer : undefined,
      productType: valid('productType') ? body.productType : undefined,
      serviceLocation: valid('location') ? body.location : undefined,
      shippingMethod: valid('shipping') ? body.shipping : undefined,
    }),
  );
  let serviceType: LookupOption | undefined;
  let manufacturer: LookupOption | undefined;
  let productType: LookupOption | undefined;
  let serviceLocation: LookupOption | undefined;
  let shippingMethod: LookupOption | null = null;
  let shippingRules: ShippingRules | null = null;
  const pick = async (field: string, resolved: LookupOption | null | undefined, action: string, params: Record<string, unknown>) => {
    if (!valid(field)) return undefined;
    const found = resolved ? findOption(await offered(ctx, action, params), resolved.id) : undefined;
    if (!found) notAnOption(field);
    return found;
  };
  if (valid('originatorType') && valid('bookingType')) {
    const base = defined({
      originatorType: body.originatorType,
      bookingType: body.bookingType,
      clientPostalCode: valid('clientPostalCode') ? body.clientPostalCode : undefined,
    });
    serviceType = await pick('serviceType', sentReference.serviceType, 'catalog.serviceTypes', base);
    manufacturer = await pick('manufacturer', sentReference.manufacturer, 'catalog.manufacturers', defined({ ...base, serviceType: serviceType?.id }));
    if (manufacturer) {
      productType = await pick('productType', sentReference.productType, 'catalog.productTypes', defined({ ...base, serviceType: serviceType?.id, manufacturer: manufacturer.id }));
    }
    if (productType && body.productData?.accessory && valid('productData.accessory')) {
      const accessories = await offered(ctx, 'catalog.accessories', { productType: productType.id });
      for (const id of Object.keys(body.productData.accessory)) {
        if (!findOption(accessories, Number(id))) notAnOption(`productData.accessory.${id}`);
      }
    }
    const located = { ...base, serviceType: serviceType?.id, manufacturer: manufacturer?.id, productType: productType?.id };
    if (serviceType && manufacturer && productType) {
      serviceLocation = await pick('location', sentReference.serviceLocation, 'catalog.serviceLocations', located);
    }
    if (valid('shipping') && serviceLocation) {
      const choice = chooseShipping(await offered(ctx, 'catalog.shippingMethods', { ...located, serviceLocation: serviceLocation.id }), body.shipping);
      if ('error' in choice) notAnOption('shipping');
      else if (choice.method) {
        shippingMethod = choice.method;
        shippingRules = choice.assigned
          ? (await ctx.call<BookingReferenceAnswer, Record<string, unknown>>('catalog.bookingReference', { shippingMethod: choice.method.id })).shippingMethod ?? null
          : sentReference.shippingMethod ?? null;
      }
    }
  }

  const parties = await ctx.call<PartiesAnswer, Record<string, unknown>>('catalog.parties', {
    partnerIds: [caller.partnerId],
    providerIds: body.forcedProvider && valid('forcedProvider') ? [body.forcedProvider] : [],
  });
  const partner = parties.partners[0];
  const ruleDetails = conditionalRules(body, {
    productType: productType ? sentReference.productType : null,
    serviceType: serviceType ? sentReference.serviceType : null,
    shippingMethod: shippingRules,
    partnerSettings: partner?.settings ?? null,
  });

  let forced: Named | undefined;
  if (body.forcedProvider !== undefined && body.forcedProvider !== null && valid('forcedProvider')) {
    if (!caller.canForceProvider) (details.forcedProvider ??= []).push(FIELD_MESSAGES.notAccepted);
    else {
      forced = parties.providers.find((provider) => provider.id === body.forcedProvider);
      if (!forced) notAnOption('forcedProvider');
    }
  }

  const allDetails = mergeDetails(details, ruleDetails);
  if (Object.keys(allDetails).length > 0 || !serviceType || !manufacturer || !productType || !serviceLocation || !partner) {
    return { details: allDetails, body };
  }

  let provider: Named;
  let competence: RoutingAnswer['serviceProviderCompetence'] = null;
  if (forced) {
    provider = forced;
  } else {
    const routed = await ctx.call<RoutingAnswer, Record<string, unknown>>(
      'routing.route',
      defined({
        partnerId: caller.partnerId,
        originatorType: body.originatorType,
        bookingType: body.bookingType,
        serviceType: serviceType.id,
        manufacturer: manufacturer.id,
        productType: productType.id,
        clientPostalCode: body.clientPostalCode,
        serviceLocation: serviceLocation.id,
        model: body.productData.model ?? undefined,
      }),
    );
    provider = routed.serviceProvider;
    competence = routed.serviceProviderCompetence ?? null;
  }

  let department: Named | null = null;
  if (competence?.departmentId) {
    const found = await ctx.call<PartiesAnswer, Record<string, unknown>>('catalog.parties', { departmentIds: [competence.departmentId] });
    const record = found.departments[0];
    if (record) {
      const { providerId: _providerId, ...rest } = record;
      department = rest;
    }
  }

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
      shippingMethod,
      provider: { id: provider.id, name: provider.name },
      department,
      competence,
    },
  };
}
