// Cold start and bytes, next to the plain-JS baseline (bench/js-baseline.mjs, written in this
// repository) and, when the runner was given PEER_DIR (bench/peer.mjs), the peer: chatbox-core's
// own engine/cache.js (its one database, `chatbox-core-result-cache`; ours then runs with
// `legacyChatboxCore: false`, so it never opens that one).
//
// Cold start: `import()` of the entry -> the first completed `cacheToolResult` (a 6 KB result),
// on a fresh page in a fresh browser context (its own storage and HTTP cache; the server sends
// `cache-control: no-store` anyway). Two database states: "new" (the context's first page: the
// database does not exist yet) and "existing" (a second page in the same context, after the
// first created the database with the same implementation). Rounds alternate the
// implementations so both see the same machine state.
//
// Bytes: what a browser downloads for each entry (JS glue + .wasm, or the JS module), raw and
// gzip -9.
//
//   node bench/cold-start.mjs [--rounds N]    prints both tables as Markdown (after a build)
//   coldStart(), coldStartTable(), startup(), startupTable(), bytes() and bytesTable() are
//   exported for bench/run.mjs.
//
// Startup: what a chat app does — the cache made and its database opened when the page
// starts; the first tool result a second later, timed against the warm ones after it.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { serve } from '../scripts/serve.mjs';
import { median } from './page.mjs';
import { ENTRY_FILES } from '../scripts/size-budget.mjs';

const ROOT = new URL('..', import.meta.url);

/** @typedef {import('playwright-core').BrowserContext} BrowserContext */
/** @typedef {import('./peer.mjs').StagedPeer} StagedPeer */
/** An implementation a page measures: the module it imports and the expression that caches one result. @typedef {{ entry: string, run: string }} ColdImpl */
/** A coldStart() implementation's samples in ms, per database state. @typedef {{ new: number[], existing: number[] }} ColdTimes */
/** What coldStart() resolves. @typedef {{ rounds: number, results: Record<string, ColdTimes>, peer?: string }} ColdStartResult */
/** What startup() resolves: per implementation, the first call's and the warm calls' ms per page. @typedef {{ rounds: number, results: Record<string, { first: number[], warm: number[] }> }} StartupResult */
/** One entry's files as bytes() counts them. @typedef {{ entry: string, files: { file: string, raw: number, gzip: number }[], raw: number, gzip: number }} BytesRow */

/**
 * The implementations measured: the entry a page imports and how it caches one result.
 * @type {Record<string, ColdImpl>}
 */
const IMPLS = {
  'js-baseline': {
    entry: '/bench/js-baseline.mjs',
    run: 'new m.JsBaselineCache(dbName).cacheToolResult({ payload, convId: "cold" })',
  },
  ours: {
    entry: '/pkg/browser.mjs',
    run: 'new m.ResultCache({ dbName, legacyChatboxCore: false }).cacheToolResult({ payload, convId: "cold" })',
  },
};
/** The peer's entry, staged by bench/peer.mjs under `base`. */
const peerImpl = (/** @type {string} */ base) => ({
  entry: `${base}/engine/cache.js`,
  run: 'm.cacheToolResult({ payload, convId: "cold", threshold: 0 })',
});

/**
 * A fresh page of `context` imports `impl` and caches one result; resolves the milliseconds.
 * @param {string} origin @param {BrowserContext} context @param {string} impl
 * @param {Record<string, ColdImpl>} [impls] @returns {Promise<number>}
 */
