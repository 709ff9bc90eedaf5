/** What the webhooks service's API (the event feed, the admin API) answers, for the API reference (the actions' `response`). */
import { arrayOf, GUID, ID, type JsonSchema, record, TIMESTAMP, WEBHOOK_EVENT_TYPES } from '@hub/shared';

const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };
const TIMESTAMP_OR_NULL: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

const SUBSCRIPTION_FIELDS: Record<string, JsonSchema> = {
  id: ID,
  accountId: ID,
  partnerId: { type: ['integer', 'null'] },
  providerId: { type: ['integer', 'null'] },
  eventTypes: arrayOf({ enum: WEBHOOK_EVENT_TYPES }),
  target: {
    anyOf: [
      record({
        kind: { const: 'http' },
        url: { type: 'string', format: 'uri' },
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        headers: { type: ['object', 'null'], description: 'Constant headers sent with each webhook' },
      }),
      record({ kind: { const: 'amqp' }, url: { type: 'string' }, queue: { type: 'string' } }),
    ],
  },
  statusTransitions: arrayOf(
    record({ from: TEXT_OR_NULL, to: TEXT_OR_NULL }),
    'The status changes `status.transition` webhooks are sent for (null: any status)',
  ),
  state: { enum: ['active', 'paused', 'disabled', 'removed'] },
  stateReason: TEXT_OR_NULL,
  maxInFlight: { type: 'integer', minimum: 1 },
  origin: { enum: ['world', 'admin'], description: 'Whether a world file or the admin API made it' },
  secretRotatedUntil: {
    ...TIMESTAMP_OR_NULL,
    description: 'Until when the previous secret also signs, after a rotation',
  },
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
};

const SUBSCRIPTION: JsonSchema = { title: 'WebhookSubscription', ...record(SUBSCRIPTION_FIELDS) };

const SUBSCRIPTION_EXAMPLE = {
  id: 3,
  accountId: 2,
  partnerId: 1,
  providerId: null,
  eventTypes: ['status.new', 'costProposal.created'],
  target: { kind: 'http', url: 'https://hooks.example.com/hub', method: 'POST', headers: null },
  statusTransitions: [],
  state: 'active',
  stateReason: null,
  maxInFlight: 8,
  origin: 'admin',
  secretRotatedUntil: null,
  createdAt: '2026-11-02T09:14:03.120Z',
  updatedAt: '2026-11-02T09:14:03.120Z',
};
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const SUBSCRIPTIONS: JsonSchema = {
  ...record({ data: arrayOf(SUBSCRIPTION) }),
  examples: [{ data: [SUBSCRIPTION_EXAMPLE] }],
};

export const ONE_SUBSCRIPTION: JsonSchema = {
  ...record({ data: SUBSCRIPTION }),
  examples: [{ data: SUBSCRIPTION_EXAMPLE }],
};

const SECRET: JsonSchema = { type: 'string', description: 'The `whsec_` secret, shown only in this answer' };

export const CREATED_SUBSCRIPTION: JsonSchema = {
  ...record({ data: { allOf: [SUBSCRIPTION, record({ secret: SECRET })] } }),
  examples: [{ data: { ...SUBSCRIPTION_EXAMPLE, secret: SECRET_EXAMPLE } }],
};

export const ROTATED_SECRET: JsonSchema = {
  ...record({
    data: {
      allOf: [SUBSCRIPTION, record({ secret: SECRET, previousSecretValidUntil: TIMESTAMP })],
    },
  }),
  examples: [
    {
      data: {
        ...SUBSCRIPTION_EXAMPLE,
        secretRotatedUntil: '2026-11-03T09:14:03.120Z',
        secret: SECRET_EXAMPLE,
        previousSecretValidUntil: '2026-11-03T09:14:03.120Z',
      },
    },
  ],
};

export const REDELIVERED_COUNT: JsonSchema = {
  ...record({ data: record({ redelivered: { type: 'integer', minimum: 0 } }) }),
  examples: [{ data: { redelivered: 4 } }],
};

const DELIVERY: JsonSchema = {
  title: 'WebhookDelivery',
  ...record({
    id: ID,
    eventId: GUID,
    webhookId: { type: 'string', description: 'The `webhook-id` header, the same on every attempt' },
    subscriptionId: ID,
    eventType: { enum: WEBHOOK_EVENT_TYPES },
    caseGuid: { type: ['string', 'null'], format: 'uuid' },
    caseSequence: { type: ['integer', 'null'] },
    state: { enum: ['pending', 'succeeded', 'dead'] },
    attempts: { type: 'integer', minimum: 0 },
    nextAttemptAt: { ...TIMESTAMP_OR_NULL, description: 'When it is tried next, while pending' },
    lastError: TEXT_OR_NULL,
    occurredAt: TIMESTAMP,
    createdAt: TIMESTAMP,
    finishedAt: TIMESTAMP_OR_NULL,
    payload: { type: 'object', description: 'The webhook body' },
  }),
};

