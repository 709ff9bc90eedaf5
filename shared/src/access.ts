/**
 * Who is calling and what they may reach.
 *
 * Each published action declares `access`; the gateway enforces it centrally before the call.
 * Case-level access (a partner sees its own cases, a provider those routed to it) is checked by
 * the service that owns the record, and a case the caller may not see is a 404.
 */
import type { Context } from 'moleculer';
import { NotFoundError, UnauthorizedError } from './errors';

export type Role = 'partner' | 'provider' | 'admin';

export const ACCESS = {
  PARTNER: 'partner',
  PROVIDER: 'provider',
  PARTNER_PROVIDER: 'partner+provider',
  ANY: 'any',
  ADMIN: 'admin',
} as const;
export type AccessLevel = (typeof ACCESS)[keyof typeof ACCESS];

export interface Caller {
  accountId: number;
  role: Role;
  name: string;
  partnerId: number | null;
  providerId: number | null;
  /** Whether case/create may name `forcedProvider` (emergency routing bypass). */
  canForceProvider: boolean;
  /**
   * "Allow all service providers": a provider account that names, in the `X-Service-Provider`
   * header, the provider a request is for; `providerId` is then that one.
   */
  allowAllProviders: boolean;
}

export interface CallerMeta {
  caller?: Caller;
  requestId?: string;
  /** The request's `Idempotency-Key` header, which makes a retried write safe (idempotency.ts). */
  idempotencyKey?: string;
  $responseHeaders?: Record<string, string>;
  $statusCode?: number;
}

const ROLES_BY_ACCESS: Record<AccessLevel, Role[]> = {
  partner: ['partner'],
  provider: ['provider'],
  'partner+provider': ['partner', 'provider'],
  any: ['partner', 'provider', 'admin'],
  admin: ['admin'],
};

export function isAccessLevel(value: unknown): value is AccessLevel {
  return typeof value === 'string' && value in ROLES_BY_ACCESS;
}

export function accessAllows(level: AccessLevel, role: Role): boolean {
  return ROLES_BY_ACCESS[level].includes(role);
}

/** The authenticated caller of a gateway request; internal calls without one are refused. */
export function callerOf(ctx: Context): Caller {
  const caller = (ctx.meta as CallerMeta).caller;
  if (!caller) throw new UnauthorizedError();
  return caller;
}

export interface CaseParties {
  partnerId: number;
  serviceProviderId: number | null;
}

export function canSeeCase(caller: Caller, parties: CaseParties): boolean {
  if (caller.role === 'admin') return true;
  if (caller.role === 'partner') return caller.partnerId !== null && caller.partnerId === parties.partnerId;
  return caller.providerId !== null && caller.providerId === parties.serviceProviderId;
}

/** Throws the same 404 for a missing case and one the caller may not see. */
export function assertCanSeeCase<T extends CaseParties>(caller: Caller, found: T | null | undefined): T {
  if (!found || !canSeeCase(caller, found)) throw new NotFoundError('Case not found');
  return found;
}
