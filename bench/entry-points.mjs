// `PEER_DIR=<dir> node bench/entry-points.mjs [--rounds N]`: the main thread's time inside
// IndexedDB's own entry points during the 4 KB write+read, ours next to chatbox-core's own
// modules (without PEER_DIR, ours alone, and it says so). In one cross-origin isolated page (5 µs
// timer), `IDBDatabase.transaction`, `IDBTransaction.objectStore` and `commit`, `IDBObjectStore.put`
// and `get`, `JSON.stringify` and `new Blob` are wrapped to add up the time spent in each call; each
// implementation then runs N write+read pairs (after 20 untimed) on a store of 2 000 entries.
// Prints, per implementation, the median pair (ms) and, per entry point, the calls and the µs a
// pair spends in it. Diagnostic only (not part of `npm test` or `npm run bench`); run it after
// `npm run build`.
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { serve } from '../scripts/serve.mjs';
import { PEER_ABSENT, stagePeer } from './peer.mjs';

const at = process.argv.indexOf('--rounds');
const rounds = at >= 0 ? Number(process.argv[at + 1]) : 300;
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('usage: node bench/entry-points.mjs [--rounds N ≥ 1]');
const server = await serve();
const peer = await stagePeer();
if (!peer) console.log(`entry-points: ${PEER_ABSENT}`);
const browser = await chromium.launch(chromiumOptions());
try {
  const page = await browser.newPage();
  const isolated = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
  // An empty page of the server's origin (the measurement imports what it runs itself).
  const blank = `${server.origin}/entry-points.html`;
  await page.route('**/*', async (route) => {
    if (route.request().url() === blank) return route.fulfill({ contentType: 'text/html', headers: isolated, body: '<!doctype html><title>entry points</title>' });
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), ...isolated } });
  });
  await page.goto(blank);
  const result = await page.evaluate(measure, { rounds, peerBase: peer?.base ?? null });
  for (const [impl, row] of Object.entries(result)) {
    console.log(`${impl}: median pair ${row.median.toFixed(3)} ms`);
    for (const [name, { calls, us }] of Object.entries(row.entryPoints)) console.log(`  ${name.padEnd(28)} ${calls.toFixed(2).padStart(6)} calls  ${us.toFixed(1).padStart(7)} µs`);
  }
} finally {
  await browser.close();
  await server.close();
  await peer?.remove();
}

/**
 * Runs in the page: wraps the entry points, fills each store, times the pairs.
 * @param {{ rounds: number, peerBase: string | null }} options
 * @returns {Promise<Record<string, { median: number, entryPoints: Record<string, { calls: number, us: number }> }>>}
 */
async function measure({ rounds, peerBase }) {
  /** @type {Record<string, { calls: number, ms: number }>} */
  let spent = {};
  let counting = false;
  /** @param {object} owner @param {string} method @param {string} label */
  const wrap = (owner, method, label) => {
    const methods = /** @type {Record<string, (...args: unknown[]) => unknown>} */ (owner);
    const original = methods[method];
    methods[method] = function (/** @type {unknown[]} */ ...args) {
      if (!counting) return original.apply(this, args);
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const entry = (spent[`${label}.${method}`] ??= { calls: 0, ms: 0 });
        entry.calls += 1;
        entry.ms += performance.now() - started;
      }
    };
  };
  wrap(IDBDatabase.prototype, 'transaction', 'IDBDatabase');
  wrap(IDBTransaction.prototype, 'objectStore', 'IDBTransaction');
  wrap(IDBTransaction.prototype, 'commit', 'IDBTransaction');
  wrap(IDBObjectStore.prototype, 'put', 'IDBObjectStore');
  wrap(IDBObjectStore.prototype, 'get', 'IDBObjectStore');
  wrap(JSON, 'stringify', 'JSON');
  // chatbox-core sizes a payload as `new Blob([JSON.stringify(payload)]).size`.
  const OriginalBlob = Blob;
  globalThis.Blob = class extends OriginalBlob {
    /** @param {BlobPart[]} [parts] @param {BlobPropertyBag} [options] */
    constructor(parts, options) {
      const started = performance.now();
      super(parts, options);
      if (counting) {
        const entry = (spent['new Blob'] ??= { calls: 0, ms: 0 });
        entry.calls += 1;
        entry.ms += performance.now() - started;
      }
    }
  };
  /** @typedef {{ cacheToolResult: (o: { payload: unknown, convId: string }) => Promise<string | null>, readCachedPayload: (uri: string | null) => Promise<unknown> }} Pairable */
  const ours = await import(/** @type {string} */ ('/pkg/browser.mjs'));
  /** @type {Record<string, Pairable>} */
  const impls = { ours: new ours.ResultCache({ dbName: `entry-points-${Date.now()}`, threshold: 0, legacyChatboxCore: false }) };
  if (peerBase) {
    const peer = await import(`${peerBase}/engine/cache.js`);
    impls.peer = {
      cacheToolResult: (o) => peer.cacheToolResult({ threshold: 0, ...o }),
      readCachedPayload: (uri) => peer.readCachedPayload(uri),
    };
  }
  // About 4 KB of JSON: 60 rows of a time series.
  const four = { ok: true, rows: Array.from({ length: 60 }, (_, i) => ({ t: `2026-01-01T00:${String(i).padStart(2, '0')}:00Z`, value: i * 1.5, label: `row ${i}` })) };
  for (const cache of Object.values(impls)) {
    for (let n = 0; n < 2000; n += 50) await Promise.all(Array.from({ length: 50 }, () => cache.cacheToolResult({ payload: four, convId: 'filled' })));
  }
  /** @type {Record<string, { median: number, entryPoints: Record<string, { calls: number, us: number }> }>} */
  const out = {};
  for (const [impl, cache] of Object.entries(impls)) {
    spent = {};
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < rounds + 20; i++) {
      counting = i >= 20;
      const started = performance.now();
      const uri = await cache.cacheToolResult({ payload: four, convId: 'bench' });
      if (!(await cache.readCachedPayload(uri))) throw new Error(`${impl}: the entry just written was not read back`);
      if (counting) times.push(performance.now() - started);
    }
    counting = false;
    times.sort((a, b) => a - b);
    out[impl] = {
      median: times[times.length >> 1],
      entryPoints: Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, { calls: v.calls / rounds, us: (v.ms / rounds) * 1000 }])),
    };
  }
  return out;
}
