/**
 * Invoices through the gateway: save by (externalId, provider), credit notes, reading a case's
 * invoices, find with every filter inside the caller's scope, injection through every filter,
 * the invoice.saved event for 'Send to client' statuses, and statuses from a world load.
 *
 * Written once and run on the embedded database (`invoicing.test.ts`) and on the Postgres server
 * with NATS and Redis (`invoicing.infra.test.ts`), where concurrent requests really interleave.
 */
import type { Knex } from 'knex';
import { DEMO_TOKENS, type TestHub } from '../../../test/support/hub';
import { bookCase, startCaseRecordsHub, UNKNOWN_GUID } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';
import { SEARCHABLE_FIELDS } from '../src/filters';

export function invoicingSuite(infra: boolean): void {
  let hub: TestHub;
  let knex: Knex;
  let elkjopCase: string;
  let elkjopCase2: string;
  let powerCase: string;
  let tryggCase: string;

  const line = {
    name: 'Display replacement',
    count: 1,
    article: 'LCD-13',
    vatRate: 25,
    vatAmount: 250,
    priceExclVat: 1000,
    priceInclVat: 1250,
    totalAmountExclVat: 1000,
    totalAmountInclVat: 1250,
  };

  const outbox = outboxReader(() => knex, 'invoicing');

  beforeAll(async () => {
    ({
      hub,
      knex,
      cases: [elkjopCase, elkjopCase2, powerCase, tryggCase],
    } = await startCaseRecordsHub('invoicing', infra, [
      DEMO_TOKENS.elkjop,
      DEMO_TOKENS.elkjop,
      DEMO_TOKENS.power,
      DEMO_TOKENS.trygg,
    ]));
  });
  afterAll(() => hub.stop());

  function post(token: string, body: unknown) {
    return hub.request('POST', '/api/v3/invoices', { token, body });
  }

  async function save(token: string, invoices: Array<Record<string, unknown>>) {
    const res = await post(token, invoices);
    expect(res.status).toBe(200);
    return res.body as Array<Record<string, any>>;
  }

  async function find(token: string, body: unknown) {
    return hub.request('POST', '/api/v3/invoices/find', { token, body });
  }

  async function caseCore(guid: string) {
    const [core] = (await hub.broker.call('booking.caseCores', { guids: [guid] })) as unknown[];
    return JSON.parse(JSON.stringify(core));
  }

  describe('POST /api/v3/invoices', () => {
    it('creates an invoice and answers it in the Invoice shape with its case', async () => {
      const [invoice] = await save(DEMO_TOKENS.nrc, [
        {
          guid: elkjopCase,
          externalId: 'INV-1',
          customData: { orderRef: 'A-1', nested: { deep: [1, 2] } },
          priceNet: 1000.5,
          currency: 'nok',
          isSent: true,
          dueDate: '2026-12-31',
          status: 'draft',
          details: [line],
        },
      ]);
      expect(Object.keys(invoice).sort()).toEqual(
        [
          'case',
          'createdAt',
          'currency',
          'customData',
          'details',
          'dueDate',
          'externalId',
          'guid',
          'id',
          'isActive',
          'isPaid',
          'isSent',
          'linkedInvoice',
          'priceNet',
          'status',
          'type',
          'updatedAt',
        ].sort(),
      );
      expect(invoice.id).toEqual(expect.any(Number));
      expect(invoice.guid).toBe(elkjopCase);
      expect(invoice.externalId).toBe('INV-1');
      expect(invoice.type).toBe('invoice');
      expect(invoice.customData).toEqual({ orderRef: 'A-1', nested: { deep: [1, 2] } });
      expect(invoice.priceNet).toBe(1000.5);
      expect(invoice.currency).toBe('NOK');
      expect(invoice.isActive).toBe(true);
      expect(invoice.isSent).toBe(true);
      expect(invoice.isPaid).toBe(false);
      // Saved as a day, answered as the product shows a Date: the day at 00:00 UTC.
      expect(invoice.dueDate).toBe('2026-12-31T00:00:00.000Z');
      expect(invoice.status).toBe('draft');
      expect(invoice.details).toEqual([line]);
      expect(invoice.linkedInvoice).toBeNull();
      expect(invoice.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(invoice.updatedAt).toBe(invoice.createdAt);
      expect(invoice.case).toEqual(await caseCore(elkjopCase));
      expect(invoice.case.guid).toBe(elkjopCase);
      expect(invoice.case.orderData).toEqual(expect.any(Object));
      expect(invoice.case.productData).toEqual(expect.any(Object));
    });

    it('updates the invoice the same provider sent with the same externalId, keeping fields left out', async () => {
      const [first] = await save(DEMO_TOKENS.nrc, [
        {
          guid: elkjopCase,
          externalId: 'INV-UPD',
          priceNet: 10,
          currency: 'SEK',
          status: 'draft',
          customData: { a: 1 },
        },
      ]);
      const [second] = await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-UPD', priceNet: 20, isPaid: true },
      ]);
      expect(second.id).toBe(first.id);
      expect(second.priceNet).toBe(20);
      expect(second.isPaid).toBe(true);
      expect(second.currency).toBe('SEK');
      expect(second.status).toBe('draft');
      expect(second.customData).toEqual({ a: 1 });
      expect(second.createdAt).toBe(first.createdAt);
      expect(Date.parse(second.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt));
      const [cleared] = await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-UPD', priceNet: null, currency: null },
      ]);
      expect(cleared.priceNet).toBeNull();
      expect(cleared.currency).toBeNull();
      expect((await knex('invoicing.invoices').where({ external_id: 'INV-UPD' })).length).toBe(1);
    });

    it("keeps another provider's invoice with the same externalId apart", async () => {
      const [nrc] = await save(DEMO_TOKENS.nrc, [{ guid: elkjopCase, externalId: 'SHARED-1', priceNet: 1 }]);
      const [svea] = await save(DEMO_TOKENS.svea, [{ guid: tryggCase, externalId: 'SHARED-1', priceNet: 2 }]);
      expect(svea.id).not.toBe(nrc.id);
      expect(svea.priceNet).toBe(2);
      const [again] = await save(DEMO_TOKENS.nrc, [{ guid: elkjopCase, externalId: 'SHARED-1' }]);
      expect(again.priceNet).toBe(1);
    });

    it('links a credit note to its original by externalId, also within one request', async () => {
      const [original, credit] = await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-ORIG', priceNet: 500, currency: 'NOK' },
        {
          guid: elkjopCase,
          externalId: 'CN-1',
          type: 'credit note',
          priceNet: -500,
          currency: 'NOK',
          linkedInvoice: 'INV-ORIG',
        },
      ]);
      expect(credit.type).toBe('credit note');
      const { case: _case, linkedInvoice: _linked, ...originalFields } = original;
      expect(credit.linkedInvoice).toEqual(originalFields);
      const [unlinked] = await save(DEMO_TOKENS.nrc, [{ guid: elkjopCase, externalId: 'CN-1', linkedInvoice: null }]);
      expect(unlinked.linkedInvoice).toBeNull();
    });

    it('refuses a linked invoice that is unknown, on another case, of another provider or itself', async () => {
      await save(DEMO_TOKENS.nrc, [{ guid: elkjopCase2, externalId: 'INV-OTHER-CASE' }]);
      for (const [token, guid, linkedInvoice] of [
        [DEMO_TOKENS.nrc, elkjopCase, 'NO-SUCH'],
        [DEMO_TOKENS.nrc, elkjopCase, 'INV-OTHER-CASE'],
        [DEMO_TOKENS.svea, tryggCase, 'INV-ORIG'],
        [DEMO_TOKENS.nrc, elkjopCase, 'CN-SELF'],
      ]) {
        const res = await post(token, [{ guid, externalId: 'CN-SELF', type: 'credit note', linkedInvoice }]);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: {
            message: 'Fields validation failed',
            details: { '[0].linkedInvoice': ['Value is not present in possible options'] },
          },
        });
      }
      expect(await knex('invoicing.invoices').where({ external_id: 'CN-SELF' })).toEqual([]);
    });

    it('refuses an externalId of an invoice of another case, which stays where it is', async () => {
      const [original] = await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-STAYS', customData: { orderRef: 'A-1' } },
      ]);
      const moved = await post(DEMO_TOKENS.nrc, [{ guid: powerCase, externalId: 'INV-STAYS' }]);
      expect(moved.status).toBe(400);
      expect(moved.body.error.details).toEqual({
        '[0].externalId': ['This externalId belongs to an invoice of another case'],
      });
      expect(await knex('invoicing.invoices').where({ external_id: 'INV-STAYS' }).select('id', 'guid')).toEqual([
        { id: original.id, guid: elkjopCase },
      ]);
      const powerSees = await hub.request('GET', `/api/v3/invoices?guid=${powerCase}`, { token: DEMO_TOKENS.power });
      expect(powerSees.body.map((invoice: { externalId: string }) => invoice.externalId)).not.toContain('INV-STAYS');
    });

    it('answers 404 and saves nothing when any case is unknown or not the caller’s', async () => {
      for (const guid of [tryggCase, UNKNOWN_GUID]) {
        const res = await post(DEMO_TOKENS.nrc, [
          { guid: elkjopCase, externalId: 'INV-NEVER' },
          { guid, externalId: 'INV-NEVER-2' },
        ]);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { message: 'Case not found' } });
      }
      expect(await knex('invoicing.invoices').whereIn('external_id', ['INV-NEVER', 'INV-NEVER-2'])).toEqual([]);
    });

    it('refuses what breaks the Invoice rules, naming each field', async () => {
      const res = await post(DEMO_TOKENS.nrc, [
        {
          externalId: 'x'.repeat(256),
          type: 'receipt',
          currency: 'NOKK',
          status: 's'.repeat(256),
          dueDate: '31.12.2026',
          customData: 'text',
        },
        { guid: elkjopCase, details: [{ ...line, vatRate: undefined, count: 1.5 }], priceNet: 'a lot' },
      ]);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          message: 'Fields validation failed',
          details: {
            '[0].guid': ['Field is required'],
            '[0].externalId': ['Must be at most 255 characters'],
            '[0].type': ['Value is not present in possible options'],
            '[0].customData': ['Wrong format'],
            '[0].currency': ['Wrong format'],
            '[0].status': ['Must be at most 255 characters'],
            '[1].externalId': ['Field is required'],
            '[1].priceNet': ['Wrong format'],
            '[1].details[0].count': ['Wrong format'],
            '[1].details[0].vatRate': ['Field is required'],
          },
        },
      });
      for (const dueDate of ['2026-02-30', '0000-01-01']) {
        const date = await post(DEMO_TOKENS.nrc, [{ guid: elkjopCase, externalId: 'INV-DATE', dueDate }]);
        expect(date.status).toBe(400);
        expect(date.body.error.details).toEqual({ '[0].dueDate': ['Wrong format'] });
      }
      const huge = await post(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-HUGE', details: [{ ...line, count: 2147483648 }] },
      ]);
      expect(huge.status).toBe(400);
      expect(huge.body.error.details).toEqual({ '[0].details[0].count': ['Must be at most 2147483647'] });
      const notArray = await post(DEMO_TOKENS.nrc, { guid: elkjopCase, externalId: 'INV-OBJ' });
      expect(notArray.status).toBe(400);
      expect(notArray.body.error.message).toBe('Fields validation failed');
    });

    it('keeps one invoice when the same externalId is saved in parallel', async () => {
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, index) =>
          post(DEMO_TOKENS.nrc, [{ guid: elkjopCase, externalId: 'INV-RACE', priceNet: index }]),
        ),
      );
      for (const answer of answers) expect(answer.status).toBe(200);
      expect(new Set(answers.map((answer) => answer.body[0].id)).size).toBe(1);
      expect((await knex('invoicing.invoices').where({ external_id: 'INV-RACE' })).length).toBe(1);
    });

    it('is for providers only', async () => {
      const res = await post(DEMO_TOKENS.elkjop, [{ guid: elkjopCase, externalId: 'INV-P' }]);
      expect(res.status).toBe(403);
    });
  });

  describe('invoice.saved', () => {
    it("tells the partner, with the invoice and its case, when the status has 'Send to client'", async () => {
      await outbox.skip();
      const [invoice] = await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-READY', status: 'ready', priceNet: 99, details: [line] },
      ]);
      const events = await outbox.newEvents();
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('invoice.saved');
      expect(events[0].case_guid).toBe(elkjopCase);
      expect(events[0].audience).toEqual({ partnerId: 1 });
      expect(events[0].payload).toEqual(invoice);
      expect(events[0].payload.guid).toBe(elkjopCase);
      expect(events[0].payload.status).toBe('ready');
      expect(events[0].payload.case.guid).toBe(elkjopCase);
      expect(events[0].payload.case.orderData).toEqual(invoice.case.orderData);
      expect(events[0].payload.case.productData).toEqual(invoice.case.productData);
    });

    it('tells nobody for a status without the flag, one not configured, or none', async () => {
      await outbox.skip();
      await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'INV-DRAFT', status: 'draft' },
        { guid: elkjopCase, externalId: 'INV-ODD', status: 'unconfigured' },
        { guid: elkjopCase, externalId: 'INV-NONE' },
      ]);
      expect(await outbox.newEvents()).toEqual([]);
    });

    it("uses the saving provider's statuses and fires again on each save with a flagged status", async () => {
      await outbox.skip();
      // 'internal' is Svea's status without the flag; 'ready' has it for Svea too.
      await save(DEMO_TOKENS.svea, [{ guid: tryggCase, externalId: 'SV-1', status: 'internal' }]);
      expect(await outbox.newEvents()).toEqual([]);
      const [ready] = await save(DEMO_TOKENS.svea, [{ guid: tryggCase, externalId: 'SV-1', status: 'ready' }]);
      const [paid] = await save(DEMO_TOKENS.svea, [
        { guid: tryggCase, externalId: 'SV-1', status: 'ready', isPaid: true },
      ]);
      const events = await outbox.newEvents();
      expect(events.map((event) => [event.type, event.audience, event.payload.isPaid])).toEqual([
        ['invoice.saved', { partnerId: 3 }, false],
        ['invoice.saved', { partnerId: 3 }, true],
      ]);
      expect(events[1].payload).toEqual(paid);
      expect(ready.id).toBe(paid.id);
    });
  });

  describe('GET /api/v3/invoices', () => {
    it("answers the case's invoices with the case, for the partner and the provider", async () => {
      const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
      const saved = await save(DEMO_TOKENS.nrc, [
        { guid, externalId: 'READ-1' },
        { guid, externalId: 'READ-2', type: 'credit note', linkedInvoice: 'READ-1' },
      ]);
      for (const token of [DEMO_TOKENS.elkjop, DEMO_TOKENS.nrc]) {
        const res = await hub.request('GET', `/api/v3/invoices?guid=${guid}`, { token });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(saved);
      }
    });

    it('answers an empty list for a case without invoices, 404 for a case the caller may not see, 400 without guid', async () => {
      const empty = await hub.request('GET', `/api/v3/invoices?guid=${powerCase}`, { token: DEMO_TOKENS.power });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual([]);
      for (const [token, guid] of [
        [DEMO_TOKENS.power, elkjopCase],
        [DEMO_TOKENS.svea, elkjopCase],
        [DEMO_TOKENS.elkjop, UNKNOWN_GUID],
      ]) {
        const res = await hub.request('GET', `/api/v3/invoices?guid=${guid}`, { token });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { message: 'Case not found' } });
      }
      const missing = await hub.request('GET', '/api/v3/invoices', { token: DEMO_TOKENS.elkjop });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details).toEqual({ guid: ['Field is required'] });
    });
  });

  describe('POST /api/v3/invoices/find', () => {
    let caseA: string;
    let caseB: string;
    let ids: Record<string, number>;
    let between: string;

    beforeAll(async () => {
      // Power's cases only, so these counts do not depend on the suites above.
      caseA = await bookCase(hub, DEMO_TOKENS.power);
      caseB = await bookCase(hub, DEMO_TOKENS.power);
      const early = await save(DEMO_TOKENS.nrc, [
        {
          guid: caseA,
          externalId: 'F-1',
          status: 'draft',
          priceNet: 100,
          currency: 'NOK',
          isPaid: false,
          dueDate: '2026-01-10',
          customData: { region: 'north', priority: 1 },
          details: [line],
        },
        {
          guid: caseA,
          externalId: 'F-2',
          status: 'sent',
          priceNet: 200,
          currency: 'SEK',
          isPaid: true,
          dueDate: '2026-02-10',
          customData: { region: 'south', priority: 2 },
        },
      ]);
      await knex.raw(
        "update invoicing.invoices set created_at = created_at - interval '1 hour' where id in (?, ?)",
        early.map((invoice) => invoice.id),
      );
      between = new Date(Date.now() - 30 * 60_000).toISOString();
      const late = await save(DEMO_TOKENS.nrc, [
        {
          guid: caseB,
          externalId: 'F-3',
          type: 'credit note',
          linkedInvoice: undefined,
          status: 'sent',
          priceNet: 300,
          currency: 'NOK',
          isSent: true,
          dueDate: '2026-03-10',
          customData: { region: 'north', priority: 2 },
        },
        {
          guid: caseB,
          externalId: 'F-4',
          status: null,
          priceNet: 400,
          currency: 'EUR',
          customData: { region: 'north' },
          details: [{ ...line, name: 'Battery' }],
        },
      ]);
      ids = Object.fromEntries([...early, ...late].map((invoice) => [invoice.externalId, invoice.id]));
    });

    async function found(filters: unknown, token = DEMO_TOKENS.power): Promise<string[]> {
      const res = await find(token, { filters, pagination: { limit: 100 } });
      expect(res.status).toBe(200);
      expect(res.body.pagination.count).toBe(res.body.data.length);
      return res.body.data.map((invoice: { externalId: string }) => invoice.externalId);
    }

    it('answers { data, pagination: { count, offset } } in created order, each invoice with its case', async () => {
      const res = await find(DEMO_TOKENS.power, { filters: {} });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
      expect(res.body.pagination).toEqual({ count: 4, offset: 0, next: null });
      expect(res.body.data.map((invoice: { externalId: string }) => invoice.externalId)).toEqual([
        'F-1',
        'F-2',
        'F-3',
        'F-4',
      ]);
      expect(res.body.data[0].case).toEqual(await caseCore(caseA));
      expect(res.body.data[3].case).toEqual(await caseCore(caseB));
      expect(res.body.data[0].id).toBe(ids['F-1']);
    });

    it('only ever finds invoices of cases the caller may see, counts included', async () => {
      // Power sees its two cases' invoices although Nordic Repair Center also invoiced Elkjøp.
      expect(await found({})).toEqual(['F-1', 'F-2', 'F-3', 'F-4']);
      expect(await found({ externalId: 'INV-1' })).toEqual([]);
      expect(await found({ externalId: 'F-1' }, DEMO_TOKENS.elkjop)).toEqual([]);
      expect(await found({ externalId: 'SHARED-1' }, DEMO_TOKENS.trygg)).toEqual(['SHARED-1']);
      expect(await found({ externalId: { $in: ['F-1', 'SHARED-1', 'INV-1'] } }, DEMO_TOKENS.nrc)).toEqual([
        'F-1',
        'INV-1',
        'SHARED-1',
      ]);
      expect(await found({ externalId: { $in: ['F-1', 'SHARED-1'] } }, DEMO_TOKENS.svea)).toEqual(['SHARED-1']);
      expect(await found({ externalId: { $in: ['F-1', 'SHARED-1'] } }, DEMO_TOKENS.fixit)).toEqual([]);
    });

    it('filters by each searchable field', async () => {
      expect(await found({ guid: caseB })).toEqual(['F-3', 'F-4']);
      expect(await found({ externalId: 'F-2' })).toEqual(['F-2']);
      expect(await found({ type: 'credit note' })).toEqual(['F-3']);
      expect(await found({ customData: { region: 'north' } })).toEqual(['F-1', 'F-3', 'F-4']);
      expect(await found({ customData: { region: 'north', priority: 2 } })).toEqual(['F-3']);
      expect(await found({ customData: { priority: '2' } })).toEqual([]);
      expect(await found({ priceNet: { $gte: 200, $lt: 400 } })).toEqual(['F-2', 'F-3']);
      expect(await found({ currency: { $in: ['NOK', 'EUR'] } })).toEqual(['F-1', 'F-3', 'F-4']);
      expect(await found({ dueDate: { $lte: '2026-02-10' } })).toEqual(['F-1', 'F-2']);
      // The Date an answer shows finds its invoice again.
      expect(await found({ dueDate: { $lte: '2026-02-10T00:00:00.000Z' } })).toEqual(['F-1', 'F-2']);
      expect(await found({ details: { name: 'Battery' } })).toEqual(['F-4']);
      expect(await found({ details: { name: 'Display replacement', vatRate: 25 } })).toEqual(['F-1']);
      expect(await found({ isSent: true })).toEqual(['F-3']);
      expect(await found({ isPaid: { $ne: true } })).toEqual(['F-1', 'F-3', 'F-4']);
      expect(await found({ status: 'sent' })).toEqual(['F-2', 'F-3']);
      expect(await found({ status: null })).toEqual(['F-4']);
      expect(await found({ status: { $ne: 'sent' } })).toEqual(['F-1', 'F-4']);
      expect(await found({ createdAt: { $gt: between } })).toEqual(['F-3', 'F-4']);
      expect(await found({ createdAt: { $lt: between } })).toEqual(['F-1', 'F-2']);
      expect(await found({ updatedAt: { $gte: '2000-01-01' } })).toEqual(['F-1', 'F-2', 'F-3', 'F-4']);
      expect(await found({ createdAt: { $gt: between }, customData: { region: 'north' }, currency: 'NOK' })).toEqual([
        'F-3',
      ]);
    });

    it('pages with offset and limit, counting all matches', async () => {
      const page = await find(DEMO_TOKENS.power, {
        filters: { customData: { region: 'north' } },
        pagination: { offset: 1, limit: 1 },
      });
      expect(page.status).toBe(200);
      expect(page.body.pagination).toEqual({ count: 3, offset: 1, next: expect.any(String) });
      expect(page.body.data.map((invoice: { externalId: string }) => invoice.externalId)).toEqual(['F-3']);
      const beyond = await find(DEMO_TOKENS.power, { pagination: { offset: 10 } });
      expect(beyond.body).toEqual({ data: [], pagination: { count: 4, offset: 10, next: null } });
    });

    it('pages after a cursor in created order, counting the invoices before each page as its offset', async () => {
      const filters = { customData: { region: 'north' } };
      const all = await find(DEMO_TOKENS.power, { filters, pagination: { limit: 100 } });
      const walked: string[] = [];
      const offsets: number[] = [];
      let pagination: Record<string, unknown> = { limit: 1 };
      for (;;) {
        const page = await find(DEMO_TOKENS.power, { filters, pagination });
        expect(page.status).toBe(200);
        expect(page.body.pagination.count).toBe(3);
        walked.push(...page.body.data.map((invoice: { externalId: string }) => invoice.externalId));
        offsets.push(page.body.pagination.offset);
        if (page.body.pagination.next === null) break;
        pagination = { limit: 1, after: page.body.pagination.next };
      }
      expect(walked).toEqual(all.body.data.map((invoice: { externalId: string }) => invoice.externalId));
      expect(offsets).toEqual([0, 1, 2]);
    });

    it('keeps invoices created in the same millisecond apart across pages', async () => {
      // Postgres keeps microseconds: a cursor rounded to the millisecond would skip or repeat these.
      const saved = await save(
        DEMO_TOKENS.nrc,
        ['MICRO-1', 'MICRO-2', 'MICRO-3'].map((externalId) => ({
          guid: elkjopCase2,
          externalId,
          customData: { batch: 'microseconds' },
        })),
      );
      await knex.raw(
        "update invoicing.invoices set created_at = timestamptz '2020-01-01 00:00:00.000900' - (id % 3) * interval '1 microsecond' where id in (?, ?, ?)",
        saved.map((invoice) => invoice.id),
      );
      const filters = { customData: { batch: 'microseconds' } };
      const walked: string[] = [];
      let pagination: Record<string, unknown> = { limit: 1 };
      for (let page = 0; page < 3; page++) {
        const res = await find(DEMO_TOKENS.elkjop, { filters, pagination });
        walked.push(...res.body.data.map((invoice: { externalId: string }) => invoice.externalId));
        pagination = { limit: 1, after: res.body.pagination.next };
      }
      const expected = (await knex('invoicing.invoices')
        .whereIn(
          'id',
          saved.map((invoice) => invoice.id),
        )
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .pluck('external_id')) as string[];
      expect(new Set(expected).size).toBe(3);
      expect(walked).toEqual(expected);
    });

    it('refuses a cursor it did not make, and a cursor beside an offset, naming the field', async () => {
      const next = (await find(DEMO_TOKENS.power, { pagination: { limit: 1 } })).body.pagination.next;
      const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
      const cases: Array<[unknown, Record<string, string[]>]> = [
        [{ pagination: { after: 'not a cursor' } }, { 'pagination.after': ['Wrong format'] }],
        [{ pagination: { after: cursor(['yesterday', 1]) } }, { 'pagination.after': ['Wrong format'] }],
        // Only the UTC form a page gives: a time without a zone would be read in the database's.
        [
          { pagination: { after: cursor(['2026-01-01T10:00:00.000000', 1]) } },
          { 'pagination.after': ['Wrong format'] },
        ],
        [
          { pagination: { after: cursor(['2026-13-01T10:00:00.000000Z', 1]) } },
          { 'pagination.after': ['Wrong format'] },
        ],
        [{ pagination: { after: cursor([1, 1]) } }, { 'pagination.after': ['Wrong format'] }],
        [{ pagination: { after: cursor(['2026-01-01T00:00:00Z']) } }, { 'pagination.after': ['Wrong format'] }],
        [{ pagination: { after: next, offset: 2 } }, { 'pagination.offset': ['Leave out offset when after is given'] }],
      ];
      for (const [body, details] of cases) {
        const res = await find(DEMO_TOKENS.power, body);
        expect({ body, status: res.status, answer: res.body }).toEqual({
          body,
          status: 400,
          answer: { error: { message: 'Fields validation failed', details } },
        });
      }
    });

    it('takes 10 invoices by default and refuses a limit over 100', async () => {
      await save(
        DEMO_TOKENS.nrc,
        Array.from({ length: 8 }, (_, index) => ({
          guid: caseA,
          externalId: `PAGE-${index}`,
          customData: { batch: 'paging' },
        })),
      );
      const first = await find(DEMO_TOKENS.power, {});
      expect(first.status).toBe(200);
      expect(first.body.pagination).toEqual({ count: 12, offset: 0, next: expect.any(String) });
      expect(first.body.data).toHaveLength(10);
      const over = await find(DEMO_TOKENS.power, { pagination: { limit: 101 } });
      expect(over.status).toBe(400);
      expect(over.body).toEqual({
        error: { message: 'Fields validation failed', details: { 'pagination.limit': ['Must be at most 100'] } },
      });
      const negative = await find(DEMO_TOKENS.power, { pagination: { offset: -1 } });
      expect(negative.status).toBe(400);
      expect(negative.body.error.details).toEqual({ 'pagination.offset': ['Must be at least 0'] });
    });

    it('refuses a filter it cannot read with 400 naming it', async () => {
      const res = await find(DEMO_TOKENS.power, {
        filters: {
          isActive: true,
          status: { $regex: '.*' },
          createdAt: { $gt: 'soon' },
          dueDate: { $gt: '0000-01-01' },
        },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          message: 'Fields validation failed',
          details: {
            'filters.isActive': ['Field is not accepted'],
            'filters.status.$regex': ['Field is not accepted'],
            'filters.createdAt.$gt': ['Wrong format'],
            'filters.dueDate.$gt': ['Wrong format'],
          },
        },
      });
    });

    it('is open to partners and providers only', async () => {
      expect((await find(DEMO_TOKENS.admin, {})).status).toBe(403);
    });

    describe('injection through every filter', () => {
      const attacks = [
        "' or '1'='1",
        "x'); drop table invoicing.invoices; --",
        '1 or 1=1',
        '?',
        '$1',
        '"; select pg_sleep(1); --',
        '\\',
      ];
      const textFields = ['externalId', 'type', 'currency', 'status'];

      afterAll(async () => {
        // Every attack above left the table and the caller's invoices as they were.
        expect((await find(DEMO_TOKENS.power, {})).body.pagination.count).toBe(12);
      });

      it('covers every searchable field', () => {
        expect(
          [
            ...textFields,
            'guid',
            'priceNet',
            'dueDate',
            'isSent',
            'isPaid',
            'createdAt',
            'updatedAt',
            'customData',
            'details',
          ].sort(),
        ).toEqual([...SEARCHABLE_FIELDS].sort());
      });

      it.each(textFields)('matches %s literally, as a value, with each operator and in $in', async (field) => {
        for (const attack of attacks) {
          for (const filter of [attack, { $eq: attack }, { $gt: attack }, { $lte: attack }, { $in: [attack, 'F-1'] }]) {
            const res = await find(DEMO_TOKENS.power, { filters: { [field]: filter } });
            expect(res.status).toBe(200);
            expect(res.body.data.every((invoice: Record<string, unknown>) => invoice[field] !== attack)).toBe(true);
          }
          const ne = await find(DEMO_TOKENS.power, { filters: { [field]: { $ne: attack } } });
          expect(ne.status).toBe(200);
          expect(ne.body.pagination.count).toBe(12);
        }
      });

      it.each(['guid', 'priceNet', 'dueDate', 'isSent', 'isPaid', 'createdAt', 'updatedAt'])(
        'refuses injected text for %s as a wrong format',
        async (field) => {
          for (const attack of attacks) {
            const res = await find(DEMO_TOKENS.power, { filters: { [field]: { $eq: attack } } });
            expect(res.status).toBe(400);
            expect(res.body.error.details).toEqual({ [`filters.${field}.$eq`]: ['Wrong format'] });
            const list = await find(DEMO_TOKENS.power, { filters: { [field]: { $in: [attack] } } });
            expect(list.status).toBe(400);
          }
        },
      );

      it('matches customData keys and values literally', async () => {
        for (const attack of attacks) {
          for (const customData of [{ [attack]: 'north' }, { region: attack }, { [`region') or true --`]: attack }]) {
            const res = await find(DEMO_TOKENS.power, { filters: { customData } });
            expect(res.status).toBe(200);
            expect(res.body.pagination.count).toBe(0);
          }
        }
      });

      it('matches details values literally', async () => {
        for (const attack of attacks) {
          const res = await find(DEMO_TOKENS.power, { filters: { details: { name: attack } } });
          expect(res.status).toBe(200);
          expect(res.body.pagination.count).toBe(0);
        }
      });

      it('refuses injected field names and operators', async () => {
        for (const attack of attacks) {
          const res = await find(DEMO_TOKENS.power, {
            filters: { [attack]: 'x', status: { [attack]: 'x' }, details: { [attack]: 'x' } },
          });
          expect(res.status).toBe(400);
          expect(res.body.error.details[`filters.${attack}`]).toEqual(['Field is not accepted']);
          expect(res.body.error.details[`filters.status.${attack}`]).toEqual(['Field is not accepted']);
          expect(res.body.error.details[`filters.details.${attack}`]).toEqual(['Field is not accepted']);
        }
      });
    });
  });

  describe('invoice statuses from the world', () => {
    it("follow a world load: a provider's list replaces its previous one", async () => {
      const world = {
        providers: [
          {
            id: 10,
            name: 'Nordic Repair Center',
            invoiceStatuses: [{ key: 'draft', name: 'Draft', sendToClient: true }],
          },
        ],
      };
      const load = await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
      expect(load.status).toBe(200);
      expect(await knex('invoicing.invoice_statuses').where({ provider_id: 10 }).orderBy('key')).toEqual([
        { provider_id: 10, key: 'draft', name: 'Draft', send_to_client: true },
      ]);
      // Svea's list, not named in this file, is kept.
      expect((await knex('invoicing.invoice_statuses').where({ provider_id: 20 })).length).toBe(2);

      await outbox.skip();
      await save(DEMO_TOKENS.nrc, [
        { guid: elkjopCase, externalId: 'W-1', status: 'draft' },
        { guid: elkjopCase, externalId: 'W-2', status: 'ready' },
      ]);
      const events = await outbox.newEvents();
      expect(events.map((event) => [event.type, event.payload.externalId])).toEqual([['invoice.saved', 'W-1']]);

      const again = await hub.request('POST', '/api/admin/world', { token: DEMO_TOKENS.admin, body: { world } });
      expect(again.status).toBe(200);
      expect((await knex('invoicing.invoice_statuses').where({ provider_id: 10 })).length).toBe(1);
    });
  });
}
