// Runs in the browser page: floor (raw IndexedDB), js-baseline (bench/js-baseline.mjs, a plain-JS
// module written in this repository), peer (chatbox-core's own engine/cache.js and
// engine/uri-substitution.js, when the runner was given PEER_DIR: see bench/peer.mjs) and ours
// (the release package), interleaved, with warm-up; publishes window.__benchResult.
import * as ours from '../pkg/browser.mjs';
// Server-side State Sync lives in its own entry (and its own .wasm) since the host/server split.
import * as oursServer from '../pkg/server.mjs';
import { JsBaselineCache, JsPolicyEngine, estimateSize as baselineSize, matchGlob as jsMatchGlob } from './js-baseline.mjs';
import { answered, committed, deleteDb, idbOpen, txDone } from './idb.mjs';
import { storeOpeners } from './stores.mjs';

// pkg/browser.mjs is a bundle, not type-checked: what it exports is typed by the package's own
// declarations (js/index.d.ts, the entry's `types`), at the uses below.
/** @typedef {import('../js/index.js').ResultCache} OursCache */
/** @typedef {import('./page.mjs').Page} Page */
/**
 * One workload's numbers for one implementation, as the page publishes them.
 * @typedef {{
 *   workload: string, impl: string, group?: string, storeSize?: number, iterations: number, warmup: number,
 *   median: number, p95: number, n: number,
 * }} BenchResultRow
 */
/**
 * What the page publishes as `window.__benchResult` (bench/run.mjs adds to it for results.json).
 * @typedef {{
 *   iterations: number, warmup: number, userAgent: string, crossOriginIsolated: boolean, results: BenchResultRow[],
 *   flow: { inlineChars: number, byReferenceChars: number }, payloadBytes: Record<string, number>,
 *   wasmMemory: { before: number, after: number, afterEachWorkload: Record<string, number> },
 * }} BenchResult
 */
/**
 * What the bench calls of chatbox-core's engine/cache.js (staged by bench/peer.mjs).
 * @typedef {{
 *   cacheToolResult(input: { payload: unknown, convId: string, sourceToolName?: string, threshold?: number }): Promise<string | null>,
 *   readCachedPayload(uri: unknown): Promise<unknown>,
 *   clearConversation(convId: unknown): Promise<void>,
 *   estimateSize(payload: unknown): number,
 *   mintCacheUri(convId: unknown): string,
 * }} PeerCache
 */
/** What the bench calls of chatbox-core's engine/uri-substitution.js. @typedef {{ substituteCacheUris(args: unknown): Promise<{ ok: boolean }> }} PeerSubstitution */
/**
 * The cache calls of the substitute and clear workloads, as each implementation but the floor has them.
 * @typedef {{
 *   cacheToolResult(input: { payload: unknown, convId: string }): Promise<string | null>,
 *   substituteCacheUris(args: unknown): Promise<{ ok: boolean }>,
 *   clearConversation(convId: string): Promise<unknown>,
 * }} BenchCache
 */
/** An implementation of the original workloads. @typedef {{ cacheAndRead: (payload: Payload) => Promise<unknown>, reset: () => Promise<unknown>, cache?: BenchCache }} Impl */
/**
 * A workload: `run` is timed once per round and implementation; `setup`/`teardown` run once per
 * implementation around all rounds, `before`/`after` around each round (untimed).
 * @typedef {{
 *   name: string, impls: string[], group?: string, interleaved?: boolean, n?: number, iterations?: number, warmup?: number,
 *   setup?: (impl: string) => Promise<unknown>, before?: (impl: string) => Promise<unknown>, run: (impl: string) => Promise<unknown>,
 *   after?: (impl: string, round: { last: boolean }) => Promise<unknown>, teardown?: (impl: string) => Promise<unknown>,
 * }} Workload
 */
/** A store of the store-size workloads (bench/stores.mjs). @typedef {import('./stores.mjs').BenchStore} BenchStore */
/** A floor record: raw IndexedDB, keyed by `uri`. @typedef {{ uri: string, payload: unknown }} FloorRecord */

