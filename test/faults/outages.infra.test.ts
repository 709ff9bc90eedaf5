/**
 * Faults met by a distributed hub under a stream of bookings, on servers the suite starts itself
 * (test/support/fault-cluster.ts): a booking process paused past the call timeout, booking
 * processes killed, the NATS server killed, the Postgres server stopped, the link to RabbitMQ cut
 * while AMQP webhooks are due, and the webhooks service restarted. For each, what the API
 * acknowledged is counted against the cases stored and the webhooks delivered: nothing lost,
 * nothing doubled, every refusal in the error envelope (not a hang): a 503 with `Retry-After` for
 * a booking not carried out, a 504 for one whose outcome is unknown; and the hub back by itself
 * when the fault ends.
 */
import { NODE_WATCHDOG_SETTINGS } from '../../shared/src';
import { caseBody } from '../support/cases';
import { DEMO_TOKENS, httpRequest, waitFor } from '../support/hub';
import {
  accountFor,
  BOOKING_NODES,
  BookingStream,
  CALL_TIMEOUT_MS,
  NODES,
  startFaultCluster,
  SUBSCRIPTIONS,
  webhooksOf,
  type Attempt,
  type FaultCluster,
  type NodeName,
} from '../support/fault-cluster';

/** How soon a booking sent into a known outage is refused (the bound). */
const OUTAGE_ANSWER_MS = 2_000;
/**
 * How soon a booking already pending when its process stopped answering is refused: the node
 * watchdog's probe and ping, and room for a loaded machine. A hang would wait out the call timeout.
 */
const PENDING_ANSWER_MS = NODE_WATCHDOG_SETTINGS.probeAfterMs + NODE_WATCHDOG_SETTINGS.pingTimeoutMs + 1_000;

let cluster: FaultCluster;
/** Every booking the suite sent, over all faults, with the phases they were sent in. */
const everyAttempt: Attempt[] = [];
const phases: string[] = [];
/** What each fault counted, printed at the end for test/RELIABILITY.md. */
const figures: Record<string, unknown>[] = [];

beforeAll(async () => {
  cluster = await startFaultCluster();
}, 300_000);

afterAll(async () => {
  if (figures.length) console.log(`Fault figures:\n${figures.map((row) => JSON.stringify(row)).join('\n')}`);
  await cluster?.stop();
});

/** Starts a phase's stream of bookings; `finish` settles the cluster and checks the phase's account. */
function streamOf(phase: string): BookingStream {
  phases.push(phase);
  return new BookingStream(cluster.baseUrl, phase);
}

/** When the hub first refused a booking answered after `since`: from then on, the outage is known. */
function outageKnownAt(stream: BookingStream, since: number): number {
  const refusals = stream.attempts.filter((attempt) => attempt.status !== 200 && attempt.sentAt + attempt.ms >= since);
  return Math.min(...refusals.map((attempt) => attempt.sentAt + attempt.ms));
}

/**
 * Stops the stream, lets every booking a process took end, and checks the phase: every
 * acknowledged booking stored once under the guid answered, none stored twice, none that was
 * never sent, and every refusal a 503 in the envelope with Retry-After, in time: within 2 s once
 * the outage is known (`knownAt`), within the watchdog's time for a booking already pending.
 */
async function finish(stream: BookingStream, fault: string, knownAt = Infinity) {
  const attempts = await stream.stop();
  everyAttempt.push(...attempts);
  await cluster.waitForBookingsToSettle();
  const account = await accountFor(cluster.knex, attempts, [stream.phase]);
  const refusals = attempts.filter((attempt) => attempt.status !== 200);
  // 503 with Retry-After: not carried out; 504: sent, and its outcome unknown.
  const wrongAnswers = refusals
    .filter((attempt) => !attempt.enveloped || (attempt.status === 503 ? !attempt.retryAfter : attempt.status !== 504))
    .map((attempt) => `${attempt.refNo}: ${attempt.status}`);
  const slowest = (from: Attempt[]) => Math.max(0, ...from.map((attempt) => attempt.ms));
  const intoKnownOutage = refusals.filter((attempt) => attempt.sentAt >= knownAt);
  figures.push({
    fault,
    sent: attempts.length,
    ...account,
    slowestRefusalMs: slowest(refusals),
    slowestRefusalIntoKnownOutageMs: slowest(intoKnownOutage),
  });
  expect({
    lost: account.lost,
    doubled: account.doubled,
    wrongGuid: account.wrongGuid,
    unsent: account.unsent,
    unavailableButStored: account.unavailableButStored,
  }).toEqual({ lost: [], doubled: [], wrongGuid: [], unsent: [], unavailableButStored: [] });
  expect(wrongAnswers).toEqual([]);
  // The fault was met, and the stream went on after it.
  expect(refusals.length).toBeGreaterThan(0);
  expect(slowest(refusals)).toBeLessThan(PENDING_ANSWER_MS);
  expect(slowest(intoKnownOutage)).toBeLessThan(OUTAGE_ANSWER_MS);
  return { attempts, account };
}

