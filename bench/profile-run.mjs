// `node bench/profile-run.mjs [<other checkout>] [--rounds N]`: the per-step profile of the
// 4 KB write+read and the one-reference substitution (bench/profile.mjs), ours next to the JS
// module, printed as the Markdown table bench/READING.md quotes. With another checkout (built),
// its pages alternate with this one's (A B B A), and both are printed. Diagnostic only.
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { serve } from '../scripts/serve.mjs';
import { median, runBenchPage } from './page.mjs';
import { PEER_ABSENT, stagePeer } from './peer.mjs';

/** @typedef {import('./profile.mjs').ProfileResult} ProfileResult */
/** @typedef {import('./profile.mjs').ImplProfile} ImplProfile */
/** A server of scripts/serve.mjs (this checkout's or the other's). @typedef {{ url: string, origin: string, close: () => Promise<void> }} Server */

const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args[at + 1]) : 200;
const other = args.find((a, i) => !a.startsWith('--') && !['--rounds', '--stored'].includes(args[i - 1]));
/** @type {Record<string, Server>} */
const servers = { this: await serve() };
if (other) servers.other = await /** @type {typeof import('../scripts/serve.mjs')} */ (await import(pathToFileURL(resolve(other, 'scripts/serve.mjs')).href)).serve();
const peer = await stagePeer();
if (!peer) console.log(`profile: ${PEER_ABSENT}`);
const option = (/** @type {string} */ name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const extra = {
  ...(peer ? { peer: peer.base } : {}),
  ...(option('--stored') ? { stored: option('--stored') } : {}),
  ...(args.includes('--clear') ? { clear: 1 } : {}),
};
const browser = await chromium.launch(chromiumOptions());
/** @type {Record<string, ProfileResult[]>} */
const pages = { this: [], other: [] };
try {
  const order = other ? ['this', 'other', 'other', 'this'] : ['this', 'this'];
  // runBenchPage is typed for bench.mjs's page; with `profile` the page is profile.mjs's.
  for (const side of order) pages[side].push(/** @type {ProfileResult} */ (/** @type {unknown} */ (await runBenchPage(browser, servers[side], { profile: 1, iterations: rounds, ...extra, ...(process.argv.includes('--events') ? { events: 1 } : {}), ...(process.argv.includes('--writes') ? { writes: 1 } : {}) }))));
} finally {
  await browser.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await peer?.remove();
}

const f = (/** @type {number | undefined} */ x) => (x === undefined ? '' : x.toFixed(3));
for (const [side, results] of Object.entries(pages)) {
  if (!results.length) continue;
  console.log(`\n### ${side === 'this' ? 'this checkout' : other} (${results.length} pages × ${rounds} rounds; medians, ms)\n`);
  console.log('| operation | impl | transaction | before it | requests | issuing them | IndexedDB (last request → complete) | complete → resolved | total |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|');
  for (const impl of Object.keys(results[0]).filter((k) => !['timelines', 'parts', 'big', 'knownMismatches'].includes(k))) {
    for (const op of process.argv.includes('--writes') ? ['write'] : ['write', 'read', 'substitute']) {
      const per = results.map((r) => /** @type {ImplProfile} */ (r[impl])[op]);
      const steps = per[0].steps;
      steps.forEach((s, i) => {
        const m = (/** @type {'before' | 'issue' | 'idb' | 'after' | 'total'} */ k) => median(per.map((p) => p.steps[i]?.[k] ?? NaN));
        if (s.mode === 'resolved') console.log(`| ${op} | ${impl} | (resolved) | | | | | ${f(m('after'))} | **${f(m('total'))}** |`);
        else console.log(`| ${op} | ${impl} | ${s.mode} | ${f(m('before'))} | ${s.requests} | ${f(m('issue'))} | ${f(m('idb'))} | | |`);
      });
    }
  }
  if (process.argv.includes('--timelines')) {
    for (const impl of Object.keys(results[0]).filter((k) => !['timelines', 'parts', 'big', 'knownMismatches'].includes(k))) {
      for (const op of process.argv.includes('--writes') ? ['write'] : ['write', 'read', 'substitute']) {
        const t = results[0].timelines[impl][op];
        console.log(`- ${impl} ${op} (${t.rounds}/${t.of} rounds): ${t.events.map(([w, ms]) => `${w} ${ms.toFixed(3)}`).join(' · ')}`);
      }
    }
  }
  for (const k of Object.keys(results[0].parts)) console.log(`- ${k}: ${results.map((r) => r.parts[k].toFixed(1)).join(' / ')}`);
  // The write and its read-back together, per implementation, and against the peer.
  const implsOf = Object.keys(results[0]).filter((k) => !['timelines', 'parts', 'big', 'knownMismatches'].includes(k));
  // Each operation's last step is its `resolved` one, which has the total.
  /** @param {string} impl @param {string} op */
  const total = (impl, op) => median(results.map((r) => /** @type {number} */ (/** @type {import('./profile.mjs').SummaryStep} */ (/** @type {ImplProfile} */ (r[impl])[op].steps.at(-1)).total)));
  for (const impl of implsOf) {
    const wr = total(impl, 'write') + total(impl, 'read');
    const vs = results[0].peer ? ` = ${(wr / (total('peer', 'write') + total('peer', 'read'))).toFixed(2)}× the peer's` : '';
    console.log(`- write + read, ${impl}: ${total(impl, 'write').toFixed(3)} + ${total(impl, 'read').toFixed(3)} = ${wr.toFixed(3)} ms${vs}; substitute ${total(impl, 'substitute').toFixed(3)} ms`);
  }
  console.log(`- known-totals floor: verification mismatches ${results.map((r) => r.knownMismatches).join(' / ')}`);
  for (const impl of Object.keys(results[0].big)) console.log(`- 1 MB write+read, ${impl} (ms): ${results.map((r) => r.big[impl].toFixed(2)).join(' / ')}`);
}
