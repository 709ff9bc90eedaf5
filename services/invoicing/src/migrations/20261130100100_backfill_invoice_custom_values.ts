/**
 * The kept customData values of the invoices written before the triggers existed (see
 * backfillInBatches): a batch's values that a trigger already kept stay, and it adds the rest.
 */
import type { Knex } from 'knex';
import { backfillInBatches } from '@hub/shared';
import { CUSTOM_VALUE_COLUMNS, CUSTOM_VALUES, keptValuesOf } from '../custom-values.store';

export const config = { transaction: false };

/** Invoice ids per batch: writes wait at most about a second for one on a busy server. */
const BATCH_IDS = 50_000;

export async function up(knex: Knex): Promise<void> {
  await backfillInBatches(
    knex,
    'invoicing.invoices',
    BATCH_IDS,
    `insert into ${CUSTOM_VALUES} ${CUSTOM_VALUE_COLUMNS}
     ${keptValuesOf('(select * from invoicing.invoices where id > ? and id <= ?)')}
     on conflict do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`truncate ${CUSTOM_VALUES}`);
}
