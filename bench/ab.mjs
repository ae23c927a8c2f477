// `node bench/ab.mjs <other checkout> [--only <group or name part>]… [--pages N]`: this checkout's
// release package against another checkout's (e.g. a `git worktree` of the commit that made the
// committed bench run, built with its own `npm run build`), on the same machine in one session.
// Diagnostic only (not part of `npm test` or `npm run bench`).
//
// Each page is a fresh browser page running bench/index.html of one checkout with `?only=`; the
// pages alternate A B B A … so that drift in the machine lands on both sides alike. Each page
// reports its medians; this prints, per workload, the median over pages of ours in each
// checkout, and the same for the JS module (the control: the same code in both pages, so its
// ratio shows what the noise alone does). One short uncounted page opens each group.
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { serve } from '../scripts/serve.mjs';

const args = process.argv.slice(2);
const other = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!other) {
  console.error('usage: node bench/ab.mjs <other checkout> [--only <group>]… [--pages N]');
  process.exit(2);
}
const only = args.flatMap((a, i) => (a === '--only' ? [args[i + 1]] : []));
const pagesEach = Number(args[args.indexOf('--pages') + 1] || 4);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 20);

const { serve: serveOther } = await import(pathToFileURL(resolve(other, 'scripts/serve.mjs')).href);
const servers = { this: await serve(), other: await serveOther() };
const browser = await chromium.launch(chromiumOptions());
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function runPage(side, group, rounds = iterations) {
  const page = await browser.newPage();
  try {
    // Cross-origin isolated (5 µs timer), as in the bench.
    await page.route('**/*', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } });
    });
    const query = `iterations=${rounds}&warmup=3${group ? `&only=${encodeURIComponent(group)}` : ''}`;
    await page.goto(servers[side].url.replace('/www/', `/bench/index.html?${query}`));
    await page.waitForFunction(() => window.__benchResult || window.__benchError || null, null, { timeout: 30 * 60_000, polling: 250 });
    const data = await page.evaluate(() => window.__benchResult ?? Promise.reject(new Error(window.__benchError)));
    return data.results;
  } finally {
    await page.close();
  }
}

// workload → impl → side → medians of each page
const seen = new Map();
try {
  for (const group of only.length ? only : [null]) {
    // A browser's first page is slower than the rest (code caches, the disk's first writes): one
    // short page, not counted, before each group.
    await runPage('other', group, 2);
    for (let k = 0; k < pagesEach * 2; k++) {
      const side = [0, 3].includes(k % 4) ? 'this' : 'other';
      const results = await runPage(side, group);
      for (const r of results) {
        if (!seen.has(r.workload)) seen.set(r.workload, new Map());
        const byImpl = seen.get(r.workload);
        if (!byImpl.has(r.impl)) byImpl.set(r.impl, { this: [], other: [] });
        byImpl.get(r.impl)[side].push(r.median);
      }
      console.error(`ab: ${group ?? 'all'} page ${k + 1}/${pagesEach * 2} (${side}) done`);
    }
  }
} finally {
  await browser.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
}

console.log(`A/B, ${pagesEach} pages each, ${iterations} rounds a page; medians over pages (ms); this/other`);
console.log('| workload | impl | other | this | this/other | pages (this) | pages (other) |');
console.log('|---|---|---:|---:|---:|---|---|');
const f = (x) => x.toFixed(2);
for (const [workload, byImpl] of seen) {
  for (const [impl, s] of byImpl) {
    if (!s.this.length || !s.other.length) continue;
    const [a, b] = [median(s.this), median(s.other)];
    console.log(`| ${workload} | ${impl} | ${f(b)} | ${f(a)} | ${(a / b).toFixed(3)}× | ${s.this.map(f).join(' ')} | ${s.other.map(f).join(' ')} |`);
  }
}