const params = new URLSearchParams(location.search);
const ITERATIONS = Number(params.get('iterations') ?? 20);
const WARMUP = Number(params.get('warmup') ?? 3);
// `--smoke` (npm test): the store-size workloads run on small stores so they stay fast.
const SMOKE = params.get('smoke') === '1';
// `?only=<group or part of a name>`: run those workloads alone (diagnostics; run.mjs never sets it).
const ONLY = params.get('only');
const run = `${Date.now().toString(36)}`;
// `?peer=<path>`: where bench/peer.mjs staged chatbox-core's modules; absent = no peer column.
const PEER_BASE = params.get('peer');

window.addEventListener('error', (e) => { /** @type {Page} */ (window).__benchError = String(e.message); });
window.addEventListener('unhandledrejection', (e) => { /** @type {Page} */ (window).__benchError = String(e.reason?.stack ?? e.reason); });

// ------------------------------------------------------------------ payloads
/** @param {number} bytes */
function rowsOfSize(bytes) {
  const row = (/** @type {number} */ i) => ({ t: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), value: (i * 7919) % 1000 / 10, label: `row ${i}`, ok: i % 3 !== 0 });
  const per = JSON.stringify(row(123456)).length + 1;
  const n = Math.max(1, Math.round((bytes - 40) / per));
  return { ok: true, columns: ['t', 'value', 'label', 'ok'], rows: Array.from({ length: n }, (_, i) => row(i)) };
}
/** @typedef {ReturnType<typeof rowsOfSize>} Payload */
/** @type {Record<string, number>} */
const SIZES = { '4 KB': 4 * 1024, '64 KB': 64 * 1024, '1 MB': 1024 * 1024, '8 MB': 8 * 1024 * 1024 };
// At least `n` rounds for a workload whose median needs more than the default (never in the
// smoke run, which only checks that nothing rots).
const atLeast = (/** @type {number} */ n) => (SMOKE ? ITERATIONS : Math.max(ITERATIONS, n));
// Operations of a few milliseconds swing most between runs (a GC or a background flush is a
// large share of one sample): they get more rounds, which cost about a second each.
const MANY = atLeast(60);
const payloads = Object.fromEntries(Object.entries(SIZES).map(([k, v]) => [k, rowsOfSize(v)]));

// ------------------------------------------------------------------ floor: raw IndexedDB (bench/idb.mjs)
let floorKey = 0;
const floor = {
  db: await idbOpen(`bench-floor-${run}`),
  /** @param {unknown} payload */
  async cacheAndRead(payload) {
    const uri = `k${floorKey++}`;
    const w = this.db.transaction('results', 'readwrite', { durability: 'relaxed' });
    w.objectStore('results').put({ uri, payload });
    await committed(w);
    const r = this.db.transaction('results', 'readonly');
    return /** @type {FloorRecord} */ (await answered(r.objectStore('results').get(uri))).payload;
  },
  async clear() {
    const tx = this.db.transaction('results', 'readwrite', { durability: 'relaxed' });
    tx.objectStore('results').clear();
    await txDone(tx);
  },
};

// ------------------------------------------------------------------ the peer: chatbox-core
// Its module keeps one connection to its one database (`chatbox-core-result-cache`), so every
// workload uses conversations of its own there and clears them when done. Ours runs with
// `legacyChatboxCore: false` everywhere: otherwise it would read (and clear) the peer's database.
const PEER_DB = 'chatbox-core-result-cache';
const peer = /** @type {PeerCache | null} */ (PEER_BASE ? await import(`${PEER_BASE}/engine/cache.js`) : null);
const peerSubst = /** @type {PeerSubstitution | null} */ (PEER_BASE ? await import(`${PEER_BASE}/engine/uri-substitution.js`) : null);
const peerDb = peer ? await (async () => {
  await peer.readCachedPayload('mcp+cache://open/none'); // the peer opens (and creates) its database
  return /** @type {Promise<IDBDatabase>} */ (new Promise((resolve, reject) => {
    const req = indexedDB.open(PEER_DB); // the bench's own connection: fills and counts only
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  }));
})() : null;
const withPeer = (/** @type {string[]} */ list) => (peer ? [...list.slice(0, -1), 'peer', /** @type {string} */ (list.at(-1))] : list);

