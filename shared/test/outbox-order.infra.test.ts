/**
 * Relays of several instances of a service taking one outbox at once, on the Postgres server, hand
 * each case's events on in the order they were written (what receivers' case numbers follow): a
 * claim skips the later events of a case whose earlier one another relay holds, claims take turns
 * so each sees the leases of the one before, and a lease that ran out holds nothing back.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  claimPendingEvents,
  type Database,
  inTransaction,
  loadConfig,
  markPublished,
  migrateSchema,
  openDatabase,
  pendingEventCount,
  writeEvent,
} from '../src';
import { createServerDatabase } from '../../test/support/hub';

const LEASE_MS = 30_000;

let server: { url: string; drop(): Promise<void> };
let database: Database;

beforeAll(async () => {
  server = await createServerDatabase();
  database = await openDatabase(loadConfig({ DATABASE_URL: server.url, DATABASE_POOL_SIZE: '8' }));
  await migrateSchema(database, 'probe', path.join(__dirname, 'outbox-probe', 'migrations'));
});
afterAll(async () => {
  await database?.close();
  await server?.drop();
});

beforeEach(() => database.knex('probe.outbox').delete());

/** Writes events, each `[case, label]`, in one transaction, in the order given. */
function write(events: Array<[string | null, string]>) {
  return inTransaction(database.knex, async (trx) => {
    for (const [caseGuid, label] of events) {
      await writeEvent(trx, 'probe', { type: 'note.written', caseGuid, audience: {}, payload: { label } });
    }
  });
}

async function claim(limit: number): Promise<{ ids: number[]; labels: string[] }> {
  const rows = await claimPendingEvents(database.knex, 'probe', limit, LEASE_MS);
  return { ids: rows.map((row) => row.id), labels: rows.map((row) => String(row.payload.label)) };
}

it('skips a case whose earlier event another relay holds, until that one is handed on or its lease runs out', async () => {
  const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
  await write([
    [x, 'x1'],
    [y, 'y1'],
    [x, 'x2'],
    [z, 'z1'],
    [null, 'no case'],
    [x, 'x3'],
  ]);
  const first = await claim(2);
  expect(first.labels).toEqual(['x1', 'y1']);
  // Another relay meanwhile: x2 and x3 wait for x1.
  expect((await claim(10)).labels).toEqual(['z1', 'no case']);
  expect((await claim(10)).labels).toEqual([]);
  await markPublished(database.knex, 'probe', first.ids);
  const next = await claim(1);
  expect(next.labels).toEqual(['x2']);
  expect((await claim(10)).labels).toEqual([]);
  // The relay holding x2 died: once its lease has run out, x2 and x3 go together.
  await database
    .knex('probe.outbox')
    .whereIn('id', next.ids)
    .update({ lease_until: database.knex.raw("now() - interval '1 second'") });
  expect((await claim(10)).labels).toEqual(['x2', 'x3']);
});

it('hands on an earlier event of a case at once while another relay holds a later one', async () => {
  // A transaction that commits after a later one's event was claimed leaves its earlier event behind that claim.
  const x = randomUUID();
  await write([
    [x, 'x1'],
    [x, 'x2'],
    [x, 'x3'],
  ]);
  const [, later] = (await database.knex('probe.outbox').where({ case_guid: x }).orderBy('id').pluck('id')) as number[];
  await database
    .knex('probe.outbox')
    .where({ id: later })
    .update({ lease_until: database.knex.raw("now() + interval '1 day'") });
  expect((await claim(10)).labels).toEqual(['x1']);
  expect((await claim(10)).labels).toEqual([]);
});

it("hands on every event once, each case's in the order written, with four relays claiming at once", async () => {
  const cases = Array.from({ length: 8 }, () => randomUUID());
  const perCase = 12;
  for (let round = 0; round < perCase; round++) {
    await write(cases.map((guid, index) => [guid, `${index}:${round}`]));
  }
  const handedOn: string[] = [];
  const relay = async () => {
    for (;;) {
      const { ids, labels } = await claim(3);
      if (ids.length === 0) {
        if ((await pendingEventCount(database.knex, 'probe')) === 0) return;
        // Everything left waits for events other relays hold.
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      // The sink's answer takes a while, longer for some calls than others.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
      handedOn.push(...labels);
      await markPublished(database.knex, 'probe', ids);
    }
  };
  await Promise.all(Array.from({ length: 4 }, relay));
  expect(handedOn).toHaveLength(cases.length * perCase);
  cases.forEach((_, index) => {
    const rounds = handedOn
      .filter((label) => label.startsWith(`${index}:`))
      .map((label) => Number(label.split(':')[1]));
    expect(rounds).toEqual(Array.from({ length: perCase }, (__, round) => round));
  });
}, 60_000);

describe('a claim behind a burst of 20,000 events', () => {
  const BURST = 20_000;

  /** Writes the burst in one statement, each event (labelled by its place in it) its own case but every tenth, which has none. */
  async function writeBurst() {
    await database.knex.raw(
      `insert into probe.outbox (event_id, type, case_guid, audience, payload)
       select gen_random_uuid(), 'note.written', case when n % 10 = 0 then null else gen_random_uuid() end, '{}',
              jsonb_build_object('label', n)
         from generate_series(1, ?) as n`,
      [BURST],
    );
  }

  /**
   * Claims `limit` in a transaction of the test's own, and answers what it took with the rows it
   * read of the outbox, as the server counts them: its connection's counts (which hold what earlier
   * transactions there read, until the server collects them) after the claim less before it.
   */
  async function claimCountingReads(limit: number) {
    return inTransaction(database.knex, async (trx) => {
      const rowsRead = async () => {
        const read = await trx.raw(
          `select coalesce(sum(seq_tup_read + idx_tup_fetch), 0) as rows from pg_stat_xact_user_tables
            where schemaname = 'probe' and relname = 'outbox'`,
        );
        return Number((read.rows[0] as { rows: string }).rows);
      };
      const before = await rowsRead();
      const rows = await claimPendingEvents(trx, 'probe', limit, LEASE_MS);
      return { labels: rows.map((row) => Number(row.payload.label)), read: (await rowsRead()) - before };
    });
  }

  async function expectClaimsToReadWhatTheyTake() {
    // Batches stay in flight (leased, not yet handed over) while the next are claimed.
    for (let batch = 0; batch < 5; batch++) {
      const { labels, read } = await claimCountingReads(100);
      expect(labels).toEqual(Array.from({ length: 100 }, (_, i) => batch * 100 + i + 1));
      const inFlight = batch * 100;
      expect(read).toBeLessThanOrEqual(3 * (labels.length + inFlight));
    }
  }

  it('reads the events it takes and those in flight, before the outbox was ever analyzed', async () => {
    await writeBurst();
    await expectClaimsToReadWhatTheyTake();
  }, 60_000);

  it('reads the events it takes and those in flight, when the statistics knew only events handed over', async () => {
    // A hub keeps the events it handed over for a while, so those are what its statistics see.
    await writeBurst();
    await database.knex('probe.outbox').update({ published_at: database.knex.fn.now() });
    await database.knex.raw('analyze probe.outbox');
    await writeBurst();
    await expectClaimsToReadWhatTheyTake();
  }, 60_000);
});
