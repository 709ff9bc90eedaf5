/**
 * The documentation's "Cost proposals" page (v3, and the deprecated v1 forms it still lists):
 * each example sent as documented (a demo case's guid in place of the example's) and its answer
 * checked against the documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, sendDocumented, startDocsHub } from './documented';

let hub: TestHub;
let guid: string;
beforeAll(async () => {
  hub = await startDocsHub();
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});
afterAll(() => hub?.stop());

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;

/** A v3 cost proposal as the page's GET example shows one. */
const PROPOSAL = {
  currency: 'SEK',
  details: [{ line: 1, priceNet: 100, quantity: 0, text: 'shipping', type: ANY }],
  externalId: ['654321', 'test'],
  guid: 'c41cb189-e901-4c1e-8133-1ee630a7fa56',
  isActive: true,
  name: 'Scrap',
  priceNet: 100,
  timeStamp: '2019-03-28 00:00:00.000',
};

/** The page's POST example, on the demo case. */
const example = () => [
  {
    guid,
    externalId: ['123456', 'test'],
    name: 'Scrap',
    priceNet: 1860.5,
    currency: 'SEK',
    timeStamp: '2017-07-12 13:14:13.037',
    isActive: true,
    comment: 'Some text',
    details: [{ line: 1, text: 'Two-way delivery', type: 'shipping', priceNet: 100, quantity: 1 }],
  },
];

describe('POST /api/v3/cost-proposals', () => {
  it('creates from the documented example and answers { data: [...] }', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/cost-proposals', token: provider, body: example() },
      { status: 200, shape: { data: [PROPOSAL] } },
    );
    expect(res.body.data[0]).toMatchObject({
      guid,
      name: 'Scrap',
      priceNet: 1860.5,
      timeStamp: '2017-07-12 13:14:13.037',
    });
  });
});

describe('GET /api/v3/cost-proposals', () => {
  it('answers the documented list for the example query', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/cost-proposals?guid=${guid}&active=true`, token: partner },
      { status: 200, shape: [PROPOSAL] },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('POST /api/v3/cost-proposals/feedback', () => {
  it('approves with the documented example and answers the cost proposal', async () => {
    const [proposal] = (await hub.request('GET', `/api/v3/cost-proposals?guid=${guid}`, { token: partner })).body;
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/cost-proposals/feedback',
        token: partner,
        body: { id: proposal.id, name: 'John Smith', reaction: 'approved', comment: 'Optional comment' },
      },
      {
        status: 200,
        shape: {
          ...PROPOSAL,
          reaction: 'approved',
          reactionDate: '2019-03-28 00:00:00.000',
          reactionName: 'John Smith',
        },
      },
    );
    expect(res.body).toMatchObject({ reaction: 'approved', reactionName: 'John Smith' });
    // As the page's record shows it: `2019-03-28 00:00:00.000`.
    expect(res.body.reactionDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
  });
});

describe('the deprecated v1 forms', () => {
  it('GET /api/v1/cost-proposals answers the v1 record', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v1/cost-proposals?guid=${guid}&active=true`, token: partner },
      {
        status: 200,
        shape: [
          {
            id: 2,
            externalId: ['123456', 'test'],
            name: 'repair',
            priceNet: '600.00',
            currency: 'SEK',
            dateValidUntil: ANY,
            isActive: true,
            dateAccepted: ANY,
            approverName: ANY,
            details: ANY,
          },
        ],
      },
    );
  });

  it('POST /api/v1/cost-proposals/approve answers { data: cost proposal }', async () => {
    const [proposal] = (await hub.request('GET', `/api/v1/cost-proposals?guid=${guid}`, { token: partner })).body;
    await sendDocumented(
      hub,
      {
        method: 'POST',
        path: `/api/v1/cost-proposals/approve?id=${proposal.id}`,
        token: partner,
        body: { approverName: 'John Smith' },
      },
      {
        status: 200,
        shape: { data: { id: 2, name: 'repair', dateAccepted: '2017-07-14T10:14:13.037Z', approverName: 'Somebody' } },
      },
    );
  });
});