// ------------------------------------------------------------------ implementations
await ours.ready();
const OURS_BASE = { legacyChatboxCore: false };
const oursCache = /** @type {OursCache} */ (/** @type {unknown} */ (new ours.ResultCache({ dbName: `bench-ours-${run}`, threshold: 0, ...OURS_BASE })));
const baseline = new JsBaselineCache(`bench-js-${run}`, 0);
/** @type {Record<string, Impl>} */
const impls = {
  floor: { cacheAndRead: (p) => floor.cacheAndRead(p), reset: () => floor.clear() },
  'js-baseline': {
    async cacheAndRead(p) { return baseline.readCachedPayload(await baseline.cacheToolResult({ payload: p, convId: 'bench' })); },
    reset: () => baseline.clearConversation('bench'),
    cache: baseline,
  },
  ...(peer ? {
    peer: {
      async cacheAndRead(p) { return peer.readCachedPayload(await peer.cacheToolResult({ payload: p, convId: 'bench', threshold: 0 })); },
      reset: () => peer.clearConversation('bench'),
      cache: {
        cacheToolResult: (o) => peer.cacheToolResult({ threshold: 0, ...o }),
        substituteCacheUris: (args) => /** @type {PeerSubstitution} */ (peerSubst).substituteCacheUris(args),
        clearConversation: (c) => peer.clearConversation(c),
      },
    },
  } : {}),
  ours: {
    async cacheAndRead(p) { return oursCache.readCachedPayload(await oursCache.cacheToolResult({ payload: p, convId: 'bench' })); },
    reset: () => oursCache.clearConversation('bench'),
    cache: oursCache,
  },
};

