// The Node side of the bench's pages, shared by bench/run.mjs, bench/ab.mjs and
// bench/cold-start.mjs.

/** The median of a list of numbers (the mean of the two middle ones for an even count). */
export const median = (/** @type {readonly number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// The page's globals, set by bench/index.html when it is done: `window` typed with them, read by
// the functions below that run in the page (so they name nothing of Node).
/** @typedef {{ workload: string, impl: string, median: number, [key: string]: unknown }} BenchRow */
/** @typedef {Window & { __benchResult?: { results: BenchRow[], [key: string]: unknown }, __benchError?: string }} Page */

/**
 * Runs bench/index.html in a new page of `browser` and resolves its `window.__benchResult`.
 * `origin` is a server from scripts/serve.mjs (`server.url`); `query` the page's parameters
 * (`iterations`, `warmup`, `only`, `smoke`). Rejects with the page's own error, or with the
 * errors it logged, so no number from a failing page is ever used.
 *
 * Every response is cross-origin isolated (COOP + COEP), which gives performance.now() 5 µs
 * resolution instead of 100 µs: single writes take about a millisecond.
 * @param {import('playwright-core').Browser} browser @param {{ url: string }} server
 * @param {Record<string, string | number | boolean>} query @param {{ timeoutMinutes?: number }} [options]
 * @returns {Promise<{ results: BenchRow[], [key: string]: unknown }>}
 */
export async function runBenchPage(browser, server, query, { timeoutMinutes = 30 } = {}) {
  const page = await browser.newPage();
  try {
    await page.route('**/*', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } });
    });
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
      else if (m.type() === 'log' && process.env.BENCH_VERBOSE) console.log(`  [page] ${m.text()}`);
    });
    const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    await page.goto(server.url.replace('/www/', `/bench/index.html?${params}`));
    await page.waitForFunction(() => /** @type {Page} */ (window).__benchResult || /** @type {Page} */ (window).__benchError || null,
      null, { timeout: timeoutMinutes * 60_000, polling: 250 });
    const data = await page.evaluate(() => /** @type {Page} */ (window).__benchResult);
    if (!data) throw new Error(`benchmark page failed: ${await page.evaluate(() => /** @type {Page} */ (window).__benchError)} ${errors.join(' | ')}`);
    if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
    return data;
  } finally {
    await page.close();
  }
}
