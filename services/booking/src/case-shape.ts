/**
 * How a stored case reads back as the spec's Case: the row, its contacts, statuses and tags.
 * Other services embed this shape (`booking.caseCores`) and the `case.created` event carries it.
 */
import type { Knex } from 'knex';
import { caseForWebhook, contactDataOut, type ContactDataIn, type ContactDataOut } from '@hub/shared';

export const CONTACT_ROLES = ['sender', 'receiver', 'customer', 'consumer', 'pickupDst', 'returnDst'] as const;
export type ContactRole = (typeof CONTACT_ROLES)[number];

export interface Named {
  id: number;
  name: string;
  [key: string]: unknown;
}

export interface CaseRow {
  id: number;
  guid: string;
  partner_id: number;
  service_provider_id: number | null;
  service_provider_department_id: number | null;
  manufacturer_id: number;
  product_type_id: number;
  service_type_id: number;
  service_location_id: number;
  shipping_method_id: number | null;
  country: string | null;
  current_status: string | null;
  order_data: Record<string, unknown>;
  product_data: Record<string, unknown>;
  spare_parts: unknown[];
  freight_trackings: unknown[];
  manufacturer: Named | null;
  product_type: Named | null;
  service_type: Named | null;
  service_location: Named | null;
  shipping_method: Named | null;
  service_partner: Named | null;
  service_provider: Named | null;
  service_provider_department: Named | null;
  service_provider_competence: Record<string, unknown> | null;
  accepted: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns caseOut reads, named rather than `c.*`: a prepared read keeps the columns it was
 * prepared with, and a column a newer version adds must not change its answer.
 */
const CASE_OUT_COLUMNS = [
  'id',
  'guid',
  'partner_id',
  'service_provider_id',
  'service_provider_department_id',
  'manufacturer_id',
  'product_type_id',
  'service_type_id',
  'service_location_id',
  'shipping_method_id',
  'country',
  'current_status',
  'order_data',
  'product_data',
  'spare_parts',
  'freight_trackings',
  'manufacturer',
  'product_type',
  'service_type',
  'service_location',
  'shipping_method',
  'service_partner',
  'service_provider',
  'service_provider_department',
  'created_at',
  'updated_at',
] as const;

type CaseOutRow = Pick<CaseRow, (typeof CASE_OUT_COLUMNS)[number]>;

export interface ContactRow {
  id: number;
  case_id: number;
  role: ContactRole;
  type: number | null;
  data: ContactDataIn;
  created_at: Date;
}

export interface StatusRow {
  id: number;
  case_id: number;
  key: string;
  name: string;
  declared_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface CaseStatusOut {
  id: number;
  caseId: number;
  guid: string;
  key: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  declaredAt: string;
}

export interface CaseOut {
  id: number;
  guid: string;
  tags: Array<{ id: number; name: string }>;
  sender: ContactDataOut | null;
  receiver: ContactDataOut | null;
  customer: ContactDataOut | null;
  consumer: ContactDataOut | null;
  pickupDst: ContactDataOut | null;
  returnDst: ContactDataOut | null;
  country: string | null;
  createdAt: string;
  updatedAt: string;
  partnerId: number;
  orderData: Record<string, unknown>;
  productData: Record<string, unknown>;
  spareParts: unknown[];
  caseStatuses: CaseStatusOut[];
  currentStatus: string | null;
  manufacturer: Named | null;
  productType: Named | null;
  serviceType: Named | null;
  serviceLocation: Named | null;
  shippingMethod: Named | null;
  serviceProviderDepartment: Named | null;
  manufacturerId: number;
  productTypeId: number;
  serviceTypeId: number;
  serviceLocationId: number;
  shippingMethodId: number | null;
  serviceProviderId: number | null;
  serviceProviderDepartmentId: number | null;
  servicePartner: { id: number; name: string } | null;
  serviceProvider: { id: number; name: string } | null;
  freightTrackings: unknown[];
}

export function statusOut(row: StatusRow, guid: string): CaseStatusOut {
  return {
    id: row.id,
    caseId: row.case_id,
    guid,
    key: row.key,
    name: row.name,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    declaredAt: row.declared_at.toISOString(),
  };
}

const party = (value: Named | null) => (value ? { id: value.id, name: value.name } : null);

export function caseOut(
  row: CaseOutRow,
  contacts: ContactRow[],
  statuses: StatusRow[],
  tags: Array<{ id: number; name: string }>,
): CaseOut {
  const contact = (role: ContactRole) => {
    const found = contacts.find((entry) => entry.role === role);
    return found ? contactDataOut(found.id, found.data, found.created_at) : null;
  };
  return {
    id: row.id,
    guid: row.guid,
    tags,
    sender: contact('sender'),
    receiver: contact('receiver'),
    customer: contact('customer'),
    consumer: contact('consumer'),
    pickupDst: contact('pickupDst'),
    returnDst: contact('returnDst'),
    country: row.country,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    partnerId: row.partner_id,
    // Consents and accessories as lists even in a case stored before they were kept that way.
    ...caseForWebhook({ orderData: row.order_data, productData: row.product_data }),
    spareParts: row.spare_parts,
    caseStatuses: statuses.map((status) => statusOut(status, row.guid)),
    currentStatus: row.current_status,
    manufacturer: row.manufacturer,
    productType: row.product_type,
    serviceType: row.service_type,
    serviceLocation: row.service_location,
    shippingMethod: row.shipping_method,
    serviceProviderDepartment: row.service_provider_department,
    manufacturerId: row.manufacturer_id,
    productTypeId: row.product_type_id,
    serviceTypeId: row.service_type_id,
    serviceLocationId: row.service_location_id,
    shippingMethodId: row.shipping_method_id,
    serviceProviderId: row.service_provider_id,
    serviceProviderDepartmentId: row.service_provider_department_id,
    servicePartner: party(row.service_partner),
    serviceProvider: party(row.service_provider),
    freightTrackings: row.freight_trackings,
  };
}

/** A row of `json_agg`/`row_to_json` output with its timestamp columns read back as Dates, as pg reads them. */
export function withDates<T>(row: Record<string, unknown>, columns: string[]): T {
  const dated = { ...row };
  for (const column of columns) dated[column] = new Date(dated[column] as string);
  return dated as T;
}

/**
 * Each case with its contacts, statuses and tags in one statement whatever their number: a read
 * is a round trip to the database for each statement, which costs more than these lookups do.
 */
const CASES_READ_WHOLE = `select ${CASE_OUT_COLUMNS.map((column) => `c.${column}`).join(', ')},
  (select coalesce(json_agg(cc order by cc.id), '[]') from booking.case_contacts cc where cc.case_id = c.id) as loaded_contacts,
  (select coalesce(json_agg(cs order by cs.id), '[]') from booking.case_statuses cs where cs.case_id = c.id) as loaded_statuses,
  (select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name) order by t.name), '[]')
     from booking.case_tags ct join booking.tags t on t.id = ct.tag_id where ct.case_id = c.id) as loaded_tags
  from booking.cases c`;

/** Full cases for the given guids, in id order; unknown guids are left out. */
export async function loadCases(knex: Knex, guids: string[]): Promise<CaseOut[]> {
  if (guids.length === 0) return [];
  return runCaseRead(knex.raw(`${CASES_READ_WHOLE} where c.guid = any(?::uuid[]) order by c.id`, [guids]), 'guids');
}

/** Full cases for the given ids, or the ids a query selects, in id order; unknown ids are left out. */
export async function loadCasesById(knex: Knex, ids: number[] | Knex.QueryBuilder): Promise<CaseOut[]> {
  if (!Array.isArray(ids)) return runCaseRead(knex.raw(`${CASES_READ_WHOLE} where c.id in ? order by c.id`, [ids]));
  if (ids.length === 0) return [];
  return runCaseRead(knex.raw(`${CASES_READ_WHOLE} where c.id = any(?::bigint[]) order by c.id`, [ids]), 'ids');
}

/**
 * Runs a read of whole cases. Reads by a list of guids or ids keep one text whatever the list's
 * length, so each connection parses and plans them once, under `preparedAs`: on the server,
 * parsing and planning the read's long text is a large share of the CPU a read of a page takes.
 */
async function runCaseRead(read: Knex.Raw, preparedAs?: 'guids' | 'ids'): Promise<CaseOut[]> {
  if (preparedAs) read.options({ name: `booking-cases-by-${preparedAs}` });
  const rows = (await read).rows as Array<
    CaseOutRow & {
      loaded_contacts: Record<string, unknown>[];
      loaded_statuses: Record<string, unknown>[];
      loaded_tags: Array<{ id: number; name: string }>;
    }
  >;
  return rows.map(({ loaded_contacts: contacts, loaded_statuses: statuses, loaded_tags: tags, ...row }) =>
    caseOut(
      row,
      contacts.map((contact) => withDates<ContactRow>(contact, ['created_at'])),
      statuses.map((status) => withDates<StatusRow>(status, ['declared_at', 'created_at', 'updated_at'])),
      tags,
    ),
  );
}
