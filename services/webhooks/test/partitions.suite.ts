/**
 * Deliveries and attempts partitioned by the event's time (docs/retention.md), on the webhooks
 * schema as its migrations leave it and with the service's own policy, store and retention job:
 * partitions are made ahead, rows land in the partition of their event's span, and once a span
 * is past the delivered period its partitions go whole while the rows still kept (dead letters,
 * pending deliveries, each with its attempts) move to the default partitions and stay claimable.
 * Time passes on the hub's clock as real time would (no jump), so spans close. Written once, run
 * on the embedded database and on the Postgres server.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  createPartitionsAhead,
  type Database,
  HubClock,
  loadConfig,
  migrateSchema,
  openDatabase,
  partitionsOf,
  runRetention,
  statisticsTargetsOf,
} from '../../../shared/src';
import { createServerDatabase } from '../../../test/support/hub';
import { deliveryRetention } from '../src/retention';
import { storeWebhooks, type WebhookToStore } from '../src/feed.store';
import { claimDue, readAddressing, recordAttempts } from '../src/webhooks.store';

const DAY = 86_400_000;
const SUBSCRIPTION = 7;
/** The worker this suite's claims and records are made as. */
const TEST_WORKER = randomUUID();

const MIGRATIONS = path.join(__dirname, '../src/migrations');

