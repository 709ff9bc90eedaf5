/**
 * The API explorer at /api/docs in headless Chromium: Swagger UI loads from the gateway (no
 * other host), reads the generated document, and makes a real call with the page's token.
 */
import { describeInBrowser, launchBrowser, type Browser } from '../support/browser';
import { DEMO_TOKENS, startTestHub, type TestHub } from '../support/hub';

describeInBrowser('API explorer', () => {
  let hub: TestHub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await startTestHub({ services: ['catalog', 'gateway'] });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
  });

  it('serves Swagger UI and its assets from the gateway', async () => {
    const page = await hub.request('GET', '/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain('docs/swagger-ui-bundle.js');
    expect(page.body).not.toMatch(/https?:\/\//);
    expect((await hub.request('GET', '/api/docs/swagger-ui-bundle.js')).status).toBe(200);
    expect((await hub.request('GET', '/api/docs/swagger-ui.css')).status).toBe(200);
    expect((await hub.request('GET', '/api/docs/package.json')).status).toBe(404);
    // With a trailing slash the page's relative links would miss: it sends the browser to the page.
    const slash = await fetch(`${hub.url}/api/docs/?accessToken=x`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe('/api/docs?accessToken=x');
  });

  it('calls GET /v3/provider from the page and shows the answer', async () => {
    const page = await browser.context.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(hub.url)) foreign.push(request.url());
    });
    await page.goto(`${hub.url}/api/docs?accessToken=${DEMO_TOKENS.elkjop}`);
    const operation = page.locator('.opblock-get', {
      has: page.locator('.opblock-summary-path[data-path="/v3/provider"]'),
    });
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="id"] input').fill('20');
    const answered = page.waitForResponse((response) => response.url().startsWith(`${hub.url}/api/v3/provider?id=20`));
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().headers()['x-hub-api-token']).toBe(DEMO_TOKENS.elkjop);
    const shownStatus = operation.locator('.live-responses-table tbody .response-col_status').first();
    await shownStatus.waitFor();
    expect((await shownStatus.innerText()).trim()).toMatch(/^200\b/);
    expect(await operation.locator('.live-responses-table .highlight-code').first().innerText()).toContain(
      'Svea Service Verkstad',
    );
    expect(foreign).toEqual([]);
    await page.close();
  });
});
