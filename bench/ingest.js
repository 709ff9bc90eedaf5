/**
 * Benchmark: how fast events written to a producer's outbox become stored deliveries, on the
 * Postgres server: the booking service's outbox relay claims them, hands them to
 * `webhooks.ingest`, which stores each webhook in the partner's event feed and a delivery per
 * subscription, and marks them handed over. Four subscriptions of one partner take every event;
 * they are paused, so deliveries are stored and not sent, and only the hand-over is measured. The
 * clock runs from the commit of the outbox rows to the last of them marked handed over (after its
 * deliveries were stored). It runs twice: into the new hub's tables, which have no statistics yet,
 * and again once they are analyzed.
 *
 * The baseline, in the same run and database: the same number of events written to an outbox
 * table of its own and moved by a raw SQL loop, batch by batch of the relay's size, each batch one
 * transaction that leases the rows, inserts their deliveries and marks them handed over: the
 * database work of a hand-over without the hub (no feed, no service calls).
 *
 * Run after `npm run build`: node bench/ingest.js [events, default 20000]; `--quick`: 1,000.
 * The Postgres server is taken from BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * Ends with one JSON line (bench/lib/benchmark.js).
 */
const {
  loadConfig,
  readWorld,
  DEMO_WORLD_FILE,
  databaseOf,
  OUTBOX_SETTINGS,
  pendingEventCount,
} = require('../shared/dist');
const { startHub } = require('../cli/dist');
const { quick, args, loadAverage, ratio, runBenchmark } = require('./lib/benchmark');
const { scratchDatabase } = require('./lib/databases');

