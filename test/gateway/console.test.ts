/**
 * The operator console at /console: admin only, and in headless Chromium it shows the nodes,
 * the services, every outbox's backlog and the webhook state, checked on a screenshot; a dead
 * letter is redelivered with its button.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseOf, writeEvent } from '../../shared/src';
import { describeInBrowser, launchBrowser, type Browser } from '../support/browser';
import { DEMO_TOKENS, startTestHub, type TestHub, waitFor } from '../support/hub';
import { domainEvent } from '../../services/webhooks/test/support/events';
import { type Receiver, startReceiver } from '../../services/webhooks/test/support/receiver';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ services: ['catalog', 'routing', 'booking', 'messaging', 'gateway'] });
});
afterAll(() => hub.stop());

describe('access', () => {
  it('serves the console to an admin token only, and asks anyone else for one', async () => {
    for (const [query, status, problem] of [
      ['', 401, 'Enter an admin token'],
      ['?accessToken=not-a-token', 401, 'That token is not known'],
      [`?accessToken=${DEMO_TOKENS.elkjop}`, 403, "That token is not an admin's"],
    ] as const) {
      const asked = await hub.request('GET', `/console${query}`);
      expect({ query, status: asked.status }).toEqual({ query, status });
      expect(asked.headers.get('content-type')).toMatch(/^text\/html/);
      expect(asked.body).toContain(problem);
      expect(asked.body).toMatch(/<form method="get" action="console">[\s\S]*name="accessToken"/);
      expect(asked.body).not.toContain('console/console.js');
    }
    const page = await hub.request('GET', `/console?accessToken=${DEMO_TOKENS.admin}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers the overview to an admin only', async () => {
    expect((await hub.request('GET', '/api/admin/overview', { token: DEMO_TOKENS.nrc })).status).toBe(403);
    const res = await hub.request('GET', '/api/admin/overview', { token: DEMO_TOKENS.admin });
    expect(res.status).toBe(200);
    expect(res.body.services.map((service: { name: string }) => service.name)).toEqual([
      'booking',
      'catalog',
      'gateway',
      'messaging',
      'routing',
    ]);
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
    await knex.transaction((trx) =>
      writeEvent(trx, 'booking', { type: 'case.created', audience: { partnerId: 1 }, payload: {} }),
    );
  });
  afterAll(() => browser?.close());

  it('shows nodes, services, outbox backlog and webhook state', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${hub.url}/console?accessToken=${DEMO_TOKENS.admin}`);
    // The sections fill one after another; the time stamp is written once all of them are drawn.
    await page.locator('#updated', { hasText: 'updated' }).waitFor();

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
    const pageHeight = await page.evaluate<number>('document.documentElement.scrollHeight');
    for (const selector of ['header h1', '#nodes', '#services', '#outbox', '#receivers', '#dead-letters']) {
      const box = await page.locator(selector).boundingBox();
      expect({
        selector,
        visible: Boolean(box && box.width > 100 && box.height > 10 && box.y + box.height <= pageHeight),
      }).toEqual({ selector, visible: true });
      expect((await page.locator(selector).screenshot()).length).toBeGreaterThan(500);
    }
    await page.close();
  });

  it('shows storage per table and when each retention rule last ran', async () => {
    await hub.broker.call('booking.runRetention');
    const page = await browser.context.newPage();
    await page.goto(`${hub.url}/console?accessToken=${DEMO_TOKENS.admin}`);
    const outbox = page.locator('#storage tr[data-table="booking.outbox"]');
    await outbox.waitFor();
    const cells = (await outbox.locator('td').allInnerTexts()).map((cell) => cell.trim());
    expect(cells.slice(0, 3)).toEqual(['booking', 'booking.outbox', '1']);
    expect(cells[3]).toMatch(/^\d+(\.\d)? (B|kB|MB)$/);
    expect(cells[4]).toMatch(/^\d{4}-\d\d-\d\dT.*\(\d+ (s|min) old\)$/);
    const tables = await page.locator('#storage tbody tr td:first-child').allInnerTexts();
    expect([...new Set(tables)]).toEqual(['booking', 'catalog', 'messaging', 'routing']);
    const relayed = page.locator('#retention tr[data-rule="booking: relayed events"]');
    const rule = (await relayed.locator('td').allInnerTexts()).map((cell) => cell.trim());
    expect(rule.slice(0, 3)).toEqual(['booking', 'relayed events (booking.outbox)', '7 d']);
    expect(Date.parse(rule[3])).not.toBeNaN();
    expect(rule.slice(4)).toEqual(['0', '0']);
    // Messaging's job has not run yet.
    const messaging = page.locator('#retention tr[data-rule="messaging: relayed events"] td:nth-child(4)');
    expect(await messaging.innerText()).toBe('not yet');
    const box = await page.locator('#storage').boundingBox();
    expect(box && box.width > 100 && box.height > 10).toBe(true);
    await page.close();
  });

  it('shows the refusal when the token is not an admin one', async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(`${hub.url}/console?accessToken=${DEMO_TOKENS.elkjop}`);
    expect(response!.status()).toBe(403);
    expect(await page.locator('#problem').innerText()).toBe("That token is not an admin's: enter an admin token.");
    await expect(page.locator('input[name="accessToken"]').isVisible()).resolves.toBe(true);
    await page.close();
  });
});

describeInBrowser('console page with webhooks', () => {
  let hooks: TestHub;
  let browser: Browser;
  let receiver: Receiver;
  let failing = true;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.answer = () => (failing ? { status: 500 } : { status: 200 });
    hooks = await startTestHub({
      services: ['catalog', 'webhooks', 'gateway'],
      env: { WEBHOOK_RETRY_SCHEDULE: '0,50ms', WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000', METRICS: 'true' },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await hooks?.stop();
    await receiver?.close();
  });

  it('shows a dead letter with its receiver health and redelivers it with the button', async () => {
    const created = await hooks.request('POST', '/api/admin/webhooks/subscriptions', {
      token: DEMO_TOKENS.admin,
      body: { accountId: 3, eventTypes: ['message.created'], target: { kind: 'http', url: `${receiver.url}/hook` } },
    });
    expect(created.status).toBe(200);
    const subscriptionId = created.body.data.id as number;
    await hooks.broker.call('webhooks.ingest', {
      events: [domainEvent('message.created', { partnerId: 2 }, { message: { id: 1 } })],
    });
    await waitFor(
      async () =>
        (
          await hooks.request('GET', `/api/admin/webhooks/deliveries?state=dead&subscriptionId=${subscriptionId}`, {
            token: DEMO_TOKENS.admin,
          })
        ).body.data.length === 1,
      'the dead letter',
    );

    const overview = await hooks.request('GET', '/api/admin/overview?hours=6', { token: DEMO_TOKENS.admin });
    expect(overview.status).toBe(200);
    expect(overview.body.webhooks.totals).toEqual({ pending: 0, failing: 0, dead: 1 });
    const health = overview.body.webhooks.receivers.find(
      (entry: { subscriptionId: number }) => entry.subscriptionId === subscriptionId,
    );
    expect(health).toMatchObject({ state: 'active', pending: 0, failing: 0, dead: 1, target: `${receiver.url}/hook` });
    expect(health.hourly).toHaveLength(6);
    const attempts = health.hourly.reduce(
      (sum: { ok: number; failed: number }, bucket: { succeeded: number; failed: number }) => ({
        ok: sum.ok + bucket.succeeded,
        failed: sum.failed + bucket.failed,
      }),
      { ok: 0, failed: 0 },
    );
    expect(attempts).toEqual({ ok: 0, failed: 2 });
    const metrics = (await hooks.request('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/^hub_webhooks_deliveries\{.*state="dead".*\} 1$/m);

    const page = await browser.context.newPage();
    await page.goto(`${hooks.url}/console?accessToken=${DEMO_TOKENS.admin}`);
    const row = page.locator(`#receivers tr[data-subscription="${subscriptionId}"]`);
    await row.waitFor();
    expect(await row.locator('svg.chart rect.failed').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#webhook-totals').innerText()).toBe('pending 0 · failing 0 · dead-lettered 1');
    const dead = page.locator('#dead-letters tbody tr[data-delivery]');
    expect(await dead.count()).toBe(1);
    expect(await dead.innerText()).toContain('message.created');
    await page.screenshot({
      path: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-console-')), 'console-webhooks.png'),
      fullPage: true,
    });

    failing = false;
    await dead.locator('button.redeliver').click();
    await waitFor(
      async () =>
        (
          await hooks.request(
            'GET',
            `/api/admin/webhooks/deliveries?state=succeeded&subscriptionId=${subscriptionId}`,
            { token: DEMO_TOKENS.admin },
          )
        ).body.data.length === 1,
      'the redelivery',
    );
    await page.locator('#refresh').click();
    await page.locator('#dead-letters tbody td.empty').waitFor();
    expect(await page.locator('#dead-letters tbody').innerText()).toBe('no dead letters');
    await page.close();
  });
});
