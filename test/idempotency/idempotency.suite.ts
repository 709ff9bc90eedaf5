/**
 * Idempotency-Key on every write a partner or provider makes, through the gateway, written once
 * and run on the embedded database (`idempotency.test.ts`) and on the Postgres server with NATS
 * and Redis (`idempotency.infra.test.ts`), where concurrent requests really run side by side.
 *
 * Each kind of write is checked the same way against the data of every service that writes:
 * the first request changes it, a retry with the key answers the same status and body and
 * changes nothing (no row, no outbox event: no webhook), the key with another request is a 409,
 * and requests sent at once with one key write once.
 */
import type { Knex } from 'knex';
import { clockOf, databaseOf, DEMO_WORLD_FILE, readWorld, type ServiceName, type World } from '../../shared/src';
import { bookCase, caseBody } from '../support/cases';
import { DEMO_TOKENS, type HttpResult, startTestHub, type TestHub, waitFor } from '../support/hub';
import { type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';

const SERVICES: ServiceName[] = [
  'catalog',
  'routing',
  'booking',
  'cost-proposals',
  'messaging',
  'invoicing',
  'models',
  'webhooks',
  'gateway',
];
/** The schemas of the services whose writes take keys. */
const WRITING_SCHEMAS = ['booking', 'cost_proposals', 'messaging', 'invoicing', 'models'];
/** Requests sent at once with one key. */
const RACERS = 3;
/** The demo account of Elkjøp (partner 1), whose cases go to Nordic Repair Center (provider 10). */
const ELKJOP_ACCOUNT = 2;

const { elkjop, power, nrc } = DEMO_TOKENS;

interface WriteRequest {
  path: string;
  token: string;
  body: unknown;
  /** Another request to the same endpoint. */
  other: unknown;
}

interface WriteKind {
  name: string;
  /** The schema of the service that makes the write, where its keys are kept. */
  schema: string;
  /** Makes what the write needs (a fresh case, a proposal) and answers the request. */
  prepare(hub: TestHub): Promise<WriteRequest> | WriteRequest;
}

type Snapshot = Record<string, { rows: number; digest: string | null }>;

/** The tables of kept counts, each with its count: a write adds to a row of its values, or adds a row. */
const KEPT_COUNTS: Record<string, string> = {
  'booking.case_counts': 'cases',
  'invoicing.invoice_days': 'invoices',
  'invoicing.custom_value_days': 'invoices',
};

/**
 * Every row of every writing service, as counts and digests. An outbox is only counted: its rows
 * change while the relay hands them on, and each one is a webhook to send. A table of kept counts
 * is read as the number of rows it counts.
 */
async function snapshot(knex: Knex): Promise<Snapshot> {
  const tables = (await knex('pg_tables')
    .whereIn('schemaname', WRITING_SCHEMAS)
    .whereNotIn('tablename', ['idempotency_keys', 'retention_runs'])
    .whereNot('tablename', 'like', 'knex\\_%')
    .orderBy(['schemaname', 'tablename'])
    .select('schemaname', 'tablename')) as Array<{ schemaname: string; tablename: string }>;
  const taken: Snapshot = {};
  for (const { schemaname, tablename } of tables) {
    const table = `${schemaname}.${tablename}`;
    const query = Object.hasOwn(KEPT_COUNTS, table)
      ? `select coalesce(sum(${KEPT_COUNTS[table]}), 0) as rows, null as digest from ??`
      : tablename === 'outbox'
        ? 'select count(*) as rows, null as digest from ??'
        : "select count(*) as rows, md5(string_agg(t::text, '|' order by t::text)) as digest from ?? t";
    const [row] = (await knex.raw(query, [table])).rows as Array<{ rows: number; digest: string | null }>;
    taken[table] = { rows: Number(row.rows), digest: row.digest };
  }
  return taken;
}

/** How many rows each table gained from `before` to `after`. */
function rowsAdded(before: Snapshot, after: Snapshot): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([table, { rows }]) => [table, rows - before[table].rows]));
}

async function caseIdOf(hub: TestHub, guid: string): Promise<number> {
  const [parties] = await hub.broker.call<Array<{ id: number }>, { guids: string[] }>('booking.caseParties', {
    guids: [guid],
  });
  return parties.id;
}