const EVENTS = quick ? 1000 : Number(args[0] ?? 20_000);
const SUBSCRIPTIONS = 4;
const EVENT_TYPE = 'costProposal.created';
/** Power (partner 2) owns account 3. */
const PARTNER = { id: 2, accountId: 3 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `count` events into `table` in one statement, each for its own case, and answers when it committed. */
async function writeEvents(knex, table, count) {
  await knex.raw(
    `insert into ${table} (event_id, type, case_guid, audience, payload)
     select gen_random_uuid(), ?, g.guid, ?::jsonb,
            jsonb_build_object('id', g.n, 'guid', g.guid, 'name', 'Repair', 'priceNet', 1490, 'currency', 'NOK')
       from (select n, gen_random_uuid() as guid from generate_series(1, ?) as n) g`,
    [EVENT_TYPE, JSON.stringify({ partnerId: PARTNER.id }), count],
  );
  return Date.now();
}

async function handedOver(knex, id) {
  const { published_at: publishedAt } = await knex('booking.outbox').where({ id }).first('published_at');
  return publishedAt !== null;
}

async function deliveriesStored(knex) {
  return Number((await knex('webhooks.deliveries').count({ count: '*' }))[0].count);
}

/** The raw loop: an outbox of its own, moved to deliveries batch by batch in SQL. */
async function rawHandOver(knex, subscriptionIds) {
  await knex.raw('create table bench_outbox (like booking.outbox including all)');
  const startedAt = await writeEvents(knex, 'bench_outbox', EVENTS);
  for (;;) {
    const moved = await knex.transaction(async (trx) => {
      const claimed = await trx.raw(
        `with claimed as (
           update bench_outbox set lease_until = now() + interval '30 seconds'
            where id in (select id from bench_outbox where published_at is null and lease_until is null
                          order by id limit ? for update skip locked)
           returning *
         ),
         stored as (
           insert into webhooks.deliveries (event_id, webhook_id, subscription_id, event_type, case_guid, payload, occurred_at, state, next_attempt_at)
           select c.event_id, c.event_id::text, s.id, c.type, c.case_guid, c.payload, c.occurred_at, 'pending', now()
             from claimed c cross join unnest(?::int[]) as s(id)
         )
         select id from claimed`,
        [OUTBOX_SETTINGS.batchSize, subscriptionIds],
      );
      const ids = claimed.rows.map(({ id }) => id);
      if (ids.length)
        await trx('bench_outbox').whereIn('id', ids).update({ published_at: trx.fn.now(), lease_until: null });
      return ids.length;
    });
    if (moved === 0) break;
  }
  const ms = Date.now() - startedAt;
  return { events: EVENTS, ms, eventsPerSecond: Math.round((EVENTS * 1000) / ms) };
}

/** The hub: events in the booking service's outbox, relayed to the webhooks service. */
async function hubHandOver(broker, knex) {
  const before = await deliveriesStored(knex);
  const feedBefore = Number((await knex('webhooks.feed').count({ count: '*' }))[0].count);
  const startedAt = await writeEvents(knex, 'booking.outbox', EVENTS);
  const { lastId } = await knex('booking.outbox').max('id as lastId').first();
  // As a write of the booking service does after its commit (the poller would within a second).
  broker.getLocalService('booking').relayOutbox();
  // An event is marked handed over once the webhooks service has stored its deliveries. Relays
  // take events in the order written, so the others are counted only once the last one is marked:
  // a count walks the index of pending events, the ones handed over too until a vacuum, and every
  // few milliseconds it took a tenth of the server's CPU from the hand-over it measures.
  const deadline = Date.now() + 600_000;
  while (!(await handedOver(knex, lastId)) || (await pendingEventCount(knex, 'booking')) > 0) {
    if (Date.now() > deadline) throw new Error('The outbox was not handed over within 10 minutes');
    await sleep(5);
  }
  const ms = Date.now() - startedAt;
  const expected = before + EVENTS * SUBSCRIPTIONS;
  const stored = await deliveriesStored(knex);
  const feed = Number((await knex('webhooks.feed').count({ count: '*' }))[0].count) - feedBefore;
  if (stored !== expected || feed !== EVENTS)
    throw new Error(`Stored ${stored - before} deliveries and ${feed} feed entries`);
  return { events: EVENTS, ms, eventsPerSecond: Math.round((EVENTS * 1000) / ms) };
}

runBenchmark('ingest', async () => {
  console.log(`${EVENTS} events to ${SUBSCRIPTIONS} paused subscriptions, load ${loadAverage()}`);
  const database = await scratchDatabase('bench_ingest');
  const demo = readWorld(DEMO_WORLD_FILE);
  const world = {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      subscriptions: Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({
        id: i + 1,
        accountId: PARTNER.accountId,
        eventTypes: [EVENT_TYPE],
        target: { kind: 'http', url: `http://127.0.0.1:9/hooks-${i + 1}` },
      })),
    },
  };
  const config = {
    ...loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      LOAD_DEMO_WORLD: 'false',
      METRICS: 'false',
      DATABASE_URL: database.url,
    }),
    services: ['catalog', 'booking', 'webhooks'],
  };
  const broker = await startHub(config, { initialWorld: world });
  try {
    const { knex } = await databaseOf(broker);
    await knex('webhooks.subscriptions').update({ state: 'paused' });
    const subscriptionIds = (await knex('webhooks.subscriptions').select('id')).map(({ id }) => id);
    const raw = await rawHandOver(knex, subscriptionIds);
    await knex.raw('truncate webhooks.deliveries cascade');
    // Into a new hub, whose tables have no statistics yet, then again once they are analyzed, as
    // the server's autovacuum does within a minute of a table's growth.
    const fresh = await hubHandOver(broker, knex);
    await knex.raw('analyze');
    const analyzed = await hubHandOver(broker, knex);
    console.log(
      `hub ${fresh.eventsPerSecond} events/s into new tables, ${analyzed.eventsPerSecond} once analyzed; raw SQL ${raw.eventsPerSecond} events/s`,
    );
    return {
      ratios: {
        handOverVsRawSql: ratio(analyzed.eventsPerSecond, raw.eventsPerSecond),
        handOverIntoNewTablesVsRawSql: ratio(fresh.eventsPerSecond, raw.eventsPerSecond),
      },
      figures: { subscriptions: SUBSCRIPTIONS, batchSize: OUTBOX_SETTINGS.batchSize, fresh, analyzed, raw },
    };
  } finally {
    await broker.stop();
    await database.drop();
  }
});