it('books every acknowledged case once when a booking process is paused past the call timeout, then resumed', async () => {
  const stream = streamOf('paused');
  await stream.until(() => stream.acknowledged() >= 10, '10 bookings before the pause');
  const booking1 = cluster.processes['booking-1'].child;
  booking1.kill('SIGSTOP');
  const pausedAt = Date.now();
  try {
    // Past the call timeout, so a call that waited it out would have timed out by now.
    await stream.until(
      () => stream.acknowledged(pausedAt) >= 20 && Date.now() - pausedAt > CALL_TIMEOUT_MS,
      '20 bookings on the other process while one is paused',
    );
  } finally {
    booking1.kill('SIGCONT');
  }
  const resumedAt = Date.now();
  await cluster.waitForNodes(['booking-1']);
  await stream.until(() => stream.acknowledged(resumedAt) >= 10, '10 bookings after the resume');
  await finish(stream, 'booking process paused');
}, 240_000);

it('answers 504 for a booking pending on paused processes, and its retry with the same Idempotency-Key gets the one case', async () => {
  phases.push('unknown');
  const refNo = 'unknown-0-0';
  const book = () =>
    httpRequest(cluster.baseUrl, 'POST', '/api/v3/case/create', {
      token: DEMO_TOKENS.power,
      headers: { 'Idempotency-Key': `key-${refNo}` },
      body: caseBody(DEMO_TOKENS.power, { orderData: { refNo } }),
    });
  for (const node of BOOKING_NODES) cluster.processes[node].child.kill('SIGSTOP');
  let unknown;
  try {
    unknown = await book();
  } finally {
    for (const node of BOOKING_NODES) cluster.processes[node].child.kill('SIGCONT');
  }
  expect(unknown.status).toBe(504);
  expect(unknown.headers.get('retry-after')).toBeNull();
  expect(unknown.body.error.message).toMatch(/may have been carried out.*same Idempotency-Key/);
  await cluster.waitForBookingsToSettle();
  const retriedAt = Date.now();
  const retried = await book();
  expect(retried.status).toBe(200);
  everyAttempt.push({
    refNo,
    status: 200,
    guid: retried.body.guid,
    sentAt: retriedAt,
    ms: Date.now() - retriedAt,
    retryAfter: null,
    enveloped: false,
  });
  const stored = await cluster.knex('booking.cases').whereRaw("order_data->>'refNo' = ?", [refNo]).select('guid');
  expect(stored).toEqual([{ guid: retried.body.guid }]);
}, 120_000);

it('books every acknowledged case once when the booking processes are killed mid-stream, and books again once one is back', async () => {
  const stream = streamOf('killed');
  await stream.until(() => stream.acknowledged() >= 10, '10 bookings before the kill');
  expect(await cluster.processes['booking-1'].stop('SIGKILL')).toBeNull();
  const firstKilledAt = Date.now();
  await stream.until(() => stream.acknowledged(firstKilledAt) >= 10, '10 bookings on the process left');
  expect(await cluster.processes['booking-2'].stop('SIGKILL')).toBeNull();
  const allKilledAt = Date.now();
  await stream.until(() => stream.refused(allKilledAt) >= 20, '20 refusals with no booking process');
  for (const node of BOOKING_NODES) cluster.start(node);
  const restartedAt = Date.now();
  await cluster.waitForNodes(BOOKING_NODES);
  await stream.until(() => stream.acknowledged(restartedAt) >= 10, '10 bookings after the restart');
  await finish(stream, 'booking processes killed', outageKnownAt(stream, allKilledAt));
}, 240_000);

