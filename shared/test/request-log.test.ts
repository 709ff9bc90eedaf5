/**
 * The request id a handler's log lines carry: kept through the handler's awaits and the local
 * calls it makes, and not kept for work the handler leaves running once no call is handled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceBroker } from 'moleculer';
import { currentRequestId, RequestLogMiddleware } from '../src/request-log';

let broker: ServiceBroker;
const seenLater: Array<string | undefined> = [];

beforeAll(async () => {
  broker = new ServiceBroker({ logger: false, middlewares: [RequestLogMiddleware] });
  broker.createService({
    name: 'probe',
    actions: {
      async seen(ctx) {
        const atStart = currentRequestId();
        await sleep(5);
        const afterAwait = currentRequestId();
        const inner = await ctx.call('probe.inner');
        return { atStart, afterAwait, inner };
      },
      inner() {
        return currentRequestId();
      },
      leaveWork() {
        setTimeout(() => seenLater.push(currentRequestId()), 30);
        return true;
      },
    },
  });
  await broker.start();
});

afterAll(() => broker.stop());

it('keeps the request id of the call through its awaits and the local calls it makes', async () => {
  await expect(broker.call('probe.seen', {}, { requestID: 'req-kept' })).resolves.toEqual({
    atStart: 'req-kept',
    afterAwait: 'req-kept',
    inner: 'req-kept',
  });
  await expect(broker.call('probe.seen', {}, { requestID: 'req-next' })).resolves.toMatchObject({
    afterAwait: 'req-next',
  });
});

it('keeps no request id for work a handler left running once no call is handled', async () => {
  await broker.call('probe.leaveWork', {}, { requestID: 'req-left' });
  await sleep(60);
  expect(seenLater).toEqual([undefined]);
  expect(currentRequestId()).toBeUndefined();
  // The next call has its own again.
  await expect(broker.call('probe.inner', {}, { requestID: 'req-after' })).resolves.toBe('req-after');
});
