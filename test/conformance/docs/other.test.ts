/**
 * The documentation's "Other" page: the completed email, routing and the request log, each
 * example sent as documented (demo world ids) and its answer checked against the documented shape.
 */
import { bookCase } from '../../support/cases';
import { DEMO_TOKENS, type TestHub } from '../../support/hub';
import { ANY, sendDocumented, useDocsHub } from './documented';
import { documentedExample, documentedShape, shapeOf } from './reference';

let hub: TestHub;
let guid: string;
useDocsHub(async (started) => {
  hub = started;
  guid = await bookCase(hub, DEMO_TOKENS.elkjop);
});

const partner = DEMO_TOKENS.elkjop;
const PAGE = 'Other';
const ROUTING = 'GET /api/v3/routing';

describe('POST /api/v3/case/send-completed-email', () => {
  it('answers { data: { result } }, a message when emails cannot be sent', async () => {
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/case/send-completed-email',
        token: partner,
        body: { ...(documentedExample(PAGE, 'POST /api/v3/case/send-completed-email', 'Example') as object), guid },
      },
      // "true // Or string with an information message".
      {
        status: 200,
        shape: documentedShape(PAGE, 'POST /api/v3/case/send-completed-email', 'Output', {
          replace: { 'data.result': ANY },
        }),
      },
    );
    expect(['boolean', 'string']).toContain(typeof res.body.data.result);
  });
});

describe('GET /api/v3/routing', () => {
  it('answers the form this page shows, wrapped in data, at the v2 path (v3 answers the bare form)', async () => {
    await sendDocumented(
      hub,
      {
        method: 'GET',
        path: '/api/v2/routing?originatorType=private&bookingType=companyToPrivate&serviceType=2&manufacturer=1&productType=2&clientPostalCode=0150&serviceLocation=1',
        token: partner,
      },
      {
        status: 200,
        shape: documentedShape(PAGE, ROUTING, 'Output for valid case (status code 200)'),
        options: {
          nullable: ['data.serviceProviderCompetence.sesam', 'data.serviceProviderCompetence.persDep']
            .concat(['data.serviceProviderCompetence.overrideCode', 'data.servicePartnerCompetence.overrideCode'])
            .concat(['data.serviceProvider.contactData.organizationName', 'data.serviceProvider.contactData.address'])
            .concat(['data.serviceProvider.contactData.postalCode', 'data.serviceProvider.contactData.city'])
            .concat(['data.serviceProvider.contactData.phone', 'data.serviceProvider.contactData.email']),
        },
      },
    );
  });

  it('answers 400 with paramsNeeded when data is not enough', async () => {
    await sendDocumented(
      hub,
      { method: 'GET', path: '/api/v3/routing?originatorType=private', token: partner },
      { status: 400, shape: documentedShape(PAGE, ROUTING, 'Output when data is not enough (status code 400)') },
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
      {
        status: 404,
        shape: documentedShape(
          PAGE,
          ROUTING,
          'Output when there is no suitable competence to process the case (status code 404)',
        ),
      },
    );
    const documented = documentedExample(
      PAGE,
      ROUTING,
      'Output when there is no suitable competence to process the case (status code 404)',
    ) as { error: { message: string }; data: null };
    expect(res.body).toEqual(documented);
  });
});

describe('POST /api/v3/requests/log', () => {
  it('stores the documented example and answers the external request', async () => {
    const read = await hub.request('GET', `/api/v3/case?guid=${guid}`, { token: partner });
    const example = documentedExample(PAGE, 'POST /api/v3/requests/log', 'Example') as { meta: object };
    const res = await sendDocumented(
      hub,
      {
        method: 'POST',
        path: '/api/v3/requests/log',
        token: partner,
        body: { ...example, meta: { ...example.meta, caseId: read.body.id } },
      },
      // "Output: External request": the record as stored, with its id.
      { status: 200, shape: { id: 1, ...(shapeOf(example) as object) } },
    );
    expect(res.body.status).toBe('success');
  });
});
