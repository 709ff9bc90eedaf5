/**
 * A migration's backfill of rows kept from a table (its kept values, say) for the rows written
 * before the triggers that keep them existed: in batches of ids, each its own transaction holding
 * writes to the table while it runs (a share lock), so it reads each row's last committed version,
 * whose kept rows a trigger may already have written. `statement` fills one batch from the rows
 * whose id is above its first binding and at most its second, and leaves what a trigger wrote.
 */
import type { Knex } from 'knex';

export async function backfillInBatches(knex: Knex, table: string, batchIds: number, statement: string): Promise<void> {
  const [{ last }] = (await knex(table).max('id as last')) as Array<{ last: number | string | null }>;
  for (let after = 0; after < Number(last ?? 0); after += batchIds) {
    await knex.transaction(async (trx) => {
      await trx.raw(`lock table ${table} in share mode`);
      await trx.raw(statement, [after, after + batchIds]);
    });
  }
}
