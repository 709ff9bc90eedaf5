/**
 * Answers that grow with stored data fit the transport by construction (shared/src/answer-budget.ts):
 * for each list and page whose items can be large, records are stored whose count-only page would
 * pass the answer budget, and through the gateway each answer stays within it, is a valid page
 * that says more follow the way its endpoint does (a cursor, `hasMore`, offset and count, a `Link`
 * header), and following the pages returns every item exactly once.
 */
import {
  ANSWER_BUDGET_BYTES,
  ANSWER_FULL,
  type DbService,
  jsonBytes,
  RECORD_MAX_BYTES,
  RECORD_TOO_LARGE,
} from '../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { BOOKING_SERVICES, bookCase, caseBody } from '../support/cases';
import { STATUSES_PER_CASE_MAX } from '../../services/booking/src/statuses.actions';

/** What one record carries: a fifth of the budget or so, so a handful of records pass it. */
const LARGE = 100_000;
const blob = (seed: number | string) => `${seed}:`.padEnd(LARGE, 'x');
/** The page's own fields beside its items. */
const PAGE_FIELDS_BYTES = 1024;

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({
    services: [...BOOKING_SERVICES, 'invoicing', 'messaging', 'cost-proposals', 'webhooks'],
    env: { RATE_LIMIT_PER_MINUTE: '100000' },
  });
});
afterAll(() => hub.stop());

/** The answer's items fit the budget and the whole answer its page's fields beside them. */
function expectWithinBudget(body: unknown, items: unknown[]) {
  expect(jsonBytes(items)).toBeLessThanOrEqual(ANSWER_BUDGET_BYTES);
  expect(jsonBytes(body)).toBeLessThanOrEqual(ANSWER_BUDGET_BYTES + PAGE_FIELDS_BYTES);
}

/** Each value once, in the order given. */
function expectEachOnce(seen: unknown[], expected: unknown[]) {
  expect(seen).toEqual(expected);
  expect(new Set(seen).size).toBe(seen.length);
}

async function ok(method: string, path: string, token: string, body?: unknown) {
  const res = await hub.request(method, path, { token, body });
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res;
}

/** Follows a bare list's `Link: <?...>; rel="next"` headers from `path`, every answer within budget. */
async function followLinks(path: string, token: string): Promise<{ items: any[]; answers: number }> {
  const items: any[] = [];
  let next: string | null = path;
  let answers = 0;
  while (next) {
    const res = await ok('GET', next, token);
    expect(Array.isArray(res.body)).toBe(true);
    expectWithinBudget(res.body, res.body);
    items.push(...res.body);
    answers += 1;
    const link = res.headers.get('link');
    const target = link && /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    next = target ? new URL(target, `http://hub${next}`).pathname + new URL(target, `http://hub${next}`).search : null;
  }
  return { items, answers };
}

