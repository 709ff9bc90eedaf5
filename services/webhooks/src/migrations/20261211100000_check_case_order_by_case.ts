/**
 * The claim checks each candidate for an earlier pending delivery of its case through one index,
 * whatever the planner knows of the deliveries. A plan is made of the claim once per connection
 * and kept, and when it was made while a partition was small and without statistics (a hub's
 * first burst, or a server without autovacuum), every index that could answer the check cost the
 * same. In one run of bench/webhooks.js in four the claims kept a plan that read all of a
 * subscription's pending deliveries for each candidate (through the index of due deliveries or of
 * a subscription's deliveries): 4 ms of the database's CPU a claim instead of 1.1, and the burst
 * went at three quarters of its rate.
 *
 * So the check now looks a candidate's case up in an index that leads with the case, and is
 * written so that no other index can serve it: the subscription and the id are compared as
 * expressions no index holds, and the index of due deliveries asks for a bound on the next
 * attempt, which the walk of due deliveries gives and the check does not (so that it is not
 * read whole for its predicate). Sequential scans are off while the claim is planned, so a
 * partition too small for an index to look cheaper is not planned as one read whole either; and
 * so is JIT compilation, which the cost a disabled scan is given would otherwise start (20 ms of
 * compiling for the claim's small delete of the counts of dead workers, at every claim).
 * The indexes are built concurrently, partition by partition.
 */
import type { Knex } from 'knex';
import { createPartitionedIndexConcurrently } from '@hub/shared';
import { earlierOfCaseToItsSubscription } from './20261130100000_claim_ahead';
import { claimDueCountingLeases } from './20261208100000_count_leases_per_worker';

export const config = { transaction: false };

const EARLIER_OF_CASE_LOOKED_UP_BY_CASE = `exists (select 1 from webhooks.deliveries e
                               where e.case_guid = d.case_guid and e.subscription_id + 0 = d.subscription_id
                                 and e.state = 'pending' and e.id + 0 < d.id offset 0)`;

/** The claim's indexes of pending deliveries, each by the end of its name (`deliveries_<end>`). */
const LOOKED_UP_BY_CASE = {
  pending_of_case: `(case_guid, subscription_id, id) where state = 'pending'`,
  due: `(subscription_id, next_attempt_at, id) where state = 'pending' and next_attempt_at is not null`,
};
const LOOKED_UP_BY_SUBSCRIPTION = {
  case_order: `(subscription_id, case_guid, id) where state = 'pending'`,
  due_per_subscription: `(subscription_id, next_attempt_at, id) where state = 'pending'`,
};

export async function up(knex: Knex): Promise<void> {
  await claimWith(
    knex,
    LOOKED_UP_BY_CASE,
    claimDueCountingLeases(EARLIER_OF_CASE_LOOKED_UP_BY_CASE, { enable_seqscan: 'off', jit: 'off' }),
    LOOKED_UP_BY_SUBSCRIPTION,
  );
}

export async function down(knex: Knex): Promise<void> {
  await claimWith(
    knex,
    LOOKED_UP_BY_SUBSCRIPTION,
    claimDueCountingLeases(earlierOfCaseToItsSubscription(true), {}),
    LOOKED_UP_BY_CASE,
  );
}

/** Builds `indexes`, makes the claim function `claimDue`, then drops the indexes it replaces. */
async function claimWith(
  knex: Knex,
  indexes: Record<string, string>,
  claimDue: string,
  replaced: Record<string, string>,
): Promise<void> {
  for (const [end, definition] of Object.entries(indexes))
    await createPartitionedIndexConcurrently(knex, 'webhooks.deliveries', `deliveries_${end}`, end, definition);
  await knex.raw(claimDue);
  for (const end of Object.keys(replaced)) await knex.raw(`drop index webhooks.deliveries_${end}`);
}
