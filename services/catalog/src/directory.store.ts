/**
 * The directory: partners, providers with their departments, and the accounts that act for
 * them. Reads shape records as the spec does; writes come from the world file or the admin API.
 */
import type { Knex } from 'knex';
import { contactDataOut, type ContactDataOut } from '@hub/shared';
import type { Caller, Role, World, ContactDataIn } from '@hub/shared';
import { tokenDigest } from './tokens';

export interface PartyOut {
  id: number;
  name: string;
  contactData: ContactDataOut | null;
}

export interface DepartmentOut extends PartyOut {
  externalData: unknown;
}

interface PartyRow {
  id: number;
  name: string;
  contact_id: number | null;
  contact_data: ContactDataIn | null;
  contact_created_at: Date | null;
}

function partyOut(row: PartyRow): PartyOut {
  return {
    id: row.id,
    name: row.name,
    contactData: row.contact_id ? contactDataOut(row.contact_id, row.contact_data, row.contact_created_at!) : null,
  };
}

function withContact(knex: Knex, table: string) {
  return knex(`catalog.${table} as p`)
    .leftJoin('catalog.contacts as c', 'c.id', 'p.contact_id')
    .select('p.*', 'c.data as contact_data', 'c.created_at as contact_created_at');
}

export async function findPartners(knex: Knex, ids?: number[]): Promise<PartyOut[]> {
  const query = withContact(knex, 'partners').orderBy('p.id');
  if (ids) query.whereIn('p.id', ids);
  return ((await query) as PartyRow[]).map(partyOut);
}

export type PartnerWithSettings = PartyOut & { settings: Record<string, unknown> };

/** Partners with their world settings, for services whose rules depend on them (internal only). */
export async function findPartnersWithSettings(knex: Knex, ids?: number[]): Promise<PartnerWithSettings[]> {
  const query = withContact(knex, 'partners').orderBy('p.id');
  if (ids) query.whereIn('p.id', ids);
  const rows = (await query) as Array<PartyRow & { settings: Record<string, unknown> | null }>;
  return rows.map((row) => ({ ...partyOut(row), settings: row.settings ?? {} }));
}

export async function findProviders(knex: Knex, ids?: number[]): Promise<PartyOut[]> {
  const query = withContact(knex, 'providers').orderBy('p.id');
  if (ids) query.whereIn('p.id', ids);
  return ((await query) as PartyRow[]).map(partyOut);
}

export async function findDepartments(
  knex: Knex,
  ids?: number[],
): Promise<Array<DepartmentOut & { providerId: number }>> {
  const query = withContact(knex, 'departments').orderBy('p.id');
  if (ids) query.whereIn('p.id', ids);
  return ((await query) as Array<PartyRow & { external_data: unknown; provider_id: number }>).map((row) => ({
    ...partyOut(row),
    externalData: row.external_data ?? null,
    providerId: row.provider_id,
  }));
}

/** The whole directory by id: only a world load changes it, so the catalog reads it once per world. */
export interface Directory {
  partners: Map<number, PartnerWithSettings>;
  providers: Map<number, PartyOut>;
  departments: Map<number, DepartmentOut & { providerId: number }>;
}

export async function loadDirectory(knex: Knex): Promise<Directory> {
  const byId = <T extends { id: number }>(records: T[]) => new Map(records.map((record) => [record.id, record]));
  return {
    partners: byId(await findPartnersWithSettings(knex)),
    providers: byId(await findProviders(knex)),
    departments: byId(await findDepartments(knex)),
  };
}

/** The records of the given ids that exist, in id order, each once (as a `where id in` reads them). */
export function recordsOf<T>(records: Map<number, T>, ids: number[]): T[] {
  return [...new Set(ids)].sort((a, b) => a - b).flatMap((id) => records.get(id) ?? []);
}

interface AccountRow {
  id: number;
  name: string;
  role: Role;
  partner_id: number | null;
  provider_id: number | null;
  can_force_provider: boolean;
  allow_all_providers: boolean;
  created_at: Date;
}

export function callerOfAccount(row: AccountRow): Caller {
  return {
    accountId: row.id,
    role: row.role,
    name: row.name,
    partnerId: row.partner_id,
    providerId: row.provider_id,
    canForceProvider: row.can_force_provider,
    allowAllProviders: row.allow_all_providers,
  };
}

export async function findCallerByToken(knex: Knex, token: string): Promise<Caller | null> {
  const row = await knex('catalog.accounts')
    .where({ token_sha256: tokenDigest(token) })
    .first();
  return row ? callerOfAccount(row) : null;
}

