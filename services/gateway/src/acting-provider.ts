/**
 * The `X-Service-Provider` header of the product's API basics: an account with "Allow all
 * service providers" (`allowAllProviders`) names in it the provider a request is for, and acts
 * as that provider for the whole request. Any account may name its own provider; naming another
 * needs the option.
 */
import type { IncomingMessage } from 'node:http';
import { type Caller, FIELD_MESSAGES, FieldsValidationError, ForbiddenError, INTEGER_COLUMN_MAX } from '@hub/shared';

export const SERVICE_PROVIDER_HEADER = 'X-Service-Provider';

/** The provider id the request names, undefined when it names none; a malformed value is refused naming the header. */
export function namedProviderOf(req: IncomingMessage): number | undefined {
  const value = req.headers[SERVICE_PROVIDER_HEADER.toLowerCase()];
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  const id = /^\s*\d{1,10}\s*$/.test(text) ? Number(text) : NaN;
  if (!(id >= 1 && id <= INTEGER_COLUMN_MAX))
    throw new FieldsValidationError({ [SERVICE_PROVIDER_HEADER]: [FIELD_MESSAGES.wrongFormat] });
  return id;
}

/**
 * The caller acting for the named provider. `providerExists` is asked only when the caller may
 * choose and names another provider than its own.
 */
export async function actingCaller(
  caller: Caller,
  providerId: number | undefined,
  providerExists: (id: number) => Promise<boolean>,
): Promise<Caller> {
  if (providerId === undefined || providerId === caller.providerId) return caller;
  if (!caller.allowAllProviders)
    throw new ForbiddenError(
      `This account acts only for its own service provider; ${SERVICE_PROVIDER_HEADER} cannot name another`,
    );
  if (!(await providerExists(providerId)))
    throw new FieldsValidationError({ [SERVICE_PROVIDER_HEADER]: [FIELD_MESSAGES.notAnOption] });
  return { ...caller, providerId };
}
