/**
 * The reference lookups of spec 4.1. Each answers what the calling partner could book with the
 * parameters given: its competences (asked of routing) narrow the reference data. A value that
 * is not in the reference data is a validation error naming the field; a known value nobody
 * can book with gives an empty list.
 */
import type { ActionSchema, Context, Service } from 'moleculer';
import {
  ACCESS,
  callerOf,
  type DbService,
  FIELD_MESSAGES,
  FieldsValidationError,
  findNamed,
  type ParamsOf,
  CHOICE_RULES,
  optionalRule,
  ACTION_TYPES,
  DEFAULT_ACTION_TYPE,
} from '@hub/shared';
import { pickupComment, pickupDates } from './pickup-calendar';
import { type Directory, recordsOf } from './directory.store';
import {
  accessoryOut,
  bookingShipment,
  manufacturerOut,
  type NamedRecord,
  productTypeOut,
  type Reference,
  serviceLocationOut,
  serviceTypeOut,
  type ShipmentContext,
  shippingMethodOut,
  shipsFor,
  tagIdsOf,
} from './reference.store';
import {
  ACCESSORIES,
  MANUFACTURERS,
  PICKUP_DATES,
  PICKUP_DATES_EXTENDED,
  PRODUCT_TYPES,
  SERVICE_LOCATIONS,
  SERVICE_TYPES,
  SHIPPING_METHODS,
} from './responses';

export interface LookupParams {
  originatorType: string;
  bookingType: string;
  serviceType?: number;
  manufacturer?: string;
  productType?: string;
  serviceLocation?: number;
  clientPostalCode?: string;
  /** shipping-methods only: what the shipment is for (see SHIPMENT_PARAMS). */
  tags?: string;
  serviceProviderId?: number;
  departmentId?: number;
  actionType?: string;
}
export type BookingReferenceParams = ParamsOf<typeof BOOKING_REFERENCE_PARAMS>;
export type CheckBookingParams = ParamsOf<typeof CHECK_BOOKING_PARAMS>;
export type PickupDatesParams = ParamsOf<typeof PICKUP_DATES_PARAMS>;

/** What routing's `options` answers: the ids still bookable per list, null meaning any. */
interface Options {
  serviceTypes: number[] | null;
  manufacturers: number[] | null;
  productTypes: number[] | null;
  serviceLocations: number[] | null;
  shippingMethods: number[] | null;
}

/** What routing's `decide` answers: each step's offer (absent: not reached) and its choice. */
interface Decided {
  offered: Partial<Options>;
  decision:
    | { kind: 'chosen'; providerId: number; serviceProviderCompetence: { departmentId: number | null } }
    | { kind: 'notEnoughData'; paramsNeeded: string[] }
    | { kind: 'none' }
    | null;
}

type LookupThis = Service &
  DbService & {
    /** The reference data, read once per world (see the catalog service). */
    reference(): Promise<Reference>;
    /** The directory, read once per world. */
    directory(): Promise<Directory>;
  };

const { originatorType, bookingType, id, idOrName, postalCode } = CHOICE_RULES;
/** v1 lookups took no bookingType: without one, what any booking type allows. */
export const OPTIONAL_BOOKING_TYPE = optionalRule(bookingType);

const PICKUP_DATES_PARAMS = { shippingMethod: id, postalCode } as const;
/**
 * What the shipment a partner asks shipping methods for is: its direction, and the provider,
 * department and tags of its case, each narrowing the methods to those the world allows for it.
 */
