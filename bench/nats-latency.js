#!/usr/bin/env node
/**
 * One call at a time between two brokers over the local NATS server: the hub's transport path.
 * Beside it in the same run: a raw NATS request/reply with the same client library (the floor
 * NATS itself sets) and a call inside one broker (no network). A flush delay in the client
 * would show as calls held to milliseconds instead of tens of microseconds.
 *
 * Run after `npm run build`: node bench/nats-latency.js [calls, default 5000]; `--quick`: 200
 * calls each. Ends with one JSON line (bench/lib/benchmark.js).
 */
const { ServiceBroker } = require('moleculer');
const { connect, StringCodec } = require('nats');
const { quick, args, ratio, runBenchmark } = require('./lib/benchmark');

const NATS_URL = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const CALLS = quick ? 200 : Number(args[0] || 5000);
const WARMUP = quick ? 50 : 500;

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return {
    calls: samples.length,
    meanUs: +(mean * 1000).toFixed(1),
    p50Us: +(at(0.5) * 1000).toFixed(1),
    p99Us: +(at(0.99) * 1000).toFixed(1),
    perSecond: Math.round(1000 / mean),
  };
}

async function time(run) {
  for (let i = 0; i < WARMUP; i++) await run(i);
  const samples = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await run(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summary(samples);
}

const echo = { name: 'echo', actions: { ping: (ctx) => ({ n: ctx.params.n }) } };

async function overMoleculerNats() {
  const namespace = `bench-${process.pid}`;
  const transporter = { type: 'NATS', options: { url: NATS_URL } };
  const responder = new ServiceBroker({ namespace, nodeID: 'responder', transporter, logger: false });
  const caller = new ServiceBroker({ namespace, nodeID: 'caller', transporter, logger: false });
  responder.createService(echo);
  await responder.start();
  await caller.start();
  await caller.waitForServices('echo');
  const result = await time((n) => caller.call('echo.ping', { n }));
  await caller.stop();
  await responder.stop();
  return result;
}

async function rawNats() {
  const codec = StringCodec();
  const server = await connect({ servers: NATS_URL });
  const client = await connect({ servers: NATS_URL });
  const subject = `bench.echo.${process.pid}`;
  const subscription = server.subscribe(subject);
  (async () => {
    for await (const message of subscription) message.respond(message.data);
  })();
  await server.flush();
  const result = await time((n) => client.request(subject, codec.encode(JSON.stringify({ n })), { timeout: 5000 }));
  await client.close();
  await server.close();
  return result;
}

async function inProcess() {
  const broker = new ServiceBroker({ logger: false });
  broker.createService(echo);
  await broker.start();
  const result = await time((n) => broker.call('echo.ping', { n }));
  await broker.stop();
  return result;
}

runBenchmark('nats-latency', async () => {
  const overNats = await overMoleculerNats();
  const raw = await rawNats();
  const rows = {
    'moleculer call over NATS (hub path)': overNats,
    'raw NATS request/reply (baseline)': raw,
    'moleculer call in one process': await inProcess(),
  };
  console.table(rows);
  return {
    ratios: { 'moleculerOverNats.meanLatency': ratio(raw.meanUs, overNats.meanUs) },
    figures: { calls: CALLS, rows },
  };
});
