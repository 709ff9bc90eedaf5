/**
 * Case statuses: a provider adds them (`case/status`), every one is kept and `currentStatus`
 * follows the last; `case/notifications` lists the keys a case's statuses can take, as the
 * caller is notified about them.
 */
import type { Knex } from 'knex';
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type Caller,
  type CallerMeta,
  callerOf,
  ConflictError,
  DOMAIN_EVENTS,
  FIELD_MESSAGES,
  FieldsValidationError,
  inTransaction,
  keepIdempotentAnswer,
  notifiableKeys,
  type NewEvent,
  type ParamsOf,
  parseInstant,
  writeEvent,
} from '@hub/shared';
import { assertNotCancelled, caseRowFor, GUID_PARAM, statusRulesFor } from './case-access';
import { type CaseRow, loadCases, type StatusRow, statusOut } from './case-shape';
import type { CaseNotificationsIn } from './booking-body';
import { STATUS_FIELD } from './case-history';
import { recordHistory } from './history.store';
import type { BookingThis } from './booking.types';
import { NOTIFICATIONS, STATUS_ADDED } from './responses';

const ADD_STATUS_PARAMS = {
  guid: GUID_PARAM,
  key: 'string|min:1|max:64|trim',
  declaredAt: { type: 'string', max: 64, optional: true, nullable: true },
} as const;
export type AddStatusParams = ParamsOf<typeof ADD_STATUS_PARAMS>;

/** A declaredAt the caller sent, as a Date; the current time when absent. */
export function parseDeclaredAt(value: string | null | undefined): Date | null {
  if (value === undefined || value === null || value === '') return new Date();
  return parseInstant(value);
}

/** A provider's status key as case/notifications documents it. */
export interface StatusKeyOut {
  key: string;
  name: string;
  description: string | null;
  smsAvailable: boolean;
  emailAvailable: boolean;
}

export async function providerStatusKeys(knex: Knex, providerId: number | null): Promise<StatusKeyOut[]> {
  if (providerId === null) return [];
  return knex('booking.status_keys')
    .where({ provider_id: providerId })
    .orderBy('position')
    .select('key', 'name', 'description', 'sms_available as smsAvailable', 'email_available as emailAvailable');
}

/**
 * Adds a status to a locked case and writes `case.statusAdded` (provider keys; the webhooks
 * service maps them per partner). Answers null when the key is already the current one.
 */
export async function addStatus(
  trx: Knex.Transaction,
  row: CaseRow,
  status: { key: string; name: string },
  declaredAt: Date,
  extra: Record<string, unknown> = {},
): Promise<StatusRow | null> {
  if (row.current_status === status.key) return null;
  const [added] = (await trx('booking.case_statuses')
    .insert({ case_id: row.id, key: status.key, name: status.name, declared_at: declaredAt })
    .returning('*')) as StatusRow[];
  await trx('booking.cases')
    .where({ id: row.id })
    .update({ current_status: status.key, updated_at: trx.fn.now(), ...extra });
  await writeStatusAdded(trx, row, added, row.current_status);
  return added;
}

/** Whether the case has as many statuses as it may hold: an index walk of at most that many. */
async function holdsMostStatuses(trx: Knex.Transaction, caseId: number): Promise<boolean> {
  const last = await trx('booking.case_statuses')
    .where({ case_id: caseId })
    .offset(STATUSES_PER_CASE_MAX - 1)
    .first(trx.raw('1 as held'));
  return last !== undefined;
}

/**
 * Writes `case.statusAdded` for a status just added, with the case as it now is: provider keys,
 * which the webhooks service maps per partner.
 */
async function writeStatusAdded(
  trx: Knex.Transaction,
  row: CaseRow,
  added: StatusRow,
  prevKey: string | null,
): Promise<void> {
  const [current] = await loadCases(trx, [row.guid]);
  await writeEvent(trx, 'booking', statusAddedEvent(row, added, prevKey, current));
}

/** `case.statusAdded` for a status just added (the first one at booking too) to the case `current` shows. */
export function statusAddedEvent(row: CaseRow, added: StatusRow, prevKey: string | null, current: unknown): NewEvent {
  return {
    type: DOMAIN_EVENTS.CASE_STATUS_ADDED,
    caseGuid: row.guid,
    audience: { partnerId: row.partner_id },
    payload: { status: statusOut(added, row.guid), prevKey, case: current },
  };
}

