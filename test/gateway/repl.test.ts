/**
 * `npm run repl` without TRANSPORTER: the REPL starts an embedded hub of its own on its data
 * directory (the demo world loaded), lists the services and calls their actions, as the README
 * shows, and leaves the directory free again on `quit`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRepl, type ReplSession } from '../support/processes';

let dataDir: string;
let repl: ReplSession;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-repl-'));
  // No gateway port is needed to work in the REPL; port 0 keeps suites side by side apart.
  repl = await openRepl({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', METRICS: 'false' });
}, 120_000);

afterAll(async () => {
  await repl?.process.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('lists every service of the embedded hub as running', async () => {
  const listed = await repl.run('services', /webhooks[^\n]*OK/);
  for (const service of [
    'booking',
    'catalog',
    'cost-proposals',
    'gateway',
    'invoicing',
    'messaging',
    'models',
    'routing',
    'webhooks',
  ]) {
    expect(listed).toMatch(new RegExp(`║ ${service} +│[^\\n]*OK`));
  }
});

it('calls an action with parameters and prints its answer', async () => {
  const answer = await repl.run('call catalog.provider --id 10', /Nordic Repair Center/);
  expect(answer).toMatch(/id: 10\b/);
});

it('calls an action for a caller given in the meta, and prints a refusal as an error', async () => {
  const routed = await repl.run(
    'call routing.find --serviceType 2 --manufacturer Apple --productType 1 --clientPostalCode 0150 --#caller.role partner --#caller.partnerId 1',
    /serviceProvider/,
  );
  expect(routed).toMatch(/name: 'Nordic Repair Center'/);
  expect(await repl.run('call catalog.provider --id 99999', /Error/)).toMatch(/not found/i);
});

it('quits with exit code 0 and frees the data directory for the next hub', async () => {
  expect(await repl.quit()).toBe(0);
  const next = await openRepl({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', METRICS: 'false' });
  expect(await next.quit()).toBe(0);
}, 120_000);
