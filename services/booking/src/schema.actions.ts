/** The booking schema (docs/cases.md): the JSON Schema of the case/create body for one combination of choices. */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type CallerMeta,
  callerOf,
  FIELD_MESSAGES,
  type FieldDetails,
  FieldsValidationError,
} from '@hub/shared';
import { BOOKING_BODY_SCHEMA, type BookingBody } from './booking-body';
import { type CheckedBooking, offeredChoices } from './booking-plan';
import { bookingRuleSet } from './booking-rules';
import { bookingSchema, JSON_SCHEMA_DIALECT } from './booking-schema';
import type { BookingThis } from './booking.types';

/** The choices of a booking, as its body names them (and clientPostalCode, which routing reads). */
export type BookingSchemaParams = Pick<
  BookingBody,
  'serviceType' | 'manufacturer' | 'productType' | 'location' | 'shipping' | 'originatorType' | 'bookingType'
> & { clientPostalCode?: string };

const { serviceType, manufacturer, productType, location, shipping, originatorType, bookingType, clientPostalCode } =
  BOOKING_BODY_SCHEMA;

const CHOICE_FIELDS = ['serviceType', 'manufacturer', 'productType', 'location'] as const;

export const schemaActions: Record<string, ActionSchema<BookingThis>> = {
  schema: {
    rest: 'GET /v3/case/schema',
    access: ACCESS.PARTNER,
    summary: 'The JSON Schema of the booking body for these choices',
    description:
      'Takes the choices of a booking as case/create does, and answers the JSON Schema (2020-12) of the body case/create ' +
      'and case/validate accept for them: the booking rules resolved (`if`/`then`/`else` where a rule depends on the ' +
      "body's own values) and the option lists filled from the lookups. A choice the lookups do not offer is a 400 naming it.",
    params: {
      serviceType,
      manufacturer,
      productType,
      location,
      shipping,
      originatorType,
      bookingType,
      clientPostalCode: { ...clientPostalCode, optional: true },
    },
    response: {
      description: 'A JSON Schema (2020-12) of the case/create body',
      type: 'object',
      required: ['$schema', 'type', 'properties', 'required'],
      properties: {
        $schema: { const: JSON_SCHEMA_DIALECT },
        title: { type: 'string' },
        description: { type: 'string' },
        type: { const: 'object' },
        properties: { type: 'object', description: 'Each field of the body, with the options the lookups offer' },
        required: { type: 'array', items: { type: 'string' } },
        allOf: {
          type: 'array',
          description: 'The booking rules that depend on the values of the body, as `if`/`then`/`else`',
          items: { type: 'object' },
        },
      },
      examples: [
        {
          $schema: JSON_SCHEMA_DIALECT,
          title: 'case/create body',
          type: 'object',
          properties: { serviceType: { const: 2 }, productData: { type: 'object', properties: {} } },
          required: ['serviceType', 'productData'],
        },
      ],
    },
    async handler(this: BookingThis, ctx: Context<BookingSchemaParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const choices = ctx.params;
      const checked = await ctx.call<CheckedBooking, Record<string, unknown>>('catalog.checkBooking', {
        partnerId: caller.partnerId,
        originatorType: choices.originatorType,
        bookingType: choices.bookingType,
        ...(choices.clientPostalCode !== undefined ? { clientPostalCode: choices.clientPostalCode } : {}),
        serviceType: choices.serviceType,
        manufacturer: choices.manufacturer,
        productType: choices.productType,
        serviceLocation: choices.location,
        route: false,
      });
      const details: FieldDetails = {};
      const resolved = offeredChoices(checked, choices.shipping, () => true, details);
      const records = {
        serviceType: resolved.serviceType,
        manufacturer: resolved.manufacturer,
        productType: resolved.productType,
        location: resolved.serviceLocation,
      };
      // Past a choice not offered the lookups stop; a step they did not reach otherwise offers nothing.
      if (Object.keys(details).length === 0)
        for (const field of CHOICE_FIELDS) if (!records[field]) details[field] = [FIELD_MESSAGES.notAnOption];
      if (Object.keys(details).length) throw new FieldsValidationError(details);

      const providers = caller.canForceProvider
        ? await ctx.call<Array<{ id: number }>, Record<string, never>>('catalog.providers', {})
        : null;
      const reference = {
        productType: checked.productType,
        serviceType: checked.serviceType,
        shippingMethod: resolved.shippingMethod,
        partnerSettings: checked.partner?.settings ?? null,
      };
      return bookingSchema(
        {
          originatorType: choices.originatorType,
          bookingType: choices.bookingType,
          serviceType: records.serviceType!,
          manufacturer: records.manufacturer!,
          productType: records.productType!,
          serviceLocation: records.location!,
          shippingMethod: resolved.shippingMethod,
          shippingNamed: choices.shipping !== undefined && choices.shipping !== null,
          clientPostalCode: choices.clientPostalCode,
          accessories: checked.accessories ?? [],
          forcedProviders: providers && providers.map((provider) => provider.id),
        },
        bookingRuleSet(choices, reference),
      );
    },
  },
};
