/**
 * Transactional outbox: a service writes the domain event in the same transaction as the change
 * it reports, and a relay hands committed events to the webhooks service with an acknowledged
 * call. An event is marked published only after that call answers, so a crash anywhere re-sends
 * it; the receiver deduplicates by event id.
 *
 * The relay never holds a transaction across the call (embedded mode has one shared connection
 * that the receiving action needs); a lease keeps two instances of a service from sending the
 * same rows at the same time.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { ServiceSchema, Service, ServiceSettingSchema } from 'moleculer';
import type { DbService } from './db.mixin';
import type { AgedTable, RetentionRule } from './retention-rule';

/** Who may be told about the event: the webhooks service picks their subscriptions. */
export interface Audience {
  partnerId?: number | null;
  providerId?: number | null;
}

export interface DomainEvent<P = Record<string, unknown>> {
  /** The event id; also the `webhook-id` of every delivery it causes. */
  id: string;
  type: string;
  source: string;
  occurredAt: string;
  caseGuid: string | null;
  audience: Audience;
  payload: P;
}

export interface NewEvent<P = Record<string, unknown>> {
  type: string;
  caseGuid?: string | null;
  audience: Audience;
  payload: P;
}

/** Where relayed events go: the webhooks service stores them before it answers. */
export const EVENT_SINK_ACTION = 'webhooks.ingest';

/** The internal action every service with an outbox answers; callers find them by this name. */
export const OUTBOX_BACKLOG_ACTION = 'outboxBacklog';

export const OUTBOX_SETTINGS = {
  /** How often a relay looks for events that an after-commit nudge did not send. */
  pollIntervalMs: 1000,
  /**
   * Events per claim. A store's cost grows with its size alone, and each batch costs a claim, a
   * call and a mark besides, so fewer, larger batches hand more events over a second than many
   * small ones under way at once (bench/results/ingest.md).
   */
  batchSize: 400,
  /**
   * Batches a relay has under way at once: while the webhooks service stores one, the next is
   * claimed and sent. Batches never share a case (a claim skips the cases of leased events), so
   * each case's events still arrive in order.
   */
  handOversAtOnce: 2,
  /**
   * Most bytes of events in one call, which NATS carries as one message: a batch whose events
   * (each case's whole state, up to a request body's size) add up to more is handed over in
   * several calls, one after the other. Below NATS's default largest message (1 MB), so that a
   * server without the hub's configuration (64 MB, infra/nats.conf) carries them too, but for an
   * event larger than that alone.
   */
  handOverMaxBytes: 768 * 1024,
  /**
   * Shortest time from one claim to the next while claims come back short (the relay keeps up):
   * events written meanwhile wait for the next batch rather than each going in a claim, a call
   * and a mark of their own, which under a steady stream of writes costs more than the wait; an
   * event waits at most this long, and one written while the relay is idle not at all.
   */
  shortClaimIntervalMs: 50,
  /** How long a relay owns the rows it claimed before another instance may send them. */
  leaseMs: 30_000,
  /** Longest wait between relay attempts while the sink is unreachable. */
  maxBackoffMs: 30_000,
};

/** Retention of an outbox: events the webhooks service took, `keepMs` after it took them; pending ones stay. */
export function relayedEventsRetention(schema: string, keepMs: number): { rule: RetentionRule; aged: AgedTable } {
  const table = `${schema}.outbox`;
  return {
    rule: { name: 'relayed events', table, key: ['id'], ageColumn: 'published_at', keepMs },
    aged: { table, column: 'occurred_at', orderBy: 'id' },
  };
}

/** Writes an event in the caller's transaction; returns its id. */
export async function writeEvent(trx: Knex.Transaction, schema: string, event: NewEvent): Promise<string> {
  const [id] = await writeEvents(trx, schema, [event]);
  return id;
}

/**
 * Writes events in the caller's transaction in one statement, relayed in the order given (a
 * statement's rows take their ids in order); returns their ids.
 */
