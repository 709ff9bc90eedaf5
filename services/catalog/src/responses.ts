/**
 * What the catalog's endpoints answer, for the API reference (each action's `response`); the
 * records other services answer too come from `@hub/shared`'s shapes.
 */
import {
  ACCESSORY,
  arrayOf,
  DEPARTMENT,
  ID,
  type JsonSchema,
  MANUFACTURER,
  PARTY,
  PRODUCT_TYPE,
  record,
  SERVICE_LOCATION,
  SERVICE_TYPE,
  SHIPPING_METHOD,
  TIMESTAMP,
} from '@hub/shared';

export const MANUFACTURERS = arrayOf(MANUFACTURER);
export const SERVICE_TYPES = arrayOf(SERVICE_TYPE);
export const PRODUCT_TYPES = arrayOf(PRODUCT_TYPE);
export const SERVICE_LOCATIONS = arrayOf(SERVICE_LOCATION);
export const SHIPPING_METHODS = arrayOf(SHIPPING_METHOD);
export const ACCESSORIES = arrayOf(ACCESSORY);

export const PICKUP_DATES: JsonSchema = {
  ...arrayOf(TIMESTAMP, 'Each pickup day at midnight UTC'),
  examples: [['2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z']],
};

export const PICKUP_DATES_EXTENDED: JsonSchema = {
  ...arrayOf(
    record({
      date: { type: 'string', format: 'date' },
      comment: { type: 'string', description: 'When the carrier picks up that day' },
    }),
  ),
  examples: [[{ date: '2026-11-25', comment: 'Pickup between 08:00 and 12:00' }]],
};

export const ONE_PARTY = PARTY;
export const PARTIES = arrayOf(PARTY);
export const ONE_DEPARTMENT: JsonSchema = {
  ...record({ data: DEPARTMENT }),
  examples: [
    {
      data: {
        id: 101,
        name: 'NRC Oslo',
        contactData: null,
        externalData: { sesamDepartment: 'OSL-1' },
      },
    },
  ],
};

const ACCOUNT_EXAMPLE = {
  id: 2,
  name: 'Elkjøp API',
  role: 'partner',
  partnerId: 1,
  providerId: null,
  canForceProvider: true,
  allowAllProviders: false,
  createdAt: '2026-11-02T09:14:03.120Z',
};

const ACCOUNT: JsonSchema = {
  title: 'Account',
  ...record({
    id: ID,
    name: { type: 'string' },
    role: { enum: ['partner', 'provider', 'admin'] },
    partnerId: { type: ['integer', 'null'] },
    providerId: { type: ['integer', 'null'] },
    canForceProvider: { type: 'boolean' },
    allowAllProviders: { type: 'boolean' },
    createdAt: TIMESTAMP,
  }),
};

export const ACCOUNTS: JsonSchema = {
  ...record({ data: arrayOf(ACCOUNT) }),
  examples: [{ data: [ACCOUNT_EXAMPLE] }],
};

export const CREATED_ACCOUNT: JsonSchema = {
  ...record({
    data: {
      allOf: [ACCOUNT, record({ token: { type: 'string', description: 'The new token, shown only in this answer' } })],
    },
  }),
  examples: [{ data: { ...ACCOUNT_EXAMPLE, token: 'hub_3mF0c1Qk9aZ2xR7vT4pL8nW6yB5sD1eG' } }],
};

export const WORLD_LOADED: JsonSchema = {
  ...record({
    data: {
      type: 'object',
      required: ['result', 'appliedBy'],
      properties: {
        result: { const: true },
        appliedBy: arrayOf({ type: 'string' }, 'The services that loaded their part, in order'),
        skipped: arrayOf({ type: 'string' }, 'With `skipUnowned`: the parts no running service loads'),
      },
    },
  }),
  examples: [{ data: { result: true, appliedBy: ['catalog', 'routing', 'models', 'booking', 'webhooks'] } }],
};
