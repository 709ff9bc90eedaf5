/**
 * The retention policy on a running hub (docs/retention.md): real bookings, a real receiver,
 * the services' own retention jobs, and the hub's clock moved forward past each rule's limit.
 * Each rule keeps its rows before their time, removes them after it, and touches nothing else;
 * the admin API and /metrics report what is kept and when each rule ran; retention running
 * beside a stream of deliveries loses none of them. Written once, run on the
 * embedded database and on the Postgres server.
 */
import type { Knex } from 'knex';
import pg from 'pg';
import {
  clockOf,
  configOf,
  databaseOf,
  type DomainEvent,
  retentionLockName,
  type StorageFigures,
  writeEvent,
} from '@hub/shared';
import { bookCase, BOOKING_SERVICES, caseBody } from '../support/cases';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { statusAdded } from '../../services/webhooks/test/support/events';
import { type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Elkjøp's account (partner 1). */
const ELKJOP_ACCOUNT = 2;

export function retentionSuite(infra: boolean): void {
  let hub: TestHub;
  let receiver: Receiver;
  let knex: Knex;
  /** Paths of the receiver that answer 500 (their deliveries end as dead letters). */
  const failing = new Set<string>(['/down']);
  const subscriptions: Record<'ok' | 'down' | 'paused', number> = { ok: 0, down: 0, paused: 0 };

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.answer = (request) => (failing.has(request.path) ? { status: 500 } : {});
    hub = await startTestHub({
      services: [...BOOKING_SERVICES, 'webhooks'],
      infra,
      env: {
        RATE_LIMIT_PER_MINUTE: '1000000',
        WEBHOOK_RETRY_SCHEDULE: '0,50ms',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
        // Several batches per rule, and on the embedded database a vacuum after them.
        RETENTION_BATCH_SIZE: '2',
        METRICS: 'true',
      },
    });
    knex = (await databaseOf(hub.broker)).knex;
    for (const name of ['ok', 'down', 'paused'] as const) {
      const created = await hub.request('POST', '/api/admin/webhooks/subscriptions', {
        token: DEMO_TOKENS.admin,
        body: {
          accountId: ELKJOP_ACCOUNT,
          eventTypes: ['status.new'],
          target: { kind: 'http', url: `${receiver.url}/${name}` },
        },
      });
      expect(created.status).toBe(200);
      subscriptions[name] = created.body.data.id;
    }
    const paused = await hub.request('POST', `/api/admin/webhooks/subscriptions/${subscriptions.paused}/pause`, {
      token: DEMO_TOKENS.admin,
    });
    expect(paused.status).toBe(200);
  });

  afterAll(async () => {
    await hub?.stop();
    await receiver?.close();
  });

  async function count(table: string, where: (query: Knex.QueryBuilder) => unknown = () => undefined) {
    const query = knex(table);
    where(query);
    const [row] = await query.count({ count: '*' });
    return Number(row.count);
  }

  function deliveriesOf(subscription: number, state: string) {
    return count('webhooks.deliveries', (query) => query.where({ subscription_id: subscription, state }));
  }

  /** Every row the policy governs, and rows it must never touch, by kind. */
  async function rows() {
    return {
      relayedEvents: await count('booking.outbox', (query) => query.whereNotNull('published_at')),
      pendingEvents: await count('booking.outbox', (query) => query.whereNull('published_at')),
      requestLog: await count('booking.external_requests'),
      idempotencyKeys: await count('booking.idempotency_keys'),
      delivered: await count('webhooks.deliveries', (query) => query.where({ state: 'succeeded' })),
      deadLetters: await count('webhooks.deliveries', (query) => query.where({ state: 'dead' })),
      pendingDeliveries: await count('webhooks.deliveries', (query) => query.where({ state: 'pending' })),
      attempts: await count('webhooks.attempts'),
      feed: await count('webhooks.feed'),
      cases: await count('booking.cases'),
      statuses: await count('booking.case_statuses'),
      subscriptions: await count('webhooks.subscriptions'),
    };
  }

  /** Moves the hub's clock on to `day` days (and `hours`) after the suite's start, then runs every job. */
  let elapsed = 0;
  async function retentionAt(day: number, hours = 0) {
    const target = day * DAY + hours * HOUR;
    clockOf(hub.broker).advance(target - elapsed);
    elapsed = target;
    const runs = [];
    for (const service of ['booking', 'webhooks']) {
      const answer = await hub.broker.call<{ runs: Array<{ rule: string; removed: number | null }> }>(
        `${service}.runRetention`,
      );
      runs.push(...answer.runs);
    }
    return Object.fromEntries(runs.map((run) => [run.rule, run.removed]));
  }

  function elkjopFeed(after?: string) {
    return hub.request('GET', `/api/v3/events${after ? `?after=${after}` : ''}`, { token: DEMO_TOKENS.elkjop });
  }

  it('keeps each kind of row until its time, removes it after, and touches nothing else', async () => {
    const feedStart = (await elkjopFeed()).body.next as string;
    for (const refNo of ['RET-1', 'RET-2']) {
      const booked = await hub.request('POST', '/api/v3/case/create', {
        token: DEMO_TOKENS.elkjop,
        body: caseBody(DEMO_TOKENS.elkjop, { orderData: { refNo }, trackingId: `track-${refNo}` }),
        headers: { 'Idempotency-Key': `key-${refNo}` },
      });
      expect(booked.status).toBe(200);
    }
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    const caseId = (await knex('booking.cases').where({ guid }).first('id')).id as number;
    const logged = await hub.request('POST', '/api/v3/requests/log', {
      token: DEMO_TOKENS.elkjop,
      body: { type: 'statusSync', status: 'success', meta: { caseId } },
    });
    expect(logged.status).toBe(200);
    // An event a relay claimed and never handed on (its process died): pending, so never removed.
    await knex.transaction(async (trx) => {
      const id = await writeEvent(trx, 'booking', { type: 'case.updated', caseGuid: guid, audience: {}, payload: {} });
      await trx('booking.outbox')
        .where({ event_id: id })
        .update({ lease_until: trx.raw("now() + interval '1 day'") });
    });
    await waitFor(
      async () =>
        (await count('booking.outbox', (query) => query.whereNull('published_at'))) === 1 &&
        (await deliveriesOf(subscriptions.ok, 'succeeded')) === 3 &&
        (await deliveriesOf(subscriptions.down, 'dead')) === 3 &&
        (await deliveriesOf(subscriptions.paused, 'pending')) === 3,
      'the events relayed and every delivery settled',
      30_000,
    );
    const start = await rows();
    expect(start).toMatchObject({
      pendingEvents: 1,
      requestLog: 3,
      idempotencyKeys: 2,
      delivered: 3,
      deadLetters: 3,
      pendingDeliveries: 3,
      // Each booking's first status: a New status and a transition in Elkjøp's feed.
      feed: 6,
      cases: 3,
    });
    expect(start.relayedEvents).toBeGreaterThanOrEqual(6);
    // One attempt per delivered webhook, two per dead letter (the schedule has two).
    expect(start.attempts).toBe(3 + 3 * 2);

    // Idempotency-Keys: a day (IDEMPOTENCY_KEY_TTL).
    expect(await retentionAt(0, 23)).toMatchObject({ 'expired idempotency keys': 0, 'relayed events': 0 });
    expect(await rows()).toEqual(start);
    expect(await retentionAt(1, 1)).toMatchObject({ 'expired idempotency keys': 2 });
    expect(await rows()).toEqual({ ...start, idempotencyKeys: 0 });

    // Relayed outbox events: 7 days after the hand-over; the pending one stays.
    expect(await retentionAt(6, 23)).toMatchObject({ 'relayed events': 0 });
    expect(await retentionAt(7, 1)).toMatchObject({ 'relayed events': start.relayedEvents });
    const afterWeek = { ...start, idempotencyKeys: 0, relayedEvents: 0 };
    expect(await rows()).toEqual(afterWeek);

    // Delivered webhooks and their attempts, and the event feed: 30 days; dead letters and pending deliveries stay.
    expect(await retentionAt(29, 23)).toMatchObject({ 'delivered webhooks': 0, 'event feed': 0 });
    expect(await rows()).toEqual(afterWeek);
    expect((await elkjopFeed(feedStart)).body.data).toHaveLength(6);
    expect(await retentionAt(30, 1)).toMatchObject({ 'delivered webhooks': 3, 'dead letters': 0, 'event feed': 6 });
    const afterMonth = { ...afterWeek, delivered: 0, attempts: 3 * 2, feed: 0 };
    expect(await rows()).toEqual(afterMonth);
    // A cursor from before what the feed still keeps is refused, not silently moved on; the feed goes on from its end.
    const expired = await elkjopFeed(feedStart);
    expect(expired.status).toBe(400);
    expect(Object.keys(expired.body.error.details)).toEqual(['after']);
    const restarted = await elkjopFeed();
    expect(restarted.body).toMatchObject({ data: [], hasMore: false });
    expect((await elkjopFeed(restarted.body.next)).status).toBe(200);
    if (!infra) {
      // No autovacuum on the embedded database: the job vacuums what it shrank by a batch or more.
      const vacuumed = await knex.raw(
        `select relname, last_vacuum from pg_stat_all_tables
          where schemaname = 'webhooks' and relname in ('deliveries_default', 'attempts_default')`,
      );
      expect(vacuumed.rows.map((row: { last_vacuum: Date | null }) => row.last_vacuum !== null)).toEqual([true, true]);
    }

    // A dead letter redelivered on day 80 is a delivery of day 80 from then on.
    failing.delete('/down');
    const [redelivered] = (await knex('webhooks.deliveries')
      .where({ subscription_id: subscriptions.down, state: 'dead' })
      .orderBy('id')
      .limit(1)
      .pluck('id')) as number[];
    await retentionAt(80);
    const answer = await hub.request('POST', `/api/admin/webhooks/deliveries/${redelivered}/redeliver`, {
      token: DEMO_TOKENS.admin,
    });
    expect(answer.status).toBe(200);
    await waitFor(async () => (await deliveriesOf(subscriptions.down, 'succeeded')) === 1, 'the redelivery', 30_000);
    const afterRedelivery = { ...afterMonth, delivered: 1, deadLetters: 2, attempts: 3 * 2 + 1 };
    expect(await rows()).toEqual(afterRedelivery);

    // Dead letters and the request log: 90 days.
    expect(await retentionAt(89, 23)).toMatchObject({ 'dead letters': 0, 'request log': 0 });
    expect(await rows()).toEqual(afterRedelivery);
    expect(await retentionAt(90, 1)).toMatchObject({ 'dead letters': 2, 'request log': 3, 'delivered webhooks': 0 });
    // The redelivered one keeps its attempts from before (2) with the new one.
    const afterQuarter = { ...afterRedelivery, deadLetters: 0, requestLog: 0, attempts: 3 };
    expect(await rows()).toEqual(afterQuarter);

    // The redelivery goes 30 days after it succeeded; pending events and deliveries, cases and subscriptions stay.
    expect(await retentionAt(110, 1)).toMatchObject({ 'delivered webhooks': 1 });
    expect(await rows()).toEqual({ ...afterQuarter, delivered: 0, attempts: 0 });
    expect(await knex('webhooks.deliveries').where({ id: redelivered })).toEqual([]);
  });

  it('reports rows, bytes, the oldest row kept and the last run per service to admins and Prometheus', async () => {
    expect((await hub.request('GET', '/api/admin/storage', { token: DEMO_TOKENS.elkjop })).status).toBe(403);
    const answer = await hub.request('GET', '/api/admin/storage', { token: DEMO_TOKENS.admin });
    expect(answer.status).toBe(200);
    expect(answer.body.unanswered).toEqual([]);
    const services = answer.body.services as StorageFigures[];
    expect(services.map((figures) => figures.service)).toEqual(['booking', 'catalog', 'routing', 'webhooks']);
    const booking = services.find((figures) => figures.service === 'booking')!;
    const outbox = booking.tables.find((table) => table.table === 'booking.outbox')!;
    // The one pending event, written on the suite's first day and kept ever since.
    const pending = await knex('booking.outbox').first('occurred_at');
    expect(outbox).toMatchObject({
      rows: 1,
      rowsEstimated: false,
      oldestRowAt: pending.occurred_at.toISOString(),
    });
    expect(outbox.bytes).toBeGreaterThan(8192);
    expect(outbox.oldestRowAgeSeconds).toBeGreaterThanOrEqual((110 * DAY) / 1000);
    const cases = booking.tables.find((table) => table.table === 'booking.cases')!;
    expect(cases).toMatchObject({ rows: await count('booking.cases') });
    expect(cases.oldestRowAt).toBeUndefined();
    expect(booking.retention).toMatchObject({ enabled: true, intervalSeconds: 600 });
    expect(booking.retention.rules.map((rule) => [rule.rule, rule.keepSeconds])).toEqual([
      ['relayed events', 7 * 86_400],
      ['request log', 90 * 86_400],
      ['expired idempotency keys', 86_400],
    ]);
    for (const rule of booking.retention.rules) {
      expect(rule.lastRemoved).toBe(0);
      expect(Date.parse(rule.lastRunAt!)).toBeGreaterThanOrEqual(clockOf(hub.broker).now().getTime() - DAY);
    }
    expect(booking.retention.rules.map((rule) => rule.removedTotal)).toEqual([expect.any(Number), 3, 2]);
    const webhooks = services.find((figures) => figures.service === 'webhooks')!;
    expect(webhooks.retention.rules.map((rule) => [rule.rule, rule.removedTotal])).toEqual([
      ['delivered webhooks', 4],
      ['dead letters', 2],
      ['event feed', 6],
    ]);
    expect(webhooks.tables.find((table) => table.table === 'webhooks.feed')).toMatchObject({
      rows: 0,
      oldestRowAt: null,
    });
    expect(webhooks.tables.find((table) => table.table === 'webhooks.attempts')).toMatchObject({
      rows: 0,
      oldestRowAt: null,
    });
    // This span and the next (or one more, once the span has turned), and the default partition.
    const partitions = webhooks.tables.find((table) => table.table === 'webhooks.deliveries')!.partitions;
    expect([3, 4]).toContain(partitions);
    expect(webhooks.tables.find((table) => table.table === 'webhooks.feed')!.partitions).toBeUndefined();
    const catalog = services.find((figures) => figures.service === 'catalog')!;
    expect(catalog.retention.rules).toEqual([]);
    expect(catalog.tables.length).toBeGreaterThan(0);

    const metrics = (await hub.request('GET', '/metrics')).body as string;
    const line = (name: string, labels: Record<string, string>) =>
      new RegExp(
        `^${name}\\{${Object.entries(labels)
          .map(([key, value]) => `(?=[^}]*${key}="${value}")`)
          .join('')}[^}]*\\} (\\S+)$`,
        'm',
      );
    expect(metrics).toMatch(line('hub_storage_rows', { service: 'booking', table: 'booking.outbox' }));
    expect(metrics.match(line('hub_storage_rows', { service: 'booking', table: 'booking.outbox' }))![1]).toBe('1');
    expect(metrics).toMatch(line('hub_storage_bytes', { service: 'webhooks', table: 'webhooks.deliveries' }));
    expect(metrics.match(line('hub_storage_partitions', { service: 'webhooks', table: 'webhooks.attempts' }))![1]).toBe(
      String(partitions),
    );
    expect(metrics).toMatch(
      line('hub_storage_oldest_row_age_seconds', { service: 'booking', table: 'booking.outbox' }),
    );
    const lastRun = metrics.match(
      line('hub_retention_last_run_timestamp_seconds', { service: 'webhooks', rule: 'dead letters' }),
    );
    expect(Number(lastRun![1]) * 1000).toBe(
      Date.parse(webhooks.retention.rules.find((rule) => rule.rule === 'dead letters')!.lastRunAt!),
    );
    expect(metrics).toMatch(line('hub_retention_last_removed_rows', { service: 'booking', rule: 'request log' }));
  });

  it('loses no delivery while retention runs beside a stream of them', async () => {
    const events: DomainEvent[] = Array.from({ length: 200 }, () => statusAdded(1, 'registered', null));
    let streaming = true;
    const ingesting = (async () => {
      for (let start = 0; start < events.length; start += 10) {
        await hub.broker.call('webhooks.ingest', { events: events.slice(start, start + 10) });
      }
    })();
    // Every run sees a month gone by: each delivery is removed as soon as it has succeeded.
    let runs = 0;
    const removing = (async () => {
      while (streaming) {
        clockOf(hub.broker).advance(31 * DAY);
        await hub.broker.call('webhooks.runRetention');
        runs += 1;
      }
    })();
    const expected = events.map((event) => event.id);
    const receivedIds = () =>
      new Set(
        receiver.received
          .filter((request) => request.path === '/ok')
          .map((request) => String(request.headers['webhook-id'])),
      );
    try {
      await ingesting;
      await waitFor(() => expected.every((id) => receivedIds().has(id)), 'every event of the stream delivered', 60_000);
    } finally {
      streaming = false;
      await removing;
    }
    expect(expected.filter((id) => !receivedIds().has(id))).toEqual([]);
    expect(runs).toBeGreaterThan(1);
    // A receiver has an answer before the worker records it.
    await waitFor(async () => (await deliveriesOf(subscriptions.ok, 'pending')) === 0, 'every attempt recorded');
  });

  // One process on the embedded database is one session, which holds every lock it takes.
  if (infra) {
    it('leaves a rule to the instance already running it, and takes it up on its next run', async () => {
      await bookCase(hub, DEMO_TOKENS.elkjop);
      await waitFor(
        async () => (await count('booking.outbox', (query) => query.whereNull('published_at'))) === 1,
        'the booking relayed',
        30_000,
      );
      const relayed = await count('booking.outbox', (query) => query.whereNotNull('published_at'));
      expect(relayed).toBeGreaterThanOrEqual(2);
      const otherInstance = new pg.Client({ connectionString: configOf(hub.broker).databaseUrl });
      await otherInstance.connect();
      try {
        await otherInstance.query('begin');
        await otherInstance.query('select pg_advisory_xact_lock(hashtext($1))', [
          retentionLockName({ table: 'booking.outbox', name: 'relayed events' }),
        ]);
        const skipped = await retentionAt(elapsed / DAY + 8);
        expect(skipped['relayed events']).toBeNull();
        expect(skipped['request log']).toBe(0);
        expect(await count('booking.outbox', (query) => query.whereNotNull('published_at'))).toBe(relayed);
        await otherInstance.query('commit');
      } finally {
        await otherInstance.end();
      }
      expect((await retentionAt(elapsed / DAY))['relayed events']).toBe(relayed);
      expect(await count('booking.outbox', (query) => query.whereNotNull('published_at'))).toBe(0);
    });
  }
}
