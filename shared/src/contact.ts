/** ContactData: the shape the spec takes in, and its output shape with every field present, null when unknown. */
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

export interface ContactDataIn {
  type?: 0 | 1;
  name?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  organizationName?: string | null;
  organizationNumber?: string | null;
  addName?: string | null;
  address?: string | null;
  postalCode?: string | null;
  city?: string | null;
  countryCode?: string | null;
  phone?: string | null;
  mobile?: string | null;
  email?: string | null;
  floor?: string | null;
  entrance?: string | null;
  doorCode?: string | null;
}

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