describe('cases with large orderData', () => {
  const REF = 'BUDGET-CASES';
  let guids: string[];

  beforeAll(async () => {
    guids = [];
    for (let index = 0; index < 8; index += 1)
      guids.push(
        await bookCase(hub, DEMO_TOKENS.elkjop, { orderData: { refNo: REF, partnerSpecific: { note: blob(index) } } }),
      );
  });

  for (const [path, token] of [
    ['/api/v3/search-cases', DEMO_TOKENS.elkjop],
    ['/api/v3/unexported-cases', DEMO_TOKENS.nrc],
  ] as const) {
    it(`${path}: pages end early within the budget, and next and offset both read every case once`, async () => {
      const filters = { 'orderData.refNo': REF };
      const byCursor: string[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const res = await ok('POST', path, token, { filters, pagination: { limit: 100, after } });
        expectWithinBudget(res.body, res.body.data);
        expect(res.body.pagination.count).toBe(guids.length);
        byCursor.push(...res.body.data.map((found: { guid: string }) => found.guid));
        after = res.body.pagination.next ?? undefined;
        if (after) expect(res.body.data.length).toBeGreaterThan(0);
        if (after) expect(res.body.data.length).toBeLessThan(100);
        pages += 1;
      } while (after);
      expect(pages).toBeGreaterThan(1);
      expectEachOnce(byCursor, guids);

      const byOffset: string[] = [];
      while (byOffset.length < guids.length) {
        const res = await ok('POST', path, token, { filters, pagination: { offset: byOffset.length, limit: 100 } });
        expectWithinBudget(res.body, res.body.data);
        expect(res.body.pagination).toEqual(expect.objectContaining({ offset: byOffset.length, count: guids.length }));
        byOffset.push(...res.body.data.map((found: { guid: string }) => found.guid));
      }
      expectEachOnce(byOffset, guids);
    });
  }

  it('GET /api/v3/events: pages end early with hasMore, and the cursor reads every webhook once', async () => {
    const ofTheCases = (entries: Array<{ caseGuid: string }>) =>
      entries.filter((entry) => guids.includes(entry.caseGuid));
    let webhooks: Array<{ webhookId: string; eventType: string; caseGuid: string }> = [];
    let cut = 0;
    await waitFor(async () => {
      webhooks = [];
      cut = 0;
      let after: string | undefined;
      for (;;) {
        const res = await ok('GET', `/api/v3/events?limit=500${after ? `&after=${after}` : ''}`, DEMO_TOKENS.elkjop);
        expectWithinBudget(res.body, res.body.data);
        webhooks.push(...res.body.data);
        if (res.body.hasMore) expect(res.body.data.length).toBeGreaterThan(0);
        if (res.body.hasMore && res.body.data.length < 500) cut += 1;
        after = res.body.next;
        if (!res.body.hasMore) break;
      }
      return new Set(ofTheCases(webhooks).map((entry) => entry.caseGuid)).size === guids.length;
    }, "the cases' webhooks in the feed");
    expect(cut).toBeGreaterThan(0);
    expectEachOnce(
      webhooks.map((entry) => entry.webhookId),
      [...new Set(webhooks.map((entry) => entry.webhookId))],
    );
  });
});