async function once(origin, context, impl, impls = IMPLS) {
  const page = await context.newPage();
  try {
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/bench/cold-start.html`);
    const { entry, run } = impls[impl];
    // The function body is built here so that nothing but the timed code runs in the page.
    const ms = /** @type {number} */ (await page.evaluate(`(async () => {
      const payload = { ok: true, rows: Array.from({ length: 240 }, (_, i) => ({ t: i, value: i % 17 })) };
      const dbName = 'cold-start';
      const t0 = performance.now();
      const m = await import(${JSON.stringify(entry)});
      const uri = await ${run};
      const t1 = performance.now();
      if (typeof uri !== 'string') throw new Error('nothing cached: ' + uri);
      return t1 - t0;
    })()`));
    if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
    return ms;
  } finally {
    await page.close();
  }
}


/**
 * `rounds` rounds; each measures every implementation on a new database and on an existing
 * one. Resolves `{ rounds, results: { [impl]: { new: ms[], existing: ms[] } } }`.
 * @param {{ origin: string, rounds?: number, log?: (message: string) => void, peer?: StagedPeer | null }} options
 * @returns {Promise<ColdStartResult>}
 */
export async function coldStart({ origin, rounds = 10, log = () => {}, peer = null }) {
  const impls = peer ? { ...IMPLS, peer: peerImpl(peer.base) } : IMPLS;
  /** @type {Record<string, ColdTimes>} */
  const results = Object.fromEntries(Object.keys(impls).map((impl) => [impl, { new: [], existing: [] }]));
  await alternate(origin, rounds, once, async (impl, context) => {
    results[impl].new.push(await once(origin, context, impl, impls));
    results[impl].existing.push(await once(origin, context, impl, impls));
  }, (round) => log(`cold start round ${round}/${rounds}`), Object.keys(impls));
  return { rounds, results, ...(peer ? { peer: peer.label } : {}) };
}

/**
 * One browser, one unmeasured page of `measure` first (the browser's own start-up is not the
 * module's), then `rounds` rounds alternating the implementations' order, each implementation
 * measured by `each(impl, context)` in a fresh context.
 * @param {string} origin @param {number} rounds
 * @param {(origin: string, context: BrowserContext, impl: string) => Promise<unknown>} measure
 * @param {(impl: string, context: BrowserContext) => Promise<void>} each
 * @param {(round: number) => void} done @param {string[]} [impls]
 */
async function alternate(origin, rounds, measure, each, done, impls = Object.keys(IMPLS)) {
  const browser = await chromium.launch(chromiumOptions());
  try {
    const warm = await browser.newContext();
    await measure(origin, warm, 'js-baseline');
    await warm.close();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...impls].reverse() : impls;
      for (const impl of order) {
        const context = await browser.newContext();
        try {
          await each(impl, context);
        } finally {
          await context.close();
        }
      }
      done(round + 1);
    }
  } finally {
    await browser.close();
  }
}

/**
 * A chat app's start: the page creates the cache at load (`await ready()`, one cheap call
 * that opens the database, `cache.stats()`, and `warmUp(options)` with the cache's options, as
 * docs/HOSTS.md says; the JS module: one read, which opens it), the user
 * types, and the first tool result arrives a second later. On a fresh page of a new context
 * (new database), times that first `afterToolCall` (the JS module: `cacheToolResult`) and then
 * WARM_CALLS more, one after another; resolves `{ first, warm }` in ms (warm: their median).
 * The floor is raw IndexedDB in the same page: its database opened and written once at load,
 * then one `put` of the same result per call (what the browser itself charges for a first write
 * after a second of idleness).
 */
const WARM_CALLS = 9;
/**
 * @param {string} origin @param {BrowserContext} context @param {string} impl
 * @returns {Promise<{ first: number, warm: number }>}
 */
async function startupOnce(origin, context, impl) {
  const page = await context.newPage();
  try {
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/bench/cold-start.html`);
    const ours = impl === 'ours';
    const floor = `const db = await new Promise((resolve, reject) => {
        const q = indexedDB.open('startup', 1);
        q.onupgradeneeded = () => q.result.createObjectStore('results', { keyPath: 'uri' });
        q.onsuccess = () => resolve(q.result);
        q.onerror = () => reject(q.error);
      });
      let key = 0;
      const call = (n) => new Promise((resolve, reject) => {
        const tx = db.transaction('results', 'readwrite', { durability: 'relaxed' });
        tx.objectStore('results').put({ uri: 'k' + key++, payload: payload(n) });
        tx.commit();
        tx.oncomplete = resolve;
        tx.onabort = () => reject(tx.error);
      });
      await call(-1);`;
    const out = /** @type {{ first: number, warm: number }} */ (await page.evaluate(`(async () => {
      const payload = (n) => ({ ok: true, rows: Array.from({ length: 240 }, (_, i) => ({ t: i + n, value: i % 17 })) });
      ${impl === 'floor' ? floor : `const m = await import(${JSON.stringify(IMPLS[impl].entry)});
      ${ours
    ? `await m.ready();
      const options = { dbName: 'startup' };
      const cache = new m.ResultCache(options);
      await cache.stats();
      await m.warmUp(options);
      const call = async (n) => {
        const p = payload(n);
        const shown = await cache.afterToolCall('data.query', { content: [{ type: 'text', text: JSON.stringify(p) }], structuredContent: p }, { convId: 'startup' });
        if (!JSON.stringify(shown).includes('mcp+cache://')) throw new Error('not cached: ' + JSON.stringify(shown).slice(0, 200));
      };`
    : `const cache = new m.JsBaselineCache('startup');
      await cache.readCachedPayload('mcp+cache://startup/none');
      const call = async (n) => {
        if (typeof await cache.cacheToolResult({ payload: payload(n), convId: 'startup' }) !== 'string') throw new Error('not cached');
      };`}`}
      await new Promise((r) => setTimeout(r, 1000));
      const times = [];
      for (let n = 0; n <= ${WARM_CALLS}; n++) {
        const t0 = performance.now();
        await call(n);
        times.push(performance.now() - t0);
      }
      const warm = times.slice(1).sort((a, b) => a - b);
      return { first: times[0], warm: warm[(warm.length - 1) / 2] };
    })()`));
    if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
    return out;
  } finally {
    await page.close();
  }
}

