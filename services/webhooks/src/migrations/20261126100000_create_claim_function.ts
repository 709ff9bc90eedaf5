import type { Knex } from 'knex';

/**
 * The claim as one function, so a claim is one round trip instead of four (begin, lock, claim,
 * commit). Its statements run one after the other in the call's own transaction, each with a
 * snapshot of its own, so the claim still counts the leases of the claim that held the lock
 * before it. It answers JSON, so it depends on no table's row type and a table can be rebuilt
 * under it. See `claimDue` in store.ts for what the claim takes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function webhooks.claim_due(unrecorded jsonb, max_count integer, lease_ms integer)
    returns setof jsonb
    language plpgsql volatile
    as $$
    begin
      perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));
      return query
      with finished as (
        select * from jsonb_to_recordset(unrecorded) as u(id bigint, attempts integer)
      ),
      room as (
        select s.id, s.max_in_flight - (select count(*) from webhooks.deliveries leased
                                         where leased.subscription_id = s.id and leased.state = 'pending' and leased.lease_until > now()
                                           and not exists (select 1 from finished f
                                                            where f.id = leased.id and f.attempts = leased.attempts)) as free
          from webhooks.subscriptions s
         where s.state = 'active'
      ),
      chosen as (
        select due.id, room.id as subscription_id from room
         cross join lateral (
           select d.id, d.next_attempt_at from webhooks.deliveries d
            where d.subscription_id = room.id and d.state = 'pending' and d.next_attempt_at <= now()
              and (d.lease_until is null or d.lease_until < now())
              and not exists (select 1 from webhooks.deliveries e
                               where e.subscription_id = d.subscription_id and e.case_guid = d.case_guid
                                 and e.state = 'pending' and e.id < d.id)
            order by d.next_attempt_at, d.id
            limit greatest(room.free, 0)
            for update of d skip locked
         ) due
         order by due.next_attempt_at, due.id
         limit max_count
      )
      update webhooks.deliveries d set lease_until = now() + (lease_ms * interval '1 millisecond')
        from chosen join webhooks.subscriptions s on s.id = chosen.subscription_id
       where d.id = chosen.id
       returning to_jsonb(d) || jsonb_build_object('subscription', to_jsonb(s));
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function webhooks.claim_due(jsonb, integer, integer)');
}
