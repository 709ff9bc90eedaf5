/**
 * Invoices: the wire shapes, how a sent invoice becomes a row (fields left out keep their
 * values on an update), and how rows are read back with the invoice they are linked to.
 */
import type { Knex } from 'knex';
import { parseInstant } from '@hub/shared';

export const INVOICES = 'invoicing.invoices';
/** The invoices counted per scope and UTC day of created_at (count_invoices.sql). */
export const INVOICE_DAYS = 'invoicing.invoice_days';
export const INVOICE_STATUSES = 'invoicing.invoice_statuses';

export interface InvoiceDetail {
  name: string;
  count: number;
  article?: string | null;
  vatRate: number;
  vatAmount: number;
  priceExclVat: number;
  priceInclVat: number;
  totalAmountExclVat: number;
  totalAmountInclVat: number;
}

export interface InvoiceIn {
  guid: string;
  externalId: string;
  type?: 'invoice' | 'credit note';
  customData?: Record<string, unknown> | null;
  priceNet?: number | null;
  currency?: string | null;
  isActive?: boolean;
  isSent?: boolean;
  isPaid?: boolean;
  dueDate?: string | null;
  status?: string | null;
  details?: InvoiceDetail[] | null;
  /** The externalId of the invoice this one refers to (a credit note's original). */
  linkedInvoice?: string | null;
}

export interface InvoiceRow {
  id: number;
  case_id: number;
  guid: string;
  partner_id: number;
  provider_id: number;
  external_id: string;
  type: string;
  custom_data: Record<string, unknown>;
  price_net: string | null;
  currency: string | null;
  is_active: boolean;
  is_sent: boolean;
  is_paid: boolean;
  due_date: string | null;
  status: string | null;
  details: InvoiceDetail[];
  linked_invoice_id: number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A row as read by `selectInvoices`: with the linked invoice's row, when there is one. */
export type InvoiceWithLinkRow = InvoiceRow & { linked: InvoiceRow | null };

export interface InvoiceFields {
  id: number;
  guid: string;
  externalId: string;
  type: string;
  customData: Record<string, unknown>;
  priceNet: number | null;
  currency: string | null;
  isActive: boolean;
  isSent: boolean;
  isPaid: boolean;
  dueDate: string | null;
  status: string | null;
  details: InvoiceDetail[];
  createdAt: string;
  updatedAt: string;
}

export interface InvoiceOut extends InvoiceFields {
  linkedInvoice: InvoiceFields | null;
  case: Record<string, unknown> | null;
}

function isoOf(value: Date | string): string {
  return new Date(value).toISOString();
}

export function invoiceFields(row: InvoiceRow): InvoiceFields {
  return {
    id: row.id,
    guid: row.guid,
    externalId: row.external_id,
    type: row.type,
    customData: row.custom_data,
    priceNet: row.price_net === null ? null : Number(row.price_net),
    currency: row.currency,
    isActive: row.is_active,
    isSent: row.is_sent,
    isPaid: row.is_paid,
    // Read through to_jsonb the date is `YYYY-MM-DD` text; answered as the product's pages show
    // it, a Date (ISO 8601, UTC) at the start of the day.
    dueDate: row.due_date === null ? null : `${row.due_date}T00:00:00.000Z`,
    status: row.status,
    details: row.details,
    createdAt: isoOf(row.created_at),
    updatedAt: isoOf(row.updated_at),
  };
}

export function invoiceOut(row: InvoiceWithLinkRow, caseCore: Record<string, unknown> | null): InvoiceOut {
  return { ...invoiceFields(row), linkedInvoice: row.linked ? invoiceFields(row.linked) : null, case: caseCore };
}

/** Invoices with their linked invoice, for the caller to narrow and order. */
export function selectInvoices(knex: Knex) {
  return knex(`${INVOICES} as i`)
    .leftJoin(`${INVOICES} as l`, 'l.id', 'i.linked_invoice_id')
    .select('i.*', knex.raw('case when l.id is null then null else to_jsonb(l) end as linked'));
}

/**
 * The columns an invoice as sent sets; a field left out is left as it is. JSON columns go as
 * text because the driver would send a JS array as a Postgres array.
 */
export function columnsOf(invoice: InvoiceIn): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (invoice.type !== undefined) columns.type = invoice.type;
  if (invoice.customData !== undefined) columns.custom_data = JSON.stringify(invoice.customData ?? {});
  if (invoice.priceNet !== undefined) columns.price_net = invoice.priceNet === null ? null : String(invoice.priceNet);
  if (invoice.currency !== undefined)
    columns.currency = invoice.currency === null ? null : invoice.currency.toUpperCase();
  if (invoice.isActive !== undefined) columns.is_active = invoice.isActive;
  if (invoice.isSent !== undefined) columns.is_sent = invoice.isSent;
  if (invoice.isPaid !== undefined) columns.is_paid = invoice.isPaid;
  if (invoice.dueDate !== undefined) columns.due_date = invoice.dueDate === null ? null : invoice.dueDate.slice(0, 10);
  if (invoice.status !== undefined) columns.status = invoice.status;
  if (invoice.details !== undefined) columns.details = JSON.stringify(invoice.details ?? []);
  return columns;
}

/** A due date: a calendar day, optionally with a time that is ignored. */
export function isDueDate(value: string): boolean {
  return parseInstant(value) !== null;
}
