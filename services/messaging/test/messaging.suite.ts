/**
 * Case messages through the gateway: create, list and confirm with their access rules, internal
 * notes, every error shape, and the events each change writes to the outbox.
 *
 * Written once and run on the embedded database (`messaging.test.ts`) and on the Postgres server
 * with NATS and Redis (`messaging.infra.test.ts`), where concurrent requests really interleave.
 */
import type { Knex } from 'knex';
import { DEMO_TOKENS, type TestHub } from '../../../test/support/hub';
import { bookCase, startCaseRecordsHub, UNKNOWN_GUID } from '../../../test/support/cases';
import { outboxReader } from '../../../test/support/outbox';

export function messagingSuite(infra: boolean): void {
  let hub: TestHub;
  let knex: Knex;
  let elkjopCase: string;
  let powerCase: string;
  let tryggCase: string;

  const ACCOUNTS = { elkjop: 2, nrc: 5 };

  /** Events the messaging outbox got since the last look (no webhooks service runs here). */
  const outbox = outboxReader(() => knex, 'messaging');

  beforeAll(async () => {
    ({
      hub,
      knex,
      cases: [elkjopCase, powerCase, tryggCase],
    } = await startCaseRecordsHub('messaging', infra, [DEMO_TOKENS.elkjop, DEMO_TOKENS.power, DEMO_TOKENS.trygg]));
  });
  afterAll(() => hub.stop());

  function post(token: string, body: unknown) {
    return hub.request('POST', '/api/v3/case-messages/create', { token, body });
  }

  async function create(token: string, body: Record<string, unknown>) {
    const res = await post(token, { type: 'serviceComment', content: 'Hello', ...body });
    expect(res.status).toBe(200);
    return res.body;
  }

  function confirm(token: string, ids: unknown) {
    return hub.request('POST', '/api/v3/case-messages/confirm', { token, body: ids });
  }

  async function list(token: string, guid: string) {
    const res = await hub.request('GET', `/api/v3/case-messages?guid=${guid}`, { token });
    expect(res.status).toBe(200);
    return res.body as Array<Record<string, any>>;
  }

  describe('POST /api/v3/case-messages/create', () => {
    it('answers the Case message record, the sender taken from the caller and not from the body', async () => {
      await outbox.skip();
      const before = Date.now();
      const res = await post(DEMO_TOKENS.elkjop, {
        guid: elkjopCase,
        content: 'Customer asks for status',
        type: 'statusRequest',
        externalId: 'ext-1',
        userEmail: 'agent@elkjop.example',
        userName: 'Agent Smith',
        senderType: 'provider',
        senderAccountId: 999,
      });
      expect(res.status).toBe(200);
      const message = res.body;
      expect(Object.keys(message).sort()).toEqual(
        [
          'caseId',
          'confirmedAt',
          'content',
          'createdAt',
          'declaredAt',
          'externalId',
          'guid',
          'id',
          'isInternal',
          'parentMessageId',
          'senderAccountId',
          'senderType',
          'type',
          'updatedAt',
          'userEmail',
          'userName',
        ].sort(),
      );
      expect(message.id).toEqual(expect.any(Number));
      expect(message.caseId).toEqual(expect.any(Number));
      expect(message.guid).toBe(elkjopCase);
      expect(message.senderType).toBe('partner');
      expect(message.senderAccountId).toBe(ACCOUNTS.elkjop);
      expect(message.content).toBe('Customer asks for status');
      expect(message.type).toBe('statusRequest');
      expect(message.externalId).toBe('ext-1');
      expect(message.parentMessageId).toBeNull();
      expect(message.userEmail).toBe('agent@elkjop.example');
      expect(message.userName).toBe('Agent Smith');
      expect(message.isInternal).toBe(false);
      expect(message.confirmedAt).toBeNull();
      expect(Date.parse(message.declaredAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(message.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(message.updatedAt).toBe(message.createdAt);
    });

    it('tells only the provider of a partner message, with the record as payload', async () => {
      await outbox.skip();
      const message = await create(DEMO_TOKENS.elkjop, {
        guid: elkjopCase,
        userName: 'Kari',
        userEmail: 'kari@example.com',
      });
      const events = await outbox.newEvents();
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('message.created');
      expect(events[0].case_guid).toBe(elkjopCase);
      expect(events[0].audience).toEqual({ providerId: 10 });
      expect(events[0].payload).toEqual(message);
      expect(events[0].payload.userName).toBe('Kari');
      expect(events[0].payload.userEmail).toBe('kari@example.com');
      expect(events[0].payload.parentMessageId).toBeNull();
    });

    it('tells only the partner of a provider message', async () => {
      await outbox.skip();
      const message = await create(DEMO_TOKENS.nrc, { guid: elkjopCase, type: 'spareParts' });
      expect(message.senderType).toBe('provider');
      expect(message.senderAccountId).toBe(ACCOUNTS.nrc);
      const events = await outbox.newEvents();
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('message.created');
      expect(events[0].audience).toEqual({ partnerId: 1 });
      expect(events[0].payload).toEqual(message);
    });

    it('keeps a declaredAt that is sent and takes now for an empty one', async () => {
      const declared = await create(DEMO_TOKENS.nrc, { guid: elkjopCase, declaredAt: '2026-03-01T12:00:00+01:00' });
      expect(declared.declaredAt).toBe('2026-03-01T11:00:00.000Z');
      const before = Date.now();
      const empty = await create(DEMO_TOKENS.nrc, { guid: elkjopCase, declaredAt: '' });
      expect(Date.parse(empty.declaredAt)).toBeGreaterThanOrEqual(before - 1000);
    });

    it('refuses a declaredAt that is no date and time that exists', async () => {
      for (const declaredAt of ['0000-01-01', '2026-02-30T10:00:00Z', 'yesterday']) {
        const res = await post(DEMO_TOKENS.nrc, { guid: elkjopCase, type: 'serviceComment', declaredAt });
        expect(res.status).toBe(400);
        expect(res.body.error.details).toEqual({ declaredAt: ['Wrong format'] });
      }
    });

    it('links a reply to a message of the same case', async () => {
      const parent = await create(DEMO_TOKENS.elkjop, { guid: elkjopCase });
      const reply = await create(DEMO_TOKENS.nrc, {
        guid: elkjopCase,
        parentMessageId: parent.id,
        type: 'customerCenterReply',
      });
      expect(reply.parentMessageId).toBe(parent.id);
    });

    it('refuses a parent from another case or one that does not exist', async () => {
      const other = await create(DEMO_TOKENS.power, { guid: powerCase });
      for (const parentMessageId of [other.id, 987654321]) {
        const res = await post(DEMO_TOKENS.elkjop, { guid: elkjopCase, type: 'serviceComment', parentMessageId });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: {
            message: 'Fields validation failed',
            details: { parentMessageId: ['Value is not present in possible options'] },
          },
        });
      }
    });

    it('answers { error: { message } } for a missing guid', async () => {
      const res = await post(DEMO_TOKENS.elkjop, { type: 'serviceComment', content: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: { message: 'Fields validation failed', details: { guid: ['Field is required'] } },
      });
    });

    it('answers { error: { message } } for a malformed body', async () => {
      const res = await hub.request('POST', '/api/v3/case-messages/create', {
        token: DEMO_TOKENS.elkjop,
        rawBody: '{"guid": ',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: { message: 'Fields validation failed', details: { body: ['Malformed JSON'] } },
      });
    });

    it('refuses a type outside the ten, a malformed guid or declaredAt, and fields over their length', async () => {
      const bad = await post(DEMO_TOKENS.elkjop, {
        guid: 'abc',
        type: 'chat',
        externalId: 'x'.repeat(513),
        userEmail: 'e'.repeat(513),
        userName: 'n'.repeat(513),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toBe('Fields validation failed');
      expect(bad.body.error.details).toEqual({
        guid: ['Wrong format'],
        type: ['Value is not present in possible options'],
        externalId: ['Must be at most 512 characters'],
        userEmail: ['Must be at most 512 characters'],
        userName: ['Must be at most 512 characters'],
      });
      const date = await post(DEMO_TOKENS.elkjop, { guid: elkjopCase, type: 'reminder', declaredAt: 'tomorrow' });
      expect(date.status).toBe(400);
      expect(date.body.error.details).toEqual({ declaredAt: ['Wrong format'] });
    });

    it('accepts each of the ten types, and fields at their length limit', async () => {
      const types = [
        'serviceComment',
        'customerCenterReply',
        'costProposalRejectRur',
        'costProposalRejectScrap',
        'statusRequest',
        'spareParts',
        'reminder',
        'costProposal',
        'shipment',
        'forwarding',
      ];
      for (const type of types) expect((await create(DEMO_TOKENS.elkjop, { guid: elkjopCase, type })).type).toBe(type);
      const long = await create(DEMO_TOKENS.elkjop, {
        guid: elkjopCase,
        externalId: 'x'.repeat(512),
        userName: 'n'.repeat(512),
      });
      expect(long.externalId).toHaveLength(512);
    });

    it('answers 404 for an unknown case and for a case the caller may not see', async () => {
      for (const [token, guid] of [
        [DEMO_TOKENS.elkjop, UNKNOWN_GUID],
        [DEMO_TOKENS.power, elkjopCase],
        [DEMO_TOKENS.svea, elkjopCase],
        [DEMO_TOKENS.nrc, tryggCase],
      ]) {
        const res = await post(token, { guid, type: 'serviceComment' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { message: 'Case not found' } });
      }
    });

    it('is not open to admin accounts', async () => {
      const res = await post(DEMO_TOKENS.admin, { guid: elkjopCase, type: 'serviceComment' });
      expect(res.status).toBe(403);
    });
  });

  describe('internal messages', () => {
    it('are written by providers, tell nobody, and are hidden from the partner', async () => {
      await outbox.skip();
      const note = await create(DEMO_TOKENS.svea, { guid: tryggCase, isInternal: true, content: 'Check the hinge' });
      expect(note.isInternal).toBe(true);
      expect(await outbox.newEvents()).toEqual([]);
      const open = await create(DEMO_TOKENS.svea, { guid: tryggCase, content: 'Repair started' });
      expect((await outbox.newEvents()).map((event) => event.payload.id)).toEqual([open.id]);

      expect((await list(DEMO_TOKENS.svea, tryggCase)).map((message) => message.id)).toEqual([note.id, open.id]);
      expect((await list(DEMO_TOKENS.trygg, tryggCase)).map((message) => message.id)).toEqual([open.id]);
    });

    it('cannot be written by a partner', async () => {
      const res = await post(DEMO_TOKENS.trygg, { guid: tryggCase, type: 'serviceComment', isInternal: true });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ isInternal: ['Field is not accepted'] });
    });

    it('cannot be replied to by a partner, who may not know they exist', async () => {
      const note = await create(DEMO_TOKENS.svea, { guid: tryggCase, isInternal: true });
      const res = await post(DEMO_TOKENS.trygg, { guid: tryggCase, type: 'serviceComment', parentMessageId: note.id });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ parentMessageId: ['Value is not present in possible options'] });
      const ownReply = await create(DEMO_TOKENS.svea, { guid: tryggCase, isInternal: true, parentMessageId: note.id });
      expect(ownReply.parentMessageId).toBe(note.id);
    });
  });

  describe('GET /api/v3/case-messages', () => {
    it("lists the case's messages in the order they were written, the same for both parties", async () => {
      const guid = await bookCase(hub, DEMO_TOKENS.elkjop);
      const first = await create(DEMO_TOKENS.elkjop, { guid, content: 'one' });
      const second = await create(DEMO_TOKENS.nrc, { guid, content: 'two' });
      const third = await create(DEMO_TOKENS.elkjop, { guid, content: 'three' });
      const partnerView = await list(DEMO_TOKENS.elkjop, guid);
      expect(partnerView).toEqual([first, second, third]);
      expect(await list(DEMO_TOKENS.nrc, guid)).toEqual(partnerView);
    });

    it('answers 404 for a case the caller may not see and 400 without a guid', async () => {
      const foreign = await hub.request('GET', `/api/v3/case-messages?guid=${elkjopCase}`, {
        token: DEMO_TOKENS.power,
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ error: { message: 'Case not found' } });
      const missing = await hub.request('GET', '/api/v3/case-messages', { token: DEMO_TOKENS.power });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({
        error: { message: 'Fields validation failed', details: { guid: ['Field is required'] } },
      });
    });
  });

  describe('POST /api/v3/case-messages/confirm', () => {
    it('confirms a received message and tells only the party that created it', async () => {
      const message = await create(DEMO_TOKENS.nrc, { guid: elkjopCase });
      await outbox.skip();
      const res = await confirm(DEMO_TOKENS.elkjop, [message.id]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, errors: [], data: {} });
      const [stored] = (await list(DEMO_TOKENS.elkjop, elkjopCase)).filter((item) => item.id === message.id);
      expect(Date.parse(stored.confirmedAt)).toBeGreaterThanOrEqual(Date.parse(message.createdAt));

      const events = await outbox.newEvents();
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('message.confirmed');
      expect(events[0].case_guid).toBe(elkjopCase);
      expect(events[0].audience).toEqual({ providerId: 10 });
      expect(events[0].payload).toEqual(stored);
    });

    it('tells the partner when the provider confirms a partner message', async () => {
      const message = await create(DEMO_TOKENS.elkjop, { guid: elkjopCase });
      await outbox.skip();
      expect((await confirm(DEMO_TOKENS.nrc, [message.id])).body).toEqual({ success: true, errors: [], data: {} });
      const events = await outbox.newEvents();
      expect(events.map((event) => [event.type, event.audience, event.payload.id])).toEqual([
        ['message.confirmed', { partnerId: 1 }, message.id],
      ]);
    });

    it('keeps the first confirmedAt and tells nobody again', async () => {
      const message = await create(DEMO_TOKENS.nrc, { guid: elkjopCase });
      await confirm(DEMO_TOKENS.elkjop, [message.id]);
      const first = (await list(DEMO_TOKENS.elkjop, elkjopCase)).find((item) => item.id === message.id)!.confirmedAt;
      await outbox.skip();
      const again = await confirm(DEMO_TOKENS.elkjop, [message.id]);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ success: true, errors: [], data: {} });
      expect((await list(DEMO_TOKENS.elkjop, elkjopCase)).find((item) => item.id === message.id)!.confirmedAt).toBe(
        first,
      );
      expect(await outbox.newEvents()).toEqual([]);
    });

    it("confirms what it can and reports 'Not found' and 'No access' per id, without rollback", async () => {
      const received = await create(DEMO_TOKENS.nrc, { guid: elkjopCase });
      const ownMessage = await create(DEMO_TOKENS.elkjop, { guid: elkjopCase });
      const foreign = await create(DEMO_TOKENS.power, { guid: powerCase });
      const internal = await create(DEMO_TOKENS.nrc, { guid: elkjopCase, isInternal: true });
      const res = await confirm(DEMO_TOKENS.elkjop, [foreign.id, received.id, 987654321, ownMessage.id, internal.id]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        errors: [
          { id: foreign.id, message: 'No access' },
          { id: 987654321, message: 'Not found' },
          { id: ownMessage.id, message: 'No access' },
          { id: internal.id, message: 'Not found' },
        ],
        data: {},
      });
      const messages = await list(DEMO_TOKENS.nrc, elkjopCase);
      expect(messages.find((item) => item.id === received.id)!.confirmedAt).not.toBeNull();
      expect(messages.find((item) => item.id === ownMessage.id)!.confirmedAt).toBeNull();
      expect(messages.find((item) => item.id === internal.id)!.confirmedAt).toBeNull();
      expect((await list(DEMO_TOKENS.power, powerCase)).find((item) => item.id === foreign.id)!.confirmedAt).toBeNull();
    });

    it('answers { error: { message } } with 400 for a non-numeric id and changes nothing', async () => {
      const message = await create(DEMO_TOKENS.nrc, { guid: elkjopCase });
      const res = await confirm(DEMO_TOKENS.elkjop, [message.id, 'abc']);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: { message: 'Fields validation failed', details: { '[1]': ['Wrong format'] } },
      });
      expect(
        (await list(DEMO_TOKENS.elkjop, elkjopCase)).find((item) => item.id === message.id)!.confirmedAt,
      ).toBeNull();
    });

    it('answers { error: { message } } with 400 for a body that is not an array of ids', async () => {
      const object = await confirm(DEMO_TOKENS.elkjop, { ids: [1] });
      expect(object.status).toBe(400);
      expect(object.body.error.message).toBe('Fields validation failed');
      const malformed = await hub.request('POST', '/api/v3/case-messages/confirm', {
        token: DEMO_TOKENS.elkjop,
        rawBody: '[1,',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({
        error: { message: 'Fields validation failed', details: { body: ['Malformed JSON'] } },
      });
    });

    it('confirms a message once when confirms race, telling the creator once', async () => {
      const message = await create(DEMO_TOKENS.nrc, { guid: elkjopCase });
      await outbox.skip();
      const answers = await Promise.all(Array.from({ length: 4 }, () => confirm(DEMO_TOKENS.elkjop, [message.id])));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ success: true, errors: [], data: {} });
      }
      const events = await outbox.newEvents();
      expect(events.map((event) => [event.type, event.payload.id])).toEqual([['message.confirmed', message.id]]);
    });

    it('answers an empty report for an empty list', async () => {
      const res = await confirm(DEMO_TOKENS.elkjop, []);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, errors: [], data: {} });
    });
  });
}
