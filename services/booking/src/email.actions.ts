/**
 * case/send-completed-email: tells the consumer (or the address given) that the case is done,
 * through the SMTP server of SMTP_URL. Without one, or for a partner whose emails are off, the
 * answer's result is a message saying why nothing was sent, as the spec describes.
 */
import nodemailer from 'nodemailer';
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type CallerMeta,
  callerOf,
  configOf,
  FIELD_MESSAGES,
  FieldsValidationError,
  holdIdempotencyKey,
  type ParamsOf,
} from '@hub/shared';
import { caseRowFor, GUID_PARAM } from './case-access';
import { type CaseOut, loadCases } from './case-shape';
import type { BookingThis } from './booking.types';
import { EMAIL_SENT } from './responses';

const SEND_COMPLETED_EMAIL_PARAMS = {
  guid: GUID_PARAM,
  email: { type: 'string', optional: true, nullable: true, max: 255, trim: true },
} as const;
export type SendCompletedEmailParams = ParamsOf<typeof SEND_COMPLETED_EMAIL_PARAMS>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Where the email goes without an address in the request: the consumer, else the customer. */
export function recipientsOf(found: CaseOut): string[] {
  const address = [found.consumer?.email, found.customer?.email].find(
    (email) => typeof email === 'string' && EMAIL.test(email),
  );
  return address ? [address] : [];
}

export function completedEmail(found: CaseOut): { subject: string; text: string } {
  const reference = typeof found.orderData.refNo === 'string' ? found.orderData.refNo : found.guid;
  const product = [found.manufacturer?.name, found.productData.model].filter(Boolean).join(' ');
  return {
    subject: `Your service case ${reference} is completed`,
    text: [
      `Your service case ${reference}${product ? ` (${product})` : ''} is completed.`,
      found.serviceProvider ? `Workshop: ${found.serviceProvider.name}` : null,
      found.servicePartner ? `Ordered through: ${found.servicePartner.name}` : null,
    ]
      .filter(Boolean)
      .join('\n'),
  };
}

export const emailActions: Record<string, ActionSchema<BookingThis>> = {
  sendCompletedEmail: {
    rest: 'POST /v3/case/send-completed-email',
    access: ACCESS.PARTNER,
    summary: 'Email the consumer that the case is completed',
    description:
      "Sends to `email`, or else to the case's consumer or customer. When no email can go out (no SMTP server, emails off for the partner, no address) `result` says why instead of `true`.",
    response: EMAIL_SENT,
    params: SEND_COMPLETED_EMAIL_PARAMS,
    async handler(this: BookingThis, ctx: Context<SendCompletedEmailParams, CallerMeta>) {
      const caller = callerOf(ctx);
      if (ctx.params.email && !EMAIL.test(ctx.params.email))
        throw new FieldsValidationError({ email: [FIELD_MESSAGES.wrongFormat] });
      const row = await caseRowFor(this.db.knex, caller, ctx.params.guid);
      const { smtpUrl, mailFrom } = configOf(this.broker);
      if (!smtpUrl) return { data: { result: 'Emails are disabled: no SMTP server is configured' } };
      const parties = await ctx.call<
        { partners: Array<{ settings?: { emailsEnabled?: boolean } | null }> },
        { partnerIds: number[] }
      >('catalog.parties', { partnerIds: [row.partner_id] });
      if (parties.partners[0]?.settings?.emailsEnabled === false)
        return { data: { result: 'Emails are disabled for this partner' } };

      const [found] = await loadCases(this.db.knex, [row.guid]);
      const to = ctx.params.email ? [ctx.params.email] : recipientsOf(found);
      if (to.length === 0) return { data: { result: 'The case has no email address to send to' } };
      // A retry of this request while it sends is refused, so the consumer gets one email.
      await holdIdempotencyKey(this.db.knex, ctx);
      const transport = nodemailer.createTransport(smtpUrl);
      try {
        await transport.sendMail({ from: mailFrom, to, ...completedEmail(found) });
      } catch (err) {
        this.logger.warn(`Completed email for case ${row.guid} was not sent: ${(err as Error).message}`);
        return { data: { result: 'The email could not be sent' } };
      } finally {
        transport.close();
      }
      return { data: { result: true } };
    },
  },
};
