/**
 * The kept orderData values of the cases written before the triggers existed, in batches of case
 * ids, each its own transaction. A batch holds writes to the cases while it runs (a share lock),
 * so what it reads is each case's last committed version, whose values a trigger may already have
 * kept: those stay, and the batch adds the rest.
 */
import type { Knex } from 'knex';
import { keptOrderValuesOf, ORDER_VALUE_COLUMNS, ORDER_VALUES } from '../order-values';

export const config = { transaction: false };

/** Case ids per batch: writes wait at most about a second for one on a busy server. */
const BATCH_IDS = 20_000;

export async function up(knex: Knex): Promise<void> {
  const [{ last }] = (await knex('booking.cases').max('id as last')) as Array<{ last: number | null }>;
  for (let after = 0; after < (last ?? 0); after += BATCH_IDS) {
    await knex.transaction(async (trx) => {
      await trx.raw('lock table booking.cases in share mode');
      await trx.raw(
        `insert into ${ORDER_VALUES} ${ORDER_VALUE_COLUMNS}
         ${keptOrderValuesOf('(select * from booking.cases where id > ? and id <= ?)')}
         on conflict do nothing`,
        [after, after + BATCH_IDS],
      );
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`truncate ${ORDER_VALUES}`);
}