async function post(hub: TestHub, path: string, token: string, body: unknown): Promise<any> {
  const res = await hub.request('POST', path, { token, body });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function proposalOn(hub: TestHub, guid: string, name = 'Screen replacement'): Promise<number> {
  const saved = await post(hub, '/api/v3/cost-proposals', nrc, [{ guid, name, priceNet: 1490, currency: 'NOK' }]);
  return saved.data[0].id as number;
}

async function providerMessageOn(hub: TestHub, guid: string): Promise<number> {
  const created = await post(hub, '/api/v3/case-messages/create', nrc, {
    guid,
    type: 'serviceComment',
    content: 'Parts ordered',
  });
  return created.id as number;
}

let made = 0;
/** A name no earlier request used. */
const fresh = (what: string) => `${what}-${++made}`;

/** A booking in the v2 names (`order`, `product`). */
function v2Booking(body: Record<string, unknown>): Record<string, unknown> {
  const { orderData, productData, ...rest } = body;
  return { ...rest, order: orderData, product: productData };
}

const WRITE_KINDS: WriteKind[] = [
  {
    name: 'case/create',
    schema: 'booking',
    prepare: () => {
      const refNo = fresh('IDEM');
      return {
        path: '/api/v3/case/create',
        token: elkjop,
        body: caseBody(elkjop, { orderData: { refNo } }),
        other: caseBody(elkjop, { orderData: { refNo: `${refNo}-other` } }),
      };
    },
  },
  {
    name: 'v2 case/create (answered { id, guid })',
    schema: 'booking',
    prepare: () => {
      const refNo = fresh('IDEM-V2');
      return {
        path: '/api/v2/case/create',
        token: elkjop,
        body: v2Booking(caseBody(elkjop, { orderData: { refNo } })),
        other: v2Booking(caseBody(elkjop, { orderData: { refNo: `${refNo}-other` } })),
      };
    },
  },
  {
    name: 'case/update',
    schema: 'booking',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      return {
        path: '/api/v3/case/update',
        token: elkjop,
        body: { guid, orderData: { refNo: 'UPDATED' } },
        other: { guid, orderData: { refNo: 'UPDATED-OTHER' } },
      };
    },
  },
  {
    name: 'case/append',
    schema: 'booking',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      return {
        path: '/api/v3/case/append',
        token: nrc,
        body: { guid, orderData: { providerOrderReference: 'NRC-1' } },
        other: { guid, orderData: { providerOrderReference: 'NRC-2' } },
      };
    },
  },
  {
    name: 'case/status',
    schema: 'booking',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      return {
        path: '/api/v3/case/status',
        token: nrc,
        body: { guid, key: 'arrived' },
        other: { guid, key: 'diagnosed' },
      };
    },
  },
  {
    name: 'case/files',
    schema: 'booking',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      const file = (text: string) => ({ name: 'receipt.txt', type: 'proofOfPurchase', data: btoa(text) });
      return {
        path: '/api/v3/case/files',
        token: elkjop,
        body: { guid, files: [file('paid 1490 NOK')] },
        other: { guid, files: [file('paid 1590 NOK')] },
      };
    },
  },
  {
    name: 'case/accept',
    schema: 'booking',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      return { path: '/api/v3/case/accept', token: nrc, body: { guid }, other: { guid, status: false } };
    },
  },
  {
    name: 'case/cancel',
    schema: 'booking',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      return {
        path: '/api/v3/case/cancel',
        token: nrc,
        body: { guid, reason: 'No spare parts' },
        other: { guid, reason: 'The customer withdrew' },
      };
    },
  },
  {
    name: 'case/finish',
    schema: 'booking',
    prepare: async (hub) => {
      const [guid, otherGuid] = [await bookCase(hub, elkjop), await bookCase(hub, elkjop)];
      return { path: '/api/v3/case/finish', token: elkjop, body: { guid }, other: { guid: otherGuid } };
    },
  },
  {
    name: 'requests/log',
    schema: 'booking',
    prepare: async (hub) => {
      const caseId = await caseIdOf(hub, await bookCase(hub, elkjop));
      const entry = (status: string) => ({ type: 'caseExported', status, meta: { caseId } });
      return { path: '/api/v3/requests/log', token: elkjop, body: entry('success'), other: entry('error') };
    },
  },
  {
    name: 'cost-proposals',
    schema: 'cost_proposals',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      const offer = (priceNet: number) => [{ guid, name: 'Screen replacement', priceNet, currency: 'NOK' }];
      return { path: '/api/v3/cost-proposals', token: nrc, body: offer(1490), other: offer(1590) };
    },
  },
  {
    name: 'cost-proposals/feedback',
    schema: 'cost_proposals',
    prepare: async (hub) => {
      const id = await proposalOn(hub, await bookCase(hub, elkjop));
      return {
        path: '/api/v3/cost-proposals/feedback',
        token: elkjop,
        body: { id, name: 'Kari Nordmann', reaction: 'approved' },
        other: { id, name: 'Kari Nordmann', reaction: 'rejected' },
      };
    },
  },
  {
    name: 'cost-proposals/delete',
    schema: 'cost_proposals',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      const [id, otherId] = [await proposalOn(hub, guid, 'Battery'), await proposalOn(hub, guid, 'Keyboard')];
      return { path: '/api/v3/cost-proposals/delete', token: nrc, body: { id }, other: { id: otherId } };
    },
  },
  {
    name: 'v1 cost-proposals/approve',
    schema: 'cost_proposals',
    prepare: async (hub) => {
      const id = await proposalOn(hub, await bookCase(hub, elkjop));
      return {
        path: `/api/v1/cost-proposals/approve?id=${id}`,
        token: elkjop,
        body: { approverName: 'Kari Nordmann' },
        other: { approverName: 'Ola Nordmann' },
      };
    },
  },
  {
    name: 'case-messages/create',
    schema: 'messaging',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      return {
        path: '/api/v3/case-messages/create',
        token: elkjop,
        body: { guid, type: 'statusRequest', content: 'Any news?' },
        other: { guid, type: 'statusRequest', content: 'Any news at all?' },
      };
    },
  },
  {
    name: 'case-messages/confirm',
    schema: 'messaging',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      const [id, otherId] = [await providerMessageOn(hub, guid), await providerMessageOn(hub, guid)];
      return { path: '/api/v3/case-messages/confirm', token: elkjop, body: [id], other: [otherId] };
    },
  },
  {
    name: 'invoices',
    schema: 'invoicing',
    prepare: async (hub) => {
      const guid = await bookCase(hub, elkjop);
      const externalId = fresh('INV');
      const invoice = (priceNet: number) => [{ guid, externalId, priceNet, currency: 'NOK', status: 'ready' }];
      return { path: '/api/v3/invoices', token: nrc, body: invoice(1490), other: invoice(1590) };
    },
  },
  {
    name: 'models',
    schema: 'models',
    prepare: () => {
      const name = fresh('Bravia');
      return {
        path: '/api/v3/models',
        token: elkjop,
        body: [{ name, mpn: `${name}-mpn`, manufacturer: 6, productType: 3 }],
        other: [{ name, mpn: `${name}-mpn`, manufacturer: 6, productType: 3, countryOfOrigin: 'Japan' }],
      };
    },
  },
];

