/**
 * messaging: the messages partner and provider exchange on a case (spec 4.6), and provider-only
 * internal notes. Case access is asked of booking once per request; a case the caller may not
 * see is a 404, like a missing one.
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  ACCESS,
  type CallerMeta,
  callerOf,
  canSeeCase,
  casePartiesOf,
  DbMixin,
  DOMAIN_EVENTS,
  FIELD_MESSAGES,
  FieldsValidationError,
  IdempotencyMixin,
  inTransaction,
  keepIdempotentAnswer,
  LIST_OFFSET_PARAM,
  listWithinBudget,
  type OlderForm,
  OlderPathsMixin,
  type OutboxDbService,
  OutboxMixin,
  visibleCase,
  writeEvent,
  outboxAndKeysPolicy,
  RetentionMixin,
  type ParamsOf,
} from '@hub/shared';
import {
  confirmedAudience,
  createdAudience,
  isVisibleTo,
  mayConfirm,
  MESSAGE_TYPES,
  type MessageRow,
  messageOut,
  type CaseMessageOut,
  olderMessageOut,
  parseDeclaredAt,
  senderTypeOf,
} from './messages';
import { CONFIRMED, MESSAGE_LIST, MESSAGE_LIST_OLDER, ONE_MESSAGE, ONE_MESSAGE_OLDER } from './responses';

const SCHEMA = 'messaging';
const MESSAGES = `${SCHEMA}.messages`;

/** Most ids one confirm call may name; a larger list is refused rather than half done. */
const CONFIRM_MAX_IDS = 1000;

export type CreateMessageParams = ParamsOf<typeof CREATE_MESSAGE_PARAMS>;
export type ListMessagesParams = ParamsOf<typeof LIST_MESSAGES_PARAMS>;
export type ConfirmMessagesParams = ParamsOf<typeof CONFIRM_MESSAGES_PARAMS>;
export interface ConfirmError {
  id: number;
  message: 'Not found' | 'No access';
}

type MessagingThis = OutboxDbService;

const optionalText = (max: number) => ({ type: 'string', max, optional: true, nullable: true }) as const;

const CREATE_MESSAGE_PARAMS = {
  guid: 'uuid',
  content: optionalText(65_535),
  type: { type: 'enum', values: [...MESSAGE_TYPES] },
  declaredAt: optionalText(64),
  externalId: optionalText(512),
  parentMessageId: { type: 'number', integer: true, positive: true, optional: true, nullable: true },
  userEmail: optionalText(512),
  userName: optionalText(512),
  isInternal: { type: 'boolean', optional: true },
} as const;
const LIST_MESSAGES_PARAMS = { guid: 'uuid', offset: LIST_OFFSET_PARAM } as const;
const CONFIRM_MESSAGES_PARAMS = {
  items: { type: 'array', max: CONFIRM_MAX_IDS, items: { type: 'number', integer: true, positive: true } },
} as const;

/** v1 and v2 (the root "Messages" page) name a message's type `messageType`, in and out. */
const OLDER_CREATE: OlderForm = {
  renamed: { type: 'messageType' },
  answer: olderMessageOut,
  response: ONE_MESSAGE_OLDER,
};
const OLDER_LIST: OlderForm = {
  answer: (messages: CaseMessageOut[]) => messages.map(olderMessageOut),
  response: MESSAGE_LIST_OLDER,
};

