/**
 * The operator console at /console: admin only, and in headless Chromium it shows the nodes,
 * the services, every outbox's backlog and the webhook state, checked on a screenshot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseOf, writeEvent } from '../../shared/src';
import { describeInBrowser, launchBrowser, type Browser } from '../support/browser';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'routing', 'booking', 'messaging', 'gateway'] });
});
afterAll(() => hub.stop());

describe('access', () => {
  it('serves the console to an admin token only', async () => {
    expect((await hub.request('GET', '/console')).status).toBe(401);
    expect((await hub.request('GET', '/console?accessToken=not-a-token')).status).toBe(401);
    expect((await hub.request('GET', `/console?accessToken=${DEMO_TOKENS.elkjop}`)).status).toBe(403);
    const page = await hub.request('GET', `/console?accessToken=${DEMO_TOKENS.admin}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers the overview to an admin only', async () => {
    expect((await hub.request('GET', '/api/admin/overview', { token: DEMO_TOKENS.nrc })).status).toBe(403);
    const res = await hub.request('GET', '/api/admin/overview', { token: DEMO_TOKENS.admin });
    expect(res.status).toBe(200);
    expect(res.body.services.map((service: { name: string }) => service.name)).toEqual(['booking', 'catalog', 'gateway', 'messaging', 'routing']);
    expect(res.body.outbox).toEqual([
      { service: 'booking', pending: 0 },
      { service: 'messaging', pending: 0 },
    ]);
    expect(res.body.webhooks).toBeNull();
  });
});

describeInBrowser('console page', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    // An event no webhooks service takes: it waits in the booking outbox.
    const { knex } = await databaseOf(hub.broker);
    await knex.transaction((trx) => writeEvent(trx, 'booking', { type: 'case.created', audience: { partnerId: 1 }, payload: {} }));
  });
  afterAll(() => browser?.close());

  it('shows nodes, services, outbox backlog and webhook state', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${hub.url}/console?accessToken=${DEMO_TOKENS.admin}`);
    await page.locator('#outbox tbody tr').first().waitFor();

    const nodeId = hub.broker.nodeID;
    expect(await page.locator('#nodes tbody').innerText()).toContain(nodeId);
    expect(await page.locator('#nodes tbody .up').count()).toBe(1);
    const services = await page.locator('#services tbody tr td:first-child').allInnerTexts();
    expect(services).toEqual(['booking', 'catalog', 'gateway', 'messaging', 'routing']);
    const outbox = await page.locator('#outbox tbody tr').allInnerTexts();
    expect(outbox.map((row) => row.split('\t').map((cell) => cell.trim()))).toEqual([
      ['booking', '1'],
      ['messaging', '0'],
    ]);
    expect(await page.locator('#outbox tbody .warn').innerText()).toBe('1');
    expect(await page.locator('#webhook-totals').innerText()).toBe('The webhooks service is not running.');
    expect(await page.locator('#problem').isHidden()).toBe(true);

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-console-')), 'console.png');
    const shot = await page.screenshot({ path: file, fullPage: true });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
    for (const selector of ['header h1', '#nodes', '#services', '#outbox', '#receivers', '#dead-letters']) {
      const box = await page.locator(selector).boundingBox();
      expect({ selector, visible: Boolean(box && box.width > 100 && box.height > 10 && box.y + box.height <= pageHeight) }).toEqual({ selector, visible: true });
      expect((await page.locator(selector).screenshot()).length).toBeGreaterThan(500);
    }
    await page.close();
  });

  it('shows the refusal when the token is not an admin one', async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(`${hub.url}/console?accessToken=${DEMO_TOKENS.elkjop}`);
    expect(response!.status()).toBe(403);
    expect(await page.locator('body').innerText()).toContain('not available for your access level');
    await page.close();
  });
});
