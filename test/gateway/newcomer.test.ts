/**
 * A newcomer's first minutes: the hub started as `npm start` starts it (`hub start`, its own
 * process, a fresh data directory), whose banner names the explorer and the console; `/` and
 * `/api` lead to the explorer, where the demo token authorises a lookup run from the page; the
 * console without a token asks for one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeInBrowser, launchBrowser, type Browser } from '../support/browser';
import { DEMO_TOKENS, waitFor } from '../support/hub';
import { freePort, spawnHub, type HubProcess } from '../support/processes';

let dataDir: string;
let baseUrl: string;
let hub: HubProcess;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-newcomer-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  hub = spawnHub(['start'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', METRICS: 'false' });
  // A first start creates and migrates the database and loads the demo world: minutes on a loaded machine.
  await waitFor(
    () => hub.output().includes('Demo tokens') || hub.child.exitCode !== null,
    'the hub to print its banner',
    280_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; it printed:\n${hub.output()}`);
  });
  if (hub.child.exitCode !== null) throw new Error(`hub start stopped:\n${hub.output()}`);
}, 300_000);

afterAll(async () => {
  await hub?.stop('SIGINT');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the first steps', () => {
  it('prints where to go: the explorer and the console, with the demo tokens', () => {
    const banner = hub.output();
    expect(banner).toContain(`Service hub listening on ${baseUrl}`);
    expect(banner).toContain(`${baseUrl}/api/docs?accessToken=${DEMO_TOKENS.elkjop}`);
    expect(banner).toContain(`${baseUrl}/console?accessToken=${DEMO_TOKENS.admin}`);
    expect(banner).toContain(DEMO_TOKENS.sandboxShop);
  });

  it('leads from / and /api to the explorer, keeping a token given', async () => {
    for (const [from, to] of [
      ['/', '/api/docs'],
      ['/api', '/api/docs'],
      [`/?accessToken=${DEMO_TOKENS.elkjop}`, `/api/docs?accessToken=${DEMO_TOKENS.elkjop}`],
    ]) {
      const answer = await fetch(`${baseUrl}${from}`, { redirect: 'manual' });
      expect({ from, status: answer.status, location: answer.headers.get('location') }).toEqual({
        from,
        status: 302,
        location: to,
      });
    }
  });
});

describeInBrowser('a newcomer in the browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('opens /, lands on the explorer, authorises with the demo token and runs a lookup', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${baseUrl}/`);
    expect(page.url()).toBe(`${baseUrl}/api/docs`);
    // The current version leads; the older paths come after the admin endpoints.
    const tags = page.locator('h3.opblock-tag');
    // Swagger UI renders the whole document (every operation) before it shows the first tag.
    await tags.first().waitFor({ timeout: 120_000 });
    const names = await tags.evaluateAll((found) => found.map((tag) => tag.getAttribute('data-tag')));
    expect(names[0]).toBe('booking');
    expect(names.indexOf('admin')).toBeGreaterThan(names.indexOf('webhooks'));
    expect(names.indexOf('catalog (v1/v2)')).toBeGreaterThan(names.indexOf('admin'));

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const scheme = page.locator('.auth-container', { hasText: 'hubApiToken' });
    await scheme.locator('input').fill(DEMO_TOKENS.elkjop);
    await scheme.getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.auth-btn-wrapper .btn-done').first().click();

    const operation = page.locator('.opblock-get', {
      has: page.locator('.opblock-summary-path[data-path="/v3/provider"]'),
    });
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="id"] input').fill('20');
    const answered = page.waitForResponse((response) => response.url().startsWith(`${baseUrl}/api/v3/provider?id=20`));
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().headers()['x-hub-api-token']).toBe(DEMO_TOKENS.elkjop);
    const shown = operation.locator('.live-responses-table .highlight-code').first();
    await shown.waitFor();
    expect(await shown.innerText()).toContain('Svea Service Verkstad');
    await page.close();
  }, 240_000);

  it('asks for a token on /console and opens the console with the admin token', async () => {
    const page = await browser.context.newPage();
    const asked = await page.goto(`${baseUrl}/console`);
    expect(asked?.status()).toBe(401);
    await expect(page.locator('#problem').innerText()).resolves.toContain('Enter an admin token');
    await page.locator('input[name="accessToken"]').fill(DEMO_TOKENS.admin);
    const opened = page.waitForResponse((response) => response.url().startsWith(`${baseUrl}/console?`));
    await page.getByRole('button', { name: 'Open the console' }).click();
    expect((await opened).status()).toBe(200);
    await page.locator('#nodes tbody tr td').first().waitFor();
    expect(await page.locator('#nodes tbody').innerText()).toMatch(/\S/);
    await page.close();
  });
});
