/**
 * The documentation's "Webhooks" page: each documented webhook, caused through the HTTP API and
 * received by a real HTTP receiver, checked against the documented body field by field.
 */
import { DEMO_WORLD_FILE, readWorld, type World } from '../../../shared/src';
import { type Received, type Receiver, startReceiver } from '../../../services/webhooks/test/support/receiver';
import { bookCase, caseBody } from '../../support/cases';
import { DEMO_TOKENS, type TestHub, waitFor } from '../../support/hub';
import { expectShape, startDocsHub } from './documented';
import { documentedExample, documentedShape } from './reference';

const PAGE = 'Webhooks';

const EVENT_TYPES = [
  'status.new',
  'status.transition',
  'costProposal.created',
  'message.created',
  'message.confirmed',
  'case.filesUploaded',
  'invoice.saved',
  'case.updated',
];

/** Demo accounts 3 (Power, partner 2) and 5 (Nordic Repair Center, provider 10), each at its own path. */
const SUBSCRIBERS = [
  { id: 951, accountId: 3, path: '/partner', secret: 'whsec_' + Buffer.alloc(32, 1).toString('base64') },
  { id: 952, accountId: 5, path: '/provider', secret: 'whsec_' + Buffer.alloc(32, 2).toString('base64') },
];

let receiver: Receiver;
let hub: TestHub;
let guid: string;

beforeAll(async () => {
  receiver = await startReceiver();
  const demo = readWorld(DEMO_WORLD_FILE);
  const world: World = {
    ...demo,
    webhooks: {
      ...demo.webhooks,
      subscriptions: SUBSCRIBERS.map(({ id, accountId, path, secret }) => ({
        id,
        accountId,
        eventTypes: EVENT_TYPES,
        target: { kind: 'http', url: `${receiver.url}${path}` },
        secret,
        statusTransitions: [{ to: 'arrived' }],
      })),
    },
  };
  hub = await startDocsHub({
    world,
    env: { WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms', WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000' },
  });
  // Power's demo case goes to Nordic Repair Center.
  guid = await bookCase(hub, DEMO_TOKENS.power);
});
afterAll(async () => {
  await hub?.stop();
  await receiver?.close();
});

async function received(path: string, type: string, match: (body: any) => boolean = () => true): Promise<Received> {
  let found: Received | undefined;
  await waitFor(() => {
    found = receiver.received.find(
      (request) =>
        request.path === path &&
        request.headers['webhook-event-type'] === type &&
        request.json?.guid === guid &&
        match(request.json),
    );
    return found !== undefined;
  }, `${type} at ${path}`);
  return found!;
}

async function post(token: string, path: string, body: unknown) {
  const res = await hub.request('POST', path, { token, body });
  expect(res.status).toBe(200);
  return res.body;
}

describe('New status and Status transition', () => {
  beforeAll(() =>
    post(DEMO_TOKENS.nrc, '/api/v3/case/status', { guid, key: 'arrived', declaredAt: '2019-01-22T11:27:34.233Z' }),
  );

  it('sends the documented new status body', async () => {
    const { json } = await received('/partner', 'status.new', (body) => body.key === 'arrived');
    expectShape(json, documentedShape(PAGE, 'New status', null));
    expect(json.declaredAt).toBe('2019-01-22T11:27:34.233Z');
  });

  it('sends the documented transition body with prevKey and the case', async () => {
    const { json } = await received('/partner', 'status.transition', (body) => body.key === 'arrived');
    expectShape(json, documentedShape(PAGE, 'Status transition', null));
    expect(json.case).toMatchObject({ guid });
    expect(json.prevKey).toBe('registered');
  });
});

describe('New cost proposal', () => {
  it('sends the documented cost proposal body to the partner', async () => {
    await post(DEMO_TOKENS.nrc, '/api/v3/cost-proposals', [
      {
        guid,
        name: 'RUR',
        priceNet: 280,
        currency: 'SEK',
        details: [{ line: 1, text: 'Return unrepaired fee', type: 'RUR', priceNet: 280, quantity: 1 }],
      },
    ]);
    const { json } = await received('/partner', 'costProposal.created');
    expectShape(json, documentedShape(PAGE, 'New cost proposal', null));
  });
});

