/**
 * Parallel requests against one case, written once and run on the embedded database
 * (`approval-race.test.ts`) and on the Postgres server (`approval-race.infra.test.ts`), where
 * the transactions really interleave.
 */
import { databaseOf } from '../../../shared/src';
import { startTestHub, type TestHub } from '../../../test/support/hub';
import { CASE_SERVICES, openCase } from './support';

const ROUNDS = 5;
const PROPOSALS_PER_CASE = 4;

export function approvalRaceSuite(infra: boolean): void {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ services: CASE_SERVICES, infra, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(() => hub.stop());

  it('approvals of different proposals of one case at the same moment leave exactly one approved', async () => {
    const knex = (await databaseOf(hub.broker)).knex;
    for (let round = 0; round < ROUNDS; round++) {
      const kase = await openCase(hub);
      const posted = await hub.request('POST', '/api/v3/cost-proposals', {
        token: kase.providerToken,
        body: Array.from({ length: PROPOSALS_PER_CASE }, (_, i) => ({ guid: kase.guid, name: `Offer ${i}` })),
      });
      expect(posted.status).toBe(200);
      const ids: number[] = posted.body.data.map((p: { id: number }) => p.id);

      const answers = await Promise.all(
        ids.map((id) =>
          hub.request('POST', '/api/v3/cost-proposals/feedback', {
            token: kase.partnerToken,
            body: { id, name: `Approver ${id}`, reaction: 'approved' },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));

      const listed = await hub.request('GET', `/api/v3/cost-proposals?guid=${kase.guid}`, { token: kase.partnerToken });
      expect(listed.status).toBe(200);
      const approved = listed.body.filter((p: { reaction: string | null }) => p.reaction === 'approved');
      expect(approved).toHaveLength(1);
      expect(listed.body.filter((p: { reaction: string | null }) => p.reaction === null)).toHaveLength(
        PROPOSALS_PER_CASE - 1,
      );
      // Every approval happened (and was told), each taking the approval from the one before.
      expect(
        await knex('cost_proposals.outbox').where({ type: 'costProposal.reacted', case_guid: kase.guid }),
      ).toHaveLength(PROPOSALS_PER_CASE);
    }
  });

  it('the same new (externalId, name) sent twice at once makes one proposal', async () => {
    const knex = (await databaseOf(hub.broker)).knex;
    const kase = await openCase(hub);
    const body = [{ guid: kase.guid, externalId: [`race-${kase.guid}`], name: 'Repair', priceNet: 10 }];
    const answers = await Promise.all(
      [1, 2, 3].map(() => hub.request('POST', '/api/v3/cost-proposals', { token: kase.providerToken, body })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.data[0].id)).size).toBe(1);
    expect(
      await knex('cost_proposals.outbox').where({ type: 'costProposal.created', case_guid: kase.guid }),
    ).toHaveLength(1);
  });
}