// ------------------------------------------------------------------ workloads
/** @type {Workload[]} */
const workloads = [];
for (const [label, payload] of Object.entries(payloads)) {
  workloads.push({
    name: `cache+read ${label}`,
    impls: withPeer(['floor', 'js-baseline', 'ours']),
    ...(SIZES[label] <= 64 * 1024 ? { iterations: MANY } : {}),
    run: async (impl) => {
      const back = await impls[impl].cacheAndRead(payload);
      if (!back || /** @type {Payload} */ (back).rows.length !== payload.rows.length) throw new Error(`${impl}: bad read-back`);
    },
    after: (impl) => impls[impl].reset(),
  });
}
// The same 4 KB write+read with no clear between iterations: a chat's steady state (its entries
// accumulate; one clear at the end).
workloads.push({
  name: 'cache+read 4 KB, no clear between',
  impls: withPeer(['floor', 'js-baseline', 'ours']),
  iterations: MANY,
  run: async (impl) => {
    const back = await impls[impl].cacheAndRead(payloads['4 KB']);
    if (!back || /** @type {Payload} */ (back).rows.length !== payloads['4 KB'].rows.length) throw new Error(`${impl}: bad read-back`);
  },
  teardown: (impl) => impls[impl].reset(),
});
for (const count of [1, 16]) {
  /** @type {Record<string, (string | null)[]>} */
  const uris = {};
  workloads.push({
    name: `substitute ${count} × 64 KB`,
    impls: withPeer(['js-baseline', 'ours']),
    iterations: MANY,
    setup: async (impl) => {
      uris[impl] = [];
      for (let i = 0; i < count; i++) uris[impl].push(await /** @type {BenchCache} */ (impls[impl].cache).cacheToolResult({ payload: payloads['64 KB'], convId: 'subst' }));
    },
    run: async (impl) => {
      const args = count === 1 ? { data_uri: uris[impl][0] } : { parts_uri: uris[impl] };
      const out = await /** @type {BenchCache} */ (impls[impl].cache).substituteCacheUris(args);
      if (!out.ok) throw new Error(`${impl}: substitution failed`);
    },
    teardown: (impl) => /** @type {BenchCache} */ (impls[impl].cache).clearConversation('subst'),
  });
}
const small = { pad: 'x'.repeat(5000) };
workloads.push({
  name: 'clearConversation 1000 entries',
  impls: withPeer(['js-baseline', 'ours']),
  // Ours takes 7-10 ms and moved ±20 % between runs of the same build at 20 rounds; each
  // round refills 1 000 entries, so 40 rather than 60.
  iterations: atLeast(40),
  // Filled (untimed) 50 writes at a time: the same entries as one at a time, in less time.
  before: async (impl) => {
    for (let done = 0; done < 1000; done += 50) {
      await Promise.all(Array.from({ length: 50 }, () => /** @type {BenchCache} */ (impls[impl].cache).cacheToolResult({ payload: small, convId: 'bulk' })));
    }
  },
  run: async (impl) => { await /** @type {BenchCache} */ (impls[impl].cache).clearConversation('bulk'); },
});
workloads.push({
  name: 'estimateSize 1 MB',
  impls: withPeer(['floor', 'js-baseline', 'ours']),
  iterations: MANY,
  run: async (impl) => {
    const p = payloads['1 MB'];
    const n = impl === 'floor' ? JSON.stringify(p).length : impl === 'ours' ? ours.estimateSize(p) : impl === 'peer' ? /** @type {PeerCache} */ (peer).estimateSize(p) : baselineSize(p);
    if (!(n > 1_000_000)) throw new Error(`${impl}: size ${n}`);
  },
});
const names = Array.from({ length: 200 }, (_, i) => `${['billing', 'sprints', 'tasks', 'countries'][i % 4]}.${['get', 'list', 'update', 'get_invoice', 'refund'][i % 5]}_${i % 7}`);
const policies = [
  { match: 'billing.refund*', invalidates: ['billing.get_*'] },
  { match: 'sprints.update*', invalidates: ['sprints.*', 'tasks.**'] },
  { match: 'countries.*', cacheControl: 'immutable' },
  { match: '**.get*', cacheControl: 'no-store' },
];
workloads.push({
  name: '10 000 × matchGlob + policy resolve',
  impls: ['js-baseline', 'ours'],
  iterations: MANY,
  run: async (impl) => {
    let hits = 0;
    if (impl === 'ours') {
      await oursServer.ready();
      const sync = new oursServer.StateSync({ policies });
      for (let i = 0; i < 5000; i++) {
        if (ours.matchGlob('**.get*', names[i % 200])) hits++;
        if (sync.resolve(names[i % 200])) hits++;
      }
      sync.free();
    } else {
      const engine = new JsPolicyEngine(policies);
      for (let i = 0; i < 5000; i++) {
        if (jsMatchGlob('**.get*', names[i % 200])) hits++;
        if (engine.resolve(names[i % 200])) hits++;
      }
    }
    if (hits === 0) throw new Error(`${impl}: no hits`);
  },
});

// ------------------------------------------------------------------ store-size workloads
// Each (workload, implementation) gets its own database, named once and deleted (awaited) when
// the workload is done, so stores of thousands of entries never pile up on disk and nothing
// leaks between rounds or implementations. Only the operation named by the workload is timed.
// Populating is not: ours is filled through cacheToolResult, 50 writes in flight at a time (its
// usage rows and totals must stay consistent); the JS module and the floor, whose records are
// plain, are filled with the same records in one transaction, which keeps the bench short.
const four = payloads['4 KB'];
// The default `maxEntries` (5000) would evict while a 5 000-entry store is populated; nothing
// here measures eviction, so the budget is set out of the way (128 MiB default bytes is ample).
const OURS_OPTIONS = { threshold: 0, maxEntries: 1_000_000, ...OURS_BASE };
let dbSeq = 0;
const freshName = (/** @type {string} */ tag) => `bench-${tag}-${run}-${dbSeq++}`;
// What opens a store of each implementation.
const stores = storeOpeners({ ours, oursOptions: OURS_OPTIONS, peer, peerDb, four });
/** @param {BenchStore} store @param {string} convId @param {number} count */
async function populate(store, convId, count) {
  if (store.fill) return store.fill(convId, count);
  for (let done = 0; done < count; done += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - done) }, () => store.write(four, convId)));
  }
}
/** @param {BenchStore} store @param {number} expected @param {string} what */
async function expectCount(store, expected, what) {
  const n = await store.count();
  if (n !== expected) throw new Error(`${store.name}: ${n} entries after ${what}, expected ${expected}`);
}
/** @param {BenchStore} store */
async function dispose(store) {
  await store.close();
  if (store.peer) await expectCount(store, 0, 'clearing the peer\'s conversations');
  else await deleteDb(store.name);
}

