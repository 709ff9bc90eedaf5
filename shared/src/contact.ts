/** ContactData in the spec's output shape: every field present, null when unknown. */
import type { ContactDataIn } from './world';

export const CONTACT_FIELDS = [
  'name',
  'firstName',
  'lastName',
  'organizationName',
  'organizationNumber',
  'addName',
  'address',
  'postalCode',
  'city',
  'countryCode',
  'phone',
  'mobile',
  'email',
  'floor',
  'entrance',
  'doorCode',
] as const;

export interface ContactDataOut extends Record<(typeof CONTACT_FIELDS)[number], string | null> {
  id: number;
  createdAt: string;
}

export function contactDataOut(
  id: number,
  data: ContactDataIn | null | undefined,
  createdAt: Date | string,
): ContactDataOut {
  const out = { id } as ContactDataOut;
  for (const field of CONTACT_FIELDS) out[field] = data?.[field] ?? null;
  out.createdAt = new Date(createdAt).toISOString();
  return out;
}
