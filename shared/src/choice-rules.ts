/**
 * The validation rules of a booking's choice parameters (originator and booking type, the ids or
 * names of what is booked, the postal code, what a shipment is for), one definition for every
 * action that takes them: the lookups, the catalog's booking check and routing. Declared `as const` so ParamsOf can type them.
 */
import { ACTION_TYPES, BOOKING_TYPES, DEFAULT_ACTION_TYPE, ORIGINATOR_TYPES } from './world';

export const CHOICE_RULES = {
  originatorType: { type: 'enum', values: ORIGINATOR_TYPES },
  bookingType: { type: 'enum', values: BOOKING_TYPES },
  id: { type: 'number', integer: true, positive: true },
  // An id or a name; numbers from internal callers become text and are read back as ids.
  idOrName: { type: 'string', min: 1, max: 255, convert: true },
  postalCode: { type: 'string', trim: true, min: 3, max: 10 },
  model: { type: 'string', min: 1, max: 255 },
  /** The direction of a shipment, "inbound" by default. */
  actionType: { type: 'enum', values: ACTION_TYPES, default: DEFAULT_ACTION_TYPE },
  /** A case's tags, comma-separated, each by id or name. */
  tags: { type: 'string', max: 2000, optional: true },
} as const;

/** The rule, with the key allowed to be missing. */
export const optionalRule = <Rule extends object>(rule: Rule) => ({ ...rule, optional: true }) as const;
