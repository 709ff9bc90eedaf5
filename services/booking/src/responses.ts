/**
 * What booking's endpoints answer, for the API reference (the actions' `response`); the Case and
 * the `result` answers are `@hub/shared`'s, as other services answer them too.
 */
import { arrayOf, CASE, CASE_EXAMPLE, GUID, ID, type JsonSchema, PAGINATION, record, TIMESTAMP } from '@hub/shared';
import { REQUEST_STATUSES } from './requests.store';

const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };
const GUID_EXAMPLE = CASE_EXAMPLE.guid;

export const CREATED: JsonSchema = { ...record({ guid: GUID }), examples: [{ guid: GUID_EXAMPLE }] };

/** v1 and v2 answered a booking with the case's id beside its guid. */
export const CREATED_WITH_ID: JsonSchema = {
  ...record({ id: ID, guid: GUID }),
  examples: [{ id: 311, guid: GUID_EXAMPLE }],
};

/** v1 validation answered 200 either way, the failures per field in `validation`. */
export const VALIDATED_V1: JsonSchema = {
  anyOf: [
    record({ result: { const: true } }),
    record({
      result: { const: false },
      message: { type: 'string' },
      validation: {
        type: 'object',
        additionalProperties: arrayOf({ type: 'string' }),
        description: 'Messages per field path, under the v1 names (`order`, `product`)',
      },
    }),
  ],
  examples: [{ result: false, message: 'Fields validation failed', validation: { 'order.refNo': ['Wrong format'] } }],
};

/** A booking attempt or a request an integration logged (spec 2, External request). */
const EXTERNAL_REQUEST: JsonSchema = {
  title: 'ExternalRequest',
  ...record({
    id: ID,
    caseId: { type: ['integer', 'null'], description: 'The case it concerns; null for a booking that made none' },
    type: { type: 'string', description: '`caseCreated` for a tracked booking attempt, else what was logged' },
    status: { enum: REQUEST_STATUSES },
    url: TEXT_OR_NULL,
    meta: { type: 'object' },
    request: TEXT_OR_NULL,
    response: TEXT_OR_NULL,
    message: TEXT_OR_NULL,
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
  }),
};

const EXTERNAL_REQUEST_EXAMPLE = {
  id: 5,
  caseId: 311,
  type: 'caseCreated',
  status: 'success',
  url: null,
  meta: { trackingId: 'T-77' },
  request: '{"serviceType":2}',
  response: `{"guid":"${GUID_EXAMPLE}"}`,
  message: null,
  createdAt: '2026-11-02T09:14:03.120Z',
  updatedAt: '2026-11-02T09:14:03.120Z',
};

export const REQUEST_LOGGED: JsonSchema = { ...EXTERNAL_REQUEST, examples: [EXTERNAL_REQUEST_EXAMPLE] };
export const REQUESTS_FOUND: JsonSchema = {
  ...record({
    data: arrayOf(EXTERNAL_REQUEST, 'Oldest first'),
    next: {
      type: ['string', 'null'],
      description: 'The `after` of the requests that follow, when they did not fit this answer; null when none follow',
    },
  }),
  examples: [{ data: [EXTERNAL_REQUEST_EXAMPLE], next: null }],
};

/** A case as read: with `includeRequests`, its request log too. */
export const CASE_READ: JsonSchema = {
  allOf: [
    CASE,
    {
      type: 'object',
      properties: { externalRequests: arrayOf(EXTERNAL_REQUEST, 'With `includeRequests` only; oldest first') },
    },
  ],
  examples: [CASE_EXAMPLE],
};

export const CASE_PAGE: JsonSchema = {
  ...record({ data: arrayOf(CASE), pagination: PAGINATION }),
  examples: [{ data: [CASE_EXAMPLE], pagination: { count: 1, offset: 0, next: null } }],
};

/** The provider's export: the case with the routing's competence data and the accessories' names. */
export const CASE_EXPORT: JsonSchema = {
  allOf: [
    CASE,
    record({
      externalData: { type: ['object', 'null'], description: "The routing's competence data of the provider" },
      productData: {
        type: 'object',
        required: ['accessoryNames'],
        additionalProperties: true,
        properties: {
          accessoryNames: arrayOf({ type: 'string' }, 'The names of the accessories in `productData.accessory`'),
        },
      },
    }),
  ],
  examples: [
    {
      ...CASE_EXAMPLE,
      externalData: { sesam: 'S-1001', persDep: 'OSL', departmentId: 101 },
      productData: { ...CASE_EXAMPLE.productData, accessoryNames: [] },
    },
  ],
};

export const STATUS_ADDED: JsonSchema = {
  ...record({
    data: record({
      id: ID,
      caseId: ID,
      guid: GUID,
      key: { type: 'string' },
      createdAt: TIMESTAMP,
      updatedAt: TIMESTAMP,
      declaredAt: TIMESTAMP,
    }),
  }),
  examples: [
    {
      data: {
        id: 813,
        caseId: 311,
        guid: GUID_EXAMPLE,
        key: 'arrived',
        createdAt: '2026-11-03T08:00:00.000Z',
        updatedAt: '2026-11-03T08:00:00.000Z',
        declaredAt: '2026-11-03T07:58:00.000Z',
      },
    },
  ],
};

export const NOTIFICATIONS: JsonSchema = {
  ...record({
    data: arrayOf(
      record({
        key: { type: 'string' },
        name: { type: 'string' },
        description: TEXT_OR_NULL,
        smsNotificationAvailable: {
          type: 'boolean',
          description: 'Whether the consumer can be told of the key by sms',
        },
        emailNotificationAvailable: {
          type: 'boolean',
          description: 'Whether the consumer can be told of the key by email',
        },
        smsNotificationEnabled: {
          type: 'boolean',
          description: "Whether the case's `orderData.notifications` wants sms for the key (true unless it says false)",
        },
        emailNotificationEnabled: {
          type: 'boolean',
          description:
            "Whether the case's `orderData.notifications` wants email for the key (true unless it says false)",
        },
      }),
    ),
  }),
  examples: [
    {
      data: [
        {
          key: 'arrived',
          name: 'Arrived at workshop',
          description: 'The product has arrived at the workshop',
          smsNotificationAvailable: true,
          emailNotificationAvailable: true,
          smsNotificationEnabled: false,
          emailNotificationEnabled: true,
        },
      ],
    },
  ],
};

export const SHIPPING_LABEL: JsonSchema = {
  ...record({ data: { type: 'string', description: 'The label file, base64 encoded' } }),
  examples: [{ data: 'JVBERi0xLjQK' }],
};

export const CASE_FILE: JsonSchema = {
  description: 'The file as uploaded, with the media type it was uploaded as',
  contentMediaType: 'application/octet-stream',
};

export const EMAIL_SENT: JsonSchema = {
  ...record({
    data: record({
      result: {
        anyOf: [{ const: true }, { type: 'string' }],
        description: 'true when sent; otherwise why no email went out',
      },
    }),
  }),
  examples: [{ data: { result: true } }, { data: { result: 'Emails are disabled: no SMTP server is configured' } }],
};
