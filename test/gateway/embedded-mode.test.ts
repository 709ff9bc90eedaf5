/**
 * Embedded mode as a user runs it: `hub start` as its own process on a data directory, the demo
 * world loaded on the first start only, data kept across a restart, one hub per directory, and
 * the CLI refusing to open a directory a running hub holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_TOKENS, httpRequest, waitFor } from '../support/hub';
import { freePort, runHub, spawnHub, waitForOk, type HubProcess } from '../support/processes';

let dataDir: string;
let env: Record<string, string>;
let baseUrl: string;

async function startHubProcess(): Promise<HubProcess> {
  const hub = spawnHub(['start'], env);
  await waitForOk(baseUrl, '/health/ready', 'the embedded hub to be ready', { timeoutMs: 90_000 });
  return hub;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-embedded-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', METRICS: 'false' };
});

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('loads the demo world on the first start, keeps data across a restart, and allows one hub per directory', async () => {
  const first = await startHubProcess();
  await waitFor(() => first.output().includes('Demo tokens'), 'the demo tokens to be printed', 30_000);
  expect(first.output()).toMatch(/initial world|World loaded without/);
  const created = await httpRequest(baseUrl, 'POST', '/api/admin/accounts', {
    token: DEMO_TOKENS.admin,
    body: { name: 'Kept key', role: 'provider', providerId: 20 },
  });
  expect(created.status).toBe(200);
  const token = created.body.data.token as string;

  const second = await runHub(['start'], { ...env, PORT: '0' });
  expect(second.code).toBe(1);
  expect(second.output).toMatch(/already running/);
  const cli = await runHub(['account', 'create', '--name', 'x', '--role', 'admin'], env);
  expect(cli.code).toBe(1);
  expect(cli.output).toMatch(/use the admin API/);

  expect(await first.stop('SIGTERM')).toBe(0);

  const restarted = await startHubProcess();
  try {
    await waitFor(() => restarted.output().includes('Demo tokens'), 'the restarted hub to finish starting', 30_000);
    expect(restarted.output()).not.toMatch(/initial world|World loaded without/);
    expect((await httpRequest(baseUrl, 'GET', '/api/v3/provider?id=20', { token })).status).toBe(200);
  } finally {
    expect(await restarted.stop('SIGTERM')).toBe(0);
  }

  // Stopped: the CLI may open the directory itself now.
  const loaded = await runHub(
    ['account', 'create', '--name', 'Offline key', '--role', 'partner', '--partner-id', '1'],
    env,
  );
  expect(loaded.code).toBe(0);
  expect(loaded.output).toMatch(/Created account \d+/);
}, 240_000);