function statusAnswer(row: StatusRow, guid: string) {
  const { name: _name, ...rest } = statusOut(row, guid);
  return { data: rest };
}

/**
 * The most statuses a provider may post to one case. Every read of the case carries them all, and
 * in distributed mode a read travels as one message of at most 1 MiB: at this count a case's
 * statuses take a few hundred KiB, beside its other parts (each bounded by RECORD_MAX_BYTES).
 */
export const STATUSES_PER_CASE_MAX = 1000;

export const statusActions: Record<string, ActionSchema<BookingThis>> = {
  addStatus: {
    rest: 'POST /v3/case/status',
    access: ACCESS.PROVIDER,
    summary: 'Add a status to a case',
    description: `\`key\` is one of the provider's status keys (lower-cased); re-sending the case's current key changes nothing and answers that status. The partner gets its webhooks in its own keys. A case takes at most ${STATUSES_PER_CASE_MAX} statuses: another is a 409.`,
    response: STATUS_ADDED,
    params: ADD_STATUS_PARAMS,
    async handler(this: BookingThis, ctx: Context<AddStatusParams, CallerMeta>) {
      const caller: Caller = callerOf(ctx);
      const key = ctx.params.key.toLowerCase();
      const declaredAt = parseDeclaredAt(ctx.params.declaredAt);
      if (!declaredAt) throw new FieldsValidationError({ declaredAt: [FIELD_MESSAGES.wrongFormat] });
      const answer = await inTransaction(this.db.knex, async (trx) => {
        const row = await caseRowFor(trx, caller, ctx.params.guid, true);
        assertNotCancelled(row);
        const status = (await providerStatusKeys(trx, row.service_provider_id)).find((entry) => entry.key === key);
        if (!status) throw new FieldsValidationError({ key: [FIELD_MESSAGES.notAnOption] });
        if (row.current_status !== key && (await holdsMostStatuses(trx, row.id)))
          throw new ConflictError(`A case holds at most ${STATUSES_PER_CASE_MAX} statuses`);
        const added = await addStatus(trx, row, status, declaredAt);
        if (added) {
          await recordHistory(trx, caller, row.id, 'statusAdded', [
            { field: STATUS_FIELD, before: row.current_status, after: added.key },
          ]);
          const answer = statusAnswer(added, row.guid);
          await keepIdempotentAnswer(trx, ctx, answer);
          return answer;
        }
        // Re-sending the current key changes nothing: the answer is the status it already has.
        const current = (await trx('booking.case_statuses')
          .where({ case_id: row.id })
          .orderBy('id', 'desc')
          .first()) as StatusRow;
        return statusAnswer(current, row.guid);
      });
      this.relayOutbox();
      return answer;
    },
  },

  notifications: {
    rest: 'GET /v3/case/notifications',
    access: ACCESS.PARTNER_PROVIDER,
    summary: 'Status notifications of a case',
    description:
      "The status keys the case can take (as the caller sees keys), each with the channels the consumer can be told of it by (`smsNotificationAvailable`, `emailNotificationAvailable`: the provider's status keys in the world file) and whether the case wants it told by each (`smsNotificationEnabled`, `emailNotificationEnabled`: the case's `orderData.notifications`, true for a key or channel it does not name). A notification goes out by a channel that is both available and enabled.",
    response: NOTIFICATIONS,
    params: { guid: GUID_PARAM },
    async handler(this: BookingThis, ctx: Context<{ guid: string }, CallerMeta>) {
      const caller = callerOf(ctx);
      const rules = await statusRulesFor(this.statusRules, caller);
      const row = await caseRowFor(this.db.knex, caller, ctx.params.guid);
      const chosen = (row.order_data.notifications ?? {}) as CaseNotificationsIn;
      // The case's orderData.notifications says, per key, whether it wants each channel; "by
      // default, we assume that all notifications are allowed" (the documentation's Data types).
      return {
        data: notifiableKeys(await providerStatusKeys(this.db.knex, row.service_provider_id), rules).map(
          ({ key, name, description, smsAvailable, emailAvailable }) => ({
            key,
            name,
            description,
            smsNotificationAvailable: smsAvailable,
            emailNotificationAvailable: emailAvailable,
            smsNotificationEnabled: chosen[key]?.sms ?? true,
            emailNotificationEnabled: chosen[key]?.email ?? true,
          }),
        ),
      };
    },
  },
};
