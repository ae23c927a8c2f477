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
import { median, runBenchPage } from './page.mjs';

const args = process.argv.slice(2);
const option = (/** @type {string} */ name) => args.flatMap((a, i) => (a === name && i + 1 < args.length ? [args[i + 1]] : []));
const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const only = option('--only');
const pagesEach = Number(option('--pages').at(-1) ?? 4);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 20);
if (positional.length !== 1 || !Number.isInteger(pagesEach) || pagesEach < 1) {
  console.error('usage: node bench/ab.mjs <other checkout> [--only <group>]… [--pages N ≥ 1]');
  process.exit(2);
}

const { serve: serveOther } = await import(pathToFileURL(resolve(positional[0], 'scripts/serve.mjs')).href);
const servers = { this: await serve(), other: await serveOther() };
const browser = await chromium.launch(chromiumOptions());
const runPage = async (/** @type {'this' | 'other'} */ side, /** @type {string | null} */ group, rounds = iterations) =>
  (await runBenchPage(browser, servers[side], { iterations: rounds, warmup: 3, ...(group ? { only: group } : {}) })).results;

// workload → impl → side → medians of each page
/** @type {Map<string, Map<string, { this: number[], other: number[] }>>} */
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
        const byImpl = /** @type {Map<string, { this: number[], other: number[] }>} */ (seen.get(r.workload));
        if (!byImpl.has(r.impl)) byImpl.set(r.impl, { this: [], other: [] });
        /** @type {{ this: number[], other: number[] }} */ (byImpl.get(r.impl))[side].push(r.median);
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
const f = (/** @type {number} */ x) => x.toFixed(2);
for (const [workload, byImpl] of seen) {
  for (const [impl, s] of byImpl) {
    if (!s.this.length || !s.other.length) continue;
    const [a, b] = [median(s.this), median(s.other)];
    console.log(`| ${workload} | ${impl} | ${f(b)} | ${f(a)} | ${(a / b).toFixed(3)}× | ${s.this.map(f).join(' ')} | ${s.other.map(f).join(' ')} |`);
  }
}
