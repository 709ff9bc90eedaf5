/**
 * The routing rules as pure functions: which competences match a set of case parameters, what
 * they leave open for the lookups, and which one gets the case.
 *
 * A competence list that is absent (null) accepts any value. A competence that names `models`
 * applies only when the case names one of those models. Among matching competences the best is
 * primary first, then the more specific (model-specific, then more constrained dimensions), then
 * the higher priority, then the lower id. When a parameter the case leaves open could still make
 * another competence win, the choice is not made and that parameter is needed.
 */

export interface PostalRange {
  from: string;
  to: string;
}

export interface Competence {
  id: number;
  partnerId: number;
  providerId: number;
  departmentId: number | null;
  originatorTypes: string[] | null;
  bookingTypes: string[] | null;
  serviceTypes: number[] | null;
  manufacturers: number[] | null;
  productTypes: number[] | null;
  serviceLocations: number[] | null;
  shippingMethods: number[] | null;
  postalCodes: PostalRange[] | null;
  models: string[] | null;
  priority: number;
  primary: boolean;
  sesam: string | null;
  persDep: string | null;
  overrideCode: string | null;
  partnerCompetence: ({ id: number; overrideCode?: string | null } & Record<string, unknown>) | null;
}

export interface RouteInput {
  originatorType?: string;
  bookingType?: string;
  serviceType?: number;
  manufacturer?: number;
  productType?: number;
  clientPostalCode?: string;
  serviceLocation?: number;
  /** Every name the case's model is known by (its registry name and what the case sent). */
  modelNames?: string[];
  /** Only competences of this provider, of this department (a lookup for one provider's shipping). */
  providerId?: number;
  departmentId?: number;
}

type ListDimension =
  'originatorType' | 'bookingType' | 'serviceType' | 'manufacturer' | 'productType' | 'serviceLocation';
type ListField =
  'originatorTypes' | 'bookingTypes' | 'serviceTypes' | 'manufacturers' | 'productTypes' | 'serviceLocations';

/** The routing parameters in the spec's order, each with the competence list it is checked against. */
const LIST_DIMENSIONS: Array<[ListDimension, ListField]> = [
  ['originatorType', 'originatorTypes'],
  ['bookingType', 'bookingTypes'],
  ['serviceType', 'serviceTypes'],
  ['manufacturer', 'manufacturers'],
  ['productType', 'productTypes'],
];

/** Parameter names in the order the spec lists routing inputs. */
export const ROUTING_PARAMS = [
  'originatorType',
  'bookingType',
  'serviceType',
  'manufacturer',
  'productType',
  'clientPostalCode',
  'serviceLocation',
] as const;

function normalizePostalCode(code: string): string {
  return code.replace(/\s+/g, '').toUpperCase();
}

/** Compares postal codes numerically when both are digits (so "11120" is after "4999"), else as text. */
export function comparePostalCodes(a: string, b: string): number {
  const left = normalizePostalCode(a);
  const right = normalizePostalCode(b);
  if (/^\d+$/.test(left) && /^\d+$/.test(right)) return Number(left) - Number(right);
  return left < right ? -1 : left > right ? 1 : 0;
}

export function postalCodeInRange(code: string, range: PostalRange): boolean {
  return comparePostalCodes(range.from, code) <= 0 && comparePostalCodes(code, range.to) <= 0;
}

function listAccepts<T>(list: T[] | null, value: T | undefined): boolean {
  return value === undefined || list === null || list.includes(value);
}

function modelAccepts(competence: Competence, modelNames: string[] | undefined): boolean {
  if (competence.models === null || competence.models.length === 0) return true;
  if (!modelNames?.length) return false;
  const wanted = new Set(modelNames.map((name) => name.trim().toLowerCase()));
  return competence.models.some((name) => wanted.has(name.trim().toLowerCase()));
}

/**
 * Whether a competence accepts every parameter the input gives, the model aside. Spelled out
 * field by field: this runs once per competence per decision, and named property reads are
 * several times faster than reads keyed by a variable.
 */
function acceptsParams(competence: Competence, input: RouteInput): boolean {
  return (
    listAccepts(competence.originatorTypes, input.originatorType) &&
    listAccepts(competence.bookingTypes, input.bookingType) &&
    listAccepts(competence.serviceTypes, input.serviceType) &&
    listAccepts(competence.manufacturers, input.manufacturer) &&
    listAccepts(competence.productTypes, input.productType) &&
    listAccepts(competence.serviceLocations, input.serviceLocation) &&
    (input.providerId === undefined || competence.providerId === input.providerId) &&
    (input.departmentId === undefined || competence.departmentId === input.departmentId) &&
    (input.clientPostalCode === undefined ||
      competence.postalCodes === null ||
      competence.postalCodes.some((range) => postalCodeInRange(input.clientPostalCode!, range)))
  );
}

export function matches(competence: Competence, input: RouteInput): boolean {
  return acceptsParams(competence, input) && modelAccepts(competence, input.modelNames);
}

export interface Options {
  serviceTypes: number[] | null;
  manufacturers: number[] | null;
  productTypes: number[] | null;
  serviceLocations: number[] | null;
  shippingMethods: number[] | null;
}

/**
 * What the competences matching the input still allow in each list, null meaning any value.
 * Model-specific competences count: a lookup names no model, and the case may name a matching one.
 */
