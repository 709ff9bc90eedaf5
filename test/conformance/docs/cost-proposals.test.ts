/**
 * The documentation's "Cost proposals" page (v3, and the deprecated v1 forms it still lists):
 * each example read from the page and sent as documented (a demo case's guid and the proposal's
 * id in place of the example's), its answer checked against the page's example answer.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { type DocumentedShape, sendDocumented, useDocsHub } from './documented';
import { documentedExample, documentedShape, examples } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const PAGE = 'Cost proposals';
const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;

/** The page's proposals show a reaction only where there is one; the hub answers null where there is none. */
const UNREACTED = { nullable: ['[].reaction', '[].reactionDate', '[].reactionName'] };
/** One proposal as the GET's list shows each (the page's first, an approved one). */
const proposalShape = () => (documentedShape(PAGE, 'GET /api/v3/cost-proposals', 'Output') as DocumentedShape[])[0];
const unreacted = (prefix: string) => ({ nullable: UNREACTED.nullable.map((path) => path.replace('[]', prefix)) });

/** The page's POST example, on the demo case. */
const postExample = () =>
  (documentedExample(PAGE, 'POST api/v3/cost-proposals', 'Example') as Array<Record<string, unknown>>).map(
    (proposal): Record<string, unknown> => ({ ...proposal, guid }),
  );

/** The first proposal of the demo case, as the GET answers it. */
const firstProposal = async (version = 'v3') =>
  (await hub.request('GET', `/api/${version}/cost-proposals?guid=${guid}`, { token: partner })).body[0];

describe('POST /api/v3/cost-proposals', () => {
  it("creates from the page's example and answers { data: [...] } of proposals", async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/cost-proposals', token: provider, body: postExample() },
      { status: 200, shape: documentedShape(PAGE, 'POST api/v3/cost-proposals', 'Output') },
    );
    // "List of created Cost Proposals v3": each as the GET shows one.
    for (const proposal of res.body.data) expect(proposal).toEqual(expect.objectContaining({ guid }));
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/cost-proposals', token: provider, body: postExample() },
      { status: 200, shape: { data: [proposalShape()] }, options: unreacted('data[]') },
    );
    const [sent] = postExample();
    expect(res.body.data[0]).toMatchObject({
      name: sent.name,
      priceNet: sent.priceNet,
      timeStamp: sent.timeStamp,
      reaction: sent.reaction,
      reactionDate: sent.reactionDate,
      reactionName: sent.reactionName,
      comment: sent.comment,
    });
  });
});

describe('GET /api/v3/cost-proposals', () => {
  it('answers the documented list for the example query', async () => {
    const query = examples(PAGE, 'GET /api/v3/cost-proposals', 'Example')[0].trim();
    const path = query.replace(/accessToken=[^&]*&/, '').replace(/guid=[0-9a-f-]+/, `guid=${guid}`);
    const res = await sendDocumented(
      hub,
      { method: 'GET', path, token: partner },
      { status: 200, shape: documentedShape(PAGE, 'GET /api/v3/cost-proposals', 'Output'), options: UNREACTED },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('POST /api/v3/cost-proposals/feedback and delete', () => {
  // "Same as here" links to the GET's list; the hub answers the one proposal (docs/compatibility.md).
  it("approves with the page's example and answers the proposal as the GET shows one", async () => {
    const { id } = await firstProposal();
    const example = documentedExample(PAGE, 'POST /api/v3/cost-proposals/feedback', 'Example') as Record<
      string,
      unknown
    >;
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/cost-proposals/feedback', token: partner, body: { ...example, id } },
      { status: 200, shape: proposalShape() },
    );
    expect(res.body).toMatchObject({ id, reaction: example.reaction, reactionName: example.name });
    expect(res.body.reactionDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
  });

  it("deletes with the page's example and answers the proposal as it was", async () => {
    const { id } = await firstProposal();
    const example = documentedExample(PAGE, 'POST /api/v3/cost-proposals/delete', 'Example') as Record<string, unknown>;
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/cost-proposals/delete', token: provider, body: { ...example, id } },
      { status: 200, shape: proposalShape(), options: { nullable: ['reaction', 'reactionDate', 'reactionName'] } },
    );
    expect(res.body.id).toBe(id);
    const left = await hub.request('GET', `/api/v3/cost-proposals?guid=${guid}`, { token: partner });
    expect(left.body.map((proposal: { id: number }) => proposal.id)).not.toContain(id);
  });
});

describe('the deprecated v1 forms', () => {
  const V1_GET = 'GET /api/v1/cost-proposals – Deprecated';
  const V1_APPROVE = 'POST api/v1/cost-proposals/approve – Deprecated';
  const V1_POST = 'POST api/v1/cost-proposals – Deprecated';

  it("POST /api/v1/cost-proposals creates from the page's example and answers { data: [...] }", async () => {
    const body = (documentedExample(PAGE, V1_POST, 'Example') as Array<Record<string, unknown>>).map((proposal) => ({
      ...proposal,
      guid,
      externalId: ['v1-example'],
    }));
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v1/cost-proposals', token: provider, body },
      { status: 200, shape: documentedShape(PAGE, V1_POST, 'Output') },
    );
  });

  it('GET /api/v1/cost-proposals answers the v1 record', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v1/cost-proposals?guid=${guid}&active=true`, token: partner },
      {
        status: 200,
        shape: documentedShape(PAGE, V1_GET, 'Output'),
        options: { nullable: ['[].details'] },
      },
    );
  });

  it('POST /api/v1/cost-proposals/approve answers { data: cost proposal }', async () => {
    const { id } = await firstProposal('v1');
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: `/api/v1/cost-proposals/approve?id=${id}`,
        token: partner,
        body: documentedExample(PAGE, V1_APPROVE, 'Example'),
      },
      { status: 200, shape: documentedShape(PAGE, V1_APPROVE, 'Output') },
    );
    // "Cost Proposal v1": as the v1 GET shows one.
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v1/cost-proposals?guid=${guid}`, token: partner },
      { status: 200, shape: documentedShape(PAGE, V1_GET, 'Output'), options: { nullable: ['[].details'] } },
    );
    expect(res.body.data).toMatchObject({ id, approverName: 'John Smith' });
  });
});
