/**
 * The broker's retry policy: a call is tried again only when its error proves it took no
 * effect, never after a timeout, which a stalled handler outlives to write all the same.
 */
import { Errors, ServiceBroker } from 'moleculer';
import { brokerOptions, loadConfig, UnavailableError } from '../src';

let broker: ServiceBroker;
/** How many times each action's handler was entered. */
const entered = { slowWrite: 0, conflictedWrite: 0 };
let releaseSlowWrite: () => void = () => undefined;

beforeAll(async () => {
  broker = new ServiceBroker({ ...brokerOptions(loadConfig({})), logger: false, metrics: false });
  broker.createService({
    name: 'ledger',
    actions: {
      async slowWrite() {
        entered.slowWrite++;
        await new Promise<void>((resolve) => (releaseSlowWrite = resolve));
        return { written: true };
      },
      conflictedWrite() {
        // A serialization conflict rolls the transaction back: the first attempt left nothing behind.
        if (++entered.conflictedWrite === 1) throw new UnavailableError('could not serialize access');
        return { written: true };
      },
    },
  });
  await broker.start();
});

afterAll(async () => {
  releaseSlowWrite();
  await broker.stop();
});

it('does not call a write again after its call timed out, since the stalled handler still runs', async () => {
  const call = broker.call('ledger.slowWrite', {}, { timeout: 50 });
  await expect(call).rejects.toBeInstanceOf(Errors.RequestTimeoutError);
  expect(entered.slowWrite).toBe(1);
  releaseSlowWrite();
});

it('tries a call again when its error says the attempt took no effect', async () => {
  await expect(broker.call('ledger.conflictedWrite')).resolves.toEqual({ written: true });
  expect(entered.conflictedWrite).toBe(2);
});
