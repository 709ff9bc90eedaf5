import { randomUUID } from 'node:crypto';
import { ServiceBroker, type Context } from 'moleculer';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../../../test/support/hub';
import { caseBody } from '../../../test/support/cases';
import { serviceCallRecorder } from '../../../test/support/service-calls';

/** The most calls between services a booking may make one after another (ARCHITECTURE.md). */
const MAX_CALLS_IN_SEQUENCE = 3;

const recorder = serviceCallRecorder();
let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({
    services: ['catalog', 'routing', 'models', 'booking', 'gateway'],
    middlewares: [recorder.middleware],
  });
});
afterAll(() => hub.stop());

/** Sends a request under its own request id and answers its status and the calls it caused. */
async function traced(path: string, token: string, body: unknown) {
  const requestId = `calls-${randomUUID()}`;
  const response = await hub.request('POST', path, { token, body, headers: { 'X-Request-Id': requestId } });
  const action = path.endsWith('validate') ? 'booking.validate' : 'booking.create';
  return { status: response.status, body: response.body, ...recorder.callsOf(requestId, action) };
}

const describeCalls = (calls: Array<{ from: string | null; action: string }>) =>
  calls.map((call) => `${call.from} -> ${call.action}`).join(', ');

describe('a booking makes at most 3 calls between services one after another', () => {
  const { elkjop, power } = DEMO_TOKENS;
  const bookings: Array<[string, string, Record<string, unknown>, number, string[]]> = [
    ['the demo case, every value by id', elkjop, {}, 200, []],
    [
      'values by name, a registered model by its alias, shipping assigned, an accessory',
      elkjop,
      {
        manufacturer: 'apple',
        productType: 'Mobile phone',
        shipping: undefined,
        productData: { model: 'A3102', imei: '356938035643809', weight: 0.2, accessory: { 1: true } },
      },
      200,
      [],
    ],
    ['a forced provider', elkjop, { forcedProvider: 20 }, 200, []],
    ['a manufacturer the partner cannot book', power, { manufacturer: 3 }, 400, ['manufacturer']],
    ['a shipping method not offered', elkjop, { shipping: 4 }, 400, ['shipping']],
    ['a postal code only a phone competence covers', elkjop, { clientPostalCode: 'X0X0X' }, 400, ['productType']],
  ];

  it.each(bookings)('case/create: %s', async (_name, token, overrides, status, refused) => {
    const result = await traced('/api/v3/case/create', token, caseBody(token, overrides));
    expect({ status: result.status, body: result.body }).toMatchObject({ status });
    if (refused.length) expect(Object.keys(result.body.error.details)).toEqual(refused);
    expect(result.calls.length).toBeGreaterThan(0);
    if (result.inSequence > MAX_CALLS_IN_SEQUENCE)
      throw new Error(`${result.inSequence} calls one after another: ${describeCalls(result.calls)}`);
  });

  it('case/validate checks the same way', async () => {
    const result = await traced('/api/v3/case/validate', elkjop, caseBody(elkjop));
    expect(result.status).toBe(200);
    expect(result.inSequence).toBeLessThanOrEqual(MAX_CALLS_IN_SEQUENCE);
  });
});

describe('the call recorder', () => {
  const recorded = serviceCallRecorder();
  const broker = new ServiceBroker({ logger: false, middlewares: [recorded.middleware] });
  const calling = (name: string, next: string) => ({
    name,
    actions: { run: (ctx: Context) => ctx.call(`${next}.run`) },
  });
  beforeAll(async () => {
    broker.createService({
      name: 'gateway',
      actions: { run: (ctx: Context<{ entry: string }>) => ctx.call(ctx.params.entry) },
    });
    broker.createService({
      name: 'a',
      actions: {
        deep: (ctx: Context) => ctx.call('b.run'),
        twice: async (ctx: Context) => {
          await ctx.call('b.run');
          return ctx.call('b.run');
        },
        sideBySide: (ctx: Context) => Promise.all([ctx.call('b.run'), ctx.call('b.run')]),
        viaHelper: (ctx: Context) => ctx.call('a.helper'),
        helper: (ctx: Context) => ctx.call('b.run'),
      },
    });
    broker.createService(calling('b', 'c'));
    broker.createService(calling('c', 'd'));
    broker.createService({ name: 'd', actions: { run: () => true } });
    await broker.start();
  });
  afterAll(() => broker.stop());

  const callsOf = async (entry: string) => {
    const requestID = randomUUID();
    await broker.call('gateway.run', { entry }, { requestID });
    return recorded.callsOf(requestID, entry);
  };

  it('counts calls made from inside each other as one after another', async () => {
    const { calls, inSequence } = await callsOf('a.deep');
    expect(describeCalls(calls)).toBe('a -> b.run, b -> c.run, c -> d.run');
    expect(inSequence).toBe(3);
  });

  it('counts calls made after each other, so it finds more than 3 in sequence', async () => {
    const { calls, inSequence } = await callsOf('a.twice');
    expect(calls).toHaveLength(6);
    expect(inSequence).toBe(6);
  });

  it('does not count calls made side by side as one after another', async () => {
    const { calls, inSequence } = await callsOf('a.sideBySide');
    expect(calls).toHaveLength(6);
    expect(inSequence).toBe(3);
  });

  it('follows calls made from inside a service calling its own action', async () => {
    const { calls, inSequence } = await callsOf('a.viaHelper');
    expect(describeCalls(calls)).toBe('a -> b.run, b -> c.run, c -> d.run');
    expect(inSequence).toBe(3);
  });
});
