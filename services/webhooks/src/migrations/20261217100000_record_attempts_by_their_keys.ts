/**
 * A record finds the deliveries it moves on by their keys alone, one primary-key lookup for each
 * outcome, with the planner kept to that plan (no hash or merge join, no sequential scan).
 *
 * It also matched each delivery's id against an array of every id of the record (migration
 * 20261208100000), so that the primary key would serve on new partitions without statistics
 * rather than the whole partition being read and hashed. But the lookup of each outcome is a
 * new scan of the key with that array, and a scan prepares its array anew, sorting it: a record
 * of n attempts sorted n arrays of n ids. At 64 attempts, in the order the worker sent them, that
 * went unnoticed; in a burst of 10,000 events to four subscriptions, records that fell behind grew
 * to thousands of attempts in no order, and one of 3,281 spent 890 ms in its lookups (0.27 ms an
 * attempt against 0.05 for the lookup itself). Slow records held the worker's leases back, its
 * stores then leased nothing and left the deliveries to claims, and the burst's rate moved from
 * run to run between 6,661 and 13,046 deliveries a second.
 *
 * Planner settings set on the function hold while it runs and are put back as it returns; JIT is
 * off as for the claims (migration 20261211100000), since a disabled plan's cost would start it.
 */
import type { Knex } from 'knex';
import { DELIVERIES_BY_AN_ARRAY_OF_IDS, recordAttemptsFunction } from './20261208100000_count_leases_per_worker';

const DELIVERIES_BY_THEIR_KEYS = 'd.id = o.delivery_id and d.occurred_at = o.delivery_occurred_at';

const LOOKUPS_BY_KEY_ONLY = `
  set enable_hashjoin = off
  set enable_mergejoin = off
  set enable_seqscan = off
  set jit = off`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(recordAttemptsFunction(DELIVERIES_BY_THEIR_KEYS, LOOKUPS_BY_KEY_ONLY));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(recordAttemptsFunction(DELIVERIES_BY_AN_ARRAY_OF_IDS, ''));
}
