/**
 * The documentation's "Messages" page: create, list and confirm, each example sent as documented
 * (a demo case's guid in place of the example's) and its answer checked against the documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { sendDocumented, useDocsHub } from './documented';
import { documentedExample, documentedShape } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const partner = DEMO_TOKENS.elkjop;
const provider = DEMO_TOKENS.nrc;

const PAGE = 'Messages';
const CREATE = 'POST /api/v3/case-messages/create';
const LIST = 'GET /api/v3/case-messages';
const CONFIRM = 'POST /api/v3/case-messages/confirm';

describe('POST /api/v3/case-messages/create', () => {
  it('answers the documented message record', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case-messages/create',
        token: partner,
        body: { ...(documentedExample(PAGE, CREATE, 'Example') as object), guid },
      },
      { status: 200, shape: documentedShape(PAGE, CREATE, 'Output') },
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
      { status: 400, shape: documentedShape(PAGE, CREATE, 'Error message') },
    );
    expect(res.body.error.message).toEqual(expect.any(String));
  });
});

describe('GET /api/v3/case-messages', () => {
  it('answers the documented list', async () => {
    const res = await sendDocumented(
      hub,
      { method: 'GET', path: `/api/v3/case-messages?guid=${guid}`, token: provider },
      { status: 200, shape: documentedShape(PAGE, LIST, 'Output'), options: { nullable: ['[].externalId'] } },
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
      { status: 200, shape: documentedShape(PAGE, CONFIRM, 'Error handling') },
    );
    expect(res.body.errors).toEqual([{ id: 2147483000, message: 'Not found' }]);
  });

  it('answers { error: { message } } for an invalid format', async () => {
    await sendDocumented(
      hub,
      { method: 'POST', path: '/api/v3/case-messages/confirm', token: provider, body: ['x'] },
      { status: 400, shape: documentedShape(PAGE, CONFIRM, 'Error handling', { index: 1 }) },
    );
  });
});
