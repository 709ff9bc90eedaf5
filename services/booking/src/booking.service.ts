/**
 * booking: cases (validate and create with the spec's rules, routing and shipping), their
 * statuses and contacts, the request log, and the case lookups other services embed; after
 * booking, reads and search, update and append, statuses, files, the provider's intake and the
 * completed email (docs/cases.md).
 */
import path from 'node:path';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { configOf, DbMixin, FieldsValidationError, inTransaction, OutboxMixin, type World, WorldCacheMixin } from '@hub/shared';
import { caseActions } from './cases.actions';
import { sweepExpiredKeys, sweepIntervalMs } from './idempotency';
import { requestActions } from './requests.actions';
import { caseReadActions } from './case-read.actions';
import { statusActions } from './statuses.actions';
import { caseUpdateActions } from './case-update.actions';
import { fileActions } from './files.actions';
import { intakeActions } from './intake.actions';
import { emailActions } from './email.actions';
import { applyTags, tagNameClashes } from './tags';
import type { BookingThis } from './booking.types';

const BookingService: ServiceSchema<ServiceSettingSchema, BookingThis> = {
  name: 'booking',
  mixins: [DbMixin('booking', path.join(__dirname, 'migrations')), OutboxMixin('booking'), WorldCacheMixin],
  settings: { rest: '' },

  actions: {
    ...caseActions,
    ...requestActions,
    ...caseReadActions,
    ...statusActions,
    ...caseUpdateActions,
    ...fileActions,
    ...intakeActions,
    ...emailActions,

    /**
     * The providers' status keys and the case tags. A provider in the world gets exactly its listed keys, in
     * order; the first is the status every new case of that provider starts with.
     */
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
              provider.statusKeys.map((status, position) => ({ provider_id: provider.id, key: status.key, name: status.name, position })),
            );
          }
        });
        return true;
      },
    },
  },

  started(this: BookingThis) {
    const ttlMs = configOf(this.broker).idempotencyKeyTtlMs;
    this.idempotencySweep = setInterval(() => {
      sweepExpiredKeys(this.db.knex, ttlMs).catch((err) => this.logger.warn('Sweeping expired Idempotency-Keys failed; the next sweep tries again', err));
    }, sweepIntervalMs(ttlMs));
  },

  stopped(this: BookingThis) {
    clearInterval(this.idempotencySweep);
  },
};

export default BookingService;
