/**
 * A worker claims more of a subscription's deliveries than it may send at once and queues them
 * in its memory (webhooks.store.ts, `claimDue`), as it does with those its stores lease
 * (feed.store.ts, `storeAndLease`). Those queued deliveries are a new way to lose or
 * repeat one: this proves that a worker stopping with a queue gives it back at once, so another
 * instance sends each of them exactly once, and that a queued delivery whose lease has run short
 * is not sent; and that a claim and a record reach their deliveries through indexes (a claim
 * checks each candidate's case order with a lookup of its own, a record finds its deliveries by
 * id), so their cost follows what they take, not the backlog, as a store's numbering follows the
 * webhooks it stores; and that a claim never leases a delivery a record finished or put off under
 * it. The webhooks service runs in this process on the Postgres server.
 */
import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { ServiceBroker } from 'moleculer';
import { loadConfig } from '../../../shared/src';
import { startHub } from '../../../cli/src';
import { createServerDatabase, waitFor } from '../../../test/support/hub';
import { DELIVERY_SETTINGS } from '../src/settings';
import { claimDue, type DeliveryRow, forgetWorker, recordAttempts } from '../src/webhooks.store';
import type { WebhooksThis } from '../src/types';
import { domainEvent } from './support/events';
import { type Receiver, startReceiver } from './support/receiver';
import { serverHubEnv, worldWithOneSubscription } from './support/server-hub';

/** The worker this file's own claims and records are made as. */
const TEST_WORKER = '00000000-0000-4000-8000-000000000015';

/**
 * More than a lane takes at one limit in flight, so some wait unleased in the database too: a
 * store leases up to `storeAhead` times the limit (feed.store.ts, `storeAndLease`).
 */
const DELIVERIES = DELIVERY_SETTINGS.storeAhead + 2;

let database: { url: string; drop(): Promise<void> };
let sql: Knex;
let receiver: Receiver;
const brokers: ServiceBroker[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  database = await createServerDatabase();
  sql = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 3 } });
}, 60_000);

afterAll(async () => {
  await Promise.all(brokers.map((broker) => broker.stop()));
  await sql?.destroy();
  await receiver?.close();
  await database?.drop();
});

/** A hub of catalog and webhooks on the test's database; the first one loads the subscription. */
async function startInstance(): Promise<ServiceBroker> {
  const world = worldWithOneSubscription(`${receiver.url}/hooks`, ['costProposal.created']);
  const broker = await startHub(
    { ...loadConfig(serverHubEnv(database.url)), services: ['catalog', 'webhooks'] },
    { initialWorld: brokers.length === 0 ? world : undefined },
  );
  brokers.push(broker);
  return broker;
}

const workerOf = (broker: ServiceBroker) => (broker.getLocalService('webhooks') as unknown as WebhooksThis).worker;

const leasedPending = async () =>
  Number(
    (
      await sql('webhooks.deliveries')
        .where({ state: 'pending' })
        .where('lease_until', '>', new Date())
        .count('* as count')
    )[0].count,
  );

it('gives back what it queued when it stops, so another instance sends each delivery once', async () => {
  const first = await startInstance();
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: 1 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  receiver.answer = () => ({ hold: held });
  const events = Array.from({ length: DELIVERIES }, (_, index) =>
    domainEvent('costProposal.created', { partnerId: 2 }, { id: index + 1 }),
  );
  await first.call('webhooks.ingest', { events });

  // One attempt open at the receiver, the rest of what the store leased waiting in the worker's lane.
  await waitFor(() => receiver.received.length === 1, 'the first attempt at the receiver', 10_000);
  const lane = workerOf(first).lanes.get(1);
  expect(lane?.running).toBe(1);
  expect(lane?.queue.length).toBe(DELIVERY_SETTINGS.storeAhead - 1);

  const stopping = first.stop();
  release();
  await stopping;
  receiver.answer = () => ({});
  // The attempt in flight was recorded and the queue given back: nothing stays leased or counted.
  expect(await leasedPending()).toBe(0);
  expect(await sql('webhooks.held_leases').where({ worker_id: workerOf(first).id })).toEqual([]);

  await startInstance();
  await waitFor(
    async () =>
      Number((await sql('webhooks.deliveries').where({ state: 'succeeded' }).count('* as count'))[0].count) ===
      DELIVERIES,
    'every delivery made by the second instance',
    20_000,
  );
  const webhookIds = receiver.received.map((request) => request.headers['webhook-id']);
  expect(webhookIds).toHaveLength(DELIVERIES);
  expect(new Set(webhookIds).size).toBe(DELIVERIES);
}, 60_000);