it('answers 503 while the NATS server is down, loses and doubles no booking, and recovers when it is back', async () => {
  const stream = streamOf('nats');
  await stream.until(() => stream.acknowledged() >= 10, '10 bookings before the kill');
  await cluster.nats.kill();
  const killedAt = Date.now();
  await stream.until(() => stream.refused(killedAt) >= 20, '20 refusals while NATS is down');
  const ready = await httpRequest(cluster.baseUrl, 'GET', '/health/ready');
  await cluster.nats.start();
  const restartedAt = Date.now();
  await stream.until(() => stream.acknowledged(restartedAt) >= 10, '10 bookings after NATS is back');
  await finish(stream, 'NATS killed', outageKnownAt(stream, killedAt));
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toMatchObject({ transporter: 'down' });
  await waitFor(
    async () => (await httpRequest(cluster.baseUrl, 'GET', '/health/ready')).status === 200,
    'the front process to be ready again',
  );
}, 240_000);

it('answers 503 while the Postgres server is stopped, loses and doubles no booking, and recovers when it is back', async () => {
  const nodes = Object.keys(NODES) as NodeName[];
  const outagesLogged = () =>
    nodes.map((node) => cluster.processes[node].output().split('Database unreachable').length - 1);
  const loggedBefore = outagesLogged();
  const stream = streamOf('postgres');
  await stream.until(() => stream.acknowledged() >= 10, '10 bookings before the stop');
  await cluster.postgres.stop();
  const stoppedAt = Date.now();
  await stream.until(() => stream.refused(stoppedAt) >= 20, '20 refusals while Postgres is stopped');
  const ready = await httpRequest(cluster.baseUrl, 'GET', '/health/ready');
  await cluster.postgres.start();
  const startedAt = Date.now();
  await stream.until(() => stream.acknowledged(startedAt) >= 10, '10 bookings after Postgres is back');
  await finish(stream, 'Postgres stopped', outageKnownAt(stream, stoppedAt));
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toMatchObject({ database: 'down' });
  // Each process that met the outage logged it once, not once per request.
  const logged = outagesLogged().map((count, index) => count - loggedBefore[index]);
  for (const count of logged) expect(count).toBeLessThanOrEqual(1);
  expect(logged.some((count) => count === 1)).toBe(true);
}, 240_000);

it('delivers every AMQP webhook that fell due while the link to RabbitMQ was cut, once it is back', async () => {
  cluster.rabbitLink.cut();
  const cutAt = new Date();
  const stream = streamOf('rabbit');
  let attempts: Attempt[];
  try {
    await stream.until(() => stream.acknowledged() >= 10, '10 bookings while RabbitMQ is cut off');
    attempts = await stream.stop();
    everyAttempt.push(...attempts);
    const guids = attempts.filter((attempt) => attempt.status === 200).map((attempt) => attempt.guid!);
    // Their AMQP webhooks fell due and failed: the cut was met.
    await waitFor(
      async () => {
        const [{ n }] = (await cluster
          .knex('webhooks.attempts as a')
          .join('webhooks.deliveries as d', 'd.id', 'a.delivery_id')
          .where({ 'd.subscription_id': SUBSCRIPTIONS.amqp, 'a.ok': false })
          .whereIn('d.case_guid', guids)
          .where('a.started_at', '>=', cutAt)
          .count('* as n')) as Array<{ n: string }>;
        return Number(n) >= guids.length;
      },
      'an AMQP attempt of each booking to fail',
      60_000,
    );
  } finally {
    cluster.rabbitLink.restore();
  }
  // RabbitMQ is only the receivers' business: the API went on booking.
  expect(attempts.filter((attempt) => attempt.status !== 200)).toEqual([]);
  const guids = attempts.map((attempt) => attempt.guid!);
  const delivered = () => new Set(cluster.received.amqp.map((delivery) => delivery.caseGuid));
  await waitFor(() => guids.every((guid) => delivered().has(guid)), 'every AMQP webhook after the cut', 60_000);
  const { amqp } = await webhooksOf(cluster, guids);
  for (const guid of guids) {
    expect(amqp.stored.get(guid)).toBe(1);
    expect(amqp.delivered.get(guid)?.size).toBe(1);
  }
  figures.push({
    fault: 'RabbitMQ cut',
    sent: attempts.length,
    acknowledged: guids.length,
    connectionsCut: cluster.rabbitLink.cuts,
  });
}, 240_000);

