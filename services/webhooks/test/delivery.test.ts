/**
 * Deliveries to a real HTTP receiver through the running service: the Standard Webhooks
 * signature, headers, idempotent ingest, every failure answer, the dead letter and the
 * redeliveries, order per case and the per-subscription concurrency limit.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { databaseOf, type DomainEvent } from '@hub/shared';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../../../test/support/hub';
import { webhooksOf } from '../src/addressing';
import { ADDRESSED_FROM_OLD_SUBSCRIPTIONS, storeWebhooks } from '../src/feed.store';
import { readAddressing } from '../src/webhooks.store';
import { domainEvent } from './support/events';
import { type Answer, type Received, type Receiver, startReceiver } from './support/receiver';

let hub: TestHub;
let receiver: Receiver;
const answers = new Map<string, (request: Received, index: number) => Answer>();
const created: number[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer = (request) => {
    const answer = answers.get(request.path);
    return answer ? answer(request, at(request.path).length - 1) : {};
  };
  hub = await startTestHub({
    services: ['catalog', 'gateway', 'webhooks'],
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms,50ms',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000',
    },
  });
});
afterEach(async () => {
  // Each test's subscriptions stop, so later events of the same partner reach only the next test's.
  for (const id of created.splice(0)) expect((await admin('DELETE', `/subscriptions/${id}`)).status).toBe(200);
});
afterAll(async () => {
  await hub.stop();
  await receiver.close();
});

function admin(method: string, path: string, body?: unknown) {
  return hub.request(method, `/api/admin/webhooks${path}`, { token: DEMO_TOKENS.admin, body });
}

/** Account 3 is Power's (partner 2); account 6 is Svea's (provider 20). */
async function subscribe(path: string, extra: Record<string, unknown> = {}, accountId = 3) {
  const { target, ...rest } = extra as { target?: Record<string, unknown> };
  const res = await admin('POST', '/subscriptions', {
    accountId,
    eventTypes: ['costProposal.created', 'message.created', 'case.updated'],
    target: { kind: 'http', url: `${receiver.url}${path}`, ...target },
    ...rest,
  });
  expect(res.status).toBe(200);
  created.push(res.body.data.id);
  return res.body.data as { id: number; secret: string; state: string };
}

function at(path: string): Received[] {
  return receiver.received.filter((request) => request.path === path);
}

function ingest(events: DomainEvent[]) {
  return hub.broker.call<{ deliveries: number }, { events: DomainEvent[] }>('webhooks.ingest', { events });
}

function costProposal(caseGuid?: string) {
  return domainEvent(
    'costProposal.created',
    { partnerId: 2 },
    { id: Math.floor(Math.random() * 1e6), name: 'Repair', priceNet: 100 },
    caseGuid,
  );
}

async function deliveries(subscriptionId: number, query = '') {
  const res = await admin('GET', `/deliveries?subscriptionId=${subscriptionId}${query}`);
  expect(res.status).toBe(200);
  return res.body.data as Array<{ id: number; state: string; attempts: number; webhookId: string; eventId: string }>;
}

async function attempts(deliveryId: number) {
  const res = await admin('GET', `/deliveries/${deliveryId}/attempts`);
  expect(res.status).toBe(200);
  return res.body.data as Array<{
    attempt: number;
    ok: boolean;
    statusCode: number | null;
    errorKind: string | null;
    startedAt: string;
    responseExcerpt: string | null;
  }>;
}

async function settled(subscriptionId: number, state: string, count = 1) {
  await waitFor(
    async () => (await deliveries(subscriptionId, `&state=${state}`)).length === count,
    `${count} ${state} deliveries`,
  );
  return deliveries(subscriptionId);
}