export function partitionsSuite(infra: boolean): void {
  let database: Database;
  const closers: Array<() => Promise<void>> = [];

  /** An empty database of the suite's kind, closed (and dropped) after the suite. */
  async function emptyDatabase(): Promise<Database> {
    if (!infra) {
      const embedded = await openDatabase(loadConfig({}), {});
      closers.push(() => embedded.close());
      return embedded;
    }
    const server = await createServerDatabase();
    const opened = await openDatabase(loadConfig({ DATABASE_URL: server.url }));
    closers.push(async () => {
      await opened.close();
      await server.drop();
    });
    return opened;
  }

  let realNow = Date.now();
  const clock = new HubClock(1, () => realNow);
  // Spans of a day, so that a month holds many.
  const config = loadConfig({ RETENTION_PARTITION_SPAN: '1d' });
  const policy = deliveryRetention(config.retention);
  const today = Math.floor(realNow / DAY) * DAY;

  beforeAll(async () => {
    database = await emptyDatabase();
    await migrateSchema(database, 'webhooks', MIGRATIONS);
    await database.knex('webhooks.subscriptions').insert({
      id: SUBSCRIPTION,
      account_id: 2,
      partner_id: 1,
      event_types: JSON.stringify(['status.new']),
      kind: 'http',
      url: 'http://127.0.0.1:9/hooks',
      secret: 'whsec_partitions',
      max_in_flight: 100,
      origin: 'admin',
    });
  }, 60_000);

  afterAll(async () => {
    for (const close of closers) await close();
  });

  const knex = () => database.knex;
  const retention = () => runRetention({ database, schema: 'webhooks', policy, clock, batchSize: 2 });
  const spans = async (table: string) =>
    (await partitionsOf(knex(), table)).map(({ from, to }) => [from.getTime() - today, to.getTime() - today]);
  /** A webhook of an event at `occurredAt`, to one subscription: one delivery. */
  const delivery = (occurredAt: Date, caseGuid = randomUUID()): WebhookToStore => {
    const id = randomUUID();
    return {
      party: { kind: 'partner', id: 1 },
      event: {
        id,
        type: 'case.statusAdded',
        source: 'booking',
        occurredAt: occurredAt.toISOString(),
        caseGuid,
        audience: { partnerId: 1 },
        payload: {},
      },
      eventType: 'status.new',
      webhookId: id,
      payload: { eventId: id },
      subscriptionIds: [SUBSCRIPTION],
    };
  };
  const placed = async () =>
    Object.fromEntries(
      (
        await knex().raw(
          `select d.event_id, d.state, d.tableoid::regclass::text as partition,
                  (select count(*)::int from webhooks.attempts a where a.delivery_id = d.id) as attempts,
                  (select array_agg(distinct a.tableoid::regclass::text) from webhooks.attempts a where a.delivery_id = d.id) as attempt_partitions
             from webhooks.deliveries d`,
        )
      ).rows.map((row: { event_id: string }) => [row.event_id, row]),
    );

  it('makes partitions ahead, stores each delivery in its span, and drops a span whole once past its period', async () => {
    await retention();
    // This span and the next, for deliveries and attempts alike.
    const ahead = [
      [0, DAY],
      [DAY, 2 * DAY],
    ];
    expect(await spans('webhooks.deliveries')).toEqual(ahead);
    expect(await spans('webhooks.attempts')).toEqual(ahead);
    // The service's timer and its retention run may make partitions at the same time (and so
    // may several instances): a span is made once, by whichever holds the table's lock.
    const [partitioned] = policy.partitioned!;
    realNow += DAY;
    const made = await Promise.all([1, 2, 3].map(() => createPartitionsAhead(knex(), partitioned, clock)));
    realNow -= DAY;
    expect(made.reduce<number>((sum, count) => sum + (count ?? 0), 0)).toBe(1);
    expect(await spans('webhooks.deliveries')).toEqual([...ahead, [2 * DAY, 3 * DAY]]);

    const now = new Date(realNow);
    const [delivered, dead, retrying, waiting] = [delivery(now), delivery(now), delivery(now), delivery(now)];
    // An event far older than any partition (a backlog handed on late) goes to the default partition.
    const late = delivery(new Date(today - 10 * DAY));
    const all = [delivered, dead, retrying, waiting, late];
    const { version } = await readAddressing(knex());
    expect(await storeWebhooks(knex(), all, 0, version)).toBe(5);
    // A repeated hand-over stores nothing new.
    expect(await storeWebhooks(knex(), all, 0, version)).toBe(0);

    const claimed = await claimDue(knex(), TEST_WORKER, 10, 60_000, [], 1);
    const byEvent = new Map(claimed.map((one) => [one.delivery.event_id, one.delivery]));
    const outcome = (eventId: string, ok: boolean, retryInMs?: number) => ({
      delivery: byEvent.get(eventId)!,
      startedAt: new Date(),
      latencyMs: 3,
      outcome: ok
        ? { ok: true, statusCode: 200 }
        : { ok: false, statusCode: 500, errorKind: 'http_status' as const, error: 'HTTP 500' },
      retryInMs,
    });
    await recordAttempts(knex(), TEST_WORKER, [
      outcome(delivered.event.id, true),
      outcome(dead.event.id, false),
      outcome(retrying.event.id, false, 3_600_000),
      outcome(late.event.id, true),
    ]);
    const partition = `webhooks.deliveries_p${new Date(today).toISOString().replace(/[-:.]/g, '').toLowerCase()}`;
    const attemptsPartition = partition.replace('deliveries_', 'attempts_');
    const before = await placed();
    expect(before[delivered.event.id]).toMatchObject({ state: 'succeeded', partition, attempts: 1 });
    expect(before[delivered.event.id].attempt_partitions).toEqual([attemptsPartition]);
    expect(before[dead.event.id]).toMatchObject({ state: 'dead', partition, attempts: 1 });
    expect(before[retrying.event.id]).toMatchObject({ state: 'pending', partition, attempts: 1 });
    expect(before[waiting.event.id]).toMatchObject({ state: 'pending', partition, attempts: 0 });
    expect(before[late.event.id]).toMatchObject({ state: 'succeeded', partition: 'webhooks.deliveries_default' });
    // The retry's lease ends with its record; the waiting one is still leased by the claim above.
    await knex()('webhooks.deliveries').where({ event_id: waiting.event.id }).update({ lease_until: null });

    // 29 days on nothing has reached its period.
    realNow += 29 * DAY;
    expect(await retention()).toEqual(
      expect.arrayContaining([{ rule: 'delivered webhooks', table: 'webhooks.deliveries', removed: 0 }]),
    );
    expect(Object.keys(await placed()).sort()).toEqual(all.map(({ event }) => event.id).sort());

    // Past the delivered period for the whole first span: its partitions go, the rows still kept move.
    realNow += 3 * DAY;
    const runs = await retention();
    expect(runs.find(({ rule }) => rule === 'delivered webhooks')?.removed).toBe(2);
    expect(runs.find(({ rule }) => rule === 'dead letters')?.removed).toBe(0);
    const after = await placed();
    expect(Object.keys(after).sort()).toEqual([dead.event.id, retrying.event.id, waiting.event.id].sort());
    for (const kept of [dead, retrying, waiting])
      expect(after[kept.event.id]).toMatchObject({
        state: before[kept.event.id].state,
        attempts: before[kept.event.id].attempts,
        partition: 'webhooks.deliveries_default',
      });
    expect(after[dead.event.id].attempt_partitions).toEqual(['webhooks.attempts_default']);
    // The first two spans are gone, the third is not past its period yet; the run of day 29 made
    // days 29 and 30 and this one days 32 and 33, the days between went to no partition.
    const days = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, index) => [(from + index) * DAY, (from + index + 1) * DAY]);
    const kept = [...days(2, 3), ...days(29, 31), ...days(32, 34)];
    expect(await spans('webhooks.deliveries')).toEqual(kept);
    expect(await spans('webhooks.attempts')).toEqual(kept);

    // A pending delivery moved to the default partition is claimed and recorded as any other.
    await knex()('webhooks.deliveries')
      .where({ event_id: retrying.event.id })
      .update({ next_attempt_at: new Date(0) });
    const again = await claimDue(knex(), TEST_WORKER, 10, 60_000, [], 1);
    expect(again.map(({ delivery }) => delivery.event_id).sort()).toEqual([retrying.event.id, waiting.event.id].sort());
    byEvent.clear();
    for (const { delivery: row } of again) byEvent.set(row.event_id, row);
    await recordAttempts(knex(), TEST_WORKER, [outcome(retrying.event.id, true), outcome(waiting.event.id, true)]);
    expect((await placed())[retrying.event.id]).toMatchObject({ state: 'succeeded', attempts: 2 });

    // The dead letter goes at 90 days with its attempt, from the default partition, row by row.
    realNow += 57 * DAY;
    expect((await retention()).find(({ rule }) => rule === 'dead letters')?.removed).toBe(0);
    expect(Object.keys(await placed())).toContain(dead.event.id);
    realNow += 2 * DAY;
    expect((await retention()).find(({ rule }) => rule === 'dead letters')?.removed).toBe(1);
    expect(await placed()).toEqual({});
    expect(Number((await knex()('webhooks.attempts').count({ count: '*' }))[0].count)).toBe(0);
  });

  it('samples deliveries, attempts and the feed lightly, their bodies not at all, in every partition made now or later', async () => {
    const [partitioned] = policy.partitioned!;
    realNow += 5 * DAY;
    expect(await createPartitionsAhead(knex(), partitioned, clock)).toBeGreaterThan(0);
    realNow -= 5 * DAY;
    // Each target set, with the columns that have it.
    const targets = async (table: string) => {
      const byTarget = new Map<number | null, string[]>();
      for (const [column, target] of await statisticsTargetsOf(knex(), table))
        byTarget.set(target, [...(byTarget.get(target) ?? []), column]);
      return Object.fromEntries(
        [...byTarget].map(([target, columns]) => [String(target), target === 0 ? columns.sort() : 'others']),
      );
    };
    expect(await targets('webhooks.feed')).toEqual({ 0: ['payload'], 10: 'others' });
    for (const [table, unsampled] of [
      ['webhooks.deliveries', ['last_error', 'payload']],
      ['webhooks.attempts', ['error', 'response_excerpt']],
    ] as const) {
      const partitions = [...(await partitionsOf(knex(), table)).map(({ name }) => name), `${table}_default`];
      // The spans made at start, the one just made five days on, and the default partition.
      expect(partitions.length).toBeGreaterThanOrEqual(4);
      for (const name of [table, ...partitions])
        expect([name, await targets(name)]).toEqual([name, { 0: unsampled, 10: 'others' }]);
    }
    // Only the event tables: the subscriptions keep the default.
    expect(await targets('webhooks.subscriptions')).toEqual({ null: 'others' });
  });

  it('leaves half of each deliveries page free, in every partition made now or later, for their leases', async () => {
    const [partitioned] = policy.partitioned!;
    realNow += 10 * DAY;
    expect(await createPartitionsAhead(knex(), partitioned, clock)).toBeGreaterThan(0);
    realNow -= 10 * DAY;
    const optionsOf = async (table: string) => {
      const partitions = [...(await partitionsOf(knex(), table)).map(({ name }) => name), `${table}_default`];
      const { rows } = await knex().raw(
        `select coalesce(reloptions, '{}') as options from pg_class where oid = any(?::regclass[])`,
        [partitions],
      );
      return {
        partitions: partitions.length,
        options: new Set(rows.map((row: { options: string[] }) => row.options.join())),
      };
    };
    const deliveries = await optionsOf('webhooks.deliveries');
    // The spans made at start, the one just made ten days on, and the default partition.
    expect(deliveries.partitions).toBeGreaterThanOrEqual(4);
    expect(deliveries.options).toEqual(new Set(['fillfactor=50']));
    // Attempts are written once: their pages fill.
    expect((await optionsOf('webhooks.attempts')).options).toEqual(new Set(['']));
  });

  it("keeps no statistics of the case check's expressions, in every partition made now or later", async () => {
    const [partitioned] = policy.partitioned!;
    realNow += 40 * DAY;
    expect(await createPartitionsAhead(knex(), partitioned, clock)).toBeGreaterThan(0);
    realNow -= 40 * DAY;
    const { rows } = (await knex().raw(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'webhooks.deliveries_earlier_of_case'::regclass`,
    )) as { rows: Array<{ name: string }> };
    const partitions = [...(await partitionsOf(knex(), 'webhooks.deliveries')).map(({ name }) => name)];
    // One a partition, the one made just now and the default one included.
    expect(rows).toHaveLength(partitions.length + 1);
    for (const index of ['deliveries_earlier_of_case', ...rows.map(({ name }) => name)])
      expect([index, [...(await statisticsTargetsOf(knex(), `webhooks.${index}`)).values()]]).toEqual([
        index,
        [null, 0, 0],
      ]);
  });
}