const SHIPMENT_PARAMS = {
  tags: CHOICE_RULES.tags,
  serviceProviderId: optionalRule(id),
  departmentId: optionalRule(id),
  actionType: CHOICE_RULES.actionType,
} as const;
const BOOKING_REFERENCE_PARAMS = {
  serviceType: optionalRule(id),
  manufacturer: optionalRule(idOrName),
  productType: optionalRule(idOrName),
  serviceLocation: optionalRule(id),
  shippingMethod: optionalRule(id),
  tags: CHOICE_RULES.tags,
} as const;
const CHECK_BOOKING_PARAMS = {
  partnerId: 'number|integer|positive',
  originatorType: optionalRule(originatorType),
  bookingType: optionalRule(bookingType),
  clientPostalCode: optionalRule(postalCode),
  serviceType: optionalRule(id),
  manufacturer: optionalRule(idOrName),
  productType: optionalRule(idOrName),
  serviceLocation: optionalRule(id),
  model: optionalRule(CHOICE_RULES.model),
  forcedProvider: optionalRule(id),
  route: 'boolean',
} as const;

const LOOKUP_CACHE_KEYS = [
  'originatorType',
  'bookingType',
  'serviceType',
  'manufacturer',
  'productType',
  'serviceLocation',
  'clientPostalCode',
  'tags',
  'serviceProviderId',
  'departmentId',
  'actionType',
  '#caller.partnerId',
];

interface Resolved {
  reference: Reference;
  serviceType?: NamedRecord;
  manufacturer?: NamedRecord;
  productType?: NamedRecord;
  serviceLocation?: NamedRecord;
  options: Options;
  /** What the shipment is for, as the parameters say (shipping-methods). */
  shipment: ShipmentContext;
}

/** Resolves the given values against the reference data, then asks routing what stays bookable. */
async function bookable(service: LookupThis, ctx: Context<LookupParams>): Promise<Resolved | null> {
  const { partnerId } = callerOf(ctx);
  const reference = await service.reference();
  const details: Record<string, string[]> = {};
  const resolve = (field: 'serviceType' | 'manufacturer' | 'productType' | 'serviceLocation', list: NamedRecord[]) => {
    const value = ctx.params[field];
    if (value === undefined) return undefined;
    const found = findNamed(list, value);
    if (!found) details[field] = [FIELD_MESSAGES.notAnOption];
    return found ?? undefined;
  };
  const serviceType = resolve('serviceType', reference.serviceTypes);
  const manufacturer = resolve('manufacturer', reference.manufacturers);
  const productType = resolve('productType', reference.productTypes);
  const serviceLocation = resolve('serviceLocation', reference.serviceLocations);
  const shipment = await shipmentOf(service, ctx.params, details);
  if (Object.keys(details).length) throw new FieldsValidationError(details);
  if (partnerId === null) return null;
  const options = await ctx.call<Options, object>('routing.options', {
    partnerId,
    providerId: shipment.providerId ?? undefined,
    departmentId: shipment.departmentId ?? undefined,
    originatorType: ctx.params.originatorType,
    bookingType: ctx.params.bookingType,
    serviceType: serviceType?.id,
    manufacturer: manufacturer?.id,
    productType: productType?.id,
    serviceLocation: serviceLocation?.id,
    clientPostalCode: ctx.params.clientPostalCode,
  });
  return { reference, serviceType, manufacturer, productType, serviceLocation, options, shipment };
}

/**
 * The shipment a lookup's parameters describe. A provider, department or tag the world does not
 * hold, or a department of another provider, is a field error; a department names its provider.
 */
async function shipmentOf(
  service: LookupThis,
  params: LookupParams,
  details: Record<string, string[]>,
): Promise<ShipmentContext> {
  const { shippingRules } = await service.reference();
  const shipment: ShipmentContext = { actionType: params.actionType ?? DEFAULT_ACTION_TYPE };
  if (params.serviceProviderId === undefined && params.departmentId === undefined && params.tags === undefined)
    return shipment;
  const directory = await service.directory();
  if (params.serviceProviderId !== undefined) {
    if (directory.providers.has(params.serviceProviderId)) shipment.providerId = params.serviceProviderId;
    else details.serviceProviderId = [FIELD_MESSAGES.notAnOption];
  }
  if (params.departmentId !== undefined) {
    const department = directory.departments.get(params.departmentId);
    if (!department || (params.serviceProviderId !== undefined && department.providerId !== params.serviceProviderId))
      details.departmentId = [FIELD_MESSAGES.notAnOption];
    else {
      shipment.departmentId = department.id;
      shipment.providerId = department.providerId;
    }
  }
  if (params.tags !== undefined) {
    const tagIds = tagIdsOf(shippingRules, params.tags);
    if (tagIds === null) details.tags = [FIELD_MESSAGES.notAnOption];
    else shipment.tagIds = tagIds;
  }
  return shipment;
}

