/**
 * Response shapes more than one service answers, for the API reference (`response` on actions):
 * contact data, parties, the reference records, the Case and the small `result` answers. Each
 * is titled, so the OpenAPI document lists it once under `components.schemas`.
 */
import { CONTACT_FIELDS } from './contact';
import type { JsonSchema } from './json-schema';

/** `schema` or null. */
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

export const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});

/** An object whose every listed property is always present. */
export const record = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  ...(description ? { description } : {}),
});

export const ID: JsonSchema = { type: 'integer', minimum: 1 };
export const GUID: JsonSchema = { type: 'string', format: 'uuid' };
export const TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };
export const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };
/** Data of the world file the hub keeps for an integration, shown as it was loaded. */
export const EXTERNAL_DATA: JsonSchema = {
  type: ['object', 'null'],
  description: "The integration's own data from the world file, or null",
};

export const CONTACT_DATA_EXAMPLE = {
  id: 4,
  name: null,
  firstName: null,
  lastName: null,
  organizationName: 'Nordic Repair Center AS',
  organizationNumber: null,
  addName: null,
  address: 'Industriveien 12',
  postalCode: '2020',
  city: 'Skedsmokorset',
  countryCode: 'NO',
  phone: '+47 64 83 00 00',
  mobile: null,
  email: 'verksted@nrc.example',
  floor: null,
  entrance: null,
  doorCode: null,
  createdAt: '2026-11-02T09:14:03.120Z',
};

/** ContactData (spec 2): every field present, null when unknown. */
export const CONTACT_DATA: JsonSchema = {
  title: 'ContactData',
  ...record({
    id: ID,
    ...Object.fromEntries(CONTACT_FIELDS.map((field) => [field, TEXT_OR_NULL])),
    createdAt: TIMESTAMP,
  }),
  examples: [CONTACT_DATA_EXAMPLE],
};

/** `{ id, name }` of a party or a record. */
export const NAMED: JsonSchema = { title: 'Named', ...record({ id: ID, name: { type: 'string' } }) };

/** A partner or provider (spec 2). */
export const PARTY: JsonSchema = {
  title: 'Party',
  ...record({ id: ID, name: { type: 'string' }, contactData: nullable(CONTACT_DATA) }),
  examples: [{ id: 10, name: 'Nordic Repair Center', contactData: CONTACT_DATA_EXAMPLE }],
};

const PROPERTIES: JsonSchema = {
  type: 'object',
  description: 'Flags that make booking fields required (`requireSerial`, `requirePurchaseDate`, ...)',
};

export const MANUFACTURER: JsonSchema = {
  title: 'Manufacturer',
  ...record({ id: ID, name: { type: 'string' }, externalData: EXTERNAL_DATA }),
  examples: [{ id: 1, name: 'Apple', externalData: null }],
};

export const SERVICE_TYPE: JsonSchema = {
  title: 'ServiceType',
  ...record({ id: ID, name: { type: 'string' }, properties: PROPERTIES, externalData: EXTERNAL_DATA }),
  examples: [
    {
      id: 2,
      name: 'Paid repair',
      properties: { requirePurchaseDate: false, requireInsuranceNumber: false },
      externalData: null,
    },
  ],
};

export const PRODUCT_TYPE: JsonSchema = {
  title: 'ProductType',
  ...record({ id: ID, name: { type: 'string' }, properties: PROPERTIES, externalData: EXTERNAL_DATA }),
  examples: [
    {
      id: 1,
      name: 'Mobile phone',
      properties: { requireImei: true, requireSerial: false, withLocations: true, allowPassword: true },
      externalData: null,
    },
  ],
};

export const SERVICE_LOCATION: JsonSchema = {
  title: 'ServiceLocation',
  ...record({ id: ID, name: { type: 'string' }, externalData: EXTERNAL_DATA }),
  examples: [{ id: 1, name: 'Workshop', externalData: null }],
};

export const SHIPPING_METHOD: JsonSchema = {
  title: 'ShippingMethod',
  ...record({
    id: ID,
    name: { type: 'string' },
    properties: {
      type: 'object',
      properties: {
        requirePickupDate: { type: 'boolean', description: 'Whether `orderData.pickupDate` is required' },
        goodsTypeList: {
          type: ['array', 'null'],
          items: { type: 'string' },
          description: 'The goods types `orderData.goodsType` must be one of; null: not required',
        },
      },
    },
  }),
  examples: [
    { id: 1, name: 'PostNord pickup', properties: { goodsTypeList: ['parcel', 'pallet'], requirePickupDate: true } },
  ],
};

export const ACCESSORY: JsonSchema = {
  title: 'Accessory',
  ...record({ id: ID, name: { type: 'string' } }),
  examples: [{ id: 1, name: 'Charger' }],
};

export const DEPARTMENT: JsonSchema = {
  title: 'Department',
  ...record({ id: ID, name: { type: 'string' }, contactData: nullable(CONTACT_DATA), externalData: EXTERNAL_DATA }),
};

/**
 * Where a page of search-cases or invoices/find stands. A page holds fewer than `limit` items when
 * they are large (the answer budget, answer-budget.ts); `next`, or `offset` plus the page's length,
 * reads on.
 */
export const PAGINATION: JsonSchema = {
  title: 'Pagination',
  description:
    'A page holds up to `limit` items, fewer when they are large (at most 512 KiB of items): `next`, or the offset plus the number of items answered, reads on.',
  ...record({
    count: { type: 'integer', minimum: 0, description: 'How many match in all' },
    offset: { type: 'integer', minimum: 0, description: 'Where this page starts among them' },
    next: {
      type: ['string', 'null'],
      description: "The next page's `pagination.after`; null after the last page",
    },
  }),
};

