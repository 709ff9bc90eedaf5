/** Writing a new case: the row, its contacts, its first status and its history entry, in the caller's transaction. */
import type { Knex } from 'knex';
import type { Caller, ContactDataIn } from '@hub/shared';
import type { BookingPlan } from './booking-plan';
import { STATUS_FIELD } from './case-history';
import { historyEntryOf } from './history.store';
import {
  type CaseOut,
  caseOut,
  type CaseRow,
  type ContactRole,
  type ContactRow,
  type StatusRow,
  withDates,
} from './case-shape';

/** The status a case of a provider without status keys starts with. */
export const FALLBACK_FIRST_STATUS = { key: 'registered', name: 'Registered' };

/** Each provider's first status key, by provider id. */
export type FirstStatuses = Map<number, { key: string; name: string }>;

export async function loadFirstStatuses(knex: Knex): Promise<FirstStatuses> {
  const rows = (await knex.raw(
    'select distinct on (provider_id) provider_id, key, name from booking.status_keys order by provider_id, position',
  )) as { rows: Array<{ provider_id: number; key: string; name: string }> };
  return new Map(rows.rows.map((row) => [row.provider_id, { key: row.key, name: row.name }]));
}

export function firstStatusOf(firstStatuses: FirstStatuses, providerId: number): { key: string; name: string } {
  return firstStatuses.get(providerId) ?? FALLBACK_FIRST_STATUS;
}

/**
 * The contacts a case keeps. sender is where the product is picked up from and receiver where it
 * goes back to: the custom destination when one is given, else the consumer, else the customer.
 */
export function caseContacts(plan: BookingPlan): Array<{ role: ContactRole; data: ContactDataIn }> {
  const { body } = plan;
  const contacts: Array<{ role: ContactRole; data: ContactDataIn }> = [{ role: 'customer', data: body.customer }];
  if (body.consumer) contacts.push({ role: 'consumer', data: body.consumer });
  if (body.pickupDst) contacts.push({ role: 'pickupDst', data: body.pickupDst });
  if (body.returnDst) contacts.push({ role: 'returnDst', data: body.returnDst });
  const endUser = body.consumer ?? body.customer;
  contacts.push(
    { role: 'sender', data: body.pickupDst ?? endUser },
    { role: 'receiver', data: body.returnDst ?? endUser },
  );
  return contacts;
}

/** orderData as stored: the body's, with the booking parameters the spec lists among its keys. */
export function storedOrderData(plan: BookingPlan): Record<string, unknown> {
  const { body } = plan;
  const { files: _files, ...order } = body.orderData;
  const helpdesk = body.originatorType === 'helpdesk';
  return {
    ...order,
    bookingType: body.bookingType,
    originatorType: body.originatorType,
    clientPostalCode: body.clientPostalCode,
    pickupDestination: (helpdesk && body.pickupDestination) || 'consumer',
    returnDestination: (helpdesk && body.returnDestination) || 'consumer',
    integrationsFinished: false,
    serviceProviderExportStatus: false,
  };
}

export function storedProductData(plan: BookingPlan): Record<string, unknown> {
  const { body } = plan;
  return { ...body.productData, noPassword: body.noPassword === true || body.productData.noPassword === true };
}

/**
 * The statement that inserts a booked case with its contacts, its first status and the history
 * entry of its booking, answering the case's row with the contacts and status it wrote (read by
 * `writtenCase`), so its events need no read back. One statement: booking is the busiest write,
 * and each statement of its transaction is a round trip to the database, which costs more than
 * the statement itself.
 */
