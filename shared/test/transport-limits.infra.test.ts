/**
 * What crosses NATS stays within its message limit (a NATS server of the test's own, at its
 * default max_payload of 1 MiB): a validation error over ten thousand wrong items comes back
 * bounded, and a message the server would refuse becomes an error its caller receives, never an
 * exception that ends the process. Also pins the Moleculer internals the guard relies on: the
 * transit's `transitPublish` hook sees each packet, and the nats client refuses an oversized one
 * with MAX_PAYLOAD_EXCEEDED.
 */
import { randomBytes } from 'node:crypto';
import { type Context, ServiceBroker } from 'moleculer';
import { brokerOptions, ERROR_TYPES, loadConfig, NAMED_FAILURES_MAX } from '../src';
import { waitFor } from '../../test/support/hub';
import { privateNatsServer, type NatsServer } from '../../test/support/processes';

let nats: NatsServer;
let caller: ServiceBroker;
let callee: ServiceBroker;
const received: unknown[] = [];
const uncaught: unknown[] = [];
const noteUncaught = (err: unknown) => uncaught.push(err);

/** Larger than NATS's default max_payload. */
const TWO_MEGABYTES = 'x'.repeat(2 * 1024 * 1024);

beforeAll(async () => {
  process.on('unhandledRejection', noteUncaught);
  process.on('uncaughtException', noteUncaught);
  nats = await privateNatsServer();
  await nats.start();
  const config = loadConfig({ TRANSPORTER: nats.url, NAMESPACE: `limits-${randomBytes(4).toString('hex')}` });
  caller = new ServiceBroker({ ...brokerOptions(config), nodeID: 'caller', logger: false });
  callee = new ServiceBroker({ ...brokerOptions(config), nodeID: 'callee', logger: false });
  callee.createService({
    name: 'echo',
    actions: {
      confirm: { params: { items: { type: 'array', max: 20_000, items: 'number|integer' } }, handler: () => ({}) },
      large: () => ({ text: TWO_MEGABYTES }),
      small: () => ({ ok: true }),
      take: { params: { text: 'string' }, handler: () => ({ ok: true }) },
    },
    events: {
      'echo.heard'(ctx: Context) {
        received.push(ctx.params);
      },
    },
  });
  await Promise.all([caller.start(), callee.start()]);
  await caller.waitForServices('echo', 20_000);
}, 60_000);

afterAll(async () => {
  await Promise.all([caller?.stop(), callee?.stop()]);
  await nats?.kill();
  process.off('unhandledRejection', noteUncaught);
  process.off('uncaughtException', noteUncaught);
});

afterEach(() => expect(uncaught).toEqual([]));

it('answers a validation error over ten thousand items with the first fields named and the count', async () => {
  const err = await caller.call('echo.confirm', { items: Array(10_000).fill('x') }).catch((error: unknown) => error);
  expect(err).toMatchObject({ code: 400, type: ERROR_TYPES.FIELDS_VALIDATION, data: { failureCount: 10_000 } });
  const { details } = (err as { data: { details: Record<string, string[]> } }).data;
  expect(Object.keys(details)).toHaveLength(NAMED_FAILURES_MAX);
  expect(details['items[0]']).toEqual(['Wrong format']);
});

it('refuses an array longer than its rule allows before validating its items', async () => {
  const err = await caller.call('echo.confirm', { items: Array(20_001).fill('x') }).catch((error: unknown) => error);
  expect(err).toMatchObject({
    code: 400,
    type: ERROR_TYPES.FIELDS_VALIDATION,
    data: { details: { items: ['Must have at most 20000 items'] } },
  });
});

it('sends an error instead of an answer too large for the transport, and the serving node goes on', async () => {
  await expect(caller.call('echo.large')).rejects.toMatchObject({ code: 500, type: 'ANSWER_TOO_LARGE' });
  await expect(caller.call('echo.small')).resolves.toEqual({ ok: true });
});

it('refuses a request too large for the transport with a 413 to its caller', async () => {
  await expect(caller.call('echo.take', { text: TWO_MEGABYTES })).rejects.toMatchObject({
    code: 413,
    type: ERROR_TYPES.PAYLOAD_TOO_LARGE,
  });
  await expect(caller.call('echo.small')).resolves.toEqual({ ok: true });
});

it('drops an event too large for the transport, and later events arrive', async () => {
  await caller.emit('echo.heard', { text: TWO_MEGABYTES });
  await caller.emit('echo.heard', { text: 'small' });
  await waitFor(() => received.length > 0, 'the small event');
  expect(received).toEqual([{ text: 'small' }]);
});
