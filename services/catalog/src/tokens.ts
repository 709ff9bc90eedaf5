/**
 * API tokens: random, shown once, stored as SHA-256. A token carries 256 bits of randomness,
 * so a fast hash is enough; a slow password hash would only slow every request.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newToken(): string {
  return `hub_${randomBytes(32).toString('base64url')}`;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
