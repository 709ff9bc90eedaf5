import type { Knex } from 'knex';

/**
 * An ingest reaching a worker that claims nothing at the moment claims in its store's statement:
 * the deliveries it stores are leased and on their way as the store answers, instead of after a
 * claim of their own (a round trip, on the path of every event that arrives alone).
 *
 * The claim sees the webhooks stored before it in the same transaction. It asks that its own
 * commits not wait for the write-ahead log; the store's must, as a stored webhook is acknowledged,
 * so the caller's commit setting is put back before the transaction ends.
 */
/** The function, as this migration makes it. */
export const STORE_AND_CLAIM = `
    create function webhooks.store_and_claim(given jsonb, first_delay_ms integer, addressed_at bigint,
                                             worker uuid, held jsonb, max_count integer, lease_ms integer,
                                             depth integer)
    returns setof jsonb
    language plpgsql volatile
    as $$
    declare
      commit_waits text := current_setting('synchronous_commit');
    begin
      return next jsonb_build_object('stored', webhooks.store_addressed_webhooks(given, first_delay_ms, addressed_at));
      return query select * from webhooks.claim_due(worker, held, max_count, lease_ms, depth);
      perform set_config('synchronous_commit', commit_waits, true);
    end
    $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(STORE_AND_CLAIM);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop function webhooks.store_and_claim(jsonb, integer, bigint, uuid, jsonb, integer, integer, integer)',
  );
}
