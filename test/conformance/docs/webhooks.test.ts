/**
 * The documentation's "Webhooks" page: each documented webhook, caused through the HTTP API and
 * received by a real HTTP receiver, checked against the documented body field by field.
 */
import { DEMO_WORLD_FILE, readWorld, type World } from '../../../shared/src';
import { type Received, type Receiver, startReceiver } from '../../../services/webhooks/test/support/receiver';
import { bookCase, caseBody } from '../../support/cases';
import { DEMO_TOKENS, type TestHub, waitFor } from '../../support/hub';
import { ANY, expectShape, startDocsHub } from './documented';

const EVENT_TYPES = [
  'status.new',
  'status.transition',
  'costProposal.created',
  'message.created',
  'case.filesUploaded',
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
    expectShape(json, {
      guid: 'a7afaf9-7c6e-4d0e-b756-16b4afa1382f',
      name: 'Repair finished',
      key: 'final',
      createdAt: '2019-01-22T11:29:38.258Z',
      updatedAt: '2019-01-22T11:29:38.258Z',
      declaredAt: '2019-01-22T11:27:34.233Z',
    });
    expect(json.declaredAt).toBe('2019-01-22T11:27:34.233Z');
  });

  it('sends the documented transition body with prevKey and the case', async () => {
    const { json } = await received('/partner', 'status.transition', (body) => body.key === 'arrived');
    expectShape(json, {
      id: 123,
      guid: 'a7afaf9-7c6e-4d0e-b756-16b4afa1382f',
      name: 'Repair finished',
      key: 'final',
      prevKey: 'arrived',
      createdAt: '2019-01-22T11:29:38.258Z',
      updatedAt: '2019-01-22T11:29:38.258Z',
      declaredAt: '2019-01-22T11:27:34.233Z',
      case: { guid: 'a7afaf9-7c6e-4d0e-b756-16b4afa1382f' },
    });
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
    expectShape(json, {
      id: 25532,
      guid: 'f5afa004-f48c-4380-9f9b-cafaea0dd7de',
      externalId: ANY,
      name: 'RUR',
      priceNet: 280,
      currency: 'SEK',
      isActive: true,
      dateValidUntil: null,
      reaction: null,
      comment: null,
      reactionDate: null,
      reactionName: null,
      details: [{ line: 1, text: 'Return unrepaired fee', type: 'RUR', priceNet: 280, quantity: 1 }],
      createdAt: '2019-11-25T11:30:29.000Z',
      updatedAt: '2019-11-25T10:43:20.523Z',
      serviceProviderId: 1,
    });
  });
});

describe('New message', () => {
  it('sends the documented message body to the receiving party only', async () => {
    await post(DEMO_TOKENS.nrc, '/api/v3/case-messages/create', {
      guid,
      type: 'serviceComment',
      content: 'The external workshop updated the status to Product received.',
    });
    const { json } = await received('/partner', 'message.created');
    expectShape(json, {
      id: 59076,
      guid: 'f5afa004-f48c-4380-9f9b-cc9afa0dd7de',
      content: 'The external workshop updated the status to Product received.',
      type: 'serviceComment',
      createdAt: '2019-11-25T10:33:54.283Z',
      updatedAt: '2019-11-25T10:33:54.283Z',
    });
    expect(
      receiver.received.filter(
        (request) => request.path === '/provider' && request.headers['webhook-event-type'] === 'message.created',
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
    expectShape(json, {
      guid: 'f5afa004-f48c-4380-9f9b-cc9afa0dd7de',
      files: [
        {
          url: 'http://publicly-available-link-to-download-the-file.com/x.pdf',
          name: '201920072424556.pdf',
          type: 'other',
        },
      ],
    });
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
    expectShape(json, {
      guid: '989d0f73-f87a-4dfe-98eb-554a44233cef',
      orderData: { refNo: 'REF' },
      productData: { model: 'Tesla Cybertruck' },
    });
    expect(json.productData.model).toBe('Tesla Cybertruck');
    expect(json.productData).not.toHaveProperty('serial');
  });
});
