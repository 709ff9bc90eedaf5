/**
 * The kept customData values of the invoices written before the triggers existed, in batches of
 * invoice ids, each its own transaction. A batch holds writes to the invoices while it runs (a
 * share lock), so what it reads is each invoice's last committed version, whose values a trigger
 * may already have kept: those stay, and the batch adds the rest.
 */
import type { Knex } from 'knex';
import { CUSTOM_VALUE_COLUMNS, CUSTOM_VALUES, keptValuesOf } from '../custom-values.store';

export const config = { transaction: false };

/** Invoice ids per batch: writes wait at most about a second for one on a busy server. */
const BATCH_IDS = 50_000;

export async function up(knex: Knex): Promise<void> {
  const [{ last }] = (await knex('invoicing.invoices').max('id as last')) as Array<{ last: number | null }>;
  for (let after = 0; after < (last ?? 0); after += BATCH_IDS) {
    await knex.transaction(async (trx) => {
      await trx.raw('lock table invoicing.invoices in share mode');
      await trx.raw(
        `insert into ${CUSTOM_VALUES} ${CUSTOM_VALUE_COLUMNS}
         ${keptValuesOf('(select * from invoicing.invoices where id > ? and id <= ?)')}
         on conflict do nothing`,
        [after, after + BATCH_IDS],
      );
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`truncate ${CUSTOM_VALUES}`);
}
