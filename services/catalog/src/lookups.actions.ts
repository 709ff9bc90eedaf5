/**
 * The reference lookups of spec 4.1. Each answers what the calling partner could book with the
 * parameters given: its competences (asked of routing) narrow the reference data. A value that
 * is not in the reference data is a validation error naming the field; a known value nobody
 * can book with gives an empty list.
 */
import type { ActionSchema, Context, Service, ServiceActionsSchema } from 'moleculer';
import { ACCESS, callerOf, type DbService, FIELD_MESSAGES, FieldsValidationError, findNamed } from '@hub/shared';
import { pickupComment, pickupDates } from './pickup-calendar';
import {
  accessoryOut,
  loadReference,
  manufacturerOut,
  type NamedRecord,
  productTypeOut,
  type Reference,
  serviceLocationOut,
  serviceTypeOut,
  type ShippingMethodRecord,
  shippingMethodOut,
} from './reference';

export interface LookupParams {
  originatorType: string;
  bookingType: string;
  serviceType?: number;
  manufacturer?: string;
  productType?: string;
  serviceLocation?: number;
  clientPostalCode?: string;
}
export interface BookingReferenceParams {
  serviceType?: number;
  manufacturer?: string;
  productType?: string;
  serviceLocation?: number;
  shippingMethod?: number;
}
export interface PickupDatesParams {
  shippingMethod: number;
  postalCode: string;
}

/** What routing's `options` answers: the ids still bookable per list, null meaning any. */
interface Options {
  serviceTypes: number[] | null;
  manufacturers: number[] | null;
  productTypes: number[] | null;
  serviceLocations: number[] | null;
  shippingMethods: number[] | null;
}

type LookupThis = Service & DbService;

const originatorType = { type: 'enum', values: ['private', 'helpdesk'] };
const bookingType = { type: 'enum', values: ['companyToPrivate', 'privateToPrivate'] };
const id = { type: 'number', integer: true, positive: true };
// An id or a name; numbers from internal callers become text and are read back as ids.
const idOrName = { type: 'string', min: 1, max: 255, convert: true };
const postalCode = { type: 'string', trim: true, min: 3, max: 10 };
const optional = <T extends object>(rule: T) => ({ ...rule, optional: true });

const LOOKUP_CACHE_KEYS = ['originatorType', 'bookingType', 'serviceType', 'manufacturer', 'productType', 'serviceLocation', 'clientPostalCode', '#caller.partnerId'];

interface Resolved {
  reference: Reference;
  serviceType?: NamedRecord;
  manufacturer?: NamedRecord;
  productType?: NamedRecord;
  serviceLocation?: NamedRecord;
  options: Options;
}

/** Resolves the given values against the reference data, then asks routing what stays bookable. */
async function bookable(service: LookupThis, ctx: Context<LookupParams>): Promise<Resolved | null> {
  const { partnerId } = callerOf(ctx);
  const reference = await loadReference(service.db.knex);
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
  if (Object.keys(details).length) throw new FieldsValidationError(details);
  if (partnerId === null) return null;
  const options = await ctx.call<Options, object>('routing.options', {
    partnerId,
    originatorType: ctx.params.originatorType,
    bookingType: ctx.params.bookingType,
    serviceType: serviceType?.id,
    manufacturer: manufacturer?.id,
    productType: productType?.id,
    serviceLocation: serviceLocation?.id,
    clientPostalCode: ctx.params.clientPostalCode,
  });
  return { reference, serviceType, manufacturer, productType, serviceLocation, options };
}

/** Records still bookable, narrowed to the one the caller named, if any. */
function narrow<T extends { id: number }>(records: T[], allowed: number[] | null, named: { id: number } | undefined): T[] {
  return records.filter((record) => (allowed === null || allowed.includes(record.id)) && (!named || named.id === record.id));
}

/** The parameters of a spec 4.1 lookup: the narrowing ones optional unless `required` overrides them. */
const lookupParams = (required: Record<string, unknown> = {}) => ({
  originatorType,
  bookingType,
  serviceType: optional(id),
  manufacturer: optional(idOrName),
  productType: optional(idOrName),
  clientPostalCode: optional(postalCode),
  ...required,
});

/** A spec 4.1 lookup: what the calling partner may still book with the parameters given. */
const bookableLookup = (path: string, params: ActionSchema['params'], answer: (found: Resolved) => unknown[]): ActionSchema => ({
  rest: `GET /v3/${path}`,
  access: ACCESS.PARTNER,
  cache: { keys: LOOKUP_CACHE_KEYS },
  params,
  async handler(this: LookupThis, ctx: Context<LookupParams>) {
    const found = await bookable(this, ctx);
    return found ? answer(found) : [];
  },
});

const locationParams = { serviceType: id, manufacturer: idOrName, productType: idOrName };