// 1. One 4 KB write right after a conversation of a store of N entries was cleared. The store
// (N/2 kept + N/2 cleared) is built once per N and implementation; each round clears, times one
// write into the cleared conversation, checks the count, then refills it to N. The three store
// sizes run interleaved (one unit, see the runner): "flat" compares samples taken side by side.
const WRITE_AFTER_CLEAR_N = SMOKE ? [50, 100, 200] : [1000, 2000, 5000];
for (const n of WRITE_AFTER_CLEAR_N) {
  /** @type {Record<string, BenchStore>} */
  const st = {};
  workloads.push({
    name: `write 4 KB after clear, N = ${n}`,
    group: 'write-after-clear',
    interleaved: true,
    // One write per round and sample, 1.5-3 ms each: more rounds than the default steady the
    // median (each round also refills the cleared half, about 1 s at N = 5 000).
    iterations: atLeast(30),
    n,
    impls: ['js-baseline', 'ours'],
    setup: async (impl) => {
      st[impl] = await stores[impl](freshName(impl === 'ours' ? 'ours-wac' : 'js-wac'));
      await populate(st[impl], 'wac-kept', n / 2);
      await populate(st[impl], 'wac-cleared', n / 2);
      await expectCount(st[impl], n, 'populating');
    },
    before: (impl) => st[impl].clear('wac-cleared'),
    run: (impl) => st[impl].write(four, 'wac-cleared'),
    after: async (impl, { last }) => {
      await expectCount(st[impl], n / 2 + 1, 'a clear and one write');
      if (!last) await populate(st[impl], 'wac-cleared', n / 2 - 1);
    },
    teardown: (impl) => dispose(st[impl]),
  });
}

// 2. A burst of writes, 50 in flight at a time, into a fresh database per round (opened and
// warmed by one untimed write, deleted after the round).
const BURST = SMOKE ? 100 : 2000;
{
  /** @type {Record<string, BenchStore>} */
  const st = {};
  workloads.push({
    name: `burst ${BURST} × 4 KB writes, 50 at a time`,
    group: 'burst',
    // Each sample is the sum of BURST writes, yet the same build's median moved 0.32-0.41× the
    // JS module's over four runs of 10 rounds: 20 rounds (about a minute more).
    iterations: atLeast(20),
    warmup: Math.min(WARMUP, 2),
    impls: withPeer(['js-baseline', 'ours']),
    before: async (impl) => {
      st[impl] = await stores[impl](freshName(impl === 'ours' ? 'ours-burst' : 'js-burst'));
      await st[impl].write(four, 'warm');
    },
    run: async (impl) => {
      for (let done = 0; done < BURST; done += 50) {
        await Promise.all(Array.from({ length: 50 }, () => st[impl].write(four, 'burst')));
      }
    },
    after: async (impl) => {
      await expectCount(st[impl], BURST + 1, 'the burst');
      await dispose(st[impl]);
    },
  });
}

