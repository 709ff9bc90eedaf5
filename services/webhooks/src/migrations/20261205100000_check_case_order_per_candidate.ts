import type { Knex } from 'knex';
import { claimDueFunction } from './20261130100000_claim_ahead';

/**
 * The claim checks each candidate for an earlier pending delivery of its case to the same
 * subscription with a lookup of its own. Left to the planner, the check became an anti join that
 * read every pending delivery of the subscription once and then scanned that list for each
 * candidate: in the middle of a burst of 2,000 events to four subscriptions (1,700 pending
 * deliveries a subscription), EXPLAIN ANALYZE of a claim of 50 took 41 to 84 ms, 10 to 24 with a
 * lookup per candidate. `offset 0` keeps the EXISTS a subquery run for each candidate, which the
 * index on (subscription, case, id) answers at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(claimDueFunction(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(claimDueFunction(false));
}