export function caseInsert(
  knex: Knex,
  guid: string,
  plan: BookingPlan,
  status: { key: string; name: string },
  booker: Caller,
): Knex.Raw {
  const { body } = plan;
  const country = (body.consumer ?? body.customer).countryCode;
  const caseValues: Record<string, unknown> = {
    guid,
    partner_id: plan.partner.id,
    service_provider_id: plan.provider.id,
    service_provider_department_id: plan.department?.id ?? null,
    manufacturer_id: plan.manufacturer.id,
    product_type_id: plan.productType.id,
    service_type_id: plan.serviceType.id,
    service_location_id: plan.serviceLocation.id,
    shipping_method_id: plan.shippingMethod?.id ?? null,
    country: country ? country.toUpperCase() : null,
    current_status: status.key,
    order_data: JSON.stringify(storedOrderData(plan)),
    product_data: JSON.stringify(storedProductData(plan)),
    manufacturer: JSON.stringify(plan.manufacturer),
    product_type: JSON.stringify(plan.productType),
    service_type: JSON.stringify(plan.serviceType),
    service_location: JSON.stringify(plan.serviceLocation),
    shipping_method: plan.shippingMethod ? JSON.stringify(plan.shippingMethod) : null,
    service_partner: JSON.stringify(plan.partner),
    service_provider: JSON.stringify(plan.provider),
    service_provider_department: plan.department ? JSON.stringify(plan.department) : null,
    service_provider_competence: plan.competence ? JSON.stringify(plan.competence) : null,
  };
  const contacts = caseContacts(plan).map(({ role, data }) => ({ role, type: data.type ?? null, data }));
  const history = historyEntryOf(booker, 'created', [{ field: STATUS_FIELD, before: null, after: status.key }]);
  const caseColumns = Object.keys(caseValues);
  const historyColumns = Object.keys(history);
  const marks = (count: number, mark: '?' | '??') => Array.from({ length: count }, () => mark).join(', ');
  // Contacts and the history entry come as JSON read into rows of their tables, so each value
  // takes its column's type.
  return knex.raw(
    `with new_case as (
       insert into booking.cases (${marks(caseColumns.length, '??')})
       values (${marks(caseColumns.length, '?')}) returning *
     ), new_contacts as (
       insert into booking.case_contacts (case_id, role, type, data)
       select new_case.id, contact.role, contact.type, contact.data
         from new_case,
              jsonb_populate_recordset(null::booking.case_contacts, ?::jsonb) with ordinality as contact
        order by contact.ordinality
       returning *
     ), first_status as (
       insert into booking.case_statuses (case_id, key, name) select id, ?, ? from new_case returning *
     ), booked as (
       insert into booking.case_history (case_id, ${marks(historyColumns.length, '??')})
       select new_case.id, ${marks(historyColumns.length, '??')}
         from new_case, jsonb_populate_record(null::booking.case_history, ?::jsonb) as entry
     )
     select new_case.*,
            (select json_agg(new_contacts order by new_contacts.id) from new_contacts) as written_contacts,
            (select row_to_json(first_status) from first_status) as written_status
       from new_case`,
    [
      ...caseColumns,
      ...Object.values(caseValues),
      JSON.stringify(contacts),
      status.key,
      status.name,
      ...historyColumns,
      ...historyColumns.map((column) => `entry.${column}`),
      JSON.stringify(history),
    ] as Knex.RawBinding[],
  );
}

/** The case `caseInsert` wrote, from its answer: its row, its first status and the Case shape (a new case has no tags). */
export function writtenCase(answer: { rows: unknown[] }): { row: CaseRow; firstStatus: StatusRow; created: CaseOut } {
  const {
    written_contacts: writtenContacts,
    written_status: writtenStatus,
    ...row
  } = answer.rows[0] as CaseRow & {
    written_contacts: Record<string, unknown>[];
    written_status: Record<string, unknown>;
  };
  const contactRows = writtenContacts.map((contact) => withDates<ContactRow>(contact, ['created_at']));
  const firstStatus = withDates<StatusRow>(writtenStatus, ['declared_at', 'created_at', 'updated_at']);
  return { row, firstStatus, created: caseOut(row, contactRows, [firstStatus], []) };
}
