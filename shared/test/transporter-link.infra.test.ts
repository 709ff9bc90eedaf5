/**
 * What a process knows of its link to NATS and of nodes that stop answering, on a NATS server of
 * the test's own: a call made while NATS is down answers 503 at once and never runs, not even
 * when NATS is back; readiness follows the link. Also pins the Moleculer internals the watchdog
 * relies on: the nats 2.x client's status events (through the transit) and the registry's node
 * catalog, whose `disconnected` fails the calls pending on a node.
 */
import { randomBytes } from 'node:crypto';
import { Errors, ServiceBroker } from 'moleculer';
import { brokerOptions, isTransporterReachable, loadConfig, readiness } from '../src';
import { waitFor } from '../../test/support/hub';
import { privateNatsServer, type NatsServer } from '../../test/support/processes';

let nats: NatsServer;
let caller: ServiceBroker;
let callee: ServiceBroker;
/** How many times the callee's handler ran, and a way to hold the next run. */
let runs = 0;
let release: () => void = () => undefined;
let holding = false;

beforeAll(async () => {
  nats = await privateNatsServer();
  await nats.start();
  const config = loadConfig({ TRANSPORTER: nats.url, NAMESPACE: `link-${randomBytes(4).toString('hex')}` });
  // Options of their own: a middleware belongs to the one broker it was created for.
  caller = new ServiceBroker({ ...brokerOptions(config), nodeID: 'caller', logger: false });
  callee = new ServiceBroker({ ...brokerOptions(config), nodeID: 'callee', logger: false });
  callee.createService({
    name: 'ledger',
    actions: {
      async write() {
        runs += 1;
        if (holding) await new Promise<void>((resolve) => (release = resolve));
        return { written: true };
      },
    },
  });
  await Promise.all([caller.start(), callee.start()]);
  await caller.waitForServices('ledger', 20_000);
}, 60_000);

afterAll(async () => {
  release();
  await Promise.all([caller?.stop(), callee?.stop()]);
  await nats?.kill();
});

it("fails the calls pending on a node the registry's node catalog is told is gone", async () => {
  holding = true;
  const pending = caller.call('ledger.write');
  await waitFor(() => runs === 1, 'the call to arrive');
  (
    caller.registry as unknown as { nodes: { disconnected(nodeID: string, unexpected: boolean): void } }
  ).nodes.disconnected('callee', true);
  await expect(pending).rejects.toMatchObject({ type: 'REQUEST_REJECTED' });
  expect(caller.registry.nodes.get('callee')?.available).toBe(false);
  holding = false;
  release();
  // The callee comes back at its next heartbeat.
  await waitFor(() => Boolean(caller.registry.nodes.get('callee')?.available), 'the callee again', 20_000);
}, 30_000);

it('answers a call made while NATS is down with a 503 at once, never runs it, and is ready again when NATS is back', async () => {
  const before = runs;
  expect(await readiness(caller)).toMatchObject({ checks: { transporter: 'ok' } });
  await nats.kill();
  await waitFor(() => !isTransporterReachable(caller), 'the caller to see the link go');
  expect(await readiness(caller)).toMatchObject({ ok: false, checks: { transporter: 'down' } });

  const refused = await caller.call('ledger.write').catch((err: Errors.MoleculerError) => err);
  expect(refused).toMatchObject({ code: 503, retryable: false, message: 'Transporter unreachable' });

  await nats.start();
  await waitFor(() => isTransporterReachable(caller) && isTransporterReachable(callee), 'both links back', 30_000);
  expect(await readiness(caller)).toMatchObject({ checks: { transporter: 'ok' } });
  await expect(caller.call('ledger.write')).resolves.toEqual({ written: true });
  // Only the call made after the link came back ran: the refused one was never sent.
  expect(runs - before).toBe(1);
}, 60_000);