it('resumes deliveries within 2 s of a restarted webhooks service joining, whatever the relays backed off to', async () => {
  // Each wait a booking process's outbox relay logged after a failed hand-over, from `from` on.
  const relayWaits = (from: Record<string, number[]> = {}): Record<string, number[]> =>
    Object.fromEntries(
      BOOKING_NODES.map((node) => [
        node,
        [...cluster.processes[node].output().matchAll(/Outbox relay failed \(.*?\); next attempt in (\d+) ms/g)]
          .map((match) => Number(match[1]))
          .slice(from[node]?.length ?? 0),
      ]),
    );
  const waitsBefore = relayWaits();
  expect(await cluster.processes['webhooks-1'].stop('SIGTERM')).toBe(0);
  await waitFor(() => !cluster.observer.registry.nodes.get('webhooks-1')?.available, 'the webhooks node to leave');
  const stream = streamOf('webhooks-restart');
  await stream.until(() => stream.acknowledged() >= 10, '10 bookings while the webhooks service is down');
  const attempts = await stream.stop();
  everyAttempt.push(...attempts);
  expect(attempts.filter((attempt) => attempt.status !== 200)).toEqual([]);
  // The relays have backed off far past 2 s.
  await waitFor(
    () => Object.values(relayWaits(waitsBefore)).some((waits) => waits.some((ms) => ms >= 8_000)),
    'an outbox relay to back off 8 s',
    90_000,
  );
  cluster.start('webhooks-1');
  await waitFor(
    () => Boolean(cluster.observer.registry.nodes.get('webhooks-1')?.available),
    'the webhooks node',
    90_000,
  );
  const joinedAt = Date.now();
  const guids = attempts.map((attempt) => attempt.guid!);
  const delivered = () => new Set(cluster.received.http.map((delivery) => delivery.caseGuid));
  await waitFor(() => guids.every((guid) => delivered().has(guid)), 'every webhook after the restart', 60_000);
  const resumedInMs = Date.now() - joinedAt;
  figures.push({
    fault: 'webhooks restarted',
    acknowledged: guids.length,
    resumedInMs,
    relayWaitsMs: relayWaits(waitsBefore),
  });
  expect(resumedInMs).toBeLessThan(2_000);
}, 240_000);

it('delivers the webhook of every case the faults left stored, once per receiver, under one webhook-id', async () => {
  await cluster.waitForBookingsToSettle();
  const account = await accountFor(cluster.knex, everyAttempt, phases);
  expect({
    lost: account.lost,
    doubled: account.doubled,
    wrongGuid: account.wrongGuid,
    unsent: account.unsent,
    unavailableButStored: account.unavailableButStored,
  }).toEqual({ lost: [], doubled: [], wrongGuid: [], unsent: [], unavailableButStored: [] });
  const guids = (
    (await cluster.knex('booking.cases').select('guid').where('partner_id', 2)) as Array<{ guid: string }>
  ).map((row) => row.guid);
  expect(guids.length).toBeGreaterThanOrEqual(account.acknowledged);
  const arrived = (kind: 'http' | 'amqp') => new Set(cluster.received[kind].map((delivery) => delivery.caseGuid));
  await waitFor(
    () => guids.every((guid) => arrived('http').has(guid) && arrived('amqp').has(guid)),
    `the webhooks of all ${guids.length} cases`,
    120_000,
  );
  const webhooks = await webhooksOf(cluster, guids);
  for (const kind of ['http', 'amqp'] as const) {
    const wrong = guids.filter(
      (guid) => webhooks[kind].stored.get(guid) !== 1 || webhooks[kind].delivered.get(guid)?.size !== 1,
    );
    expect(wrong).toEqual([]);
  }
  figures.push({
    fault: 'all of the above',
    bookingsSent: everyAttempt.length,
    acknowledged: account.acknowledged,
    casesStored: guids.length,
    httpDeliveries: cluster.received.http.length,
    amqpDeliveries: cluster.received.amqp.length,
  });
}, 240_000);
