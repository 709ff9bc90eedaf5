/**
 * messaging: the messages partner and provider exchange on a case (spec 4.6), and provider-only
 * internal notes. Case access is asked of booking once per request; a case the caller may not
 * see is a 404, like a missing one.
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  callerOf,
  canSeeCase,
  casePartiesOf,
  DbMixin,
  DOMAIN_EVENTS,
  FIELD_MESSAGES,
  FieldsValidationError,
  inTransaction,
  type OutboxDbService,
  OutboxMixin,
  visibleCase,
  writeEvent,
} from '@hub/shared';
import {
  confirmedAudience,
  createdAudience,
  isVisibleTo,
  mayConfirm,
  MESSAGE_TYPES,
  type MessageRow,
  messageOut,
  parseDeclaredAt,
  senderTypeOf,
} from './messages';

const SCHEMA = 'messaging';
const MESSAGES = `${SCHEMA}.messages`;

/** Most ids one confirm call may name; a larger list is refused rather than half done. */
const CONFIRM_MAX_IDS = 1000;

export interface CreateMessageParams {
  guid: string;
  content?: string | null;
  type: string;
  declaredAt?: string | null;
  externalId?: string | null;
  parentMessageId?: number | null;
  userEmail?: string | null;
  userName?: string | null;
  isInternal?: boolean;
}
export interface ListMessagesParams {
  guid: string;
}
export interface ConfirmMessagesParams {
  items: number[];
}
export interface ConfirmError {
  id: number;
  message: 'Not found' | 'No access';
}

type MessagingThis = OutboxDbService;

const optionalText = (max: number) => ({ type: 'string', max, optional: true, nullable: true });

const MessagingService: ServiceSchema<ServiceSettingSchema, MessagingThis> = {
  name: 'messaging',
  mixins: [DbMixin(SCHEMA, path.join(__dirname, 'migrations')), OutboxMixin(SCHEMA)],
  settings: { rest: '' },

  actions: {
    create: {
      rest: 'POST /v3/case-messages/create',
      access: ACCESS.PARTNER_PROVIDER,
      params: {
        guid: 'uuid',
        content: optionalText(65_535),
        type: { type: 'enum', values: [...MESSAGE_TYPES] },
        declaredAt: optionalText(64),
        externalId: optionalText(512),
        parentMessageId: { type: 'number', integer: true, positive: true, optional: true, nullable: true },
        userEmail: optionalText(512),
        userName: optionalText(512),
        isInternal: { type: 'boolean', optional: true },
      },
      async handler(this: MessagingThis, ctx: Context<CreateMessageParams>) {
        const caller = callerOf(ctx);
        const { guid, parentMessageId } = ctx.params;
        const isInternal = ctx.params.isInternal === true;
        const details: Record<string, string[]> = {};
        const declaredAt = parseDeclaredAt(ctx.params.declaredAt, new Date());
        if (!declaredAt) details.declaredAt = [FIELD_MESSAGES.wrongFormat];
        // A partner's note would be hidden from the partner itself: internal notes are the provider's.
        if (isInternal && caller.role === 'partner') details.isInternal = [FIELD_MESSAGES.notAccepted];
        if (Object.keys(details).length) throw new FieldsValidationError(details);

        const parties = await visibleCase(ctx, guid);
        const row = await inTransaction(this.db.knex, async (trx) => {
          if (parentMessageId) {
            const parent = (await trx(MESSAGES).where({ id: parentMessageId }).first('guid', 'is_internal')) as Pick<MessageRow, 'guid' | 'is_internal'> | undefined;
            if (!parent || parent.guid !== guid || !isVisibleTo(caller, parent)) {
              throw new FieldsValidationError({ parentMessageId: [FIELD_MESSAGES.notAnOption] });
            }
          }
          const [inserted] = (await trx(MESSAGES)
            .insert({
              case_id: parties.id,
              guid,
              partner_id: parties.partnerId,
              provider_id: parties.serviceProviderId,
              sender_account_id: caller.accountId,
              sender_type: senderTypeOf(caller),
              content: ctx.params.content ?? null,
              type: ctx.params.type,
              external_id: ctx.params.externalId ?? null,
              parent_message_id: parentMessageId ?? null,
              user_email: ctx.params.userEmail ?? null,
              user_name: ctx.params.userName ?? null,
              is_internal: isInternal,
              declared_at: declaredAt,
            })
            .returning('*')) as MessageRow[];
          const audience = createdAudience(inserted);
          if (audience) {
            await writeEvent(trx, SCHEMA, { type: DOMAIN_EVENTS.MESSAGE_CREATED, caseGuid: guid, audience, payload: { ...messageOut(inserted) } });
          }
          return inserted;
        });
        if (createdAudience(row)) this.relayOutbox();
        return messageOut(row);
      },
    },

    list: {
      rest: 'GET /v3/case-messages',
      access: ACCESS.PARTNER_PROVIDER,
      params: { guid: 'uuid' },
      async handler(this: MessagingThis, ctx: Context<ListMessagesParams>) {
        const caller = callerOf(ctx);
        const { guid } = ctx.params;
        await visibleCase(ctx, guid);
        const query = this.db.knex(MESSAGES).where({ guid }).orderBy('id');
        if (caller.role === 'partner') query.where({ is_internal: false });
        return ((await query) as MessageRow[]).map(messageOut);
      },
    },

    /** Confirms what it can and reports the rest per id; nothing done is rolled back. */
    confirm: {
      rest: 'POST /v3/case-messages/confirm',
      access: ACCESS.PARTNER_PROVIDER,
      params: {
        items: { type: 'array', max: CONFIRM_MAX_IDS, items: { type: 'number', integer: true, positive: true } },
      },
      async handler(this: MessagingThis, ctx: Context<ConfirmMessagesParams>) {
        const caller = callerOf(ctx);
        const ids = [...new Set(ctx.params.items)];
        const found = ids.length
          ? ((await this.db.knex(MESSAGES).whereIn('id', ids).select('id', 'guid', 'sender_type', 'is_internal')) as MessageRow[])
          : [];
        const byId = new Map(found.map((row) => [row.id, row]));
        const parties = await casePartiesOf(ctx, found.map((row) => row.guid));

        const errors: ConfirmError[] = [];
        const confirmable: number[] = [];
        for (const id of ids) {
          const row = byId.get(id);
          const caseParties = row && parties.get(row.guid);
          if (!row || !isVisibleTo(caller, row)) errors.push({ id, message: 'Not found' });
          else if (!caseParties || !canSeeCase(caller, caseParties) || !mayConfirm(caller, row)) errors.push({ id, message: 'No access' });
          else confirmable.push(id);
        }

        if (confirmable.length) {
          const confirmed = await inTransaction(this.db.knex, async (trx) => {
            // Only rows confirmed now: a second confirm keeps the first confirmedAt and tells nobody again.
            const rows = (await trx(MESSAGES)
              .whereIn('id', confirmable)
              .whereNull('confirmed_at')
              .update({ confirmed_at: trx.fn.now(), updated_at: trx.fn.now() })
              .returning('*')) as MessageRow[];
            for (const row of rows.sort((a, b) => a.id - b.id)) {
              const audience = confirmedAudience(row);
              if (audience) {
                await writeEvent(trx, SCHEMA, { type: DOMAIN_EVENTS.MESSAGE_CONFIRMED, caseGuid: row.guid, audience, payload: { ...messageOut(row) } });
              }
            }
            return rows.length;
          });
          if (confirmed) this.relayOutbox();
        }
        return { success: true, errors, data: {} };
      },
    },
  },
};

export default MessagingService;