// 2b. The everyday operation on a store in use: a 4 KB write and its read-back with 2 000
// entries stored (built once per implementation), next to the floor on the JS module's schema.
const STORED = SMOKE ? 100 : 2000;
{
  /** @type {Record<string, BenchStore>} */
  const st = {};
  workloads.push({
    name: `cache+read 4 KB, ${STORED} entries stored`,
    group: 'stored',
    iterations: MANY,
    impls: withPeer(['floor', 'js-baseline', 'ours']),
    setup: async (impl) => {
      st[impl] = await stores[impl](freshName(`${impl}-stored`));
      await populate(st[impl], 'stored', STORED);
    },
    run: async (impl) => {
      const back = await st[impl].read(await st[impl].write(four, 'stored-rw'));
      if (!back || /** @type {Payload} */ (back).rows.length !== four.rows.length) throw new Error(`${impl}: bad read-back`);
    },
    teardown: (impl) => dispose(st[impl]),
  });
}

// 2c. Writes one after another, each awaited before the next (a host storing tool results as
// they come): no batching, one transaction each, into a fresh database per round.
const SEQUENTIAL = SMOKE ? 50 : 2000;
{
  /** @type {Record<string, BenchStore>} */
  const st = {};
  workloads.push({
    name: `${SEQUENTIAL} sequential 4 KB writes`,
    group: 'sequential',
    iterations: atLeast(8),
    warmup: Math.min(WARMUP, 1),
    impls: withPeer(['js-baseline', 'ours']),
    before: async (impl) => {
      st[impl] = await stores[impl](freshName(`${impl}-seq`));
      await st[impl].write(four, 'warm');
    },
    run: async (impl) => {
      for (let i = 0; i < SEQUENTIAL; i++) await st[impl].write(four, 'seq');
    },
    after: async (impl) => {
      await expectCount(st[impl], SEQUENTIAL + 1, 'the sequential writes');
      await dispose(st[impl]);
    },
  });
}

// 3. clearConversation of M entries while M others are kept: the kept conversation is written
// once per implementation, the cleared one refilled before each round.
const CLEAR_M = SMOKE ? 50 : 1000;
{
  /** @type {Record<string, BenchStore>} */
  const st = {};
  workloads.push({
    name: `clearConversation ${CLEAR_M} of ${2 * CLEAR_M} entries`,
    group: 'clear',
    impls: withPeer(['floor', 'js-baseline', 'ours']),
    setup: async (impl) => {
      st[impl] = await stores[impl](freshName(impl === 'ours' ? 'ours-clear' : impl === 'floor' ? 'floor-clear' : 'js-clear'));
      await populate(st[impl], 'clr-kept', CLEAR_M);
    },
    before: (impl) => populate(st[impl], 'clr-gone', CLEAR_M),
    run: (impl) => st[impl].clear('clr-gone'),
    after: (impl) => expectCount(st[impl], CLEAR_M, 'the clear'),
    teardown: (impl) => dispose(st[impl]),
  });
}