describe("a case's large records", () => {
  let guid: string;

  beforeAll(async () => {
    guid = await bookCase(hub, DEMO_TOKENS.elkjop);
  });

  it('GET /api/v3/invoices and invoices/find: every invoice once, over answers within the budget', async () => {
    const externalIds = Array.from({ length: 8 }, (_, index) => `BUDGET-${index}`);
    for (const [index, externalId] of externalIds.entries())
      await ok('POST', '/api/v3/invoices', DEMO_TOKENS.nrc, [{ guid, externalId, customData: { note: blob(index) } }]);

    const listed = await followLinks(`/api/v3/invoices?guid=${guid}`, DEMO_TOKENS.elkjop);
    expect(listed.answers).toBeGreaterThan(1);
    expectEachOnce(
      listed.items.map((invoice) => invoice.externalId),
      externalIds,
    );

    for (const path of ['/api/v3/invoices/find', '/api/v2/invoices/find']) {
      const found: string[] = [];
      let after: string | undefined;
      do {
        const res = await ok('POST', path, DEMO_TOKENS.nrc, { filters: { guid }, pagination: { limit: 100, after } });
        expectWithinBudget(res.body, res.body.data);
        expect(res.body.pagination.count).toBe(externalIds.length);
        found.push(...res.body.data.map((invoice: { externalId: string }) => invoice.externalId));
        after = res.body.pagination.next ?? undefined;
      } while (after);
      expectEachOnce(found, externalIds);
      const byOffset: string[] = [];
      while (byOffset.length < externalIds.length) {
        const res = await ok('POST', path, DEMO_TOKENS.nrc, {
          filters: { guid },
          pagination: { offset: byOffset.length, limit: 100 },
        });
        expectWithinBudget(res.body, res.body.data);
        expect(res.body.pagination.offset).toBe(byOffset.length);
        byOffset.push(...res.body.data.map((invoice: { externalId: string }) => invoice.externalId));
      }
      expectEachOnce(byOffset, externalIds);
    }
  });

  it('GET /api/v3/case-messages: every message once, over answers within the budget', async () => {
    const contents: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      contents.push(`${index}:`.padEnd(65_000, 'm'));
      await ok('POST', '/api/v3/case-messages/create', DEMO_TOKENS.nrc, {
        guid,
        type: 'serviceComment',
        content: contents[index],
      });
    }
    for (const token of [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc]) {
      const listed = await followLinks(`/api/v3/case-messages?guid=${guid}`, token);
      expect(listed.answers).toBeGreaterThan(1);
      expectEachOnce(
        listed.items.map((message) => message.content),
        contents,
      );
    }
  });

  it('GET /api/v3/cost-proposals: every proposal once, over answers within the budget', async () => {
    const names = Array.from({ length: 8 }, (_, index) => `Repair ${index}`);
    for (const [index, name] of names.entries())
      await ok('POST', '/api/v3/cost-proposals', DEMO_TOKENS.nrc, [
        {
          guid,
          name,
          externalId: [`CP-${index}`],
          details: Array.from({ length: 100 }, (_, line) => ({ line: line + 1, text: `${index}`.padEnd(1000, 'd') })),
        },
      ]);
    const listed = await followLinks(`/api/v3/cost-proposals?guid=${guid}`, DEMO_TOKENS.elkjop);
    expect(listed.answers).toBeGreaterThan(1);
    expectEachOnce(
      listed.items.map((proposal) => proposal.name),
      names,
    );
    const active = await followLinks(`/api/v3/cost-proposals?guid=${guid}&active=true`, DEMO_TOKENS.elkjop);
    expect(active.answers).toBeGreaterThan(1);
    expectEachOnce(
      active.items.map((proposal) => proposal.name),
      names,
    );
  });

  it('GET /api/v3/case/history: every entry once, over answers within the budget', async () => {
    for (let index = 0; index < 5; index += 1)
      await ok('POST', '/api/v3/case/append', DEMO_TOKENS.elkjop, {
        guid,
        orderData: { partnerSpecific: { note: blob(`history-${index}`) } },
      });
    for (const token of [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc]) {
      const ids: number[] = [];
      let appended = 0;
      let after: string | null = null;
      let answers = 0;
      do {
        const res = await ok('GET', `/api/v3/case/history?guid=${guid}${after ? `&after=${after}` : ''}`, token);
        expectWithinBudget(res.body, res.body.data);
        ids.push(...res.body.data.map((entry: { id: number }) => entry.id));
        appended += res.body.data.filter((entry: { action: string }) => entry.action === 'appended').length;
        after = res.body.next;
        answers += 1;
      } while (after);
      expect(answers).toBeGreaterThan(1);
      expect(appended).toBe(5);
      expectEachOnce(
        ids,
        [...ids].sort((a, b) => a - b),
      );
    }
  });
});

it('POST /api/v3/requests/find: every tracked request once, over answers within the budget', async () => {
  const trackingId = 'BUDGET-TRACKED';
  for (let index = 0; index < 8; index += 1)
    await ok(
      'POST',
      '/api/v3/case/validate',
      DEMO_TOKENS.elkjop,
      caseBody(DEMO_TOKENS.elkjop, { trackingId, orderData: { partnerSpecific: { note: blob(index) } } }),
    );
  const ids: number[] = [];
  let after: string | null = null;
  let answers = 0;
  do {
    const res = await ok('POST', '/api/v3/requests/find', DEMO_TOKENS.elkjop, {
      trackingId,
      ...(after ? { after } : {}),
    });
    expectWithinBudget(res.body, res.body.data);
    ids.push(...res.body.data.map((request: { id: number }) => request.id));
    after = res.body.next;
    answers += 1;
  } while (after);
  expect(answers).toBeGreaterThan(1);
  expect(ids).toHaveLength(8);
  expectEachOnce(
    ids,
    [...ids].sort((a, b) => a - b),
  );
});

