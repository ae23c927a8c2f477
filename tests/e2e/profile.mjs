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
 * The window of a page `newPage` opened: the browser entry as `window.mrc` (each script adds
 * what its own `setup` puts there).
 * @typedef {Window & typeof globalThis & { mrc: typeof import('../../js/index.js') }} PageWindow
 */

/**
 * Starts the server and a persistent Chromium profile. `newPage(setup?)` opens a blank page of
 * the server's origin with `window.mrc` (the browser entry, `ready()` awaited), then runs
 * `setup` in it (a self-contained function, as for `page.evaluate`). Page errors and
 * `console.error`s land in `problems`. `close()` ends it all and deletes the profile.
 * @param {string} label
 */
export async function openProfile(label) {
  const server = await serve();
  const origin = new URL(server.url).origin;
  const profile = await mkdtemp(join(tmpdir(), `mcp-rc-${label}-`));
  const context = await chromium.launchPersistentContext(profile, chromiumOptions());
  /** @type {string[]} */
  const problems = [];
  /** @param {() => unknown} [setup] */
  async function newPage(setup) {
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
    await page.goto(`${origin}/tests/e2e/blank.html`);
    await page.evaluate(async () => {
      // The page's URL of the entry, as a string: not a module path on disk for tsc to resolve.
      /** @type {PageWindow} */ (window).mrc = await import(/** @type {string} */ ('/pkg/browser.mjs'));
      await /** @type {PageWindow} */ (window).mrc.ready();
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
