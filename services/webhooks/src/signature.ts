/**
 * Standard Webhooks signing: HMAC-SHA256 over `id.timestamp.body` with the base64 key of a
 * `whsec_` secret, sent as `v1,<base64>`; during a rotation both secrets sign, space-separated.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function sign(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SigningSecrets {
  secret: string;
  previousSecret?: string | null;
  previousSecretUntil?: Date | null;
}

/** The `webhook-signature` value: the current secret's, plus the previous one's while its grace lasts. */
export function signatureHeader(
  secrets: SigningSecrets,
  webhookId: string,
  timestampSeconds: number,
  body: string,
  now = Date.now(),
): string {
  const signatures = [sign(secrets.secret, webhookId, timestampSeconds, body)];
  if (secrets.previousSecret && secrets.previousSecretUntil && secrets.previousSecretUntil.getTime() > now) {
    signatures.push(sign(secrets.previousSecret, webhookId, timestampSeconds, body));
  }
  return signatures.join(' ');
}