it('POST /api/v3/requests/find: an attempt over RECORD_MAX_BYTES is kept cut to it, with its length', async () => {
  const trackingId = 'BUDGET-TRACKED-LARGE';
  const body = caseBody(DEMO_TOKENS.elkjop, {
    trackingId,
    orderData: { partnerSpecific: { note: 'n'.repeat(3 * RECORD_MAX_BYTES) } },
  });
  const refused = await hub.request('POST', '/api/v3/case/validate', { token: DEMO_TOKENS.elkjop, body });
  expect(refused.status).toBe(400);
  const found = await ok('POST', '/api/v3/requests/find', DEMO_TOKENS.elkjop, { trackingId });
  expect(found.body.data).toHaveLength(1);
  const [attempt] = found.body.data;
  expect(attempt.status).toBe('error');
  expect(attempt.meta.requestBytes).toBe(Buffer.byteLength(JSON.stringify(body)));
  expect(Buffer.byteLength(JSON.stringify(attempt.request))).toBeLessThanOrEqual(RECORD_MAX_BYTES);
  expect(JSON.stringify(body).startsWith(attempt.request)).toBe(true);
});

it('POST /api/v3/case/status: a case takes at most STATUSES_PER_CASE_MAX statuses, and its read fits', async () => {
  const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
  const knex = (hub.broker.getLocalService('booking') as unknown as DbService).db.knex;
  const { id: caseId } = await knex('booking.cases').where({ guid }).first('id');
  // All but the last through the database: each status sent rereads the whole case for its webhook.
  const keys = ['arrived', 'diagnosed'];
  const held = Number((await knex('booking.case_statuses').where({ case_id: caseId }).count({ n: '*' }))[0].n);
  await knex('booking.case_statuses').insert(
    Array.from({ length: STATUSES_PER_CASE_MAX - 1 - held }, (_, index) => ({
      case_id: caseId,
      key: keys[index % 2],
      name: keys[index % 2],
      declared_at: new Date(),
    })),
  );
  const last = await ok('POST', '/api/v3/case/status', DEMO_TOKENS.nrc, { guid, key: 'awaiting_parts' });
  const full = await hub.request('POST', '/api/v3/case/status', {
    token: DEMO_TOKENS.nrc,
    body: { guid, key: 'arrived' },
  });
  expect(full.status).toBe(409);
  expect(full.body).toEqual({ error: { message: `A case holds at most ${STATUSES_PER_CASE_MAX} statuses` } });
  // The current key again changes nothing, so it is answered as before.
  const again = await ok('POST', '/api/v3/case/status', DEMO_TOKENS.nrc, { guid, key: 'awaiting_parts' });
  expect(again.body).toEqual(last.body);
  const read = await ok('GET', `/api/v3/case?guid=${guid}`, DEMO_TOKENS.nrc);
  expect(read.body.caseStatuses).toHaveLength(STATUSES_PER_CASE_MAX);
  expect(jsonBytes(read.body)).toBeLessThan(ANSWER_BUDGET_BYTES);
});

describe('a record larger than RECORD_MAX_BYTES', () => {
  const tooLarge = 'r'.repeat(RECORD_MAX_BYTES + 1);

  async function refused(method: string, path: string, token: string, body: unknown, field: string) {
    const res = await hub.request(method, path, { token, body });
    expect({ path, status: res.status }).toEqual({ path, status: 400 });
    expect(res.body.error.details).toEqual({ [field]: [RECORD_TOO_LARGE] });
  }

  it('is refused, naming it, wherever it would be written; one at the records above is kept', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    await refused(
      'POST',
      '/api/v3/case/create',
      DEMO_TOKENS.elkjop,
      caseBody(DEMO_TOKENS.elkjop, { orderData: { partnerSpecific: { note: tooLarge } } }),
      'orderData',
    );
    await refused(
      'POST',
      '/api/v3/case/append',
      DEMO_TOKENS.nrc,
      { guid, orderData: { providerSpecific: { note: tooLarge } } },
      'orderData',
    );
    await refused(
      'POST',
      '/api/v3/invoices',
      DEMO_TOKENS.nrc,
      [{ guid, externalId: 'TOO-LARGE', customData: { note: tooLarge } }],
      '[0]',
    );
    await refused(
      'POST',
      '/api/v3/cost-proposals',
      DEMO_TOKENS.nrc,
      [
        {
          guid,
          name: 'Repair',
          details: Array.from({ length: 140 }, (_, line) => ({ line: line + 1, text: 'd'.repeat(1000) })),
        },
      ],
      '[0]',
    );
    const res = await ok('GET', `/api/v3/case?guid=${guid}`, DEMO_TOKENS.elkjop);
    await refused(
      'POST',
      '/api/v3/requests/log',
      DEMO_TOKENS.elkjop,
      { type: 'erp', status: 'success', meta: { caseId: res.body.id }, response: tooLarge },
      'response',
    );
  });
});