const MessagingService: ServiceSchema<ServiceSettingSchema, MessagingThis> = {
  name: 'messaging',
  mixins: [
    DbMixin(SCHEMA, path.join(__dirname, 'migrations')),
    OutboxMixin(SCHEMA),
    RetentionMixin(SCHEMA, outboxAndKeysPolicy(SCHEMA)),
    OlderPathsMixin({
      create: { v1: OLDER_CREATE, v2: OLDER_CREATE },
      list: { v1: OLDER_LIST, v2: OLDER_LIST },
      confirm: { v2: {} },
    }),
    IdempotencyMixin(SCHEMA),
  ],
  settings: { rest: '' },
  metadata: {
    description: 'Messages between the partner and the provider of a case, and their confirmation.',
  },

  actions: {
    create: {
      rest: 'POST /v3/case-messages/create',
      access: ACCESS.PARTNER_PROVIDER,
      summary: 'Send a message on a case',
      description:
        'The other party gets a webhook. A provider may write an internal note (`isInternal`): no webhook, and partners never see it. `declaredAt` defaults to now; `parentMessageId` answers a message of the same case.',
      response: ONE_MESSAGE,
      params: CREATE_MESSAGE_PARAMS,
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
        const { message, told } = await inTransaction(this.db.knex, async (trx) => {
          if (parentMessageId) {
            const parent = (await trx(MESSAGES).where({ id: parentMessageId }).first('guid', 'is_internal')) as
              Pick<MessageRow, 'guid' | 'is_internal'> | undefined;
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
          const created = messageOut(inserted);
          const audience = createdAudience(inserted);
          if (audience) {
            await writeEvent(trx, SCHEMA, {
              type: DOMAIN_EVENTS.MESSAGE_CREATED,
              caseGuid: guid,
              audience,
              payload: { ...created },
            });
          }
          await keepIdempotentAnswer(trx, ctx, created);
          return { message: created, told: audience !== null };
        });
        if (told) this.relayOutbox();
        return message;
      },
    },

    list: {
      rest: 'GET /v3/case-messages',
      access: ACCESS.PARTNER_PROVIDER,
      summary: "A case's messages",
      description:
        'Oldest first, from the `offset`-th (0 when left out); a partner does not see internal notes. The list holds at most 512 KiB of messages: when the rest do not fit, it ends early and a `Link` header names the rest (`<?guid=...&offset=N>; rel="next"`).',
      response: MESSAGE_LIST,
      params: LIST_MESSAGES_PARAMS,
      async handler(this: MessagingThis, ctx: Context<ListMessagesParams, CallerMeta>) {
        const caller = callerOf(ctx);
        const { guid, offset = 0 } = ctx.params;
        await visibleCase(ctx, guid);
        const query = this.db.knex(MESSAGES).where({ guid }).orderBy('id').offset(offset);
        if (caller.role === 'partner') query.where({ is_internal: false });
        return listWithinBudget(ctx.meta, ((await query) as MessageRow[]).map(messageOut), { guid }, offset);
      },
    },

    /** Confirms what it can and reports the rest per id; nothing done is rolled back. */
    confirm: {
      rest: 'POST /v3/case-messages/confirm',
      access: ACCESS.PARTNER_PROVIDER,
      summary: 'Confirm messages were read',
      description:
        'The body is an array of message ids. Confirms every one it can and names the others in `errors` (`Not found`, `No access`); nothing is rolled back. The sender of each confirmed message gets a webhook.',
      response: CONFIRMED,
      params: CONFIRM_MESSAGES_PARAMS,
      async handler(this: MessagingThis, ctx: Context<ConfirmMessagesParams>) {
        const caller = callerOf(ctx);
        const ids = [...new Set(ctx.params.items)];
        const found = ids.length
          ? ((await this.db
              .knex(MESSAGES)
              .whereIn('id', ids)
              .select('id', 'guid', 'sender_type', 'is_internal')) as MessageRow[])
          : [];
        const byId = new Map(found.map((row) => [row.id, row]));
        const parties = await casePartiesOf(
          ctx,
          found.map((row) => row.guid),
        );

        const errors: ConfirmError[] = [];
        const confirmable: number[] = [];
        for (const id of ids) {
          const row = byId.get(id);
          const caseParties = row && parties.get(row.guid);
          if (!row || !isVisibleTo(caller, row)) errors.push({ id, message: 'Not found' });
          else if (!caseParties || !canSeeCase(caller, caseParties) || !mayConfirm(caller, row))
            errors.push({ id, message: 'No access' });
          else confirmable.push(id);
        }

        const answer = { success: true, errors, data: {} };
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
                await writeEvent(trx, SCHEMA, {
                  type: DOMAIN_EVENTS.MESSAGE_CONFIRMED,
                  caseGuid: row.guid,
                  audience,
                  payload: { ...messageOut(row) },
                });
              }
            }
            await keepIdempotentAnswer(trx, ctx, answer);
            return rows.length;
          });
          if (confirmed) this.relayOutbox();
        }
        return answer;
      },
    },
  },
};

export default MessagingService;