it('does not send a queued delivery whose lease no longer outlasts its attempt and record', async () => {
  const broker = brokers.at(-1)!;
  const service = broker.getLocalService('webhooks') as unknown as WebhooksThis;
  const [row] = await sql('webhooks.deliveries').select('*').limit(1);
  const subscription = await sql('webhooks.subscriptions').where({ id: 1 }).first();
  const leasedFor = (ms: number) => ({
    delivery: { ...row, lease_until: new Date(Date.now() + ms) },
    subscription,
    cap: 1,
  });
  const timeoutMs = loadConfig({}).webhookAttemptTimeoutMs;
  expect(service.worker.attemptable(leasedFor(timeoutMs + DELIVERY_SETTINGS.recordReserveMs + 1_000))).toBe(true);
  expect(service.worker.attemptable(leasedFor(timeoutMs + DELIVERY_SETTINGS.recordReserveMs - 1_000))).toBe(false);

  // Such a delivery queued in a lane is dropped, not sent, and no longer counted as this worker's lease.
  const heldBefore = service.worker.heldLeases();
  const lane = { queue: [leasedFor(1_000)], running: 0, cap: 1, claimedAll: true };
  service.worker.lanes.set(999, lane);
  const before = receiver.received.length;
  service.worker.dispatch(lane);
  expect(lane.running).toBe(0);
  service.worker.dropUnattemptable();
  expect(service.worker.lanes.has(999)).toBe(false);
  expect(service.worker.heldLeases()).toEqual(heldBefore);
  expect(receiver.received.length).toBe(before);
});

/**
 * The plans of the statements `run` makes on a connection of its own, through auto_explain (the
 * plans inside the claim function too), in a transaction rolled back after.
 */
async function plansOf(run: (trx: Knex.Transaction) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const explained = knexFactory({
    client: 'pg',
    connection: database.url,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: pg.Client, done: (err: Error | null, connection: pg.Client) => void) {
        connection.on('notice', (notice) => plans.push(notice.message ?? ''));
        connection.query(
          `load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
           set client_min_messages = log`,
          (err: Error | null) => done(err, connection),
        );
      },
    },
  });
  try {
    await explained
      .transaction(async (trx) => {
        await run(trx);
        throw new Error('rolled back');
      })
      .catch((err: Error) => {
        if (err.message !== 'rolled back') throw err;
      });
  } finally {
    await explained.destroy();
  }
  return plans;
}

it('checks each candidate for an earlier pending delivery of its case with a lookup of its own', async () => {
  // As an anti join, the check read every pending delivery of the subscription for each claim of a burst.
  const plans = await plansOf((trx) => claimDue(trx, TEST_WORKER, 10, 60_000, [], DELIVERY_SETTINGS.claimAhead));
  const claim = plans.find((plan) => plan.includes('Update on deliveries'));
  expect(claim).toMatch(/SubPlan/);
  expect(claim).not.toMatch(/Anti Join/);
});

it('checks each candidate through the index of its case whatever the size of the deliveries it was planned at', async () => {
  // Planned afresh at each size, as a plan made once while a burst began is kept for a connection's life.
  const plans = await plansOf(async (trx) => {
    await trx.raw('set local plan_cache_mode = force_custom_plan');
    for (let size = 0; size < 400; size += 20) {
      await trx.raw(`insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, case_guid, payload, occurred_at)
        select gen_random_uuid(), 'msg_size_' || gen_random_uuid(), 1, 'costProposal.created', gen_random_uuid(), '{}', now()
          from generate_series(1, 20)`);
      await claimDue(trx, TEST_WORKER, 1, 60_000, [], 1);
    }
  });
  const claims = plans.filter((plan) => plan.includes('Update on deliveries'));
  expect(claims).toHaveLength(20);
  const scansOf = (plan: string, alias: string) =>
    [...plan.matchAll(new RegExp(`Scan (?:using (\\S+) )?on \\S+ ${alias}_\\d+`, 'g'))].map(([, index]) => index);
  for (const claim of claims) {
    const chosen = claim.slice(claim.indexOf('CTE chosen'), claim.indexOf('CTE leased'));
    expect(scansOf(chosen, 'e').length * scansOf(chosen, 'd').length).toBeGreaterThan(0);
    // Seen before: the index of due deliveries or of a subscription's, read whole by subscription for each candidate.
    for (const index of scansOf(chosen, 'e')) expect(index).toMatch(/earlier_of_case|case_guid/);
    for (const index of scansOf(chosen, 'd')) expect(index).toMatch(/_due$|subscription_id_next_attempt/);
  }
});