/**
 * `rounds` fresh pages per implementation (alternating): the first tool result a second after a
 * start that called `ready()` and opened the database, against the warm calls after it.
 * Resolves `{ rounds, results: { [impl]: { first: ms[], warm: ms[] } } }`.
 * @param {{ origin: string, rounds?: number, log?: (message: string) => void }} options
 * @returns {Promise<StartupResult>}
 */
export async function startup({ origin, rounds = 10, log = () => {} }) {
  const impls = [...Object.keys(IMPLS), 'floor'];
  /** @type {StartupResult['results']} */
  const results = Object.fromEntries(impls.map((impl) => [impl, { first: [], warm: [] }]));
  await alternate(origin, rounds, startupOnce, async (impl, context) => {
    const { first, warm } = await startupOnce(origin, context, impl);
    results[impl].first.push(first);
    results[impl].warm.push(warm);
  }, (round) => log(`startup round ${round}/${rounds}`), impls);
  return { rounds, results };
}

/** Markdown table of a startup() result. @param {StartupResult} result */
export function startupTable({ rounds, results }) {
  const lines = [
    '| implementation | first call, 1 s after start: median (min–max) | warm call: median | first / warm |',
    '|---|---:|---:|---:|',
  ];
  for (const [impl, { first, warm }] of Object.entries(results)) {
    const call = /** @type {Record<string, string>} */ ({ ours: '`afterToolCall`', floor: 'one `put`' })[impl] ?? '`cacheToolResult`';
    lines.push(`| ${impl} (${call}) | ${median(first).toFixed(2)} ms (${Math.min(...first).toFixed(2)}–${Math.max(...first).toFixed(2)}) | ${median(warm).toFixed(2)} ms | ${(median(first) / median(warm)).toFixed(2)}× |`);
  }
  lines.push('', `${rounds} fresh pages each (new database). At load: ours \`await ready()\`, \`new ResultCache(options)\`, \`await cache.stats()\`, \`await warmUp(options)\`; the JS module one read; the floor (raw IndexedDB, one store) its database opened and one \`put\`. One second later the first tool result (240 rows, 6 KB), then ${WARM_CALLS} more one after another ("warm": their median).`);
  return lines.join('\n');
}

