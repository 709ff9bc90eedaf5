/**
 * Cost proposals through the gateway: every row of the spec's state table, the v1 forms, who
 * may reach a proposal, validation, and the events written to the outbox.
 */
import type { Knex } from 'knex';
import { databaseOf, OLDER_VERSIONS_DEPRECATION } from '../../../shared/src';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { openCase, type OpenCase, CASE_SERVICES } from './support';

let hub: TestHub;
let knex: Knex;

beforeAll(async () => {
  hub = await startTestHub({ services: CASE_SERVICES, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  knex = (await databaseOf(hub.broker)).knex;
});
afterAll(() => hub.stop());

let extCounter = 0;
const newExternalId = () => [`EXT-${Date.now()}-${++extCounter}`];

async function post(kase: OpenCase, proposals: object[], expected = 200) {
  const res = await hub.request('POST', '/api/v3/cost-proposals', {
    token: kase.providerToken,
    body: proposals.map((p) => ({ guid: kase.guid, ...p })),
  });
  expect(res.status).toBe(expected);
  return res.body;
}

async function list(kase: OpenCase, query = '', token = kase.partnerToken) {
  const res = await hub.request('GET', `/api/v3/cost-proposals?guid=${kase.guid}${query}`, { token });
  expect(res.status).toBe(200);
  return res.body as any[];
}

async function feedback(token: string, body: object, expected = 200) {
  const res = await hub.request('POST', '/api/v3/cost-proposals/feedback', { token, body });
  expect(res.status).toBe(expected);
  return res.body;
}

function outbox(type: string, caseGuid: string) {
  return knex('cost_proposals.outbox').where({ type, case_guid: caseGuid }).orderBy('id');
}

const repair = () => ({
  externalId: newExternalId(),
  name: 'Repair',
  priceNet: 1234.5,
  currency: 'NOK',
  timeStamp: '2024-05-01 10:15:30.123',
  comment: 'Display replacement',
  dateValidUntil: '2024-06-01',
  details: [
    { text: 'Display', type: 'sparePart', priceNet: 1000, quantity: 1 },
    { text: 'Work', type: 'labor', priceNet: 234.5, quantity: 1 },
  ],
});

describe('creating and listing', () => {
  it('creates proposals, answers them in the spec shape, and lists them oldest first', async () => {
    const kase = await openCase(hub);
    const first = repair();
    const created = await post(kase, [first, { name: 'Scrap', priceNet: 99 }]);
    expect(created.data).toHaveLength(2);
    const [record] = created.data;
    expect(record).toEqual({
      id: expect.any(Number),
      guid: kase.guid,
      externalId: first.externalId,
      name: 'Repair',
      priceNet: 1234.5,
      currency: 'NOK',
      timeStamp: '2024-05-01 10:15:30.123',
      isActive: true,
      reaction: null,
      reactionDate: null,
      reactionName: null,
      comment: 'Display replacement',
      dateValidUntil: '2024-06-01',
      details: [
        { line: 1, text: 'Display', type: 'sparePart', priceNet: 1000, quantity: 1 },
        { line: 2, text: 'Work', type: 'labor', priceNet: 234.5, quantity: 1 },
      ],
      serviceProviderId: kase.providerId,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(created.data[1]).toMatchObject({
      name: 'Scrap',
      priceNet: 99,
      externalId: null,
      currency: null,
      details: null,
    });

    const listed = await list(kase);
    expect(listed.map((p) => p.id)).toEqual([record.id, created.data[1].id]);
    expect(listed[0]).toEqual(record);
    expect(await list(kase, '', kase.providerToken)).toEqual(listed);
  });

  it('refuses bad fields with the validation envelope and stores nothing', async () => {
    const kase = await openCase(hub);
    const bad = await post(
      kase,
      [{ name: 'Repair', currency: 'nok', timeStamp: '2024-05-01T10:15:30Z', priceNet: 'ten' }],
      400,
    );
    expect(bad).toEqual({
      error: {
        message: 'Fields validation failed',
        details: { '[0].currency': ['Wrong format'], '[0].priceNet': ['Wrong format'] },
      },
    });
    const semantic = await post(
      kase,
      [{ name: 'Ok' }, { name: 'Repair', timeStamp: '2024-02-30 10:00:00.000', priceNet: 1.005 }],
      400,
    );
    expect(semantic.error.details).toEqual({ '[1].timeStamp': ['Wrong format'], '[1].priceNet': ['Wrong format'] });
    const missing = await hub.request('POST', '/api/v3/cost-proposals', {
      token: kase.providerToken,
      body: [{ name: 'Repair' }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual({ '[0].guid': ['Field is required'] });
    expect(await list(kase)).toEqual([]);
  });

  it('keeps the currency when it is three capital letters and the timeStamp in the spec form', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [{ name: 'Repair', currency: 'SEK', timeStamp: '2024-02-29 23:59:59.999' }]);
    expect(data[0]).toMatchObject({ currency: 'SEK', timeStamp: '2024-02-29 23:59:59.999' });
  });
});

describe('state table', () => {
  it('no reaction -> approved by feedback, with reactionDate and reactionName set', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair()]);
    const before = Date.now();
    const approved = await feedback(kase.partnerToken, {
      id: data[0].id,
      name: 'Kari Nordmann',
      reaction: 'approved',
      comment: 'Go ahead',
    });
    expect(approved).toMatchObject({
      id: data[0].id,
      reaction: 'approved',
      reactionName: 'Kari Nordmann',
      comment: 'Go ahead',
      isActive: true,
    });
    // The documented `YYYY-MM-DD HH:mm:ss.SSS`, in UTC.
    expect(approved.reactionDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(Date.parse(`${approved.reactionDate.replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(before - 1000);
    expect((await list(kase))[0]).toEqual(approved);
  });

  it('approving another proposal of the case takes the approval from the first', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair(), { externalId: newExternalId(), name: 'RUR', priceNet: 300 }]);
    await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    await feedback(kase.partnerToken, { id: data[1].id, name: 'Kari', reaction: 'approved' });
    const [first, second] = await list(kase);
    expect(second).toMatchObject({ reaction: 'approved', reactionName: 'Kari' });
    expect(first).toMatchObject({ reaction: null, reactionDate: null, reactionName: null, comment: null });
  });

  it('approving a proposal of another case leaves this case approval alone', async () => {
    const one = await openCase(hub);
    const two = await openCase(hub);
    const a = (await post(one, [repair()])).data[0];
    const b = (await post(two, [repair()])).data[0];
    await feedback(one.partnerToken, { id: a.id, name: 'Kari', reaction: 'approved' });
    await feedback(two.partnerToken, { id: b.id, name: 'Kari', reaction: 'approved' });
    expect((await list(one))[0].reaction).toBe('approved');
  });

  it('no reaction -> rejected by feedback', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair()]);
    const rejected = await feedback(kase.partnerToken, {
      id: data[0].id,
      name: 'Kari',
      reaction: 'rejected',
      comment: 'Too expensive',
    });
    expect(rejected).toMatchObject({
      reaction: 'rejected',
      reactionName: 'Kari',
      comment: 'Too expensive',
      reactionDate: expect.any(String),
    });
  });

  it('refuses a reaction that is neither approved nor rejected', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair()]);
    const res = await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'maybe' }, 400);
    expect(res.error.details).toEqual({ reaction: ['Value is not present in possible options'] });
    expect((await list(kase))[0].reaction).toBeNull();
  });

  it('a second reaction: the same again changes nothing, a different one is refused with 409', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair(), { externalId: newExternalId(), name: 'Scrap' }]);
    const approved = await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    const repeated = await feedback(kase.partnerToken, {
      id: data[0].id,
      name: 'Ola',
      reaction: 'approved',
      comment: 'again',
    });
    expect(repeated).toEqual(approved);
    const changed = await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'rejected' }, 409);
    expect(changed.error.message).toBe('The cost proposal already has a different reaction');

    await feedback(kase.partnerToken, { id: data[1].id, name: 'Kari', reaction: 'rejected' });
    await feedback(kase.partnerToken, { id: data[1].id, name: 'Kari', reaction: 'approved' }, 409);
    const [first, second] = await list(kase);
    expect(first).toEqual(approved);
    expect(second.reaction).toBe('rejected');
    expect(await outbox('costProposal.reacted', kase.guid)).toHaveLength(2);
  });

  it('any -> updated in place when the provider sends the same (externalId, name) again', async () => {
    const kase = await openCase(hub);
    const original = repair();
    const { data } = await post(kase, [original]);
    await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    const updated = await post(kase, [{ externalId: original.externalId, name: 'Repair', priceNet: 1500 }]);
    expect(updated.data[0]).toMatchObject({
      id: data[0].id,
      priceNet: 1500,
      currency: 'NOK',
      reaction: 'approved',
      reactionName: 'Kari',
    });
    expect(await list(kase)).toHaveLength(1);
    expect(await outbox('costProposal.created', kase.guid)).toHaveLength(1);

    // The same externalId under another name is another proposal.
    const other = await post(kase, [{ externalId: original.externalId, name: 'Scrap' }]);
    expect(other.data[0].id).not.toBe(data[0].id);
    expect(await list(kase)).toHaveLength(2);
  });

  it('refuses reusing (externalId, name) of one case on another case', async () => {
    const one = await openCase(hub);
    const two = await openCase(hub, one.partnerToken);
    expect(two.providerId).toBe(one.providerId);
    const original = repair();
    await post(one, [original]);
    const res = await post(two, [{ externalId: original.externalId, name: 'Repair' }], 400);
    expect(res.error.details).toEqual({
      '[0].externalId': ['This externalId and name belong to a cost proposal of another case'],
    });
    expect(await list(two)).toEqual([]);
  });

  it('any -> removed by delete', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair(), { name: 'Scrap' }]);
    await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    const res = await hub.request('POST', '/api/v3/cost-proposals/delete', {
      token: kase.partnerToken,
      body: { id: data[0].id },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: data[0].id, guid: kase.guid, reaction: 'approved', name: 'Repair' });
    expect((await list(kase)).map((p) => p.id)).toEqual([data[1].id]);
    const again = await hub.request('POST', '/api/v3/cost-proposals/delete', {
      token: kase.providerToken,
      body: { id: data[0].id },
    });
    expect(again.status).toBe(404);
    const byProvider = await hub.request('POST', '/api/v3/cost-proposals/delete', {
      token: kase.providerToken,
      body: { id: data[1].id },
    });
    expect(byProvider.status).toBe(200);
    expect(await list(kase)).toEqual([]);
  });

  it('a newer proposal of the same name makes the older inactive, which can then not be approved', async () => {
    const kase = await openCase(hub);
    const older = (await post(kase, [repair(), { name: 'Scrap' }])).data;
    const newer = (await post(kase, [{ ...repair(), priceNet: 900 }])).data[0];
    const [oldRepair, scrap, newRepair] = await list(kase);
    expect(oldRepair).toMatchObject({ id: older[0].id, isActive: false });
    expect(scrap).toMatchObject({ id: older[1].id, isActive: true });
    expect(newRepair).toMatchObject({ id: newer.id, isActive: true });

    const refused = await feedback(kase.partnerToken, { id: oldRepair.id, name: 'Kari', reaction: 'approved' }, 409);
    expect(refused.error.message).toBe('Only an active cost proposal can be approved');
    expect((await list(kase, '&active=true')).map((p) => p.id)).toEqual([scrap.id, newRepair.id]);
    await feedback(kase.partnerToken, { id: newRepair.id, name: 'Kari', reaction: 'approved' });
    await feedback(kase.partnerToken, { id: oldRepair.id, name: 'Kari', reaction: 'rejected' });
  });

  it('active=true lists what may be approved: active and not rejected', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [{ name: 'A' }, { name: 'B' }, { name: 'C', isActive: false }]);
    await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    await feedback(kase.partnerToken, { id: data[1].id, name: 'Kari', reaction: 'rejected' });
    expect((await list(kase, '&active=true')).map((p) => p.name)).toEqual(['A']);
    expect((await list(kase, '&active=false')).map((p) => p.name)).toEqual(['A', 'B', 'C']);
  });

  it('a provider posting an approval is held to the same rules', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair()]);
    await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    const imported = await post(kase, [
      { name: 'RUR', reaction: 'approved', reactionName: 'Phone call', reactionDate: '2024-05-02T08:00:00Z' },
    ]);
    expect(imported.data[0]).toMatchObject({
      reaction: 'approved',
      reactionName: 'Phone call',
      reactionDate: '2024-05-02 08:00:00.000',
    });
    expect((await list(kase))[0].reaction).toBeNull();
    const inactive = await post(kase, [{ name: 'Scrap', isActive: false, reaction: 'approved' }], 400);
    expect(inactive.error.details).toEqual({ '[0].reaction': ['Only an active cost proposal can be approved'] });
    expect(await list(kase)).toHaveLength(2);
  });

  it('a provider posting a known proposal cannot replace or clear the reaction it has', async () => {
    const kase = await openCase(hub);
    const proposal = repair();
    const { data } = await post(kase, [proposal]);
    await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    for (const reaction of ['rejected', null]) {
      const refused = await post(kase, [{ ...proposal, reaction }], 400);
      expect(refused.error.details).toEqual({ '[0].reaction': ['The cost proposal already has a different reaction'] });
    }
    const [kept] = await list(kase);
    expect(kept).toMatchObject({ reaction: 'approved', reactionName: 'Kari' });
    // The same reaction again, with other fields, is an update like any other.
    const again = await post(kase, [{ ...proposal, reaction: 'approved', priceNet: 99 }]);
    expect(again.data[0]).toMatchObject({ reaction: 'approved', reactionName: 'Kari', priceNet: 99 });
  });
});

describe('v1 forms', () => {
  it('lists with priceNet as a string, dateAccepted and approverName, and a Deprecation header', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair(), { name: 'Scrap' }]);
    const approved = await feedback(kase.partnerToken, { id: data[0].id, name: 'Kari', reaction: 'approved' });
    const res = await hub.request('GET', `/api/v1/cost-proposals?guid=${kase.guid}`, { token: kase.partnerToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
    expect(res.body[0]).toEqual({
      id: data[0].id,
      externalId: data[0].externalId,
      name: 'Repair',
      priceNet: '1234.50',
      currency: 'NOK',
      dateValidUntil: '2024-06-01',
      isActive: true,
      dateAccepted: new Date(`${approved.reactionDate.replace(' ', 'T')}Z`).toISOString(),
      approverName: 'Kari',
      details: data[0].details,
      createdAt: data[0].createdAt,
      updatedAt: approved.updatedAt,
      serviceProviderId: kase.providerId,
    });
    expect(res.body[1]).toMatchObject({ priceNet: null, dateAccepted: null, approverName: null });
    const active = await hub.request('GET', `/api/v1/cost-proposals?guid=${kase.guid}&active=true`, {
      token: kase.providerToken,
    });
    expect(active.status).toBe(200);
    expect(active.body).toHaveLength(2);
  });

  it('the v3 answers carry no Deprecation header', async () => {
    const kase = await openCase(hub);
    const res = await hub.request('GET', `/api/v3/cost-proposals?guid=${kase.guid}`, { token: kase.partnerToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBeNull();
  });

  it('approves with id in the query and approverName in the body, by the v3 rules', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair(), { name: 'RUR' }]);
    await feedback(kase.partnerToken, { id: data[1].id, name: 'Kari', reaction: 'approved' });
    const res = await hub.request('POST', `/api/v1/cost-proposals/approve?id=${data[0].id}`, {
      token: kase.partnerToken,
      body: { approverName: 'Ola' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
    expect(res.body).toEqual({
      data: expect.objectContaining({
        id: data[0].id,
        approverName: 'Ola',
        dateAccepted: expect.any(String),
        priceNet: '1234.50',
      }),
    });
    const [first, second] = await list(kase);
    expect(first).toMatchObject({ reaction: 'approved', reactionName: 'Ola' });
    expect(second.reaction).toBeNull();

    const missingName = await hub.request('POST', `/api/v1/cost-proposals/approve?id=${data[0].id}`, {
      token: kase.partnerToken,
      body: {},
    });
    expect(missingName.status).toBe(400);
    expect(missingName.body.error.details).toEqual({ approverName: ['Field is required'] });
    const rejected = (await post(kase, [{ name: 'Scrap' }])).data[0];
    await feedback(kase.partnerToken, { id: rejected.id, name: 'Kari', reaction: 'rejected' });
    const refused = await hub.request('POST', `/api/v1/cost-proposals/approve?id=${rejected.id}`, {
      token: kase.partnerToken,
      body: { approverName: 'Ola' },
    });
    expect(refused.status).toBe(409);
  });

  it('creates with dateAccepted and approverName in place of the reaction fields', async () => {
    const kase = await openCase(hub);
    const res = await hub.request('POST', '/api/v1/cost-proposals', {
      token: kase.providerToken,
      body: [
        { guid: kase.guid, name: 'Repair', priceNet: 10.5, dateAccepted: '2024-05-02T08:00:00Z', approverName: 'Kari' },
        { guid: kase.guid, name: 'Scrap', priceNet: 1 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(OLDER_VERSIONS_DEPRECATION);
    expect(res.body.data[0]).toMatchObject({
      name: 'Repair',
      priceNet: '10.50',
      dateAccepted: '2024-05-02T08:00:00.000Z',
      approverName: 'Kari',
    });
    expect(res.body.data[0]).not.toHaveProperty('reaction');
    expect(res.body.data[1]).toMatchObject({ name: 'Scrap', dateAccepted: null, approverName: null });
    const [repairV3] = await list(kase);
    expect(repairV3).toMatchObject({
      reaction: 'approved',
      reactionName: 'Kari',
      reactionDate: '2024-05-02 08:00:00.000',
    });

    const partner = await hub.request('POST', '/api/v1/cost-proposals', {
      token: kase.partnerToken,
      body: [{ guid: kase.guid, name: 'X' }],
    });
    expect(partner.status).toBe(403);
  });
});

describe('access', () => {
  it.each([
    ['Elkjøp', DEMO_TOKENS.elkjop],
    ['Trygg', DEMO_TOKENS.trygg],
  ])('hides a case of %s from another partner and another provider as 404', async (_name, partnerToken) => {
    const kase = await openCase(hub, partnerToken);
    const { data } = await post(kase, [repair()]);
    for (const token of [kase.otherPartnerToken, kase.otherProviderToken]) {
      for (const path of [`/api/v3/cost-proposals?guid=${kase.guid}`, `/api/v1/cost-proposals?guid=${kase.guid}`]) {
        const res = await hub.request('GET', path, { token });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { message: 'Case not found' } });
      }
      for (const [path, body] of [
        ['/api/v3/cost-proposals/feedback', { id: data[0].id, name: 'X', reaction: 'approved' }],
        ['/api/v3/cost-proposals/delete', { id: data[0].id }],
        [`/api/v1/cost-proposals/approve?id=${data[0].id}`, { approverName: 'X' }],
      ] as const) {
        const res = await hub.request('POST', path, { token, body });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { message: 'Cost proposal not found' } });
      }
    }
    const [unchanged] = await list(kase);
    expect(unchanged).toEqual(data[0]);
  });

  it('lets a provider post only on cases routed to it', async () => {
    const kase = await openCase(hub, DEMO_TOKENS.trygg);
    expect(kase.providerId).toBe(20);
    const res = await hub.request('POST', '/api/v3/cost-proposals', {
      token: kase.otherProviderToken,
      body: [{ guid: kase.guid, name: 'Repair' }],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'Case not found' } });
    expect(await list(kase)).toEqual([]);
  });

  it('answers an unknown case or proposal with 404', async () => {
    const kase = await openCase(hub);
    const unknown = '7d1b1c52-3a0e-4d5f-8a3b-2c1d0e9f8a7b';
    expect(
      (await hub.request('GET', `/api/v3/cost-proposals?guid=${unknown}`, { token: kase.partnerToken })).status,
    ).toBe(404);
    expect(
      (
        await hub.request('POST', '/api/v3/cost-proposals', {
          token: kase.providerToken,
          body: [{ guid: unknown, name: 'R' }],
        })
      ).status,
    ).toBe(404);
    const feedbackRes = await hub.request('POST', '/api/v3/cost-proposals/feedback', {
      token: kase.partnerToken,
      body: { id: 999999, name: 'X', reaction: 'approved' },
    });
    expect(feedbackRes.status).toBe(404);
    expect(feedbackRes.body).toEqual({ error: { message: 'Cost proposal not found' } });
  });

  it('refuses the wrong access level with 403', async () => {
    const kase = await openCase(hub);
    const byPartner = await hub.request('POST', '/api/v3/cost-proposals', {
      token: kase.partnerToken,
      body: [{ guid: kase.guid, name: 'R' }],
    });
    expect(byPartner.status).toBe(403);
    const byAdmin = await hub.request('GET', `/api/v3/cost-proposals?guid=${kase.guid}`, { token: DEMO_TOKENS.admin });
    expect(byAdmin.status).toBe(403);
    const feedbackByAdmin = await hub.request('POST', '/api/v3/cost-proposals/feedback', {
      token: DEMO_TOKENS.admin,
      body: { id: 1, name: 'X', reaction: 'approved' },
    });
    expect(feedbackByAdmin.status).toBe(403);
    expect(await list(kase)).toEqual([]);
  });

  it('lets the case provider react too', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair()]);
    const res = await feedback(kase.providerToken, {
      id: data[0].id,
      name: 'Workshop on the phone',
      reaction: 'approved',
    });
    expect(res.reaction).toBe('approved');
  });
});

describe('events', () => {
  it('writes costProposal.created for the partner with the record, for new proposals only', async () => {
    const kase = await openCase(hub);
    const proposal = repair();
    const { data } = await post(kase, [proposal]);
    await post(kase, [{ externalId: proposal.externalId, name: 'Repair', priceNet: 1 }]);
    const events = await outbox('costProposal.created', kase.guid);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.audience).toEqual({ partnerId: kase.partnerId });
    const payload = event.payload;
    expect(payload.id).toBe(data[0].id);
    expect(payload.guid).toBe(kase.guid);
    expect(payload.externalId).toEqual(proposal.externalId);
    expect(payload.name).toBe('Repair');
    expect(payload.priceNet).toBe(1234.5);
    expect(payload.currency).toBe('NOK');
    expect(payload.isActive).toBe(true);
    expect(payload.dateValidUntil).toBe('2024-06-01');
    expect(payload.reaction).toBeNull();
    expect(payload.comment).toBe('Display replacement');
    expect(payload.reactionDate).toBeNull();
    expect(payload.reactionName).toBeNull();
    expect(payload.details).toEqual(data[0].details);
    expect(payload.createdAt).toBe(data[0].createdAt);
    expect(payload.updatedAt).toBe(data[0].createdAt);
    expect(payload.serviceProviderId).toBe(kase.providerId);
  });

  it('writes costProposal.reacted for the provider after each reaction', async () => {
    const kase = await openCase(hub);
    const { data } = await post(kase, [repair(), { name: 'Scrap' }]);
    const approved = await feedback(kase.partnerToken, {
      id: data[0].id,
      name: 'Kari',
      reaction: 'approved',
      comment: 'ok',
    });
    const rejected = await feedback(kase.partnerToken, { id: data[1].id, name: 'Kari', reaction: 'rejected' });
    const events = await outbox('costProposal.reacted', kase.guid);
    expect(events.map((e) => e.audience)).toEqual([{ providerId: kase.providerId }, { providerId: kase.providerId }]);
    const payload = events[0].payload;
    expect(payload.id).toBe(data[0].id);
    expect(payload.guid).toBe(kase.guid);
    expect(payload.reaction).toBe('approved');
    expect(payload.reactionName).toBe('Kari');
    expect(payload.reactionDate).toBe(approved.reactionDate);
    expect(payload.comment).toBe('ok');
    expect(payload.updatedAt).toBe(approved.updatedAt);
    expect(events[1].payload).toEqual(rejected);
  });

  it('writes no event when a request fails', async () => {
    const kase = await openCase(hub);
    await post(kase, [{ name: 'Repair' }, { name: 'Scrap', isActive: false, reaction: 'approved' }], 400);
    expect(await outbox('costProposal.created', kase.guid)).toEqual([]);
    expect(await list(kase)).toEqual([]);
  });
});