it("checks a candidate's case without reading its deliveries to the party's other subscriptions", async () => {
  // A case pending to subscription 1 and to 30 others: a check by the case alone read and fetched all 31 for the candidate.
  const plans = await plansOf(async (trx) => {
    await trx.raw(`insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, case_guid, payload, occurred_at)
      select gen_random_uuid(), 'msg_of_case_' || s, s, 'costProposal.created', '00000000-0000-4000-8000-0000000000ca',
             '{}', now()
        from generate_series(1, 31) s`);
    await trx.raw(`analyze webhooks.deliveries`);
    await claimDue(trx, TEST_WORKER, 1, 60_000, [], 1);
  });
  const claim = plans.find((plan) => plan.includes('Update on deliveries'))!;
  const check = claim.slice(claim.indexOf('CTE chosen'), claim.indexOf('CTE leased'));
  const caseScans = [...check.matchAll(/Scan using \S+ on \S+ e_\d+[^\n]*\n((?:[ \t]+(?!->)[^ \t\n][^\n]*\n)*)/g)];
  expect(caseScans.length).toBeGreaterThan(0);
  for (const [, details] of caseScans) {
    expect(details).toMatch(/Index Cond: .*\(subscription_id \+ 0\) = .*\(id \+ 0\) </);
    expect(details).not.toMatch(/Filter:/);
  }
});

it('finds the deliveries it records by their ids, not by reading them all', async () => {
  // Finished ones, which no worker claims: 8,000 rows new to the planner, as a burst leaves them.
  await sql.raw(`insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, payload, occurred_at, state, finished_at)
    select gen_random_uuid(), 'msg_' || n, 1, 'costProposal.created', '{}', date_trunc('milliseconds', now()), 'succeeded', now()
    from generate_series(1, 8000) n`);
  const delivered = (await sql('webhooks.deliveries').orderBy('id', 'desc').limit(8)) as DeliveryRow[];
  const records = delivered.map((delivery) => ({
    delivery,
    startedAt: new Date(),
    latencyMs: 3,
    outcome: { ok: true, statusCode: 200 },
  }));
  const { rows } = await sql.raw(`select tableoid::regclass::text as name from webhooks.deliveries where id = ?`, [
    delivered[0].id,
  ]);
  const partition = (rows[0].name as string).replace('webhooks.', '');
  const plans = await plansOf((trx) => recordAttempts(trx, TEST_WORKER, records));
  const record = plans.find((plan) => plan.includes('Update on deliveries'));
  expect(record).toContain(`Index Scan using ${partition}_pkey on ${partition}`);
  expect(record).not.toContain(`Seq Scan on ${partition} `);
  // Each lookup by its own key: a scan that also matched an array of every id sorted the array anew per lookup.
  expect(record).not.toMatch(/= ANY/);
});

it("numbers a store's cases by hashing them once, not by reading them all for each webhook", async () => {
  // With the party's head joined beside them, the planner expected one webhook and read the store's case numbers for each.
  const webhooks = Array.from({ length: 20 }, (_, n) => ({
    party_kind: 'partner',
    party_id: 2,
    event_id: randomUUID(),
    webhook_id: `msg_numbered_${n}`,
    event_type: 'costProposal.created',
    case_guid: randomUUID(),
    payload: { id: n },
    occurred_at: new Date().toISOString(),
    subscriptions: [1],
  }));
  const plans = await plansOf((trx) =>
    trx.raw('select webhooks.store_webhooks(?::jsonb, 0)', [JSON.stringify(webhooks)]),
  );
  const store = plans.find((plan) => plan.includes('Insert on deliveries'));
  expect(store).toMatch(/CTE Scan on counted/);
  expect(store).not.toMatch(/Nested Loop Left Join/);
});

/** Due deliveries of subscription 1 whose last lease has run out, as a crashed worker leaves them. */
async function insertLapsedLeases(count: number): Promise<Array<{ id: number }>> {
  const { rows } = await sql.raw(
    `insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, payload, occurred_at,
                                      state, next_attempt_at, lease_until)
     select gen_random_uuid(), 'msg_lapsed_' || gen_random_uuid(), 1, 'costProposal.created', '{}', now(),
            'pending', now() - interval '1 minute', now() - interval '1 second'
       from generate_series(1, ?) returning id`,
    [count],
  );
  return rows;
}