/** The shipping methods a competence answer allows that may carry the shipment. */
function shippingMethodsFor(reference: Reference, allowed: number[] | null, shipment: ShipmentContext) {
  return narrow(reference.shippingMethods, allowed, undefined).filter((method) =>
    shipsFor(method, reference.shippingRules, shipment),
  );
}

/** Records still bookable, narrowed to the one the caller named, if any. */
function narrow<T extends { id: number }>(
  records: T[],
  allowed: number[] | null,
  named: { id: number } | undefined,
): T[] {
  return records.filter(
    (record) => (allowed === null || allowed.includes(record.id)) && (!named || named.id === record.id),
  );
}

/** The parameters of a spec 4.1 lookup: the narrowing ones optional unless `required` overrides them. */
const lookupParams = (required: Record<string, unknown> = {}) => ({
  originatorType,
  bookingType,
  serviceType: optionalRule(id),
  manufacturer: optionalRule(idOrName),
  productType: optionalRule(idOrName),
  clientPostalCode: optionalRule(postalCode),
  ...required,
});

/** The API reference's words for a lookup. */
type LookupReference = Pick<ActionSchema, 'summary' | 'response' | 'description'>;

/** What every spec 4.1 lookup says beyond its summary. */
const LOOKUP_DESCRIPTION =
  "Narrowed to what the calling partner's competences can book with the values given. A value the reference data does not hold is a 400 naming the field; a known value nobody can book with answers `[]`. `manufacturer` and `productType` take an id, a name or an alias.";

/** A spec 4.1 lookup: what the calling partner may still book with the parameters given. */
const bookableLookup = (
  path: string,
  { summary, response, description = LOOKUP_DESCRIPTION }: LookupReference,
  params: ActionSchema['params'],
  answer: (found: Resolved) => unknown[],
): ActionSchema<LookupThis> => ({
  rest: `GET /v3/${path}`,
  access: ACCESS.PARTNER,
  summary,
  description,
  response,
  cache: { keys: LOOKUP_CACHE_KEYS },
  params,
  async handler(this: LookupThis, ctx: Context<LookupParams>) {
    const found = await bookable(this, ctx);
    return found ? answer(found) : [];
  },
});

const locationParams = { serviceType: id, manufacturer: idOrName, productType: idOrName };

