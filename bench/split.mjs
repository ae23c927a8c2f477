// `node bench/split.mjs`: where a single write's and a clear's time goes, measured in one page
// with raw IndexedDB next to the real implementations (bench/split.html). Prints medians (ms):
// - write: the JS module's put with and without its Blob sizing; the requests our store issues
//   per write, in plain JS (ending on their own, and committed once the totals are put, as the
//   package does), and the same with the per-conversation row releases up to 0.3 kept,
//   without the totals, without the usage row, and the record's put alone (what each part of
//   the contract costs); three designs with a delta row instead of the totals (measured, not
//   shipped: bench/READING.md); ours through the package (2 000 entries stored in each database);
// - clear of 1 000 entries with 1 000 kept: one range delete on the JS module's schema (the
//   bench's floor); the same on ours; the count check against a conversation row (releases up to 0.3);
//   ours: the range's usage rows and two counts read, then the range deletes.
// Diagnostic only (not part of `npm run bench`); run it after `npm run build`.
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { serve } from '../scripts/serve.mjs';

const server = await serve();
const browser = await chromium.launch(chromiumOptions());
try {
  const page = await browser.newPage();
  // Cross-origin isolated (5 µs timer), as in the bench.
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } });
  });
  await page.goto(`${server.origin}/bench/split.html`);
  // The page's globals (bench/split.html sets one of them), read in the page.
  /** @typedef {Window & { __split?: Record<string, Record<string, number>>, __splitError?: string }} Page */
  await page.waitForFunction(() => /** @type {Page} */ (window).__split || /** @type {Page} */ (window).__splitError, null, { timeout: 600_000 });
  const result = await page.evaluate(() => /** @type {Page} */ (window).__split ?? Promise.reject(new Error(/** @type {Page} */ (window).__splitError)));
  for (const [group, rows] of Object.entries(result)) {
    console.log(`${group}:`);
    for (const [name, ms] of Object.entries(rows)) console.log(`  ${name.padEnd(44)} ${ms.toFixed(2)} ms`);
  }
} finally {
  await browser.close();
  await server.close();
}
