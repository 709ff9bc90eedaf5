/**
 * The documentation's "Messages" page: create, list and confirm, each example sent as documented
 * (a demo case's guid in place of the example's) and its answer checked against the documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { sendDocumented, startDocsHub } from './documented';

let hub: TestHub;
let guid: string;
beforeAll(async () => {
  hub = await startDocsHub();
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});
afterAll(() => hub?.stop());

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;

/** A case message as the page documents it. */
const MESSAGE = {
  id: 1,
  caseId: 7748,
  guid: '1e0abcb7-b94c-4072-a9c0-37072a1ef015',
  senderAccountId: 1009,
  senderType: 'partner',
  content: 'Test message',
  type: 'serviceComment',
  externalId: 'test-42',
  confirmedAt: null,
  createdAt: '2017-07-26T14:02:02.170Z',
  updatedAt: '2017-07-26T14:02:02.170Z',
  declaredAt: '2017-07-25T10:12:54.003Z',
};

describe('POST /api/v3/case-messages/create', () => {
  it('answers the documented message record', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case-messages/create',
        token: partner,
        body: {
          guid,
          content: 'Test message',
          type: 'serviceComment',
          declaredAt: '2017-07-25T10:12:54.003Z',
          externalId: 'test-42',
        },
      },
      { status: 200, shape: MESSAGE },
    );
    expect(res.body).toMatchObject({ guid, senderType: 'partner', externalId: 'test-42' });
  });

  it('answers { error: { message } } when guid is missing', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case-messages/create',
        token: partner,
        body: { content: 'x', type: 'serviceComment' },
      },
      { status: 400, shape: { error: { message: 'child "guid" fails because ["guid" is required]' } } },
    );
    expect(res.body.error.message).toEqual(expect.any(String));
  });
});

describe('GET /api/v3/case-messages', () => {
  it('answers the documented list', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case-messages?guid=${guid}`, token: provider },
      {
        status: 200,
        shape: [{ ...MESSAGE, externalId: MESSAGE.externalId, confirmedAt: null }],
        options: { nullable: ['[].externalId'] },
      },
    );
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('POST /api/v3/case-messages/confirm', () => {
  it('confirms by id and reports the ids it could not process', async () => {
    const [message] = (await hub.request('GET', `/api/v3/case-messages?guid=${guid}`, { token: provider })).body;
    const res = await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case-messages/confirm', token: provider, body: [message.id, 2147483000] },
      { status: 200, shape: { success: true, errors: [{ id: 11, message: 'Not found' }], data: {} } },
    );
    expect(res.body.errors).toEqual([{ id: 2147483000, message: 'Not found' }]);
  });

  it('answers { error: { message } } for an invalid format', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case-messages/confirm', token: provider, body: ['x'] },
      { status: 400, shape: { error: { message: '"value" at position 0 fails because ["0" must be a number]' } } },
    );
  });
});