const DELIVERY_EXAMPLE = {
  id: 120,
  eventId: '3f1c2a9e-7b4d-4e6a-9c1f-2d8e5b7a6c40',
  webhookId: '3f1c2a9e-7b4d-4e6a-9c1f-2d8e5b7a6c40',
  subscriptionId: 3,
  eventType: 'message.created',
  caseGuid: 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f',
  caseSequence: 2,
  state: 'dead',
  attempts: 10,
  nextAttemptAt: null,
  lastError: 'HTTP 500',
  occurredAt: '2026-11-02T09:14:03.120Z',
  createdAt: '2026-11-02T09:14:03.120Z',
  finishedAt: '2026-11-04T11:02:40.000Z',
  payload: { id: 7, guid: 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f', content: 'When will the phone be ready?' },
};

export const DELIVERIES: JsonSchema = {
  ...record({
    data: arrayOf(DELIVERY, 'Newest first'),
    pagination: record({ count: { type: 'integer', minimum: 0 }, offset: { type: 'integer', minimum: 0 } }),
  }),
  examples: [{ data: [DELIVERY_EXAMPLE], pagination: { count: 1, offset: 0 } }],
};

export const ONE_DELIVERY: JsonSchema = {
  ...record({ data: DELIVERY }),
  examples: [{ data: { ...DELIVERY_EXAMPLE, state: 'pending', nextAttemptAt: '2026-11-04T11:05:00.000Z' } }],
};

export const ATTEMPTS: JsonSchema = {
  ...record({
    data: arrayOf(
      record({
        attempt: { type: 'integer', minimum: 1 },
        startedAt: TIMESTAMP,
        latencyMs: { type: ['integer', 'null'] },
        ok: { type: 'boolean' },
        statusCode: { type: ['integer', 'null'], description: "The receiver's HTTP status" },
        errorKind: {
          ...TEXT_OR_NULL,
          description: 'What went wrong: `http_status`, `timeout`, `connection`, `gone`, ...',
        },
        error: TEXT_OR_NULL,
        responseExcerpt: { ...TEXT_OR_NULL, description: "The start of the receiver's answer" },
      }),
      'Oldest first',
    ),
  }),
  examples: [
    {
      data: [
        {
          attempt: 1,
          startedAt: '2026-11-02T09:14:03.300Z',
          latencyMs: 212,
          ok: false,
          statusCode: 500,
          errorKind: 'http_status',
          error: 'HTTP 500',
          responseExcerpt: 'Internal Server Error',
        },
      ],
    },
  ],
};

/** One webhook of a party's event feed. */
const FEED_ENTRY: JsonSchema = {
  title: 'EventFeedEntry',
  ...record({
    webhookId: { type: 'string', description: 'The `webhook-id` the webhook is sent with: deduplicate on it' },
    eventId: { ...GUID, description: 'The event; a status change is two webhooks of one event' },
    eventType: { enum: WEBHOOK_EVENT_TYPES, description: 'The webhook type, as `webhook-event-type` says' },
    caseGuid: { type: ['string', 'null'], format: 'uuid' },
    caseSequence: {
      type: ['integer', 'null'],
      minimum: 1,
      description:
        "The party's number for the event in its case, as the body's `caseSequence` and `Hub-Case-Sequence` say",
    },
    occurredAt: { ...TIMESTAMP, description: 'When the change was written' },
    payload: { type: 'object', description: 'The webhook body, as sent' },
  }),
};

export const EVENT_FEED: JsonSchema = {
  ...record({
    data: arrayOf(FEED_ENTRY, 'Oldest first'),
    next: { type: 'string', description: 'The `after` of the next page, or of the next poll' },
    hasMore: { type: 'boolean', description: 'Whether more webhooks follow now' },
  }),
  examples: [
    {
      data: [
        {
          webhookId: '3f1c2a9e-7b4d-4e6a-9c1f-2d8e5b7a6c40',
          eventId: '3f1c2a9e-7b4d-4e6a-9c1f-2d8e5b7a6c40',
          eventType: 'status.new',
          caseGuid: 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f',
          caseSequence: 4,
          occurredAt: '2026-11-02T09:14:03.120Z',
          payload: {
            id: 812,
            caseId: 311,
            guid: 'a7afaf90-7c6e-4d0e-b756-16b4afa1382f',
            name: 'Repair finished',
            key: 'repaired',
            createdAt: '2026-11-02T09:14:03.120Z',
            updatedAt: '2026-11-02T09:14:03.120Z',
            declaredAt: '2026-11-02T09:13:40.000Z',
            caseSequence: 4,
          },
        },
      ],
      next: 'WyJwYXJ0bmVyIiwyLDU3XQ',
      hasMore: false,
    },
  ],
};