/** Markdown table of a coldStart() result: medians, min-max, and ours / baseline. @param {ColdStartResult} result */
export function coldStartTable({ rounds, results }) {
  const base = results['js-baseline'];
  const peer = results.peer;
  const lines = [
    `| database | js-baseline median (min–max) |${peer ? ' peer (chatbox-core) median (min–max) |' : ''} ours median (min–max) |${peer ? ' **ours / peer** |' : ''} ours / js-baseline |`,
    `|---|---:|${peer ? '---:|' : ''}---:|${peer ? '---:|' : ''}---:|`,
  ];
  for (const state of /** @type {const} */ (['new', 'existing'])) {
    const cell = (/** @type {number[]} */ xs) => `${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
    const ratio = median(results.ours[state]) / median(base[state]);
    const peerCells = peer ? ` ${cell(peer[state])} |` : '';
    const peerRatio = peer ? ` ${(median(results.ours[state]) / median(peer[state])).toFixed(2)}× |` : '';
    lines.push(`| ${state} | ${cell(base[state])} |${peerCells} ${cell(results.ours[state])} |${peerRatio} ${ratio.toFixed(2)}× |`);
  }
  lines.push('', `${rounds} rounds; each number is one fresh page (new browser context for "new", a second page of it for "existing"): \`import()\` → first completed \`cacheToolResult\`.`);
  return lines.join('\n');
}

/**
 * `gzip -9 -n` bytes, as scripts/size-budget.mjs counts them (zlib level 9 without gzip).
 * @param {URL} url @param {Buffer} data @returns {number}
 */
function gzipSize(url, data) {
  try {
    return execFileSync('gzip', ['-9', '-n', '-c', fileURLToPath(url)], { maxBuffer: 1 << 28 }).length;
  } catch {
    return gzipSync(data, { level: 9 }).length;
  }
}

/**
 * Bytes a browser downloads per entry (every file it fetches): `[{ entry, files, raw, gzip }]`.
 * @returns {Promise<BytesRow[]>}
 */
export async function bytes() {
  const entries = {
    'host (`mcp-result-cache`)': ENTRY_FILES.host,
    'server (`mcp-result-cache/server`)': ENTRY_FILES.server,
    'lists (`mcp-result-cache/lists`)': ENTRY_FILES.lists,
    'js-baseline (plain JS)': ['bench/js-baseline.mjs'],
  };
  /** @type {BytesRow[]} */
  const out = [];
  for (const [entry, files] of Object.entries(entries)) {
    /** @type {BytesRow} */
    const row = { entry, files: [], raw: 0, gzip: 0 };
    for (const file of files) {
      const data = await readFile(new URL(file, ROOT));
      const gzip = gzipSize(new URL(file, ROOT), data);
      row.files.push({ file, raw: data.length, gzip });
      row.raw += data.length;
      row.gzip += gzip;
    }
    out.push(row);
  }
  return out;
}

/** Markdown table of bytes(). @param {readonly BytesRow[]} rows */
export function bytesTable(rows) {
  const lines = ['| entry | file | raw bytes | gzip -9 bytes |', '|---|---|---:|---:|'];
  for (const row of rows) {
    for (const f of row.files) lines.push(`| ${row.entry} | \`${f.file}\` | ${f.raw} | ${f.gzip} |`);
    if (row.files.length > 1) lines.push(`| ${row.entry} | **total** | **${row.raw}** | **${row.gzip}** |`);
  }
  return lines.join('\n');
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Number(process.argv[at + 1]) : 10;
  const { stagePeer, PEER_ABSENT } = await import('./peer.mjs');
  const peer = await stagePeer();
  if (!peer) console.error(`cold start: ${PEER_ABSENT}`);
  const server = await serve();
  try {
    const result = await coldStart({ origin: server.origin, rounds, log: (m) => console.error(m), peer });
    console.log(coldStartTable(result));
    console.log();
    console.log(startupTable(await startup({ origin: server.origin, rounds, log: (m) => console.error(m) })));
    console.log();
    console.log(bytesTable(await bytes()));
  } finally {
    await server.close();
    await peer?.remove();
  }
}