export async function writeEvents(trx: Knex.Transaction, schema: string, events: NewEvent[]): Promise<string[]> {
  const { statement, eventIds } = eventsInsert(trx, schema, events);
  await statement;
  return eventIds;
}

/** The statement that writes events as `writeEvents` does, for a transaction that sends its statements itself. */
export function eventsInsert(
  knex: Knex,
  schema: string,
  events: NewEvent[],
): { statement: Knex.QueryBuilder; eventIds: string[] } {
  const rows = events.map((event) => ({
    event_id: randomUUID(),
    type: event.type,
    case_guid: event.caseGuid ?? null,
    audience: JSON.stringify(event.audience),
    payload: JSON.stringify(event.payload),
  }));
  return { statement: knex(`${schema}.outbox`).insert(rows), eventIds: rows.map((row) => row.event_id) };
}

interface OutboxRow {
  id: number;
  event_id: string;
  type: string;
  case_guid: string | null;
  audience: Audience;
  payload: Record<string, unknown>;
  /** The length of the payload's JSON text, for the size of a call (`handOverMaxBytes`). */
  payload_bytes: number;
  occurred_at: Date;
}

/** What a domain event's fields besides its payload add to a call, at most (ids, type, source, dates, audience). */
const EVENT_ENVELOPE_BYTES = 512;

/**
 * Claims a batch of pending events for this relay; rows leased by another relay are skipped, and
 * so is every later pending event of their cases: a case's events reach the webhooks service in
 * the order they were written even with several instances relaying (receivers number a case's
 * events in that order, docs/webhooks.md). An earlier event of such a case (its transaction
 * committed after the later one was claimed) goes at once. Claims take turns under an advisory
 * lock taken in a statement of its own, so each claim's snapshot holds the leases of the claim
 * before it.
 *
 * The claim walks the pending events in the order of their ids and stops at the batch's size; the
 * cases it skips are read once, from the index of leases (`outbox_leases`), into a hash (the
 * subquery does not depend on the row, so Postgres hashes it), and only an event whose case is
 * among them looks up where its case's leases begin: a claim reads the rows it takes and those
 * in flight, whatever the backlog. Sorting and sequential scans are turned off for the
 * claim's transaction so that the planner keeps to that walk and that index: a planner that
 * expects few pending events (the statistics of an outbox that is usually empty, or of one taken
 * before a burst) otherwise reads every pending event and sorts them for each claim, so that a
 * burst costs the database the square of its size.
 *
 * The lock and the claim go to the database as one query of two statements, which Postgres runs
 * as one transaction (the lock and the setting are held to its end, a failure rolls both back)
 * with a snapshot per statement: one round trip per claim instead of four, on the path of every
 * event. Multiple statements need the simple query protocol, which takes no parameters, so the
 * values are written into the text by knex's own quoting.
 */
export async function claimPendingEvents(
  knex: Knex,
  schema: string,
  limit: number,
  leaseMs: number,
): Promise<OutboxRow[]> {
  const lockAndWalkInOrder = knex
    .raw(
      `select pg_advisory_xact_lock(hashtext(?)), set_config('enable_sort', 'off', true),
              set_config('enable_seqscan', 'off', true)`,
      [`outbox-claim:${schema}`],
    )
    .toQuery();
  const claim = knex
    .raw(
      `update ??.outbox set lease_until = now() + (? * interval '1 millisecond')
        where id in (select o.id from ??.outbox o
                      where o.published_at is null and (o.lease_until is null or o.lease_until < now())
                        and (o.case_guid is null
                             or o.case_guid not in (select e.case_guid from ??.outbox e
                                                     where e.lease_until >= now() and e.case_guid is not null)
                             or o.id < (select min(e.id) from ??.outbox e
                                         where e.case_guid = o.case_guid and e.lease_until >= now()))
                      order by o.id limit ? for update of o skip locked)
        returning id, event_id, type, case_guid, audience, payload, octet_length(payload::text) as payload_bytes, occurred_at`,
      [schema, leaseMs, schema, schema, schema, limit],
    )
    .toQuery();
  const results = (await knex.raw(`${lockAndWalkInOrder};\n${claim}`)) as Array<{ rows: OutboxRow[] }>;
  return results[1].rows.sort((a, b) => a.id - b.id);
}