export function accountOut(row: AccountRow) {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    partnerId: row.partner_id,
    providerId: row.provider_id,
    canForceProvider: row.can_force_provider,
    allowAllProviders: row.allow_all_providers,
    createdAt: row.created_at.toISOString(),
  };
}

export async function listAccounts(knex: Knex) {
  return ((await knex('catalog.accounts').orderBy('id')) as AccountRow[]).map(accountOut);
}

export async function findAccounts(knex: Knex, ids: number[]) {
  if (ids.length === 0) return [];
  return ((await knex('catalog.accounts').whereIn('id', ids).orderBy('id')) as AccountRow[]).map(accountOut);
}

export async function insertAccount(
  knex: Knex,
  account: {
    name: string;
    role: Role;
    partnerId?: number | null;
    providerId?: number | null;
    canForceProvider?: boolean;
    allowAllProviders?: boolean;
  },
  token: string,
) {
  const [row] = await knex('catalog.accounts')
    .insert({
      name: account.name,
      role: account.role,
      partner_id: account.partnerId ?? null,
      provider_id: account.providerId ?? null,
      can_force_provider: account.canForceProvider ?? false,
      allow_all_providers: account.allowAllProviders ?? false,
      token_sha256: tokenDigest(token),
    })
    .returning('*');
  return accountOut(row as AccountRow);
}

/** Keeps one contact row per owner: updates it in place, or creates it. */
async function saveContact(
  trx: Knex.Transaction,
  currentId: number | null | undefined,
  data: ContactDataIn | undefined,
): Promise<number | null> {
  if (!data) return currentId ?? null;
  if (currentId) {
    await trx('catalog.contacts')
      .where({ id: currentId })
      .update({ data: JSON.stringify(data) });
    return currentId;
  }
  const [row] = await trx('catalog.contacts')
    .insert({ data: JSON.stringify(data) })
    .returning('id');
  return (row as { id: number }).id;
}

async function currentContactIds(trx: Knex.Transaction, table: string): Promise<Map<number, number | null>> {
  const rows = (await trx(`catalog.${table}`).select('id', 'contact_id')) as Array<{
    id: number;
    contact_id: number | null;
  }>;
  return new Map(rows.map((row) => [row.id, row.contact_id]));
}

/** Upserts the directory part of a world; entries are keyed by their ids, so a reload changes nothing. */
export async function applyDirectory(trx: Knex.Transaction, world: World): Promise<void> {
  const partnerContacts = await currentContactIds(trx, 'partners');
  for (const partner of world.partners ?? []) {
    const contactId = await saveContact(trx, partnerContacts.get(partner.id), partner.contactData);
    await trx('catalog.partners')
      .insert({
        id: partner.id,
        name: partner.name,
        contact_id: contactId,
        settings: JSON.stringify(partner.settings ?? {}),
      })
      .onConflict('id')
      .merge();
  }
  const providerContacts = await currentContactIds(trx, 'providers');
  const departmentContacts = await currentContactIds(trx, 'departments');
  for (const provider of world.providers ?? []) {
    const contactId = await saveContact(trx, providerContacts.get(provider.id), provider.contactData);
    await trx('catalog.providers')
      .insert({ id: provider.id, name: provider.name, contact_id: contactId })
      .onConflict('id')
      .merge();
    for (const department of provider.departments ?? []) {
      const departmentContact = await saveContact(trx, departmentContacts.get(department.id), department.contactData);
      await trx('catalog.departments')
        .insert({
          id: department.id,
          provider_id: provider.id,
          name: department.name,
          external_data: department.externalData === undefined ? null : JSON.stringify(department.externalData),
          contact_id: departmentContact,
        })
        .onConflict('id')
        .merge();
    }
  }
  for (const account of world.accounts ?? []) {
    await trx('catalog.accounts')
      .insert({
        id: account.id,
        name: account.name,
        role: account.role,
        partner_id: account.partnerId ?? null,
        provider_id: account.providerId ?? null,
        can_force_provider: account.canForceProvider ?? false,
        allow_all_providers: account.allowAllProviders ?? false,
        token_sha256: account.tokenSha256 ?? tokenDigest(account.token!),
      })
      .onConflict('id')
      .merge();
  }
  // Accounts created later through the API must not collide with ids the world chose.
  await trx.raw(
    `select setval(pg_get_serial_sequence('catalog.accounts', 'id'), greatest((select max(id) from catalog.accounts), 1))`,
  );
}