export function options(competences: Competence[], input: RouteInput): Options {
  const fields = ['serviceTypes', 'manufacturers', 'productTypes', 'serviceLocations', 'shippingMethods'] as const;
  const sets = Object.fromEntries(fields.map((field) => [field, new Set<number>()])) as Record<
    (typeof fields)[number],
    Set<number> | null
  >;
  for (const competence of competences) {
    if (!acceptsParams(competence, input)) continue;
    for (const field of fields) {
      const list = competence[field];
      if (list === null) sets[field] = null;
      else list.forEach((value) => sets[field]?.add(value));
    }
  }
  const sorted = (set: Set<number> | null) => (set === null ? null : [...set].sort((a, b) => a - b));
  return {
    serviceTypes: sorted(sets.serviceTypes),
    manufacturers: sorted(sets.manufacturers),
    productTypes: sorted(sets.productTypes),
    serviceLocations: sorted(sets.serviceLocations),
    shippingMethods: sorted(sets.shippingMethods),
  };
}

/** What each step of a booking's check offered; a step left undefined was not reached. */
export type Offered = Partial<Options>;

/**
 * What a booking's values leave bookable, step by step in the order the lookups narrow: each
 * list is asked with the values before it that the competences accept, and a step is reached
 * only once the values it depends on are accepted (product type after manufacturer; location
 * after service type, manufacturer and product type; shipping after location). `accepted` holds
 * the values the competences took.
 */
export function narrowBooking(
  competences: Competence[],
  input: RouteInput,
): { offered: Offered; accepted: RouteInput } {
  const accept = (allowed: number[] | null, value: number | undefined) =>
    value !== undefined && (allowed === null || allowed.includes(value)) ? value : undefined;
  const accepted: RouteInput = {
    originatorType: input.originatorType,
    bookingType: input.bookingType,
    clientPostalCode: input.clientPostalCode,
  };
  const offered: Offered = {};
  offered.serviceTypes = options(competences, accepted).serviceTypes;
  accepted.serviceType = accept(offered.serviceTypes, input.serviceType);
  offered.manufacturers = options(competences, accepted).manufacturers;
  accepted.manufacturer = accept(offered.manufacturers, input.manufacturer);
  if (accepted.manufacturer === undefined) return { offered, accepted };
  offered.productTypes = options(competences, accepted).productTypes;
  accepted.productType = accept(offered.productTypes, input.productType);
  if (accepted.serviceType === undefined || accepted.productType === undefined) return { offered, accepted };
  offered.serviceLocations = options(competences, accepted).serviceLocations;
  accepted.serviceLocation = accept(offered.serviceLocations, input.serviceLocation);
  if (accepted.serviceLocation === undefined) return { offered, accepted };
  offered.shippingMethods = options(competences, accepted).shippingMethods;
  return { offered, accepted };
}

function constrainedDimensions(competence: Competence): number {
  let count = 0;
  for (const [, field] of LIST_DIMENSIONS) if (competence[field] !== null) count += 1;
  if (competence.serviceLocations !== null) count += 1;
  if (competence.postalCodes !== null) count += 1;
  return count;
}

const isModelSpecific = (competence: Competence) => competence.models !== null && competence.models.length > 0;

function listCovers<T>(outer: T[] | null, inner: T[] | null): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((value) => outer.includes(value));
}

function rangesCover(outer: PostalRange[] | null, inner: PostalRange[] | null): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((range) =>
    outer.some((wide) => comparePostalCodes(wide.from, range.from) <= 0 && comparePostalCodes(range.to, wide.to) <= 0),
  );
}

export type Choice =
  { kind: 'chosen'; competence: Competence } | { kind: 'notEnoughData'; paramsNeeded: string[] } | { kind: 'none' };

/**
 * The best matching competence, if no value of an open parameter could let another one win: that
 * holds when, on each open parameter, the best accepts every value any other candidate accepts.
 */
export function choose(competences: Competence[], input: RouteInput): Choice {
  const matching = competences.filter((competence) => matches(competence, input));
  if (matching.length === 0) return { kind: 'none' };
  // Ranking reads each competence's specificity once, not once per comparison.
  const specificity = new Map(matching.map((competence) => [competence, constrainedDimensions(competence)]));
  const candidates = matching.sort(
    (a, b) =>
      Number(b.primary) - Number(a.primary) ||
      Number(isModelSpecific(b)) - Number(isModelSpecific(a)) ||
      specificity.get(b)! - specificity.get(a)! ||
      b.priority - a.priority ||
      a.id - b.id,
  );
  const [best, ...others] = candidates;
  const open = LIST_DIMENSIONS.filter(([param]) => input[param] === undefined);
  const needed = new Set<string>();
  for (const other of others) {
    for (const [param, field] of open) {
      if (!needed.has(param) && !listCovers<string | number>(best[field], other[field])) needed.add(param);
    }
    if (
      input.clientPostalCode === undefined &&
      !needed.has('clientPostalCode') &&
      !rangesCover(best.postalCodes, other.postalCodes)
    )
      needed.add('clientPostalCode');
    if (
      input.serviceLocation === undefined &&
      !needed.has('serviceLocation') &&
      !listCovers(best.serviceLocations, other.serviceLocations)
    )
      needed.add('serviceLocation');
  }
  if (needed.size) return { kind: 'notEnoughData', paramsNeeded: ROUTING_PARAMS.filter((param) => needed.has(param)) };
  return { kind: 'chosen', competence: best };
}
