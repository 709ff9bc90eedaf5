/**
 * Headless Chromium for tests that look at the hub's pages: Debian's chromium driven by
 * playwright-core. Suites that need it are skipped, saying why, only where no chromium exists
 * (CI installs it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const chromiumFound = fs.existsSync(CHROMIUM_PATH);

/** `describe` where chromium exists, else a skipped suite and a message naming what is missing. */
export function describeInBrowser(name: string, suite: () => void): void {
  if (chromiumFound) {
    describe(name, suite);
    return;
  }
  console.warn(`Skipping "${name}": no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
  describe.skip(name, suite);
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A browser on a fresh profile directory, removed again on close. */
export async function launchBrowser(): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
