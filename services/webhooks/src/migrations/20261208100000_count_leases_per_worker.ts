import type { Knex } from 'knex';
import {
  chosenDeliveries,
  claimDueFunction,
  earlierOfCaseToItsSubscription,
  LEASED_AND_THEIR_SUBSCRIPTIONS,
  LEASED_AS_USED,
} from './20261130100000_claim_ahead';

/**
 * A lease is written where no index sees it, so leasing a delivery rewrites its row in place (a
 * heap-only update) instead of adding an entry to each of its six indexes: in a burst a third of
 * the claim's work in the database was those entries and the index clean-ups they caused.
 *
 * What the indexed lease gave, how many leases the other instances hold of each subscription,
 * each worker now says itself in `held_leases`: a claim writes the worker's own count of each
 * subscription it holds leases of (queued, in flight, or finished and not recorded), and a record
 * takes the attempts it records off it. Between two of its claims a worker's count only falls,
 * so a claim that adds up the others' counts never gives more room than the limit leaves. A count
 * lasts as long as the worker's latest lease: a worker that dies stops counting when its leases
 * run out, and the claim clears such counts away.
 *
 * Delivery partitions keep half of each page free, for the new versions of the rows leased in
 * it (a burst's deliveries fill pages one after another, and a claim leases them in that order);
 * partitions made later take the default partition's storage options (partitions.ts).
 *
 * Claims and records commit without waiting for the write-ahead log to reach disk: a lease or a
 * record lost with a crash of the database only makes its delivery go again, as at least once
 * allows, while a stored webhook is never lost (its store waits as before).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table webhooks.held_leases (
      worker_id uuid not null,
      subscription_id integer not null,
      leases integer not null,
      until timestamptz not null,
      primary key (worker_id, subscription_id)
    )`);
  await knex.raw('drop index webhooks.deliveries_leased');
  await setFillfactorOfDeliveries(knex, 50);
  await knex.raw('drop function webhooks.claim_due(jsonb, integer, integer, integer)');
  await knex.raw(claimDueCountingLeases(earlierOfCaseToItsSubscription(true), {}));
  await knex.raw(recordAttemptsFunction(DELIVERIES_BY_AN_ARRAY_OF_IDS, ''));
}

/**
 * The room a worker has in each active subscription, from the leases it says it holds (`held`)
 * and those the other workers counted: `cap`, what it may have in flight, and `free`, how many
 * more it may take (`depth` times its cap, less its unfinished attempts). CTEs, ending in a comma.
 */
export const ROOM_OF_EACH_SUBSCRIPTION = `mine as (
      select * from jsonb_to_recordset(held) as m(subscription_id integer, leases integer, unfinished integer)
    ),
    room as (
      select s.id, s.max_in_flight - others.leases as cap,
             depth * (s.max_in_flight - others.leases) - coalesce(m.unfinished, 0) as free
        from webhooks.subscriptions s
        left join mine m on m.subscription_id = s.id
       cross join lateral (select coalesce(sum(h.leases), 0) as leases from webhooks.held_leases h
                            where h.subscription_id = s.id and h.worker_id <> worker) others
       where s.state = 'active'
    ),`;

/** The worker's count of leases per subscription, set to what it holds with what `leased` adds; CTEs, the last without a comma. */
export const LEASES_COUNTED = `    holding as (
      select subscription_id, sum(leases) as leases from (
        select subscription_id, leases from mine
        union all
        select subscription_id, 1 from leased
      ) every_lease group by subscription_id
    ),
    leases_counted as (
      insert into webhooks.held_leases as h (worker_id, subscription_id, leases, until)
      select worker, subscription_id, leases, now() + (lease_ms * interval '1 millisecond') from holding
      on conflict (worker_id, subscription_id) do update set leases = excluded.leases, until = excluded.until
    ),
    let_go as (
      delete from webhooks.held_leases h
       where h.worker_id = worker and h.subscription_id not in (select subscription_id from holding)
    )`;

/**
 * The claim function counting leases per worker, checking each candidate's case with
 * `earlierOfCase`. Its statements are planned with `settings` (each put back before it returns,
 * as a store's transaction goes on after its claim).
 */
