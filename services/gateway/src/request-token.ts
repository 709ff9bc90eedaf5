/** Where a request carries its API token: the spec's query parameter or one of two headers. */
import type { IncomingMessage } from 'node:http';

/** The spec's query parameter for the token. */
export const TOKEN_QUERY_PARAM = 'accessToken';

export function tokenOf(req: IncomingMessage & { query?: Record<string, unknown> }): string | undefined {
  const fromQuery = req.query?.[TOKEN_QUERY_PARAM];
  if (typeof fromQuery === 'string' && fromQuery.length > 0) return fromQuery;
  const fromHeader = req.headers['x-hub-api-token'];
  if (typeof fromHeader === 'string' && fromHeader.length > 0) return fromHeader;
  const authorization = req.headers.authorization;
  if (authorization && /^Bearer\s+\S+/i.test(authorization)) return authorization.replace(/^Bearer\s+/i, '').trim();
  return undefined;
}