export const lookupActions: Record<string, ActionSchema<LookupThis>> = {
  manufacturers: bookableLookup(
    'manufacturers',
    { summary: 'Manufacturers the partner can book', response: MANUFACTURERS },
    lookupParams(),
    ({ reference, options, manufacturer }) =>
      narrow(reference.manufacturers, options.manufacturers, manufacturer).map(manufacturerOut),
  ),

  serviceTypes: bookableLookup(
    'service-types',
    { summary: 'Service types the partner can book', response: SERVICE_TYPES },
    lookupParams(),
    ({ reference, options, serviceType }) =>
      narrow(reference.serviceTypes, options.serviceTypes, serviceType).map(serviceTypeOut),
  ),

  productTypes: bookableLookup(
    'product-types',
    { summary: 'Product types the partner can book for a manufacturer', response: PRODUCT_TYPES },
    lookupParams({ manufacturer: idOrName }),
    ({ reference, options, productType }) =>
      narrow(reference.productTypes, options.productTypes, productType).map(productTypeOut),
  ),

  serviceLocations: bookableLookup(
    'service-locations',
    { summary: 'Service locations the partner can book for a combination', response: SERVICE_LOCATIONS },
    lookupParams(locationParams),
    ({ reference, options }) =>
      narrow(reference.serviceLocations, options.serviceLocations, undefined).map(serviceLocationOut),
  ),

  shippingMethods: bookableLookup(
    'shipping-methods',
    {
      summary: 'Shipping methods the partner can book for a combination and shipment',
      description: `${LOOKUP_DESCRIPTION} \`actionType\` is the direction of the shipment (\`inbound\` to the workshop, the default, or \`outbound\` back from it): only methods that ship that way are answered. \`serviceProviderId\` and \`departmentId\` keep only the partner's competences for that provider or department and the methods the world allows it (a department implies its provider); \`tags\` (comma-separated ids or names, case-sensitive) keeps the methods every tag allows. An unknown provider, department or tag, or a department of another provider, is a 400 naming the field.`,
      response: SHIPPING_METHODS,
    },
    lookupParams({ ...locationParams, serviceLocation: id, ...SHIPMENT_PARAMS }),
    ({ reference, options, shipment }) =>
      shippingMethodsFor(reference, options.shippingMethods, shipment).map(shippingMethodOut),
  ),

  accessories: {
    rest: 'GET /v3/accessory',
    access: ACCESS.PARTNER,
    summary: 'Accessories of a product type',
    response: ACCESSORIES,
    cache: { keys: ['productType'] },
    params: { productType: id },
    async handler(this: LookupThis, ctx: Context<{ productType: number }>) {
      const reference = await this.reference();
      if (!reference.productTypes.some((record) => record.id === ctx.params.productType)) {
        throw new FieldsValidationError({ productType: [FIELD_MESSAGES.notAnOption] });
      }
      return reference.accessories
        .filter((record) => record.productTypes.includes(ctx.params.productType))
        .map(accessoryOut);
    },
  },

  pickupDates: {
    rest: 'GET /v3/shipping/pickup-dates',
    access: ACCESS.PARTNER,
    summary: 'Days a shipping method picks up at a postal code',
    description:
      "The shipping method must be one the partner's competences offer; its calendar decides the days (none without one).",
    response: PICKUP_DATES,
    params: PICKUP_DATES_PARAMS,
    async handler(this: LookupThis, ctx: Context<PickupDatesParams>) {
      const dates = await datesFor(this, ctx);
      return dates.map((entry) => `${entry.date}T00:00:00.000Z`);
    },
  },

  pickupDatesExtended: {
    rest: 'GET /v3/shipping/pickup-dates-extended',
    access: ACCESS.PARTNER,
    summary: 'Pickup days with the pickup time of each',
    description: 'The days of `shipping/pickup-dates`, each as a date with a comment on when the carrier comes.',
    response: PICKUP_DATES_EXTENDED,
    params: PICKUP_DATES_PARAMS,
    async handler(this: LookupThis, ctx: Context<PickupDatesParams>) {
      const dates = await datesFor(this, ctx);
      return dates.map((entry) => ({ date: entry.date, comment: pickupComment(entry.window) }));
    },
  },

  /**
   * Internal: the records a booking names, each by id (manufacturer and product type also by
   * name or alias) or null when unknown; `tagIds` the tags a comma-separated list names (null:
   * one is unknown). The shipping method also says whether weight and
   * volume are required; product and service type properties carry the conditional flags.
   */
  bookingReference: {
    visibility: 'public',
    cache: { keys: ['serviceType', 'manufacturer', 'productType', 'serviceLocation', 'shippingMethod', 'tags'] },
    params: BOOKING_REFERENCE_PARAMS,
    async handler(this: LookupThis, ctx: Context<BookingReferenceParams>) {
      const reference = await this.reference();
      const { params } = ctx;
      const byId = <T extends { id: number }>(list: T[], value: number | undefined) =>
        value === undefined ? null : (list.find((record) => record.id === value) ?? null);
      const named = (list: NamedRecord[], value: string | undefined) =>
        value === undefined ? null : findNamed(list, value);
      const serviceType = byId(reference.serviceTypes, params.serviceType);
      const manufacturer = named(reference.manufacturers, params.manufacturer);
      const productType = named(reference.productTypes, params.productType);
      const serviceLocation = byId(reference.serviceLocations, params.serviceLocation);
      const shippingMethod = byId(reference.shippingMethods, params.shippingMethod);
      return {
        tagIds: params.tags === undefined ? undefined : tagIdsOf(reference.shippingRules, params.tags),
        serviceType: serviceType && serviceTypeOut(serviceType),
        manufacturer: manufacturer && manufacturerOut(manufacturer),
        productType: productType && productTypeOut(productType),
        serviceLocation: serviceLocation && serviceLocationOut(serviceLocation),
        shippingMethod: shippingMethod && {
          ...shippingMethodOut(shippingMethod),
          requireWeight: shippingMethod.requireWeight,
          requireVolume: shippingMethod.requireVolume,
        },
      };
    },
  },

  /**
   * Internal: a booking's whole combination checked in one call. Names and aliases resolve to
   * records, routing says what each step of the lookups offers the partner (in the order they
   * narrow) and, when `route` is set and the case names no forced provider, chooses its
   * provider; the directory adds the partner, the forced or chosen provider and its department.
   * A step's record is null when the step was not reached or did not offer the value sent;
   * `reached` says which steps were asked. Nothing here refuses the booking: the booking
   * service turns the answer into its field errors, then into a routing error.
   */
  checkBooking: {
    visibility: 'public',
    params: CHECK_BOOKING_PARAMS,
    async handler(this: LookupThis, ctx: Context<CheckBookingParams>) {
      const { params } = ctx;
      const [reference, directory] = await Promise.all([this.reference(), this.directory()]);
      const sent = {
        serviceType: reference.serviceTypes.find((record) => record.id === params.serviceType),
        manufacturer:
          params.manufacturer === undefined ? null : findNamed(reference.manufacturers, params.manufacturer),
        productType: params.productType === undefined ? null : findNamed(reference.productTypes, params.productType),
        serviceLocation: reference.serviceLocations.find((record) => record.id === params.serviceLocation),
      };
      const { offered, decision }: Decided =
        params.originatorType && params.bookingType
          ? await ctx.call<Decided, object>('routing.decide', {
              partnerId: params.partnerId,
              originatorType: params.originatorType,
              bookingType: params.bookingType,
              clientPostalCode: params.clientPostalCode,
              serviceType: sent.serviceType?.id,
              manufacturer: sent.manufacturer?.id,
              productType: sent.productType?.id,
              serviceLocation: sent.serviceLocation?.id,
              model: params.model,
              route: params.route && params.forcedProvider === undefined,
            })
          : { offered: {}, decision: null };
      const accepted = <T extends { id: number }>(
        record: T | null | undefined,
        allowed: number[] | null | undefined,
      ) => (record && allowed !== undefined && (allowed === null || allowed.includes(record.id)) ? record : null);
      const serviceType = accepted(sent.serviceType, offered.serviceTypes);
      const manufacturer = accepted(sent.manufacturer, offered.manufacturers);
      const productType = accepted(sent.productType, offered.productTypes);
      const serviceLocation = accepted(sent.serviceLocation, offered.serviceLocations);

      const chosen = decision?.kind === 'chosen' ? decision : null;
      const departmentId = chosen?.serviceProviderCompetence.departmentId;
      const partners = recordsOf(directory.partners, [params.partnerId]);
      const forced = params.forcedProvider === undefined ? [] : recordsOf(directory.providers, [params.forcedProvider]);
      const providers = chosen ? recordsOf(directory.providers, [chosen.providerId]) : [];
      const departments = departmentId ? recordsOf(directory.departments, [departmentId]) : [];
      const named = (record: { id: number; name: string } | undefined) =>
        record ? { id: record.id, name: record.name } : null;
      const department = departments.map(({ providerId: _providerId, ...record }) => record)[0] ?? null;
      return {
        reached: {
          serviceType: offered.serviceTypes !== undefined,
          manufacturer: offered.manufacturers !== undefined,
          productType: offered.productTypes !== undefined,
          serviceLocation: offered.serviceLocations !== undefined,
          shippingMethod: offered.shippingMethods !== undefined,
        },
        serviceType: serviceType && serviceTypeOut(serviceType),
        manufacturer: manufacturer && manufacturerOut(manufacturer),
        productType: productType && productTypeOut(productType),
        serviceLocation: serviceLocation && serviceLocationOut(serviceLocation),
        shippingMethods:
          offered.shippingMethods === undefined
            ? null
            : shippingMethodsFor(
                reference,
                offered.shippingMethods,
                bookingShipment(forced[0]?.id ?? chosen?.providerId, forced.length ? null : departmentId),
              ).map((method) => ({
                ...shippingMethodOut(method),
                requireWeight: method.requireWeight,
                requireVolume: method.requireVolume,
              })),
        accessories: productType
          ? reference.accessories.filter((record) => record.productTypes.includes(productType.id)).map(accessoryOut)
          : null,
        partner: partners[0] ? { id: partners[0].id, name: partners[0].name, settings: partners[0].settings } : null,
        forcedProvider: named(forced[0]),
        decision: chosen
          ? {
              kind: 'chosen',
              provider: named(providers[0]) ?? { id: chosen.providerId, name: null },
              department,
              serviceProviderCompetence: chosen.serviceProviderCompetence,
            }
          : decision,
      };
    },
  },

  /** Internal, for booking's commonSearch: the manufacturers', product types' and service types' names by id. */
  lookupNames: {
    visibility: 'public',
    async handler(this: LookupThis) {
      const { manufacturers, productTypes, serviceTypes } = await this.reference();
      const named = (records: NamedRecord[]) => records.map(({ id, name }) => ({ id, name }));
      return {
        manufacturers: named(manufacturers),
        productTypes: named(productTypes),
        serviceTypes: named(serviceTypes),
      };
    },
  },

  /**
   * Internal: the shipping method records of the given ids (all of them for null) that may carry
   * the shipment (routing's answer).
   */
  shippingMethodsById: {
    visibility: 'public',
    cache: { keys: ['ids', 'actionType', 'providerId', 'departmentId', 'tagIds'] },
    params: {
      ids: { type: 'array', items: 'number|integer', nullable: true },
      actionType: { type: 'enum', values: ACTION_TYPES },
      providerId: { type: 'number', integer: true, optional: true, nullable: true },
      departmentId: { type: 'number', integer: true, optional: true, nullable: true },
      tagIds: { type: 'array', items: 'number|integer', optional: true },
    },
    async handler(this: LookupThis, ctx: Context<{ ids: number[] | null } & ShipmentContext>) {
      const { ids, ...shipment } = ctx.params;
      return shippingMethodsFor(await this.reference(), ids, shipment).map(shippingMethodOut);
    },
  },
};

/** The pickup days of a shipping method the calling partner's competences offer. */
async function datesFor(service: LookupThis, ctx: Context<PickupDatesParams>) {
  const { params } = ctx;
  const { partnerId } = callerOf(ctx);
  const { shippingMethods } = await service.reference();
  const method = shippingMethods.find((record) => record.id === params.shippingMethod);
  const offered =
    partnerId === null ? null : (await ctx.call<Options, object>('routing.options', { partnerId })).shippingMethods;
  if (!method || (offered !== null && !offered.includes(method.id)))
    throw new FieldsValidationError({ shippingMethod: [FIELD_MESSAGES.notAnOption] });
  return method.calendar ? pickupDates(method.calendar, params.postalCode, new Date()) : [];
}
