/**
 * The older paths of booking's actions that the product's documentation describes: v1's (the
 * root "Service order API" and "Service provider API" pages, and the v1 "Working with cases"
 * page) and v2's (the v2 forms of today's pages). Where they named or answered differently, the
 * difference is here; everything else is the v3 action as it is.
 */
import { ERROR_TYPES, type OlderForm, type OlderPaths } from '@hub/shared';
import type { BookingThis } from './booking.types';
import { CREATED_WITH_ID, VALIDATED_V1 } from './responses';

/** v1 and v2 booked with `order` and `product`, renamed `orderData` and `productData` in v3. */
const BOOKING_NAMES = { orderData: 'order', productData: 'product' };

/** v1 and v2 answered a booking with the case's id beside its guid (v3 dropped the id). */
const CREATE_WITH_ID: OlderForm = {
  renamed: BOOKING_NAMES,
  response: CREATED_WITH_ID,
  async answer(this: BookingThis, created: { guid: string }) {
    const row = (await this.db.knex('booking.cases').where({ guid: created.guid }).first('id')) as { id: number };
    return { id: row.id, guid: created.guid };
  },
};

/**
 * v1 validation answered 200 either way: `{ result: true }`, or `{ result: false, message,
 * validation }` with the messages per field that v2 and v3 answer as a 400.
 */
const V1_VALIDATE: OlderForm = {
  renamed: BOOKING_NAMES,
  response: VALIDATED_V1,
  answer: () => ({ result: true }),
  failure(error: { type?: string; message: string; data?: { details?: Record<string, string[]> } }) {
    if (error.type !== ERROR_TYPES.FIELDS_VALIDATION) return undefined;
    return { result: false, message: error.message, validation: error.data?.details ?? {} };
  },
};

export const BOOKING_OLDER_PATHS: OlderPaths = {
  validate: { v1: V1_VALIDATE, v2: { renamed: BOOKING_NAMES } },
  create: { v1: CREATE_WITH_ID, v2: CREATE_WITH_ID },
  read: { v1: {}, v2: {} },
  search: { v1: {}, v2: {} },
  accept: { v1: {}, v2: {} },
  cancel: { v1: {}, v2: {} },
  unexported: { v1: {}, v2: {} },
  export: { v2: {} },
  update: { v1: {}, v2: {} },
  finish: { v2: {} },
  addStatus: { v1: {}, v2: {} },
  uploadFiles: { v1: {}, v2: {} },
  shippingLabel: { v1: {}, v2: {} },
  notifications: { v2: {} },
  sendCompletedEmail: { v2: {} },
  logRequest: { v2: {} },
};