describe('signature and headers', () => {
  it('signs each delivery so the standardwebhooks package verifies it, and a changed body fails', async () => {
    const subscription = await subscribe('/signed');
    const event = costProposal();
    expect(await ingest([event])).toEqual({ events: 1, deliveries: 1 });
    await waitFor(() => at('/signed').length === 1, 'the webhook');
    const [request] = at('/signed');
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-event-type']).toBe('costProposal.created');
    // The first event of its case that the partner hears of.
    expect(headers['hub-case-sequence']).toBe('1');
    expect(request.method).toBe('POST');
    expect(new Webhook(subscription.secret).verify(request.body, headers)).toEqual({
      ...event.payload,
      caseSequence: 1,
    });
    expect(() => new Webhook(subscription.secret).verify(request.body.replace('Repair', 'Scrap'), headers)).toThrow();
    expect(() =>
      new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(request.body, headers),
    ).toThrow();
  });

  it('sends the subscription method and custom headers, which cannot override the reserved ones', async () => {
    const subscription = await subscribe('/headers', {
      target: {
        method: 'PUT',
        headers: {
          'X-Partner-Key': 'k-42',
          'webhook-id': 'forged',
          'Hub-Case-Sequence': '99',
          'Content-Type': 'text/plain',
        },
      },
    });
    const event = costProposal();
    await ingest([event]);
    await waitFor(() => at('/headers').length === 1, 'the webhook');
    const [request] = at('/headers');
    expect(request.method).toBe('PUT');
    expect(request.headers['x-partner-key']).toBe('k-42');
    expect(request.headers['webhook-id']).toBe(event.id);
    expect(request.headers['hub-case-sequence']).toBe('1');
    expect(request.headers['content-type']).toBe('application/json');
    expect(new Webhook(subscription.secret).verify(request.body, request.headers as Record<string, string>)).toEqual({
      ...event.payload,
      caseSequence: 1,
    });
  });

  it('signs with the new and the previous secret after a rotation; both verify', async () => {
    const subscription = await subscribe('/rotated');
    const rotated = await admin('POST', `/subscriptions/${subscription.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const secret = rotated.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(subscription.secret);
    await ingest([costProposal()]);
    await waitFor(() => at('/rotated').length === 1, 'the webhook');
    const [request] = at('/rotated');
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(request.body, headers)).toBeTruthy();
    expect(new Webhook(subscription.secret).verify(request.body, headers)).toBeTruthy();
  });
});

describe('ingest', () => {
  it('stores each delivery once however often the same events are ingested', async () => {
    const subscription = await subscribe('/once');
    const events = [costProposal(), costProposal()];
    expect(await ingest([...events, events[0]])).toEqual({ events: 3, deliveries: 2 });
    expect(await ingest(events)).toEqual({ events: 2, deliveries: 0 });
    await settled(subscription.id, 'succeeded', 2);
    expect(await ingest([events[1]])).toEqual({ events: 1, deliveries: 0 });
    expect(await deliveries(subscription.id)).toHaveLength(2);
    expect(new Set(at('/once').map((request) => request.headers['webhook-id']))).toEqual(
      new Set(events.map((event) => event.id)),
    );
  });

  it("stores an event handed over again once in each party's feed and once per subscription, new ones after it without a gap", async () => {
    const partner = await subscribe('/again-partner', { eventTypes: ['message.created'] });
    const provider = await subscribe('/again-provider', { eventTypes: ['message.created'] }, 6);
    const caseGuid = randomUUID();
    const [first, second, third] = [1, 2, 3].map((id) =>
      domainEvent('message.created', { partnerId: 2, providerId: 20 }, { id, content: `message ${id}` }, caseGuid),
    );
    expect(await ingest([first])).toEqual({ events: 1, deliveries: 2 });
    // Again alone, and again in a batch of new events (an answer lost, a lease run out).
    expect(await ingest([first])).toEqual({ events: 1, deliveries: 0 });
    expect(await ingest([second, first, third])).toEqual({ events: 3, deliveries: 4 });

    const { knex } = await databaseOf(hub.broker);
    for (const [kind, id] of [
      ['partner', 2],
      ['provider', 20],
    ] as const) {
      const feed = (await knex('webhooks.feed')
        .where({ party_kind: kind, party_id: id, case_guid: caseGuid })
        .orderBy('position')) as Array<{ event_id: string; position: number; case_sequence: number }>;
      expect(feed.map((row) => row.event_id)).toEqual([first.id, second.id, third.id]);
      expect(feed.map((row) => row.position - feed[0].position)).toEqual([0, 1, 2]);
      expect(feed.map((row) => row.case_sequence)).toEqual([1, 2, 3]);
    }
    for (const subscription of [partner, provider]) {
      await settled(subscription.id, 'succeeded', 3);
      expect((await deliveries(subscription.id)).map((delivery) => delivery.eventId).sort()).toEqual(
        [first.id, second.id, third.id].sort(),
      );
    }
  });

  it('reaches only the subscriptions of the audience and the types they name', async () => {
    const partner = await subscribe('/audience-partner');
    const provider = await subscribe('/audience-provider', { eventTypes: ['message.created'] }, 6);
    const toProvider = domainEvent('message.created', { providerId: 20 }, { id: 1, content: 'hello' });
    const toPartner = domainEvent('message.created', { partnerId: 2 }, { id: 2, content: 'hi' });
    const notNamed = domainEvent('case.filesUploaded', { partnerId: 2 }, { guid: 'x', files: [] });
    await ingest([toProvider, toPartner, notNamed]);
    await settled(partner.id, 'succeeded');
    await settled(provider.id, 'succeeded');
    expect(at('/audience-provider').map((request) => request.headers['webhook-id'])).toEqual([toProvider.id]);
    expect(at('/audience-partner').map((request) => request.headers['webhook-id'])).toEqual([toPartner.id]);
  });

  it('addresses each ingest from the subscriptions as they are when it stores, however they were changed', async () => {
    const first = await subscribe('/addressed-first', { eventTypes: ['costProposal.created'] });
    const [one, two, three, four] = [1, 2, 3, 4].map(() => costProposal());
    expect(await ingest([one])).toEqual({ events: 1, deliveries: 1 });
    // Made after the service last read the subscriptions.
    const second = await subscribe('/addressed-second', { eventTypes: ['costProposal.created'] });
    expect(await ingest([two])).toEqual({ events: 1, deliveries: 2 });
    // Changed in the database, past the service.
    const { knex } = await databaseOf(hub.broker);
    await knex('webhooks.subscriptions')
      .where({ id: second.id })
      .update({ event_types: JSON.stringify(['message.created']) });
    expect(await ingest([three])).toEqual({ events: 1, deliveries: 1 });
    await settled(first.id, 'succeeded', 3);
    expect((await admin('DELETE', `/subscriptions/${first.id}`)).status).toBe(200);
    created.splice(created.indexOf(first.id), 1);
    expect(await ingest([four])).toEqual({ events: 1, deliveries: 0 });

    await settled(second.id, 'succeeded', 1);
    expect((await deliveries(first.id)).map((delivery) => delivery.eventId).sort()).toEqual(
      [one.id, two.id, three.id].sort(),
    );
    expect((await deliveries(second.id)).map((delivery) => delivery.eventId)).toEqual([two.id]);
    // Deliveries and their records leave the subscriptions as they are, so ingests keep what they read.
    const { version } = await readAddressing(knex);
    await ingest([domainEvent('message.created', { partnerId: 2 }, { id: 5, content: 'hello' })]);
    await settled(second.id, 'succeeded', 2);
    expect((await readAddressing(knex)).version).toBe(version);
  });

  it('stores nothing of webhooks addressed from subscriptions that changed since', async () => {
    const { knex } = await databaseOf(hub.broker);
    const before = await readAddressing(knex);
    const subscription = await subscribe('/addressed-late', { eventTypes: ['costProposal.created'] });
    const event = costProposal();
    const [webhook] = webhooksOf(event, () => ({ mappings: {}, blacklist: [] }));
    await expect(
      storeWebhooks(knex, [{ ...webhook, subscriptionIds: [subscription.id] }], 0, before.version),
    ).rejects.toMatchObject({ code: ADDRESSED_FROM_OLD_SUBSCRIPTIONS });
    expect(await knex('webhooks.feed').where({ event_id: event.id })).toEqual([]);
    expect(await knex('webhooks.deliveries').where({ event_id: event.id })).toEqual([]);
    const after = await readAddressing(knex);
    expect(after.byParty.get('partner:2')?.map(({ id }) => id)).toContain(subscription.id);
    expect(await storeWebhooks(knex, [{ ...webhook, subscriptionIds: [subscription.id] }], 0, after.version)).toBe(1);
  });

  it('keeps deliveries for a paused subscription and sends them on resume', async () => {
    const subscription = await subscribe('/paused');
    expect((await admin('POST', `/subscriptions/${subscription.id}/pause`)).body.data.state).toBe('paused');
    await ingest([costProposal()]);
    expect(await deliveries(subscription.id, '&state=pending')).toHaveLength(1);
    expect(at('/paused')).toHaveLength(0);
    expect((await admin('POST', `/subscriptions/${subscription.id}/resume`)).body.data.state).toBe('active');
    await settled(subscription.id, 'succeeded');
    expect(at('/paused')).toHaveLength(1);
  });

  it('refuses a subscription with a bad target or an admin account', async () => {
    const res = await admin('POST', '/subscriptions', {
      accountId: 1,
      eventTypes: ['status.new'],
      target: { kind: 'amqp', url: 'http://x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({
      accountId: ['The account must be a partner or a provider account'],
      'target.url': ['Must be an amqp(s) URL'],
      'target.queue': ['Field is required'],
    });
    const forbidden = await hub.request('GET', '/api/admin/webhooks/deliveries', { token: DEMO_TOKENS.power });
    expect(forbidden.status).toBe(403);
  });

  it('refuses a header value with a line break, and dead-letters a delivery whose request cannot be made', async () => {
    const injected = await admin('POST', '/subscriptions', {
      accountId: 3,
      eventTypes: ['costProposal.created'],
      target: { kind: 'http', url: `${receiver.url}/crlf`, headers: { 'X-Bad': 'a\r\nInjected: 1' } },
    });
    expect(injected.status).toBe(400);
    expect(injected.body.error.details).toEqual({ 'target.headers.X-Bad': ['Wrong format'] });
    // One stored before such values were refused: each attempt fails, and the schedule ends in the dead letter.
    const { id } = await subscribe('/unsendable');
    const { knex } = await databaseOf(hub.broker);
    await knex('webhooks.subscriptions')
      .where({ id })
      .update({ headers: JSON.stringify({ 'X-Bad': 'a\nb' }) });
    await ingest([costProposal()]);
    const [dead] = await settled(id, 'dead');
    expect((await attempts(dead.id)).map((attempt) => attempt.errorKind)).toEqual([
      'connection',
      'connection',
      'connection',
      'connection',
    ]);
    expect(at('/unsendable')).toEqual([]);
  });
});

describe('failure answers', () => {
  it('retries after a 500 and logs each attempt with its status and answer', async () => {
    answers.set('/flaky', (_request, index) =>
      index === 0 ? { status: 500, body: 'database down' } : { status: 200, body: 'ok' },
    );
    const subscription = await subscribe('/flaky');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'succeeded');
    const log = await attempts(delivery.id);
    expect(
      log.map(({ ok, statusCode, errorKind, responseExcerpt }) => ({ ok, statusCode, errorKind, responseExcerpt })),
    ).toEqual([
      { ok: false, statusCode: 500, errorKind: 'http_status', responseExcerpt: 'database down' },
      { ok: true, statusCode: 200, errorKind: null, responseExcerpt: 'ok' },
    ]);
    // The same webhook-id on the retry, so the receiver can tell a duplicate.
    expect(new Set(at('/flaky').map((request) => request.headers['webhook-id'])).size).toBe(1);
  });

  it('logs an answer holding NUL bytes without them, which Postgres text cannot hold', async () => {
    answers.set('/nul', (_request, index) =>
      index === 0 ? { status: 500, body: 'bad\u0000answer' } : { status: 200, body: '\u0000ok' },
    );
    const subscription = await subscribe('/nul');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'succeeded');
    expect((await attempts(delivery.id)).map(({ responseExcerpt }) => responseExcerpt)).toEqual(['badanswer', 'ok']);
  });

  it.each([
    [503, '/busy'],
    [429, '/throttled'],
  ])('waits the Retry-After of a %i before the next attempt', async (status, path) => {
    answers.set(path, (_request, index) =>
      index === 0 ? { status, headers: { 'Retry-After': '2' } } : { status: 204 },
    );
    const subscription = await subscribe(path);
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'succeeded');
    const log = await attempts(delivery.id);
    expect(log.map((attempt) => attempt.statusCode)).toEqual([status, 204]);
    // The schedule alone would retry after 50-60 ms.
    expect(Date.parse(log[1].startedAt) - Date.parse(log[0].startedAt)).toBeGreaterThanOrEqual(1900);
  });

  it('retries a 503 without Retry-After on the schedule', async () => {
    answers.set('/busy-no-hint', (_request, index) => (index === 0 ? { status: 503 } : { status: 204 }));
    const subscription = await subscribe('/busy-no-hint');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'succeeded');
    const log = await attempts(delivery.id);
    expect(Date.parse(log[1].startedAt) - Date.parse(log[0].startedAt)).toBeLessThan(1900);
  });

  it('disables the subscription on 410 and sends nothing more until it is resumed', async () => {
    let gone = true;
    answers.set('/gone', () => (gone ? { status: 410 } : { status: 204 }));
    const subscription = await subscribe('/gone');
    await ingest([costProposal()]);
    await waitFor(
      async () =>
        (await admin('GET', '/subscriptions?accountId=3')).body.data.find(
          (s: { id: number }) => s.id === subscription.id,
        ).state === 'disabled',
      'the subscription disabled',
    );
    await ingest([costProposal()]);
    const pending = await deliveries(subscription.id, '&state=pending');
    expect(pending).toHaveLength(1);
    expect(at('/gone')).toHaveLength(1);
    expect((await attempts(pending[0].id))[0]).toMatchObject({ statusCode: 410, errorKind: 'gone' });
    gone = false;
    expect((await admin('POST', `/subscriptions/${subscription.id}/resume`)).body.data.state).toBe('active');
    await settled(subscription.id, 'succeeded');
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    answers.set('/moved', () => ({ status: 302, headers: { Location: `${receiver.url}/moved-here` } }));
    const subscription = await subscribe('/moved');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'dead');
    const log = await attempts(delivery.id);
    expect(log).toHaveLength(4);
    expect(log.every((attempt) => attempt.statusCode === 302 && attempt.errorKind === 'redirect')).toBe(true);
    expect(at('/moved-here')).toHaveLength(0);
  });

  it('fails an attempt whose answer is slower than the attempt timeout', async () => {
    answers.set('/slow', (_request, index) => (index === 0 ? { delayMs: 2500 } : { status: 204 }));
    const subscription = await subscribe('/slow');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'succeeded');
    const log = await attempts(delivery.id);
    expect(log[0]).toMatchObject({ ok: false, errorKind: 'timeout', statusCode: null });
    expect(log[1]).toMatchObject({ ok: true, statusCode: 204 });
  });

  it('fails an attempt whose connection is reset', async () => {
    answers.set('/reset', (_request, index) => (index === 0 ? { reset: true } : { status: 204 }));
    const subscription = await subscribe('/reset');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'succeeded');
    expect((await attempts(delivery.id))[0]).toMatchObject({ ok: false, errorKind: 'connection' });
  });
});

describe('dead letter and redelivery', () => {
  it('dead-letters after the schedule and redelivers one delivery on request', async () => {
    let up = false;
    answers.set('/down', () => (up ? { status: 204 } : { status: 500 }));
    const subscription = await subscribe('/down');
    await ingest([costProposal()]);
    const [delivery] = await settled(subscription.id, 'dead');
    expect(delivery.attempts).toBe(4);
    expect(at('/down')).toHaveLength(4);
    up = true;
    const res = await admin('POST', `/deliveries/${delivery.id}/redeliver`);
    expect(res.status).toBe(200);
    const [done] = await settled(subscription.id, 'succeeded');
    expect(done.attempts).toBe(5);
    expect((await admin('POST', '/deliveries/999999/redeliver')).status).toBe(404);
  });

  it('redelivers every dead delivery of a subscription stored since a time, and none before it', async () => {
    let up = false;
    answers.set('/outage', () => (up ? { status: 204 } : { status: 500 }));
    const subscription = await subscribe('/outage');
    await ingest([costProposal()]);
    await settled(subscription.id, 'dead', 1);
    const since = new Date().toISOString();
    await ingest([costProposal(), costProposal()]);
    await settled(subscription.id, 'dead', 3);
    up = true;
    for (const bad of ['-004714-01-01T00:00:00Z', '2026-02-30', 0, true]) {
      const refused = await admin('POST', `/subscriptions/${subscription.id}/redeliver-failed`, { since: bad });
      expect(refused.status).toBe(400);
    }
    const res = await admin('POST', `/subscriptions/${subscription.id}/redeliver-failed`, { since });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ redelivered: 2 });
    await settled(subscription.id, 'succeeded', 2);
    expect(await deliveries(subscription.id, '&state=dead')).toHaveLength(1);
  });
});

describe('order and fairness', () => {
  it('delivers the events of one case in order, holding later ones while an earlier one is retried', async () => {
    const caseGuid = '5b7c3f1e-2d4a-4c8e-9f10-0a1b2c3d4e5f';
    const events = Array.from({ length: 5 }, () => costProposal(caseGuid));
    answers.set('/ordered', (request, index) =>
      request.headers['webhook-id'] === events[1].id && index === 1 ? { status: 500 } : { delayMs: 20 },
    );
    const subscription = await subscribe('/ordered', { maxInFlight: 4 });
    await ingest(events);
    await settled(subscription.id, 'succeeded', 5);
    expect(
      at('/ordered').map((request) => events.findIndex((event) => event.id === request.headers['webhook-id'])),
    ).toEqual([0, 1, 1, 2, 3, 4]);
    // The case's numbers rise by one per event; the retry repeats its number.
    expect(at('/ordered').map((request) => request.headers['hub-case-sequence'])).toEqual([
      '1',
      '2',
      '2',
      '3',
      '4',
      '5',
    ]);
    expect(receiver.maxOpen.get('/ordered')).toBe(1);
  });

  it('sends different cases in parallel up to the subscription limit, and a held receiver does not hold up others', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    answers.set('/held', () => ({ hold: held }));
    const slow = await subscribe('/held', { maxInFlight: 2 });
    const other = await subscribe('/free', {}, 6);
    await ingest(Array.from({ length: 6 }, () => costProposal()));
    await waitFor(() => receiver.open.get('/held') === 2, 'two requests in flight');
    await ingest([domainEvent('message.created', { providerId: 20 }, { id: 3, content: 'meanwhile' })]);
    await waitFor(() => at('/free').length === 1, 'the other receiver served while the first is held');
    expect(receiver.open.get('/held')).toBe(2);
    release();
    await settled(slow.id, 'succeeded', 6);
    expect(receiver.maxOpen.get('/held')).toBe(2);
    await settled(other.id, 'succeeded');
  });
});

describe('claims and records in batches', () => {
  /** Counts the worker's claims and records while `work` runs. */
  async function statementsDuring(work: () => Promise<void>) {
    const { knex } = await databaseOf(hub.broker);
    const counts = { claims: 0, records: 0 };
    const count = ({ sql }: { sql: string }) => {
      if (sql.includes('webhooks.claim_due(')) counts.claims += 1;
      if (sql.includes('webhooks.record_attempts(')) counts.records += 1;
    };
    knex.on('query', count);
    try {
      await work();
    } finally {
      knex.off('query', count);
    }
    return counts;
  }

  it('records attempts that finish together in one statement', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    answers.set('/together', () => ({ hold: held }));
    const subscription = await subscribe('/together', { maxInFlight: 8 });
    const counts = await statementsDuring(async () => {
      await ingest(Array.from({ length: 8 }, () => costProposal()));
      await waitFor(() => receiver.open.get('/together') === 8, 'eight requests in flight');
      release();
      await settled(subscription.id, 'succeeded', 8);
    });
    // One record, or two when a loaded machine spreads the eight answers past the record's wait
    // (seen once in CI); each attempt recorded on its own would make eight.
    expect(counts.records).toBeLessThanOrEqual(2);
  });

  it('refills a busy lane once it runs low, not after every attempt', async () => {
    answers.set('/busy', () => ({ delayMs: 5 }));
    const subscription = await subscribe('/busy');
    const counts = await statementsDuring(async () => {
      await ingest(Array.from({ length: 96 }, () => costProposal()));
      await waitFor(
        async () => (await deliveries(subscription.id, '&state=succeeded&limit=100')).length === 96,
        '96 succeeded deliveries',
      );
    });
    // Four places and 32 held: a claim after every attempt made about one claim a delivery.
    expect(counts.claims).toBeLessThan(40);
    expect(receiver.maxOpen.get('/busy')).toBe(4);
  });
});
