// Playwright (playwright-core + Debian's /usr/bin/chromium) against the demo page served by
// scripts/serve.mjs. Fails on any page error or console error; saves www-demo.png.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import * as nodeEntry from '../../js/node.mjs';

const server = await serve();
const profile = await mkdtemp(join(tmpdir(), 'mcp-rc-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const problems = [];
let passed = 0;
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
  await page.goto(server.url);
  await page.waitForSelector('#status:not([data-state="running"])', { timeout: 30_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'done', await page.textContent('#status'));
  const envelope = JSON.parse(await page.textContent('#envelope'));
  assert.equal(envelope.rows, 240);
  assert.match(envelope._cache_uri, /^mcp\+cache:\/\/demo-conversation\/[A-Za-z0-9_-]{11}$/);
  assert.match(await page.textContent('#resolved'), /\[240 rows\].*equal to the original: true/);
  assert.match(await page.textContent('#savings'), /output chars saved/);
  passed++;
  // Entries survive a reload: the previous reference still resolves from IndexedDB.
  await page.reload();
  await page.waitForSelector('#status[data-state="done"]', { timeout: 30_000 });
  const survived = await page.evaluate(async (uri) => {
    const { readCachedPayload } = await import('/js/browser.mjs');
    return readCachedPayload(uri);
  }, envelope._cache_uri);
  // The demo uses its own database; the default one must NOT have it (scoping by dbName).
  assert.equal(survived, null);
  const again = await page.evaluate(async (uri) => {
    const { ResultCache } = await import('/js/browser.mjs');
    const data = await new ResultCache({ dbName: 'mcp-result-cache-demo' }).readCachedPayload(uri);
    return data?.rows?.length ?? null;
  }, envelope._cache_uri);
  assert.equal(again, 240);
  passed++;
  // The browser entry exports exactly what the Node entry exports.
  const browserNames = await page.evaluate(async () => Object.keys(await import('/js/browser.mjs')).sort());
  assert.deepEqual(browserNames, Object.keys(nodeEntry).sort());
  passed++;
  await page.screenshot({ path: 'www-demo.png', fullPage: true });
  assert.deepEqual(problems, []);
  console.log(`e2e: ${passed} passed, 0 failed`);
} catch (error) {
  console.error(error);
  console.error(problems.join('\n'));
  console.log(`e2e: ${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  await context.close();
  await server.close();
  await rm(profile, { recursive: true, force: true });
}
