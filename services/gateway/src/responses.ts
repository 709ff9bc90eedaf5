/** What the gateway's operator endpoints answer, for the API reference (the actions' `response`). */
import { arrayOf, type JsonSchema, record, TIMESTAMP } from '@hub/shared';

const COUNT: JsonSchema = { type: 'integer', minimum: 0 };

const WEBHOOK_HEALTH: JsonSchema = record({
  hours: { type: 'integer' },
  totals: record({ pending: COUNT, failing: COUNT, dead: COUNT }),
  receivers: arrayOf(
    record({
      subscriptionId: { type: 'integer' },
      target: { type: 'string', description: 'The URL, or the AMQP queue' },
      state: { type: 'string' },
      pending: COUNT,
      failing: { ...COUNT, description: 'Pending after a failed attempt' },
      dead: { ...COUNT, description: 'Dead-lettered' },
      hourly: arrayOf(
        record({ hour: TIMESTAMP, succeeded: COUNT, failed: COUNT }),
        'Attempts per hour, oldest first, the current hour last',
      ),
    }),
  ),
});

export const OVERVIEW: JsonSchema = {
  ...record({
    nodes: arrayOf(
      record({
        id: { type: 'string' },
        available: { type: 'boolean' },
        local: { type: 'boolean', description: 'Whether it is the node that answered' },
        hostname: { type: ['string', 'null'] },
        services: arrayOf({ type: 'string' }),
      }),
    ),
    services: arrayOf(record({ name: { type: 'string' }, nodes: arrayOf({ type: 'string' }) })),
    outbox: arrayOf(
      record({
        service: { type: 'string' },
        pending: { type: ['integer', 'null'], description: 'Events not yet relayed; null when it did not answer' },
      }),
    ),
    webhooks: {
      anyOf: [WEBHOOK_HEALTH, { type: 'null' }],
      description: 'Null while the webhooks service does not answer',
    },
  }),
  examples: [
    {
      nodes: [{ id: 'hub-1', available: true, local: true, hostname: 'hub-1', services: ['booking', 'gateway'] }],
      services: [
        { name: 'booking', nodes: ['hub-1'] },
        { name: 'gateway', nodes: ['hub-1'] },
      ],
      outbox: [{ service: 'booking', pending: 0 }],
      webhooks: null,
    },
  ],
};

export const STORAGE: JsonSchema = {
  ...record({
    services: arrayOf(
      record({
        service: { type: 'string' },
        schema: { type: 'string' },
        retention: record({
          enabled: { type: 'boolean' },
          intervalSeconds: { type: 'number' },
          rules: arrayOf(
            record({
              rule: { type: 'string' },
              table: { type: 'string' },
              keepSeconds: { type: 'number' },
              lastRunAt: { type: ['string', 'null'], format: 'date-time' },
              lastRemoved: { type: ['integer', 'null'] },
              removedTotal: { type: ['integer', 'null'] },
            }),
          ),
        }),
        tables: arrayOf({
          type: 'object',
          required: ['table', 'rows', 'rowsEstimated', 'bytes'],
          properties: {
            table: { type: 'string' },
            rows: COUNT,
            rowsEstimated: { type: 'boolean', description: "Whether `rows` is the planner's estimate" },
            bytes: { type: 'number', description: 'Table, indexes and TOAST together (of every partition)' },
            partitions: {
              ...COUNT,
              description: 'For a table partitioned by time: its partitions, the default one included',
            },
            oldestRowAt: { type: ['string', 'null'], format: 'date-time', description: 'For tables that age' },
            oldestRowAgeSeconds: { type: ['number', 'null'] },
          },
        }),
      }),
    ),
    unanswered: arrayOf({ type: 'string' }, 'Services with a database that did not answer in time'),
  }),
  examples: [
    {
      services: [
        {
          service: 'booking',
          schema: 'booking',
          retention: {
            enabled: true,
            intervalSeconds: 600,
            rules: [
              {
                rule: 'relayed events',
                table: 'booking.outbox',
                keepSeconds: 604800,
                lastRunAt: '2026-11-02T09:14:03.120Z',
                lastRemoved: 0,
                removedTotal: 12,
              },
            ],
          },
          tables: [{ table: 'booking.cases', rows: 311, rowsEstimated: false, bytes: 163840 }],
        },
      ],
      unanswered: [],
    },
  ],
};