/** `{ data: { result: true } }`: the write was done. */
export const DATA_RESULT: JsonSchema = {
  title: 'DataResult',
  ...record({ data: record({ result: { const: true } }) }),
  examples: [{ data: { result: true } }],
};

/** `{ result: true }`: the write was done (the documented answer of case/update, append and finish). */
export const RESULT: JsonSchema = {
  title: 'Result',
  ...record({ result: { const: true } }),
  examples: [{ result: true }],
};

export const CASE_STATUS: JsonSchema = {
  title: 'CaseStatus',
  ...record({
    id: ID,
    caseId: ID,
    guid: GUID,
    key: { type: 'string', description: "The status key, in the reading partner's own keys where it maps them" },
    name: { type: 'string' },
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
    declaredAt: { ...TIMESTAMP, description: 'When the status happened, as the provider declared it' },
  }),
};

const CASE_GUID_EXAMPLE = 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f';
const CUSTOMER_EXAMPLE = {
  ...CONTACT_DATA_EXAMPLE,
  id: 1,
  firstName: 'Kari',
  lastName: 'Nordmann',
  organizationName: null,
  address: 'Storgata 1',
  postalCode: '0150',
  city: 'Oslo',
  phone: '+4790000000',
  email: 'kari@example.com',
};

export const CASE_EXAMPLE = {
  id: 311,
  guid: CASE_GUID_EXAMPLE,
  tags: [],
  sender: { ...CUSTOMER_EXAMPLE, id: 2 },
  receiver: { ...CUSTOMER_EXAMPLE, id: 3 },
  customer: CUSTOMER_EXAMPLE,
  consumer: null,
  pickupDst: null,
  returnDst: null,
  country: 'NO',
  createdAt: '2026-11-02T09:14:03.120Z',
  updatedAt: '2026-11-02T09:14:03.120Z',
  partnerId: 1,
  orderData: {
    refNo: 'REF-1001',
    bookingType: 'companyToPrivate',
    originatorType: 'private',
    clientPostalCode: '0150',
    pickupDestination: 'consumer',
    returnDestination: 'consumer',
    integrationsFinished: false,
    serviceProviderExportStatus: false,
  },
  productData: { model: 'MacBook Air', serial: 'C02XK0AAJG5H', noPassword: true, problemText: 'Does not start' },
  spareParts: [],
  caseStatuses: [
    {
      id: 812,
      caseId: 311,
      guid: CASE_GUID_EXAMPLE,
      key: 'registered',
      name: 'Registered',
      createdAt: '2026-11-02T09:14:03.120Z',
      updatedAt: '2026-11-02T09:14:03.120Z',
      declaredAt: '2026-11-02T09:14:03.120Z',
    },
  ],
  currentStatus: 'registered',
  manufacturer: { id: 1, name: 'Apple', externalData: null },
  productType: { id: 2, name: 'Laptop', properties: { requireSerial: true }, externalData: null },
  serviceType: { id: 2, name: 'Paid repair', properties: { requirePurchaseDate: false }, externalData: null },
  serviceLocation: { id: 1, name: 'Workshop', externalData: null },
  shippingMethod: { id: 3, name: 'Customer drop-off', properties: { goodsTypeList: null, requirePickupDate: false } },
  serviceProviderDepartment: { id: 101, name: 'NRC Oslo', contactData: null, externalData: null },
  manufacturerId: 1,
  productTypeId: 2,
  serviceTypeId: 2,
  serviceLocationId: 1,
  shippingMethodId: 3,
  serviceProviderId: 10,
  serviceProviderDepartmentId: 101,
  servicePartner: { id: 1, name: 'Elkjøp Nordic' },
  serviceProvider: { id: 10, name: 'Nordic Repair Center' },
  freightTrackings: [],
};

const CASE_PROPERTIES: Record<string, JsonSchema> = {
  id: ID,
  guid: GUID,
  tags: arrayOf(NAMED, "The case's tags"),
  ...Object.fromEntries(
    ['sender', 'receiver', 'customer', 'consumer', 'pickupDst', 'returnDst'].map((role) => [
      role,
      nullable(CONTACT_DATA),
    ]),
  ),
  country: TEXT_OR_NULL,
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
  partnerId: ID,
  orderData: {
    type: 'object',
    description:
      "The order's documented keys (refNo, pickupDate, goodsType, consents, files, partnerSpecific, providerSpecific, ...: docs/cases.md); a partner does not see `providerSpecific`",
  },
  productData: {
    type: 'object',
    description: "The product's documented keys (model, serial, imei, problemText, accessory, purchaseDate, ...)",
  },
  spareParts: { type: 'array' },
  caseStatuses: arrayOf(CASE_STATUS, 'Oldest first'),
  currentStatus: { ...TEXT_OR_NULL, description: 'The key of the latest status' },
  manufacturer: nullable(MANUFACTURER),
  productType: nullable(PRODUCT_TYPE),
  serviceType: nullable(SERVICE_TYPE),
  serviceLocation: nullable(SERVICE_LOCATION),
  shippingMethod: nullable(SHIPPING_METHOD),
  serviceProviderDepartment: nullable(DEPARTMENT),
  manufacturerId: ID,
  productTypeId: ID,
  serviceTypeId: ID,
  serviceLocationId: ID,
  shippingMethodId: { type: ['integer', 'null'] },
  serviceProviderId: { type: ['integer', 'null'] },
  serviceProviderDepartmentId: { type: ['integer', 'null'] },
  servicePartner: nullable(NAMED),
  serviceProvider: nullable(NAMED),
  freightTrackings: { type: 'array' },
};

/** The Case (spec 2), as a read, a search, an export and an invoice answer it. */
export const CASE: JsonSchema = {
  title: 'Case',
  ...record(CASE_PROPERTIES),
  examples: [CASE_EXAMPLE],
};