export const lookupActions: ServiceActionsSchema = {
  manufacturers: bookableLookup('manufacturers', lookupParams(), ({ reference, options, manufacturer }) =>
    narrow(reference.manufacturers, options.manufacturers, manufacturer).map(manufacturerOut),
  ),

  serviceTypes: bookableLookup('service-types', lookupParams(), ({ reference, options, serviceType }) =>
    narrow(reference.serviceTypes, options.serviceTypes, serviceType).map(serviceTypeOut),
  ),

  productTypes: bookableLookup('product-types', lookupParams({ manufacturer: idOrName }), ({ reference, options, productType }) =>
    narrow(reference.productTypes, options.productTypes, productType).map(productTypeOut),
  ),

  serviceLocations: bookableLookup('service-locations', lookupParams(locationParams), ({ reference, options }) =>
    narrow(reference.serviceLocations, options.serviceLocations, undefined).map(serviceLocationOut),
  ),

  shippingMethods: bookableLookup('shipping-methods', lookupParams({ ...locationParams, serviceLocation: id }), ({ reference, options }) =>
    narrow(reference.shippingMethods, options.shippingMethods, undefined).map(shippingMethodOut),
  ),

  accessories: {
    rest: 'GET /v3/accessory',
    access: ACCESS.PARTNER,
    cache: { keys: ['productType'] },
    params: { productType: id },
    async handler(this: LookupThis, ctx: Context<{ productType: number }>) {
      const reference = await loadReference(this.db.knex);
      if (!reference.productTypes.some((record) => record.id === ctx.params.productType)) {
        throw new FieldsValidationError({ productType: [FIELD_MESSAGES.notAnOption] });
      }
      return reference.accessories.filter((record) => record.productTypes.includes(ctx.params.productType)).map(accessoryOut);
    },
  },

  pickupDates: {
    rest: 'GET /v3/shipping/pickup-dates',
    access: ACCESS.PARTNER,
    params: { shippingMethod: id, postalCode },
    async handler(this: LookupThis, ctx: Context<PickupDatesParams>) {
      const dates = await datesFor(this, ctx);
      return dates.map((entry) => `${entry.date}T00:00:00.000Z`);
    },
  },

  pickupDatesExtended: {
    rest: 'GET /v3/shipping/pickup-dates-extended',
    access: ACCESS.PARTNER,
    params: { shippingMethod: id, postalCode },
    async handler(this: LookupThis, ctx: Context<PickupDatesParams>) {
      const dates = await datesFor(this, ctx);
      return dates.map((entry) => ({ date: entry.date, comment: pickupComment(entry.window) }));
    },
  },

  /**
   * Internal: the records a booking names, each by id (manufacturer and product type also by
   * name or alias) or null when unknown. The shipping method also says whether weight and
   * volume are required; product and service type properties carry the conditional flags.
   */
  bookingReference: {
    visibility: 'public',
    cache: { keys: ['serviceType', 'manufacturer', 'productType', 'serviceLocation', 'shippingMethod'] },
    params: {
      serviceType: optional(id),
      manufacturer: optional(idOrName),
      productType: optional(idOrName),
      serviceLocation: optional(id),
      shippingMethod: optional(id),
    },
    async handler(this: LookupThis, ctx: Context<BookingReferenceParams>) {
      const reference = await loadReference(this.db.knex);
      const { params } = ctx;
      const byId = <T extends { id: number }>(list: T[], value: number | undefined) => (value === undefined ? null : list.find((record) => record.id === value) ?? null);
      const named = (list: NamedRecord[], value: string | undefined) => (value === undefined ? null : findNamed(list, value));
      const serviceType = byId(reference.serviceTypes, params.serviceType);
      const manufacturer = named(reference.manufacturers, params.manufacturer);
      const productType = named(reference.productTypes, params.productType);
      const serviceLocation = byId(reference.serviceLocations, params.serviceLocation);
      const shippingMethod = byId(reference.shippingMethods, params.shippingMethod);
      return {
        serviceType: serviceType && serviceTypeOut(serviceType),
        manufacturer: manufacturer && manufacturerOut(manufacturer),
        productType: productType && productTypeOut(productType),
        serviceLocation: serviceLocation && serviceLocationOut(serviceLocation),
        shippingMethod: shippingMethod && { ...shippingMethodOut(shippingMethod), requireWeight: shippingMethod.requireWeight, requireVolume: shippingMethod.requireVolume },
      };
    },
  },

  /** Internal: shipping method records by id, all of them for null (routing's answer). */
  shippingMethodsById: {
    visibility: 'public',
    cache: { keys: ['ids'] },
    params: { ids: { type: 'array', items: 'number|integer', nullable: true } },
    async handler(this: LookupThis, ctx: Context<{ ids: number[] | null }>) {
      const { shippingMethods } = await loadReference(this.db.knex);
      const { ids } = ctx.params;
      return shippingMethods.filter((record: ShippingMethodRecord) => ids === null || ids.includes(record.id)).map(shippingMethodOut);
    },
  },
};

/** The pickup days of a shipping method the calling partner's competences offer. */
async function datesFor(service: LookupThis, ctx: Context<PickupDatesParams>) {
  const { params } = ctx;
  const { partnerId } = callerOf(ctx);
  const { shippingMethods } = await loadReference(service.db.knex);
  const method = shippingMethods.find((record) => record.id === params.shippingMethod);
  const offered = partnerId === null ? null : (await ctx.call<Options, object>('routing.options', { partnerId })).shippingMethods;
  if (!method || (offered !== null && !offered.includes(method.id))) throw new FieldsValidationError({ shippingMethod: [FIELD_MESSAGES.notAnOption] });
  return method.calendar ? pickupDates(method.calendar, params.postalCode, new Date()) : [];
}
