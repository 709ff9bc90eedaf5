import type { Knex } from 'knex';
import { leaseByPartition } from './20261129100000_partition_deliveries_by_occurrence';

/**
 * The claim takes deliveries ahead of the worker's free places (webhooks.store.ts, `claimDue`):
 * a worker holds up to `depth` times what it may have in flight per subscription, so that a
 * place that frees takes the next delivery from the worker's own queue instead of waiting for a
 * claim. What the worker may have in flight (`cap`) is the subscription's limit less the leases
 * other instances hold; it comes back with each delivery claimed.
 *
 * `mine` lists every lease the worker holds (queued, in flight, or finished and not recorded),
 * each as its id and attempts (a later lease of the same delivery is not mistaken for it) and
 * whether its attempt has finished.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop function webhooks.claim_due(jsonb, integer, integer)');
  await knex.raw(claimDueFunction(false));
}

/**
 * The claim function's definition. `checkPerCandidate` keeps the check for an earlier pending
 * delivery of the same case a lookup per candidate (see 20261205100000_check_case_order_per_candidate);
 * `leasedRows` says what it answers (see 20261206120000_claim_answers_what_a_worker_uses).
 */
export function claimDueFunction(checkPerCandidate: boolean, leasedRows: 'whole' | 'used' = 'whole'): string {
  return `
    create or replace function webhooks.claim_due(mine jsonb, max_count integer, lease_ms integer, depth integer)
    returns setof jsonb
    language plpgsql volatile
    as $$
    begin
      perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));
      return query
      with held as (
        select * from jsonb_to_recordset(mine) as m(id bigint, attempts integer, finished boolean)
      ),
      leases as (
        select s.id, s.max_in_flight,
               count(*) filter (where leased.id is not null and h.id is null) as others,
               count(*) filter (where h.id is not null and not h.finished) as unfinished
          from webhooks.subscriptions s
          left join webhooks.deliveries leased
            on leased.subscription_id = s.id and leased.state = 'pending' and leased.lease_until > now()
          left join held h on h.id = leased.id and h.attempts = leased.attempts
         where s.state = 'active'
         group by s.id, s.max_in_flight
      ),
      room as (
        select id, max_in_flight - others as cap, depth * (max_in_flight - others) - unfinished as free from leases
      ),
${chosenDeliveries(earlierOfCaseToItsSubscription(checkPerCandidate))}
${leasedRows === 'whole' ? WHOLE_ROWS_LEASED : USED_ROWS_LEASED};
    end
    $$`;
}

/** Whether a candidate `d` has an earlier pending delivery of its case to its subscription. */
export function earlierOfCaseToItsSubscription(checkPerCandidate: boolean): string {
  return `exists (select 1 from webhooks.deliveries e
                               where e.subscription_id = d.subscription_id and e.case_guid = d.case_guid
                                 and e.state = 'pending' and e.id < d.id${checkPerCandidate ? ' offset 0' : ''})`;
}

/**
 * The due deliveries a claim takes of each subscription's free room (`room`: id, cap, free), the
 * oldest of each case alone (none for which `earlierOfCase` holds), most overdue first, locked.
 */
export function chosenDeliveries(earlierOfCase: string): string {
  return `
      chosen as (
        select due.id, due.occurred_at, room.id as subscription_id, room.cap from room
         cross join lateral (
           select d.id, d.occurred_at, d.next_attempt_at from webhooks.deliveries d
            where d.subscription_id = room.id and d.state = 'pending' and d.next_attempt_at <= now()
              and (d.lease_until is null or d.lease_until < now())
              and not ${earlierOfCase}
            order by d.next_attempt_at, d.id
            limit greatest(room.free, 0)
            for update of d skip locked
         ) due
         order by due.next_attempt_at, due.id
         limit max_count
      )`;
}

/** Each delivery leased, whole, with its subscription's row and its cap. */
const WHOLE_ROWS_LEASED = `
      update webhooks.deliveries d set lease_until = now() + (lease_ms * interval '1 millisecond')
        from chosen join webhooks.subscriptions s on s.id = chosen.subscription_id
       where d.id = chosen.id and d.occurred_at = chosen.occurred_at
       returning to_jsonb(d) || jsonb_build_object('subscription', to_jsonb(s), 'cap', chosen.cap)`;

/** Each delivery leased as far as its attempt and record use it, with its cap. */
export const LEASED_AS_USED = `
      leased as (
        update webhooks.deliveries d set lease_until = now() + (lease_ms * interval '1 millisecond')
          from chosen
         where d.id = chosen.id and d.occurred_at = chosen.occurred_at
         returning d.id, d.event_id, d.webhook_id, d.subscription_id, d.event_type, d.case_sequence, d.payload,
                   d.occurred_at, d.attempts, d.cycle_attempts, d.lease_until, chosen.cap
      )`;

/** The claim's answer: each delivery leased, then each of their subscriptions once. */
export const LEASED_AND_THEIR_SUBSCRIPTIONS = `
      select to_jsonb(leased) from leased
      union all
      select jsonb_build_object('subscription', to_jsonb(s)) from webhooks.subscriptions s
       where s.id in (select subscription_id from leased)`;

/** Each delivery leased as far as its attempt and record use it, with its cap; then each of their subscriptions once. */
const USED_ROWS_LEASED = `,${LEASED_AS_USED}${LEASED_AND_THEIR_SUBSCRIPTIONS}`;

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function webhooks.claim_due(jsonb, integer, integer, integer)');
  await leaseByPartition(knex);
}
