/** What the invoice endpoints answer, for the API reference (the actions' `response`). */
import {
  arrayOf,
  CASE,
  CASE_EXAMPLE,
  GUID,
  ID,
  type JsonSchema,
  nullable,
  PAGINATION,
  record,
  TIMESTAMP,
} from '@hub/shared';

const TEXT_OR_NULL: JsonSchema = { type: ['string', 'null'] };

const INVOICE_DETAIL: JsonSchema = {
  title: 'InvoiceDetail',
  type: 'object',
  required: [
    'name',
    'count',
    'vatRate',
    'vatAmount',
    'priceExclVat',
    'priceInclVat',
    'totalAmountExclVat',
    'totalAmountInclVat',
  ],
  properties: {
    name: { type: 'string' },
    count: { type: 'integer' },
    article: { type: 'string' },
    vatRate: { type: 'number' },
    vatAmount: { type: 'number' },
    priceExclVat: { type: 'number' },
    priceInclVat: { type: 'number' },
    totalAmountExclVat: { type: 'number' },
    totalAmountInclVat: { type: 'number' },
  },
};

const INVOICE_FIELDS: Record<string, JsonSchema> = {
  id: ID,
  guid: { ...GUID, description: "The case's guid" },
  externalId: { type: 'string' },
  type: { enum: ['invoice', 'credit note'] },
  customData: { type: 'object' },
  priceNet: { type: ['number', 'null'] },
  currency: TEXT_OR_NULL,
  isActive: { type: 'boolean' },
  isSent: { type: 'boolean' },
  isPaid: { type: 'boolean' },
  dueDate: { ...TEXT_OR_NULL, format: 'date-time', description: 'The due day, at 00:00 UTC' },
  status: TEXT_OR_NULL,
  details: arrayOf(INVOICE_DETAIL),
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
};

/** An invoice (spec 2) with the invoice it corrects and its case, as the caller's party sees it. */
const INVOICE: JsonSchema = {
  title: 'Invoice',
  ...record({
    ...INVOICE_FIELDS,
    linkedInvoice: nullable({ ...record(INVOICE_FIELDS), description: 'The invoice this one corrects' }),
    case: nullable(CASE),
  }),
};

const EXAMPLE = {
  id: 17,
  guid: CASE_EXAMPLE.guid,
  externalId: 'INV-1001',
  type: 'invoice',
  customData: {},
  priceNet: 1490,
  currency: 'NOK',
  isActive: true,
  isSent: false,
  isPaid: false,
  dueDate: '2026-12-02T00:00:00.000Z',
  status: 'ready',
  details: [
    {
      name: 'Display',
      count: 1,
      vatRate: 25,
      vatAmount: 372.5,
      priceExclVat: 1490,
      priceInclVat: 1862.5,
      totalAmountExclVat: 1490,
      totalAmountInclVat: 1862.5,
    },
  ],
  createdAt: '2026-11-04T08:00:00.000Z',
  updatedAt: '2026-11-04T08:00:00.000Z',
  linkedInvoice: null,
  case: CASE_EXAMPLE,
};

export const INVOICE_LIST: JsonSchema = { ...arrayOf(INVOICE), examples: [[EXAMPLE]] };
export const FOUND_INVOICES: JsonSchema = {
  ...record({ data: arrayOf(INVOICE), pagination: PAGINATION }),
  examples: [{ data: [EXAMPLE], pagination: { count: 1, offset: 0, next: null } }],
};
