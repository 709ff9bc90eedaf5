/**
 * The kept orderData values of the cases written before the triggers existed (see
 * backfillInBatches): a batch's values that a trigger already kept stay, and it adds the rest.
 */
import type { Knex } from 'knex';
import { backfillInBatches } from '@hub/shared';
import { keptOrderValuesOf, ORDER_VALUE_COLUMNS, ORDER_VALUES } from '../order-values';

export const config = { transaction: false };

/** Case ids per batch: writes wait about a second for one on a busy server. */
const BATCH_IDS = 20_000;

export async function up(knex: Knex): Promise<void> {
  await backfillInBatches(
    knex,
    'booking.cases',
    BATCH_IDS,
    `insert into ${ORDER_VALUES} ${ORDER_VALUE_COLUMNS}
     ${keptOrderValuesOf('(select * from booking.cases where id > ? and id <= ?)')}
     on conflict do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`truncate ${ORDER_VALUES}`);
}