describe('a write that answers every record it saved', () => {
  it('takes no more records than its answer holds, naming the first that would not fit, and saves none', async () => {
    const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
    const invoices = Array.from({ length: 8 }, (_, index) => ({
      guid,
      externalId: `FULL-${index}`,
      customData: { note: blob(index) },
    }));
    const full = await hub.request('POST', '/api/v3/invoices', { token: DEMO_TOKENS.nrc, body: invoices });
    expect(full.status).toBe(400);
    const [field] = Object.keys(full.body.error.details);
    expect(full.body.error.details).toEqual({ [field]: [ANSWER_FULL] });
    const index = Number(/^\[(\d+)\]$/.exec(field)![1]);
    expect(index).toBeGreaterThan(0);
    expect((await ok('GET', `/api/v3/invoices?guid=${guid}`, DEMO_TOKENS.nrc)).body).toEqual([]);
    const first = await ok('POST', '/api/v3/invoices', DEMO_TOKENS.nrc, invoices.slice(0, index));
    expectWithinBudget(first.body, first.body);
    const rest = await ok('POST', '/api/v3/invoices', DEMO_TOKENS.nrc, invoices.slice(index));
    expectWithinBudget(rest.body, rest.body);

    const proposals = Array.from({ length: 8 }, (_, proposal) => ({
      guid,
      name: `Full ${proposal}`,
      details: Array.from({ length: 100 }, (__, line) => ({ line: line + 1, text: `${proposal}`.padEnd(1000, 'f') })),
    }));
    const fullProposals = await hub.request('POST', '/api/v3/cost-proposals', {
      token: DEMO_TOKENS.nrc,
      body: proposals,
    });
    expect(fullProposals.status).toBe(400);
    expect(Object.values(fullProposals.body.error.details)).toEqual([[ANSWER_FULL]]);
    expect((await ok('GET', `/api/v3/cost-proposals?guid=${guid}`, DEMO_TOKENS.nrc)).body).toEqual([]);
  });
});

it('GET /api/v3/case?includeRequests=1: the case with every logged request once, over answers within the budget', async () => {
  const guid = await bookCase(hub, DEMO_TOKENS.elkjop, { orderData: { partnerSpecific: { note: blob('case') } } });
  const { id } = (await ok('GET', `/api/v3/case?guid=${guid}`, DEMO_TOKENS.elkjop)).body;
  const logged: number[] = [];
  for (let index = 0; index < 6; index += 1) {
    const res = await ok('POST', '/api/v3/requests/log', DEMO_TOKENS.nrc, {
      type: 'erp',
      status: 'success',
      meta: { caseId: id },
      request: blob(index),
    });
    logged.push(res.body.id ?? res.body.data?.id);
  }
  const seen: number[] = [];
  let next: string | null = `/api/v3/case?guid=${guid}&includeRequests=1`;
  let answers = 0;
  while (next) {
    const res = await ok('GET', next, DEMO_TOKENS.elkjop);
    expect(res.body.guid).toBe(guid);
    expect(res.body.externalRequests.length).toBeGreaterThan(0);
    expect(jsonBytes(res.body)).toBeLessThanOrEqual(ANSWER_BUDGET_BYTES);
    seen.push(...res.body.externalRequests.map((request: { id: number }) => request.id));
    answers += 1;
    const target = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];
    next = target ? `/api/v3/case${target}` : null;
  }
  expect(answers).toBeGreaterThan(1);
  expectEachOnce(seen, logged);
});