export function claimDueCountingLeases(earlierOfCase: string, settings: Record<string, string>): string {
  const names = Object.keys(settings);
  const declared = names.length
    ? `declare\n${names.map((name) => `    ${name}_before text := current_setting('${name}');\n`).join('')}  `
    : '';
  const set = names.map((name) => `\n    perform set_config('${name}', '${settings[name]}', true);`).join('');
  const putBack = names.map((name) => `\n    perform set_config('${name}', ${name}_before, true);`).join('');
  return `
  create or replace function webhooks.claim_due(worker uuid, held jsonb, max_count integer, lease_ms integer, depth integer)
  returns setof jsonb
  language plpgsql volatile
  as $$
  ${declared}begin
    perform set_config('synchronous_commit', 'off', true);${set}
    perform pg_advisory_xact_lock(hashtext('webhooks.claimDue'));
    -- The counts of workers that died: their leases have all run out.
    delete from webhooks.held_leases where until < now();
    return query
    with ${ROOM_OF_EACH_SUBSCRIPTION}
${chosenDeliveries(earlierOfCase)},${LEASED_AS_USED},
${LEASES_COUNTED}
${LEASED_AND_THEIR_SUBSCRIPTIONS};${putBack}
  end
  $$`;
}

/** How a record finds the deliveries it moves on, joined to their outcomes (`o`): by an array of their ids too. */
export const DELIVERIES_BY_AN_ARRAY_OF_IDS = `d.id = any(array(select delivery_id from outcome)) and d.id = o.delivery_id
         and d.occurred_at = o.delivery_occurred_at`;

/**
 * The record function, creating or replacing it: `deliveriesFound` is the condition that joins
 * the deliveries (`d`) to their outcomes (`o`), `settings` the function's `set` clauses.
 */
export function recordAttemptsFunction(deliveriesFound: string, settings: string): string {
  return `
  create or replace function webhooks.record_attempts(worker uuid, outcomes jsonb)
  returns void
  language plpgsql volatile${settings}
  as $$
  begin
    perform set_config('synchronous_commit', 'off', true);
    with outcome as (
      select * from jsonb_to_recordset(outcomes) as o(
        delivery_id bigint, delivery_occurred_at timestamptz, subscription_id integer, attempt integer,
        cycle_attempts integer, started_at timestamptz, latency_ms integer, ok boolean, status_code integer,
        error_kind text, error text, response_excerpt text, state text, retry_in_ms integer)
    ),
    logged as (
      insert into webhooks.attempts (delivery_id, delivery_occurred_at, attempt, started_at, latency_ms, ok,
                                     status_code, error_kind, error, response_excerpt)
      select delivery_id, delivery_occurred_at, attempt, started_at, latency_ms, ok, status_code, error_kind,
             error, response_excerpt
        from outcome
    ),
    moved as (
      update webhooks.deliveries d
         set attempts = o.attempt, cycle_attempts = o.cycle_attempts, lease_until = null, state = o.state,
             last_error = case when o.ok then null else o.error end,
             next_attempt_at = case when o.state = 'pending' then now() + (o.retry_in_ms * interval '1 millisecond')
                                    else d.next_attempt_at end,
             finished_at = case when o.state = 'pending' then d.finished_at else now() end
        from outcome o
       where ${deliveriesFound}
    ),
    released as (
      update webhooks.held_leases h set leases = greatest(h.leases - r.recorded, 0)
        from (select subscription_id, count(*) as recorded from outcome group by subscription_id) r
       where h.worker_id = worker and h.subscription_id = r.subscription_id
    )
    update webhooks.subscriptions s
       set state = 'disabled', state_reason = 'The receiver answered 410 Gone', updated_at = now()
      from outcome o
     where o.error_kind = 'gone' and s.id = o.subscription_id and s.state = 'active';
  end
  $$`;
}

async function setFillfactorOfDeliveries(knex: Knex, fillfactor: number): Promise<void> {
  const { rows } = await knex.raw(
    `select n.nspname || '.' || c.relname as name from pg_inherits i
       join pg_class c on c.oid = i.inhrelid join pg_namespace n on n.oid = c.relnamespace
      where i.inhparent = 'webhooks.deliveries'::regclass`,
  );
  for (const { name } of rows as Array<{ name: string }>)
    await knex.raw(`alter table ?? set (fillfactor = ${fillfactor})`, [name]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function webhooks.record_attempts(uuid, jsonb)');
  await knex.raw('drop function webhooks.claim_due(uuid, jsonb, integer, integer, integer)');
  await knex.raw(claimDueFunction(true, 'used'));
  await setFillfactorOfDeliveries(knex, 100);
  await knex.raw(
    `create index deliveries_leased on webhooks.deliveries (subscription_id, lease_until) where state = 'pending' and lease_until is not null`,
  );
  await knex.raw('drop table webhooks.held_leases');
}