describe('New message', () => {
  it('sends the documented message body to the receiving party only', async () => {
    const example = documentedExample(PAGE, 'New message', null) as Record<string, unknown>;
    await post(DEMO_TOKENS.nrc, '/api/v3/case-messages/create', {
      guid,
      ...Object.fromEntries(
        ['type', 'content', 'externalId', 'userName', 'userEmail', 'declaredAt'].map((field) => [
          field,
          example[field],
        ]),
      ),
    });
    const { json } = await received('/partner', 'message.created');
    expectShape(json, documentedShape(PAGE, 'New message', null));
    expect(
      receiver.received.filter(
        (request) => request.path === '/provider' && request.headers['webhook-event-type'] === 'message.created',
      ),
    ).toEqual([]);
  });
});

describe('Message was confirmed', () => {
  it('sends the documented message body to the party that created the message', async () => {
    const { json: sent } = await received('/partner', 'message.created');
    await post(DEMO_TOKENS.power, '/api/v3/case-messages/confirm', [sent.id]);
    const { json } = await received('/provider', 'message.confirmed', (body) => body.id === sent.id);
    expectShape(json, documentedShape(PAGE, 'Message was confirmed', null), { nullable: ['confirmedAt'] });
    expect(json.confirmedAt).toEqual(expect.any(String));
  });
});

describe('Invoice created/updated', () => {
  it('sends the documented invoice body with its case to the partner, for a status sent to the client', async () => {
    const [invoice] = documentedExample('Invoices', 'POST /api/v3/invoices', 'Example') as Array<
      Record<string, unknown>
    >;
    await post(DEMO_TOKENS.nrc, '/api/v3/invoices', [{ ...invoice, guid, status: 'ready' }]);
    const { json } = await received('/partner', 'invoice.saved');
    // The example's case holds what that case was booked with, and its invoice its own customData.
    expectShape(
      json,
      documentedShape(PAGE, 'Invoice created/updated', null, {
        replace: {
          customData: {},
          'case.orderData': { bookingType: 'companyToPrivate', originatorType: 'helpdesk', clientPostalCode: '4370' },
          'case.productData': { model: 'TESTTEST' },
        },
      }),
    );
    expect(
      receiver.received.filter(
        (request) => request.path === '/provider' && request.headers['webhook-event-type'] === 'invoice.saved',
      ),
    ).toEqual([]);
  });
});

describe('New file uploaded', () => {
  it('sends the documented body with each file and its FileType', async () => {
    await post(DEMO_TOKENS.power, '/api/v3/case/files', {
      guid,
      files: [{ name: '201920072424556.pdf', url: 'https://example.com/201920072424556.pdf' }],
    });
    const { json } = await received('/provider', 'case.filesUploaded');
    expectShape(json, documentedShape(PAGE, 'New file uploaded', null));
  });
});

describe('Case updated', () => {
  it('sends the guid and the changed top-level keys to the other party', async () => {
    const { productData } = caseBody(DEMO_TOKENS.power);
    await post(DEMO_TOKENS.power, '/api/v3/case/update', {
      guid,
      orderData: { refNo: 'REF' },
      productData: { ...productData, model: 'Tesla Cybertruck' },
    });
    const { json } = await received('/provider', 'case.updated');
    // The example shows what its update changed; this update changes refNo and the model.
    const documented = documentedShape(PAGE, 'Case updated', null) as Record<string, any>;
    expectShape(json, {
      guid: documented.guid,
      orderData: { refNo: documented.orderData.refNo },
      productData: { model: documented.productData.model },
    });
    expect(json.productData.model).toBe('Tesla Cybertruck');
    expect(json.productData).not.toHaveProperty('serial');
  });
});
