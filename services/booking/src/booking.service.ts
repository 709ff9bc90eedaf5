/**
 * booking: cases (validate and create with the spec's rules, routing and shipping), their
 * statuses and contacts, the request log, and the case lookups other services embed; after
 * booking, reads and search, update and append, statuses, files, the provider's intake and the
 * completed email (docs/cases.md).
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import {
  DbMixin,
  FieldsValidationError,
  IdempotencyMixin,
  idempotencyKeysRetention,
  inTransaction,
  PerWorld,
  PerWorldByKey,
  OlderPathsMixin,
  OutboxMixin,
  relayedEventsRetention,
  RetentionMixin,
  type World,
  WorldCacheMixin,
} from '@hub/shared';
import { askStatusRules } from './case-access';
import type { LookupNames } from './case-search';
import { caseActions } from './cases.actions';
import { loadFirstStatuses } from './cases.store';
import { requestActions } from './requests.actions';
import { requestLogRetention } from './requests.store';
import { caseReadActions } from './case-read.actions';
import { statusActions } from './statuses.actions';
import { caseUpdateActions } from './case-update.actions';
import { fileActions } from './files.actions';
import { intakeActions } from './intake.actions';
import { emailActions } from './email.actions';
import { historyActions } from './history.actions';
import { schemaActions } from './schema.actions';
import { BOOKING_OLDER_PATHS } from './older-paths';
import { applyTags, tagNameClashes } from './tags';
import type { BookingThis } from './booking.types';

const BookingService: ServiceSchema<ServiceSettingSchema, BookingThis> = {
  name: 'booking',
  mixins: [
    DbMixin('booking', path.join(__dirname, 'migrations')),
    OutboxMixin('booking'),
    RetentionMixin('booking', ({ retention, idempotencyKeyTtlMs }) => {
      const outbox = relayedEventsRetention('booking', retention.relayedEventsMs);
      const requestLog = requestLogRetention(retention.requestLogMs);
      const keys = idempotencyKeysRetention('booking', idempotencyKeyTtlMs);
      return { rules: [outbox.rule, requestLog.rule, keys.rule], aged: [outbox.aged, requestLog.aged, keys.aged] };
    }),
    WorldCacheMixin,
    OlderPathsMixin(BOOKING_OLDER_PATHS),
    IdempotencyMixin('booking'),
  ],
  settings: { rest: '' },
  metadata: {
    description:
      "Cases: validate and book, read and search, update, statuses, files, the provider's intake, the partner's finish, and the request log.",
  },

  actions: {
    ...caseActions,
    ...requestActions,
    ...caseReadActions,
    ...statusActions,
    ...caseUpdateActions,
    ...fileActions,
    ...intakeActions,
    ...emailActions,
    ...historyActions,
    ...schemaActions,

    /** Internal: whether the world's tags would load, asked before any part of a world is written. */
    checkWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: BookingThis, ctx: Context<{ world: World }>) {
        const details = await tagNameClashes(this.db.knex, ctx.params.world);
        if (Object.keys(details).length) throw new FieldsValidationError(details);
        return true;
      },
    },

    /**
     * The providers' status keys and the case tags. A provider in the world gets exactly its listed keys, in
     * order; the first is the status every new case of that provider starts with.
     */
    applyWorld: {
      visibility: 'public',
      params: { world: { type: 'object' } },
      async handler(this: BookingThis, ctx: Context<{ world: World }>) {
        const providers = ctx.params.world.providers ?? [];
        await inTransaction(this.db.knex, async (trx) => {
          await applyTags(trx, ctx.params.world);
          for (const provider of providers) {
            if (!provider.statusKeys) continue;
            await trx('booking.status_keys').where({ provider_id: provider.id }).delete();
            if (provider.statusKeys.length === 0) continue;
            await trx('booking.status_keys').insert(
              provider.statusKeys.map((status, position) => ({
                provider_id: provider.id,
                key: status.key,
                name: status.name,
                description: status.description ?? null,
                sms_available: status.smsAvailable ?? false,
                email_available: status.emailAvailable ?? false,
                position,
              })),
            );
          }
        });
        this.firstStatuses.forget();
        return true;
      },
    },
  },

  events: {
    // Every instance reads the status keys again after a load anywhere in the cluster.
    'world.changed'(this: BookingThis) {
      this.firstStatuses.forget();
      this.statusRules.forget();
      this.lookupNames.forget();
    },
  },

  // Only a world load changes the status keys, the partners' status rules and the lookups' names;
  // a booking would otherwise read the keys each time, and every partner's read and search ask
  // for the rules.
  created(this: BookingThis) {
    this.firstStatuses = new PerWorld(() => loadFirstStatuses(this.db.knex));
    this.statusRules = new PerWorldByKey((partnerId: number) => askStatusRules(this.broker, partnerId));
    this.lookupNames = new PerWorld(() => this.broker.call<LookupNames>('catalog.lookupNames'));
  },
};

export default BookingService;