export async function markPublished(knex: Knex, schema: string, ids: number[]): Promise<void> {
  await knex(`${schema}.outbox`).whereIn('id', ids).update({ published_at: knex.fn.now(), lease_until: null });
}

/** Gives claimed rows back at once when the sink did not take them. */
export async function releaseLease(knex: Knex, schema: string, ids: number[]): Promise<void> {
  await knex(`${schema}.outbox`).whereIn('id', ids).whereNull('published_at').update({ lease_until: null });
}

export async function pendingEventCount(knex: Knex, schema: string): Promise<number> {
  const row = await knex(`${schema}.outbox`)
    .whereNull('published_at')
    .count<{ count: number }[]>('id as count')
    .first();
  return Number(row?.count ?? 0);
}

export function toDomainEvent(row: OutboxRow, source: string): DomainEvent {
  return {
    id: row.event_id,
    type: row.type,
    source,
    occurredAt: row.occurred_at.toISOString(),
    caseGuid: row.case_guid,
    audience: row.audience,
    payload: row.payload,
  };
}

/**
 * Splits claimed events, in their order, into calls whose events add up to at most
 * `handOverMaxBytes`; an event larger than that goes in a call of its own.
 */
function inCallsOfMessageSize(rows: OutboxRow[]): OutboxRow[][] {
  const calls: OutboxRow[][] = [];
  let current: OutboxRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.payload_bytes + EVENT_ENVELOPE_BYTES;
    if (current.length > 0 && bytes + size > OUTBOX_SETTINGS.handOverMaxBytes) {
      calls.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

function idsOf(rows: OutboxRow[]): number[] {
  return rows.map((row) => row.id);
}

interface RelayState {
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  again: boolean;
  failures: number;
  nextAttemptAt: number;
}

/** The `this` of a service with DbMixin and OutboxMixin, which writes events and relays them. */
export type OutboxDbService = Service & DbService & { relayOutbox(): void };

type OutboxService = Service & {
  db: { knex: Knex };
  outboxSchema: string;
  outboxRelay: RelayState;
  relayOutbox(): void;
  relayPendingEvents(): Promise<void>;
  handOver(rows: OutboxRow[]): Promise<void>;
};

/**
 * Gives a service `relayOutbox()` (call it after a commit that wrote events) and a poller that
 * relays whatever a crash or an unreachable sink left behind. Needs the DbMixin's `this.db`.
 */
export function OutboxMixin(schema: string): Partial<ServiceSchema> {
  const mixin: Partial<ServiceSchema<ServiceSettingSchema, OutboxService>> = {
    actions: {
      /** Internal: events not yet handed on, for the gateway's metrics and operator console. */
      [OUTBOX_BACKLOG_ACTION]: {
        visibility: 'public',
        async handler(this: OutboxService) {
          const pending = this.db ? await pendingEventCount(this.db.knex, schema) : 0;
          return { service: this.name, pending };
        },
      },
    },

    events: {
      /** The sink may have just joined or come back (a restart, NATS again): stop waiting out the backoff. */
      '$services.changed'(this: OutboxService) {
        const state = this.outboxRelay;
        if (state.failures === 0) return;
        // After the attempt under way, whose failure would set the backoff again.
        void Promise.resolve(state.running).then(() => {
          state.nextAttemptAt = 0;
          this.relayOutbox();
        });
      },
    },

    methods: {
      relayOutbox(this: OutboxService) {
        const state = this.outboxRelay;
        // While backing off from a failing sink, a write's nudge waits for the poller: tried at
        // once, every write during an outage cost a claim, a failed call and a release.
        if (state.running || Date.now() < state.nextAttemptAt) {
          state.again = true;
          return;
        }
        state.running = this.relayPendingEvents()
          .catch((err: Error) => {
            state.failures += 1;
            const backoff = Math.min(OUTBOX_SETTINGS.maxBackoffMs, 250 * 2 ** Math.min(state.failures, 10));
            state.nextAttemptAt = Date.now() + backoff;
            this.logger.warn(`Outbox relay failed (${err.message}); next attempt in ${backoff} ms`);
          })
          .finally(() => {
            state.running = undefined;
            if (state.again && Date.now() >= state.nextAttemptAt) {
              state.again = false;
              this.relayOutbox();
            }
          });
      },

      async relayPendingEvents(this: OutboxService) {
        // The poller can fire while the service is still opening its database and migrating.
        if (!this.db) return;
        const { knex } = this.db;
        const underWay = new Set<Promise<void>>();
        let failure: Error | undefined;
        try {
          for (;;) {
            this.outboxRelay.again = false;
            const claimedAt = Date.now();
            const rows = await claimPendingEvents(knex, schema, OUTBOX_SETTINGS.batchSize, OUTBOX_SETTINGS.leaseMs);
            if (rows.length > 0) {
              const handOver: Promise<void> = this.handOver(rows)
                .catch((err: Error) => {
                  failure ??= err;
                })
                .finally(() => underWay.delete(handOver));
              underWay.add(handOver);
            }
            if (rows.length < OUTBOX_SETTINGS.batchSize) {
              // A short claim skipped the cases of batches under way, and the events written since
              // are few: once a batch is handed over and the claim interval has passed, look again.
              // Claimed at once instead, a stream of writes went a few events a batch (a claim, a
              // mark and a call each).
              if (underWay.size > 0) await Promise.race(underWay);
              else if (!this.outboxRelay.again) break;
              const gathering = claimedAt + OUTBOX_SETTINGS.shortClaimIntervalMs - Date.now();
              if (gathering > 0) await delay(gathering);
            }
            while (underWay.size >= OUTBOX_SETTINGS.handOversAtOnce && !failure) await Promise.race(underWay);
            if (failure) break;
          }
        } finally {
          // A claim that fails still waits for the batches under way, so a relay's runs never overlap.
          await Promise.all(underWay);
        }
        if (failure) throw failure;
      },

      /**
       * Hands one claimed batch to the webhooks service, call by call in the order claimed, and
       * marks each call's events handed over once it answers; gives the rest back if one is refused.
       */
      async handOver(this: OutboxService, rows: OutboxRow[]) {
        const { knex } = this.db;
        let handedOver = 0;
        for (const events of inCallsOfMessageSize(rows)) {
          try {
            await this.broker.call(EVENT_SINK_ACTION, { events: events.map((row) => toDomainEvent(row, this.name)) });
          } catch (err) {
            await releaseLease(knex, schema, idsOf(rows.slice(handedOver)));
            throw err;
          }
          await markPublished(knex, schema, idsOf(events));
          handedOver += events.length;
        }
        this.outboxRelay.failures = 0;
      },
    },

    created(this: OutboxService) {
      this.outboxSchema = schema;
      this.outboxRelay = { again: false, failures: 0, nextAttemptAt: 0 };
    },

    started(this: OutboxService) {
      this.outboxRelay.timer = setInterval(() => {
        if (Date.now() >= this.outboxRelay.nextAttemptAt) this.relayOutbox();
      }, OUTBOX_SETTINGS.pollIntervalMs);
      this.outboxRelay.timer.unref();
    },

    async stopped(this: OutboxService) {
      clearInterval(this.outboxRelay.timer);
      await this.outboxRelay.running;
    },
  };
  return mixin as Partial<ServiceSchema>;
}