it('leaves out a delivery a record finished or put off while the claim waited for it', async () => {
  // Only this test's claim takes deliveries now.
  await Promise.all(brokers.splice(0).map((broker) => broker.stop()));
  const [finished, putOff, free] = await insertLapsedLeases(3);
  const recorder = await sql.transaction();
  try {
    await recorder('webhooks.deliveries')
      .where({ id: finished.id })
      .update({ state: 'succeeded', lease_until: null, finished_at: sql.fn.now() });
    await recorder('webhooks.deliveries')
      .where({ id: putOff.id })
      .update({ lease_until: null, next_attempt_at: sql.raw(`now() + interval '1 hour'`) });
    let settled = false;
    const claiming = claimDue(sql, TEST_WORKER, 10, 60_000, [], DELIVERY_SETTINGS.claimAhead).finally(
      () => (settled = true),
    );
    // The claim either skips the rows the record holds or waits for them; only the latter needs the commit.
    await waitFor(
      async () =>
        settled ||
        (await sql('pg_stat_activity').where({ wait_event_type: 'Lock', wait_event: 'transactionid' })).length > 0,
      'the claim done or waiting for the record',
    );
    await recorder.commit();
    expect((await claiming).map(({ delivery }) => delivery.id)).toEqual([free.id]);
  } finally {
    if (!recorder.isCompleted()) await recorder.rollback();
  }
  const rows = await sql('webhooks.deliveries').whereIn('id', [finished.id, putOff.id]).orderBy('id');
  expect(rows.map((row) => ({ state: row.state, leased: row.lease_until !== null }))).toEqual([
    { state: 'succeeded', leased: false },
    { state: 'pending', leased: false },
  ]);
});

it('leases a delivery by rewriting its row in place, adding nothing to its indexes', async () => {
  const [lapsed] = await insertLapsedLeases(1);
  const { rows } = await sql.raw('select tableoid::regclass::text as name from webhooks.deliveries where id = ?', [
    lapsed.id,
  ]);
  await sql.transaction(async (trx) => {
    // The backend's counts may still hold its earlier transactions' until it reports them: only their change counts.
    const updates = async () =>
      (
        await trx.raw(
          `select pg_stat_get_xact_tuples_updated(?::regclass)::int as updated,
                  pg_stat_get_xact_tuples_hot_updated(?::regclass)::int as in_place`,
          [rows[0].name, rows[0].name],
        )
      ).rows[0] as { updated: number; in_place: number };
    const before = await updates();
    const claimed = await claimDue(trx, TEST_WORKER, 10, 60_000, [], DELIVERY_SETTINGS.claimAhead);
    expect(claimed.map(({ delivery }) => delivery.id)).toEqual([lapsed.id]);
    const after = await updates();
    expect({ updated: after.updated - before.updated, in_place: after.in_place - before.in_place }).toEqual({
      updated: 1,
      in_place: 1,
    });
  });
  const leased = (await sql('webhooks.deliveries').where({ id: lapsed.id }).first()) as DeliveryRow;
  await recordAttempts(sql, TEST_WORKER, [
    { delivery: leased, startedAt: new Date(), latencyMs: 1, outcome: { ok: true, statusCode: 204 } },
  ]);
});

it('counts the leases other workers hold as each last counted them, less what each recorded since', async () => {
  const [first, second] = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2'];
  await sql('webhooks.subscriptions').where({ id: 1 }).update({ max_in_flight: 4 });
  // Only this test's deliveries and workers.
  await sql('webhooks.deliveries')
    .where({ state: 'pending' })
    .update({ state: 'succeeded', finished_at: sql.fn.now() });
  await sql('webhooks.held_leases').delete();
  await insertLapsedLeases(8);
  const claim = (
    worker: string,
    held: Array<{ subscription_id: number; leases: number; unfinished: number }>,
    leaseMs = 60_000,
  ) => claimDue(sql, worker, 10, leaseMs, held, 1);
  const holding = (leases: number, unfinished = leases) => [{ subscription_id: 1, leases, unfinished }];

  const firstClaim = await claim(first, []);
  expect(firstClaim.map(({ cap }) => cap)).toEqual([4, 4, 4, 4]);
  // The first worker holds the whole limit: the second gets no room.
  expect(await claim(second, [])).toEqual([]);

  // Two of the first worker's attempts recorded: their room is the second's at once.
  const records = firstClaim.slice(0, 2).map(({ delivery }) => ({
    delivery,
    startedAt: new Date(),
    latencyMs: 1,
    outcome: { ok: true, statusCode: 204 },
  }));
  await recordAttempts(sql, first, records);
  const secondClaim = await claim(second, []);
  expect(secondClaim.map(({ cap }) => cap)).toEqual([2, 2]);

  // The first worker's next claim counts what it still holds; with the second's two, nothing is free.
  expect(await claim(first, holding(2))).toEqual([]);
  expect(await sql('webhooks.held_leases').orderBy('worker_id').select('worker_id', 'leases')).toEqual([
    { worker_id: first, leases: 2 },
    { worker_id: second, leases: 2 },
  ]);

  // A worker that stops is forgotten; one that dies counts until its leases run out.
  await forgetWorker(sql, second);
  const lastClaim = await claim(first, holding(2), 1);
  expect(lastClaim.map(({ cap }) => cap)).toEqual([4, 4]);
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect((await claim(second, [])).map(({ cap }) => cap)).toEqual([4, 4]);
  expect(await sql('webhooks.held_leases').select('worker_id')).toEqual([{ worker_id: second }]);
});
