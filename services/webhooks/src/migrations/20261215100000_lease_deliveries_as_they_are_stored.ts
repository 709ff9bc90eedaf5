/**
 * A store leases the deliveries it makes to the worker of the instance that stores them, in the
 * insert that makes them, as far as the worker has room: they are on their way as the store
 * answers, without a claim. A claim finds each delivery through the index of due deliveries,
 * checks its case, locks and rewrites its row with the lease, and sends the row back; in a burst
 * over AMQP claims were about four tenths of the database's work per delivery. The store already
 * holds each delivery's row and its payload, and the worker the webhook it came from.
 *
 * A delivery is leased at its store only where a claim could take it at that moment: due at once
 * (no first delay), to an active subscription with room for this worker (the claim's room, with
 * the store's own depth), and the only pending delivery of its case to that subscription (none
 * stored before it, none earlier in the same store). Every delivery of a case to a subscription
 * is stored under its party's head lock, which the store holds, so the check sees every earlier
 * one. The rest wait for a claim as before. The worker's count of leases is set as a claim sets
 * it, so claims and stores that lease take turns in the worker.
 *
 * The store waits for the write-ahead log as before: the ingest's answer acknowledges it. The
 * claim in a store's statement for an idle worker (migration 20261209100000) has no caller left.
 */
import type { Knex } from 'knex';
import { LEASED_AND_THEIR_SUBSCRIPTIONS } from './20261130100000_claim_ahead';
import { filedWebhooks, HEADS_LOCKED, NUMBERED_CASES_FIRST } from './20261201100000_create_store_webhooks_function';
import { ADDRESSED_AT_CURRENT } from './20261207100000_address_from_a_versioned_view';
import { LEASES_COUNTED, ROOM_OF_EACH_SUBSCRIPTION } from './20261208100000_count_leases_per_worker';
import { STORE_AND_CLAIM } from './20261209100000_claim_with_the_store';

const STORE_AND_CLAIM_SIGNATURE =
  'webhooks.store_and_claim(jsonb, integer, bigint, uuid, jsonb, integer, integer, integer)';

/** What the store answers of the deliveries it leased: each one as a claim answers it, then each of their subscriptions. */
export const LEASED_ONE_BY_ONE = `      leased as (
        select d.*, room.cap from delivered d join room on room.id = d.subscription_id where d.lease_until is not null
      ),
${LEASES_COUNTED}
      select jsonb_build_object('stored', (select count(*) from delivered))
      union all
${LEASED_AND_THEIR_SUBSCRIPTIONS}`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`drop function ${STORE_AND_CLAIM_SIGNATURE}`);
  await knex.raw(storeAndLeaseFunction(LEASED_ONE_BY_ONE));
}

/**
 * The store's function, creating or replacing it: `answer` is its CTEs from `leased` on (the
 * deliveries leased, counted in the worker's leases) and the rows it answers, after `delivered`.
 */
export function storeAndLeaseFunction(answer: string): string {
  return `
    create or replace function webhooks.store_and_lease(given jsonb, first_delay_ms integer, addressed_at bigint,
                                             worker uuid, held jsonb, max_count integer, lease_ms integer,
                                             depth integer)
    returns setof jsonb
    language plpgsql volatile
    as $$
    begin
      ${ADDRESSED_AT_CURRENT}
${HEADS_LOCKED}
      -- Leases take turns with claims across instances: each counts the others' leases (migration 20261208100000).
      perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));

      -- A statement of its own, so its snapshot holds every webhook stored before the heads were ours.
      return query
${filedWebhooks(NUMBERED_CASES_FIRST)}
      ${ROOM_OF_EACH_SUBSCRIPTION}
      addressed as (
        select n.*, s.id as subscription_id, s.nth,
               row_number() over (partition by s.id, n.case_guid order by n.ord, s.nth) as nth_of_case
          from numbered_payloads n cross join unnest(n.subscriptions) with ordinality as s(id, nth)
      ),
      leasable as (
        select a.ord, a.nth, room.free,
               row_number() over (partition by a.subscription_id order by a.ord, a.nth) as place
          from addressed a join room on room.id = a.subscription_id
         where first_delay_ms <= 0
           and (a.case_guid is null
                or a.nth_of_case = 1
                   and not exists (select 1 from webhooks.deliveries e
                                    where e.case_guid = a.case_guid and e.subscription_id + 0 = a.subscription_id
                                      and e.state = 'pending' offset 0))
      ),
      leasing as (
        select ord, nth from (
          select l.*, row_number() over (order by l.ord, l.nth) as overall from leasable l where l.place <= l.free
        ) within_room
         where overall <= max_count
      ),
      delivered as (
        -- In the order of the webhooks, so the ids of a case's deliveries rise with its numbers.
        -- Milliseconds, as the row's time travels through JavaScript to find its partition again.
        insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, case_guid, case_sequence,
                                         payload, occurred_at, next_attempt_at, lease_until)
        select a.event_id, a.webhook_id, a.subscription_id, a.event_type, a.case_guid, a.case_sequence, a.sent,
               date_trunc('milliseconds', a.occurred_at), now() + (first_delay_ms * interval '1 millisecond'),
               case when l.ord is null then null else now() + (lease_ms * interval '1 millisecond') end
          from addressed a left join leasing l on l.ord = a.ord and l.nth = a.nth
         order by a.ord, a.nth
        returning id, event_id, webhook_id, subscription_id, event_type, case_sequence, payload, occurred_at,
                  attempts, cycle_attempts, lease_until
      ),
${answer};
    end
    $$`;
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'drop function webhooks.store_and_lease(jsonb, integer, bigint, uuid, jsonb, integer, integer, integer)',
  );
  await knex.raw(STORE_AND_CLAIM);
}