// 4. The read-back tools: a 100-row window of an 8 MB entry against the raw IndexedDB `get` of
// the same record (the floor: reading it is all a window can cost), and `cache_select` over
// 10 000 and 100 000 rows against the raw `get` of those rows (linear: ~10× apart).
{
  const floorGet = async (/** @type {string} */ key) => {
    const tx = floor.db.transaction('results', 'readonly');
    return /** @type {FloorRecord} */ (await answered(tx.objectStore('results').get(key))).payload;
  };
  /** @param {string} key @param {unknown} payload */
  const floorPut = async (key, payload) => {
    const tx = floor.db.transaction('results', 'readwrite', { durability: 'relaxed' });
    tx.objectStore('results').put({ uri: key, payload });
    await committed(tx);
  };
  /** @typedef {typeof import('../js/index.js').cacheTools} CacheTools */
  const tools = /** @type {CacheTools} */ (ours.cacheTools)(oursCache, { convId: 'readback', maxChars: 100_000 });
  /** @type {Record<string, string | null>} */
  const uris = {};
  workloads.push({
    name: 'cache_read 100 rows of an 8 MB entry',
    group: 'read-back',
    impls: ['floor', 'ours'],
    setup: async (impl) => {
      if (impl === 'floor') await floorPut('readback-8mb', payloads['8 MB']);
      else uris.big = await oursCache.cacheToolResult({ payload: payloads['8 MB'], convId: 'readback' });
    },
    run: async (impl) => {
      if (impl === 'floor') {
        const rows = /** @type {Payload} */ (await floorGet('readback-8mb')).rows.slice(5000, 5100);
        if (rows.length !== 100) throw new Error('floor: bad window');
        return;
      }
      const result = await tools.callTool({ name: 'cache_read', arguments: { uri: `${uris.big}#/rows`, offset: 5000, limit: 100 } });
      if (result.isError || /** @type {{ items: unknown[] }} */ (result.structuredContent).items.length !== 100) throw new Error(`ours: bad window ${result.content[0].text.slice(0, 200)}`);
    },
    teardown: (impl) => (impl === 'ours' ? oursCache.clearConversation('readback') : floor.clear()),
  });
  const SELECT_SIZES = SMOKE ? [1000, 10_000] : [10_000, 100_000];
  for (const n of SELECT_SIZES) {
    const rows = Array.from({ length: n }, (_, i) => ({ i, cpu: (i * 37) % 101, host: `web-${i % 7}` }));
    const where = [{ field: 'cpu', op: '>=', value: 90 }, { field: 'host', op: 'contains', value: 'web-3' }];
    const expected = rows.filter((r) => r.cpu >= 90 && r.host.includes('web-3')).length;
    workloads.push({
      name: `cache_select over ${n.toLocaleString('en-US')} rows`,
      group: 'read-back',
      interleaved: true,
      n,
      impls: ['floor', 'ours'],
      iterations: atLeast(30),
      setup: async (impl) => {
        if (impl === 'floor') await floorPut(`readback-rows-${n}`, rows);
        else uris[n] = await oursCache.cacheToolResult({ payload: rows, convId: 'readback-select', threshold: 0 });
      },
      run: async (impl) => {
        if (impl === 'floor') {
          if (/** @type {unknown[]} */ (await floorGet(`readback-rows-${n}`)).length !== n) throw new Error('floor: bad rows');
          return;
        }
        // A fresh tool set each round: the answer is computed, not the memo of the last one.
        const fresh = /** @type {CacheTools} */ (ours.cacheTools)(oursCache, { convId: 'readback-select' });
        const result = await fresh.callTool({ name: 'cache_select', arguments: { uri: uris[n], where } });
        if (result.isError || /** @type {{ count: number }} */ (result.structuredContent).count !== expected) throw new Error(`ours: bad selection ${result.content[0].text.slice(0, 200)}`);
      },
      teardown: (impl) => (impl === 'ours' ? oursCache.clearConversation('readback-select') : floor.clear()),
    });
  }
}

// ------------------------------------------------------------------ runner
const stats = (/** @type {readonly number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (/** @type {number} */ p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2, p95: q(0.95), n: s.length };
};

