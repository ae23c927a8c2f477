// What the Playwright scripts that need a persistent browser profile share: the demo server, a
// Chromium profile in a temporary folder (IndexedDB survives reloads and new pages), pages that
// have imported the package's browser entry, and the page errors collected along the way.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { serve } from '../../scripts/serve.mjs';

/**
 * Starts the server and a persistent Chromium profile. `newPage(setup?)` opens a blank page of
 * the server's origin with `window.mrc` (the browser entry, `ready()` awaited), then runs
 * `setup` in it (a self-contained function, as for `page.evaluate`). Page errors and
 * `console.error`s land in `problems`. `close()` ends it all and deletes the profile.
 */
export async function openProfile(label) {
  const server = await serve();
  const origin = new URL(server.url).origin;
  const profile = await mkdtemp(join(tmpdir(), `mcp-rc-${label}-`));
  const context = await chromium.launchPersistentContext(profile, chromiumOptions());
  const problems = [];
  async function newPage(setup) {
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
    await page.goto(`${origin}/tests/e2e/blank.html`);
    await page.evaluate(async () => {
      window.mrc = await import('/pkg/browser.mjs');
      await window.mrc.ready();
    });
    if (setup) await page.evaluate(setup);
    return page;
  }
  async function close() {
    await context.close();
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
  return { origin, context, problems, newPage, close };
}