const replayed = (res: HttpResult) => res.headers.get('idempotent-replayed') === 'true';

export function idempotencySuite(infra: boolean): void {
  let hub: TestHub;
  let knex: Knex;
  let receiver: Receiver;
  /** What one request of each kind added to each table, written alone. */
  const addedByOne = new Map<string, Record<string, number>>();

  const send = (request: WriteRequest, key: string, body = request.body) =>
    hub.request('POST', request.path, { token: request.token, body, headers: { 'Idempotency-Key': key } });

  beforeAll(async () => {
    receiver = await startReceiver();
    const demo = readWorld(DEMO_WORLD_FILE);
    const world: World = {
      ...demo,
      webhooks: {
        ...demo.webhooks,
        subscriptions: [
          {
            id: 950,
            accountId: ELKJOP_ACCOUNT,
            eventTypes: ['status.new'],
            target: { kind: 'http', url: `${receiver.url}/elkjop` },
            secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
          },
        ],
      },
    };
    hub = await startTestHub({
      services: SERVICES,
      world,
      infra,
      env: { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' },
    });
    knex = (await databaseOf(hub.broker)).knex;
  });
  afterAll(async () => {
    await hub?.stop();
    await receiver?.close();
  });

  describe.each(WRITE_KINDS)('$name', (kind) => {
    it('answers a retry with the first answer and writes nothing again', async () => {
      const request = await kind.prepare(hub);
      const key = fresh(kind.name);
      const before = await snapshot(knex);
      const first = await send(request, key);
      expect(first.status).toBe(200);
      expect(replayed(first)).toBe(false);
      const written = await snapshot(knex);
      expect(written).not.toEqual(before);
      addedByOne.set(kind.name, rowsAdded(before, written));

      const retried = await send(request, key);
      expect({ status: retried.status, body: retried.body }).toEqual({ status: first.status, body: first.body });
      expect(replayed(retried)).toBe(true);
      expect(await snapshot(knex)).toEqual(written);
    });

    it('refuses the key with another request, naming it, and writes nothing', async () => {
      const request = await kind.prepare(hub);
      const key = fresh(kind.name);
      expect((await send(request, key)).status).toBe(200);
      const written = await snapshot(knex);
      const refused = await send(request, key, request.other);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: {
          message: 'Idempotency-Key was already used for a different request',
          details: { 'Idempotency-Key': key },
        },
      });
      expect(await snapshot(knex)).toEqual(written);
    });

    it(`writes once for ${RACERS} requests sent at once with one key`, async () => {
      const request = await kind.prepare(hub);
      const key = fresh(kind.name);
      const before = await snapshot(knex);
      const answers = infra
        ? await racedOnServer(kind.schema, request, key, before)
        : await Promise.all(racers(request, key));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
      // One made the write; the others answered what it kept.
      expect(answers.filter((answer) => !replayed(answer))).toHaveLength(1);
      expect(rowsAdded(before, await snapshot(knex))).toEqual(addedByOne.get(kind.name));
    });
  });

  const racers = (request: WriteRequest, key: string) => Array.from({ length: RACERS }, () => send(request, key));

  /**
   * On the Postgres server, the racers are held at the moment they record the key: with the keys
   * table locked against writes, each one passes the lookup (nothing is kept yet) and does its
   * write, then waits, in its transaction, to record the key, or waits for the case row a racer
   * holds. Nothing is committed while they all wait; then they go at once.
   */
  async function racedOnServer(
    schema: string,
    request: WriteRequest,
    key: string,
    before: Snapshot,
  ): Promise<HttpResult[]> {
    const lock = await knex.transaction();
    try {
      await lock.raw('lock table ??.idempotency_keys in share mode', [schema]);
    } catch (err) {
      await lock.rollback();
      throw err;
    }
    const sent = racers(request, key);
    try {
      await waitFor(async () => (await lockWaits()) >= RACERS, `${RACERS} racers waiting`);
      expect(await snapshot(knex)).toEqual(before);
    } finally {
      await lock.rollback();
    }
    return Promise.all(sent);
  }

  /** Sessions of the hub's database waiting for a lock. */
  async function lockWaits(): Promise<number> {
    const { rows } = await knex.raw(
      "select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    return Number(rows[0].waiting);
  }

  describe('a key', () => {
    it("is one account's: another account's request with the same key is its own", async () => {
      const key = fresh('shared');
      const fromElkjop = await hub.request('POST', '/api/v3/case/create', {
        token: elkjop,
        body: caseBody(elkjop),
        headers: { 'Idempotency-Key': key },
      });
      const fromPower = await hub.request('POST', '/api/v3/case/create', {
        token: power,
        body: caseBody(power),
        headers: { 'Idempotency-Key': key },
      });
      expect([fromElkjop.status, fromPower.status]).toEqual([200, 200]);
      expect(replayed(fromPower)).toBe(false);
      expect(fromPower.body.guid).not.toBe(fromElkjop.body.guid);
    });

    it('takes a body with its keys in another order as the same request', async () => {
      const guid = await bookCase(hub, elkjop);
      const headers = { 'Idempotency-Key': fresh('order') };
      const body = { guid, type: 'statusRequest', content: 'Any news?', userName: 'Kari' };
      const first = await hub.request('POST', '/api/v3/case-messages/create', { token: elkjop, body, headers });
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const retried = await hub.request('POST', '/api/v3/case-messages/create', {
        token: elkjop,
        body: reordered,
        headers,
      });
      expect([first.status, retried.status]).toEqual([200, 200]);
      expect(replayed(retried)).toBe(true);
      expect(retried.body).toEqual(first.body);
    });

    it("is one endpoint's: the same key on another endpoint is another request", async () => {
      const guid = await bookCase(hub, elkjop);
      const key = fresh('endpoint');
      const headers = { 'Idempotency-Key': key };
      const message = await hub.request('POST', '/api/v3/case-messages/create', {
        token: elkjop,
        body: { guid, type: 'statusRequest', content: 'Any news?' },
        headers,
      });
      const appended = await hub.request('POST', '/api/v3/case/append', {
        token: elkjop,
        body: { guid, orderData: { partnerOrderReference: 'PO-1' } },
        headers,
      });
      expect([message.status, appended.status]).toEqual([200, 200]);
      expect(replayed(appended)).toBe(false);
    });

    it("is shared by an older path and its current one: a v2 retry of a v3 booking gets that case in v2's form", async () => {
      const body = caseBody(elkjop, { orderData: { refNo: fresh('IDEM-SHARED') } });
      const key = fresh('older');
      const created = await hub.request('POST', '/api/v3/case/create', {
        token: elkjop,
        body,
        headers: { 'Idempotency-Key': key },
      });
      expect(created.status).toBe(200);
      const written = await snapshot(knex);
      const retried = await hub.request('POST', '/api/v2/case/create', {
        token: elkjop,
        body: v2Booking(body),
        headers: { 'Idempotency-Key': key },
      });
      expect(retried.status).toBe(200);
      expect(replayed(retried)).toBe(true);
      expect(retried.body).toEqual({ id: await caseIdOf(hub, created.body.guid), guid: created.body.guid });
      expect(await snapshot(knex)).toEqual(written);
    });

    it('keeps no error: a failed request wrote nothing, and its retry runs again', async () => {
      const guid = await bookCase(hub, elkjop);
      const key = fresh('failed');
      const send = (statusKey: string) =>
        hub.request('POST', '/api/v3/case/status', {
          token: nrc,
          body: { guid, key: statusKey },
          headers: { 'Idempotency-Key': key },
        });
      const refused = await send('no-such-status');
      expect(refused.status).toBe(400);
      const corrected = await send('arrived');
      expect(corrected.status).toBe(200);
      expect(replayed(corrected)).toBe(false);
      expect(corrected.body.data.key).toBe('arrived');
    });

    it('is not taken by a POST that only reads: each search answers afresh', async () => {
      const headers = { 'Idempotency-Key': fresh('search') };
      const search = () => hub.request('POST', '/api/v3/search-cases', { token: elkjop, body: {}, headers });
      const [first, second] = [await search(), await search()];
      expect([first.status, second.status]).toEqual([200, 200]);
      expect([replayed(first), replayed(second)]).toEqual([false, false]);
    });

    it('is refused, naming the header, when empty or longer than 255 characters', async () => {
      const guid = await bookCase(hub, elkjop);
      for (const [key, message] of [
        ['', 'Must not be empty'],
        ['k'.repeat(256), 'Must be at most 255 characters'],
      ]) {
        const res = await hub.request('POST', '/api/v3/case/finish', {
          token: elkjop,
          body: { guid },
          headers: { 'Idempotency-Key': key },
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: { message: 'Fields validation failed', details: { 'Idempotency-Key': [message] } },
        });
      }
      const longest = await hub.request('POST', '/api/v3/case/finish', {
        token: elkjop,
        body: { guid },
        headers: { 'Idempotency-Key': 'k'.repeat(255) },
      });
      expect(longest.status).toBe(200);
    });
  });

  it('sends the partner one webhook for a status whose request was retried', async () => {
    const guid = await bookCase(hub, elkjop);
    const key = fresh('webhook');
    const answers: HttpResult[] = [];
    for (let attempt = 0; attempt < 2; attempt++)
      answers.push(
        await hub.request('POST', '/api/v3/case/status', {
          token: nrc,
          body: { guid, key: 'repaired' },
          headers: { 'Idempotency-Key': key },
        }),
      );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const statusId = answers[0].body.data.id as number;
    const toReceiver = () => receiver.received.filter((webhook) => webhook.json?.id === statusId);
    await waitFor(() => toReceiver().length > 0, 'the status webhook');
    // Everything handed on and delivered: a second webhook would have arrived by now.
    await waitFor(async () => {
      const backlog = await hub.broker.call<{ pending: number }>('booking.outboxBacklog');
      const health = await hub.broker.call<{ totals: { pending: number } }, { hours: number }>(
        'webhooks.deliveryHealth',
        { hours: 1 },
      );
      return backlog.pending === 0 && health.totals.pending === 0;
    }, 'every event delivered');
    expect(new Set(toReceiver().map((webhook) => webhook.headers['webhook-id'])).size).toBe(1);
  });

  // Last: it moves the hub's clock a day on.
  it('forgets a key after IDEMPOTENCY_KEY_TTL, and the retention job removes it', async () => {
    const guid = await bookCase(hub, elkjop);
    const key = fresh('expiring');
    const create = () =>
      hub.request('POST', '/api/v3/case-messages/create', {
        token: elkjop,
        body: { guid, type: 'statusRequest', content: 'Any news?' },
        headers: { 'Idempotency-Key': key },
      });
    const first = await create();
    expect(first.status).toBe(200);
    const kept = () => knex('messaging.idempotency_keys').where({ key }).count({ count: '*' }).first();

    clockOf(hub.broker).advance(24 * 3_600_000);
    await hub.broker.call('messaging.runRetention');
    expect(Number((await kept())?.count)).toBe(0);
    const again = await create();
    expect(again.status).toBe(200);
    expect(replayed(again)).toBe(false);
    expect(again.body.id).not.toBe(first.body.id);
    // The key now stands for the new message, and a younger key survives the job.
    await hub.broker.call('messaging.runRetention');
    expect(Number((await kept())?.count)).toBe(1);
    expect((await create()).body.id).toBe(again.body.id);
  });
}
