/**
 * The documentation's "Other" page: the completed email, routing and the request log, each
 * example sent as documented (demo world ids) and its answer checked against the documented shape.
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

describe('POST /api/v3/case/send-completed-email', () => {
  it('answers { data: { result } }, a message when emails cannot be sent', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/send-completed-email',
        token: partner,
        body: { guid, email: 'test@example.com' },
      },
      { status: 200, shape: { data: { result: ANY } } },
    );
    expect(['boolean', 'string']).toContain(typeof res.body.data.result);
  });
});

describe('GET /api/v3/routing', () => {
  it('answers 400 with paramsNeeded when data is not enough', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/routing?originatorType=private', token: partner },
      { status: 400, shape: { error: 'Not enough data', data: { paramsNeeded: ['manufacturer'] } } },
    );
  });

  it('answers 404 with "Can\'t process this case" when no competence fits', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'GET',
        path: '/api/v3/routing?originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=5&productType=2&clientPostalCode=0150&serviceLocation=3',
        token: partner,
      },
      { status: 404, shape: { error: { message: "Can't process this case" }, data: null } },
    );
    expect(res.body.error.message).toBe("Can't process this case");
  });
});

describe('POST /api/v3/requests/log', () => {
  it('stores the documented example and answers the external request', async () => {
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/requests/log',
        token: partner,
        body: {
          type: 'testRequest',
          status: 'success',
          url: 'https://umbarov.com/',
          meta: { caseId: read.body.id },
          request: '{}',
          response: 'Some cool content',
        },
      },
      { status: 200, shape: { id: 1, type: 'testRequest', status: 'success', meta: { caseId: 7680 } } },
    );
    expect(res.body.status).toBe('success');
  });
});
