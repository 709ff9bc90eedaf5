/**
 * A store answers the deliveries it leased by webhook: each webhook's event, payload and lease
 * once, with the id and subscription of each of its deliveries, and each subscription once with
 * the cap a claim would give it. It answered each delivery as a claim does, its payload with it:
 * a burst's store of 400 webhooks to four subscriptions answered 1,600 copies of the payloads,
 * which the database built as JSON one by one and the worker parsed and turned into deliveries
 * in one turn of its event loop, 10 to 17 ms in which none of the attempts in flight could
 * finish and make way for the next (a profile of the AMQP burst of bench/webhooks.js).
 *
 * Deliveries group by everything the answer gives of their webhook, payload included: one
 * webhook id reaches a partner and a provider with payloads of their own, and the deliveries
 * carry no party, so only equal payloads may share a row.
 */
import type { Knex } from 'knex';
import { LEASES_COUNTED } from './20261208100000_count_leases_per_worker';
import { LEASED_ONE_BY_ONE, storeAndLeaseFunction } from './20261215100000_lease_deliveries_as_they_are_stored';

const LEASED_BY_WEBHOOK = `      leased as (
        select d.* from delivered d where d.lease_until is not null
      ),
${LEASES_COUNTED}
      select jsonb_build_object('stored', (select count(*) from delivered))
      union all
      select jsonb_build_object('subscription', to_jsonb(s), 'cap', room.cap)
        from webhooks.subscriptions s join room on room.id = s.id
       where s.id in (select subscription_id from leased)
      union all
      select jsonb_build_object('event_id', event_id, 'webhook_id', webhook_id, 'event_type', event_type,
                                'case_sequence', case_sequence, 'payload', payload, 'occurred_at', occurred_at,
                                'attempts', attempts, 'cycle_attempts', cycle_attempts, 'lease_until', lease_until,
                                'deliveries', jsonb_agg(jsonb_build_array(id, subscription_id)))
        from leased
       group by event_id, webhook_id, event_type, case_sequence, payload, occurred_at, attempts, cycle_attempts,
                lease_until`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(storeAndLeaseFunction(LEASED_BY_WEBHOOK));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(storeAndLeaseFunction(LEASED_ONE_BY_ONE));
}
