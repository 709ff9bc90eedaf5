import type { Knex } from 'knex';
import { claimDueFunction } from './20261130100000_claim_ahead';

/**
 * The claim answers each leased delivery as far as its attempt and record use it, and each of
 * their subscriptions once, instead of every column of the delivery with its subscription's whole
 * row repeated: 1.3 KB of JSON a delivery that Postgres built and the worker parsed (to_jsonb took
 * a twentieth of the server's CPU in a burst).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(claimDueFunction(true, 'used'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(claimDueFunction(true));
}