/** @type {number} */
const memoryBefore = ours.wasmMemoryBytes();
/** @type {BenchResultRow[]} */
const results = [];
/** @type {Record<string, number>} */
const memoryByWorkload = {};
// bench/index.html's `<pre id="out">`.
const out = /** @type {HTMLElement} */ (document.getElementById('out'));
// Workloads marked `interleaved` with the same group run as one unit: every round measures each
// of them for each implementation, so comparisons across them (the write after a clear at
// N = 1 000 against N = 5 000) share whatever the machine does during the run instead of being
// minutes apart.
/** @type {Workload[][]} */
const units = [];
for (const w of workloads) {
  if (ONLY && w.group !== ONLY && !w.name.includes(ONLY)) continue;
  const unit = w.interleaved ? units.find((u) => u[0].interleaved && u[0].group === w.group) : null;
  if (unit) unit.push(w); else units.push([w]);
}
// Before each unit the page idles for SETTLE_MS: the previous unit's background work in the
// browser (LevelDB compacting after thousands of deletes, databases being deleted) would
// otherwise land in this unit's first samples, and slow most the implementation that writes
// most. Measured: the clear of 1 000 entries ran 1.73× the key-range floor alone and 2.02× right
// after the burst unit (ours +4.9 ms, the floor +1.6 ms).
const SETTLE_MS = SMOKE ? 0 : Number(params.get('settle') ?? 2000);
// Inside an interleaved unit, each sample follows another workload's refill (thousands of
// writes): the page idles SAMPLE_SETTLE_MS before each one, so that no size or implementation
// inherits the previous one's background work more often than the others.
const SAMPLE_SETTLE_MS = SMOKE ? 0 : 250;
const settle = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (const unit of units) {
  await settle(SETTLE_MS);
  const started = performance.now();
  /** @type {Map<Workload, Record<string, number[]>>} */
  const samples = new Map(unit.map((w) => [w, Object.fromEntries(w.impls.map((i) => [i, []]))]));
  const [warmup, iterations] = [unit[0].warmup ?? WARMUP, unit[0].iterations ?? ITERATIONS];
  for (const w of unit) for (const impl of w.impls) await w.setup?.(impl);
  // Setting up may have written thousands of entries: their background work settles too.
  await settle(SETTLE_MS);
  for (let it = 0; it < warmup + iterations; it++) {
    for (let k = 0; k < unit.length; k++) {
      const w = unit[(k + it) % unit.length];
      const order = w.impls.map((_, j) => w.impls[(j + it) % w.impls.length]);
      for (const impl of order) {
        if (unit.length > 1) await settle(SAMPLE_SETTLE_MS);
        await w.before?.(impl);
        performance.mark(`${w.name}:${impl}:start`);
        const t0 = performance.now();
        await w.run(impl);
        const dt = performance.now() - t0;
        performance.measure(`${w.name} · ${impl}`, `${w.name}:${impl}:start`);
        if (it >= warmup) /** @type {Record<string, number[]>} */ (samples.get(w))[impl].push(dt);
        await w.after?.(impl, { last: it === warmup + iterations - 1 });
      }
    }
  }
  for (const w of unit) for (const impl of w.impls) await w.teardown?.(impl);
  for (const w of unit) {
    const s = /** @type {Record<string, number[]>} */ (samples.get(w));
    for (const impl of w.impls) results.push({ workload: w.name, impl, ...(w.group ? { group: w.group } : {}), ...(w.n ? { storeSize: w.n } : {}), iterations, warmup, ...stats(s[impl]) });
    memoryByWorkload[w.name] = ours.wasmMemoryBytes();
    out.textContent += `\n${w.name}: ${w.impls.map((i) => `${i} ${stats(s[i]).median.toFixed(2)} ms`).join(' · ')}`;
  }
  console.log(`bench: ${unit.map((w) => w.name).join(' + ')} done in ${((performance.now() - started) / 1000).toFixed(1)} s, wasm memory ${ours.wasmMemoryBytes()} bytes`);
}
/** @type {number} */
const memoryAfter = ours.wasmMemoryBytes();

// The 240-row flow: what the model has to emit for chart.create, inline vs by reference.
const rows240 = Array.from({ length: 240 }, (_, i) => ({ t: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(), value: Math.round(55 + 25 * Math.sin(i / 9)) }));
const uri240 = await oursCache.cacheToolResult({ payload: { ok: true, rows: rows240 }, convId: 'flow' });
const flow = {
  inlineChars: JSON.stringify({ data: { ok: true, rows: rows240 }, title: 'CPU' }).length,
  byReferenceChars: JSON.stringify({ data_uri: uri240, title: 'CPU' }).length,
};

/** @type {Page} */ (window).__benchResult = /** @satisfies {BenchResult} */ ({
  iterations: ITERATIONS, warmup: WARMUP, userAgent: navigator.userAgent, crossOriginIsolated: globalThis.crossOriginIsolated === true, results, flow,
  payloadBytes: Object.fromEntries(Object.entries(payloads).map(([k, p]) => [k, new TextEncoder().encode(JSON.stringify(p)).length])),
  wasmMemory: { before: memoryBefore, after: memoryAfter, afterEachWorkload: memoryByWorkload },
});
out.textContent += '\ndone';
