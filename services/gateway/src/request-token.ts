/** Where a request carries its API token: the spec's query parameter or one of two headers. */
import type { IncomingMessage } from 'node:http';

/** The spec's query parameter for the token. */
export const TOKEN_QUERY_PARAM = 'accessToken';

/**
 * A query parameter's name in the camelCase the API declares: the product reads query names in
 * any notation, so `client_postal_code` and `client-postal-code` are `clientPostalCode`.
 */
export function camelCaseName(name: string): string {
  return name.replace(/[-_]+([a-z0-9])/gi, (_match, next: string) => next.toUpperCase());
}

/** Whether a query parameter, in any notation, is the token (a name without separators is its own camelCase). */
export const isTokenQueryParam = (name: string) =>
  name === TOKEN_QUERY_PARAM ||
  ((name.includes('-') || name.includes('_')) && camelCaseName(name) === TOKEN_QUERY_PARAM);

export function tokenOf(req: IncomingMessage & { query?: Record<string, unknown> }): string | undefined {
  const tokenName = Object.keys(req.query ?? {}).find(isTokenQueryParam);
  const fromQuery = tokenName === undefined ? undefined : req.query![tokenName];
  if (typeof fromQuery === 'string' && fromQuery.length > 0) return fromQuery;
  const fromHeader = req.headers['x-hub-api-token'];
  if (typeof fromHeader === 'string' && fromHeader.length > 0) return fromHeader;
  const authorization = req.headers.authorization;
  if (authorization && /^Bearer\s+\S+/i.test(authorization)) return authorization.replace(/^Bearer\s+/i, '').trim();
  return undefined;
}
