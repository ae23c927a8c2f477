// The store at its limits. A write the storage refuses for want of room (QuotaExceededError):
// the cache evicts the oldest entries and retries once. Over a storage object (docs/STORAGE.md:
// a map of rows, its budget applied per write) and over IndexedDB (fake-indexeddb, its `put`
// refusing): a clear called while the write recovers is not undone by the retry; writes refused
// together evict once, not once each; totals that cannot be read give the write up without
// shrinking the budget for good. A cache with no room for one entry stores nothing; IndexedDB
// evicts the least recently used entry as memory does, however many were read since the last
// write.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

/** @typedef {import('../../js/index.js').CacheEvent} CacheEvent */
/** @typedef {{ uri: string, convId: string, sizeBytes: number, lastUsedAt: number, addedAt: number }} Row */

/**
 * A storage object over a map. `refuse` writes are refused (QuotaExceededError) before any is
 * stored; `onStats` runs inside the next `stats()` (then forgotten), which can also be made to
 * fail once (`statsFail`). `budgets` records the maxBytes each write was given.
 */
function mapStorage() {
  /** @type {Map<string, Row>} */
  const rows = new Map();
  /** @type {{ refuse: number, statsFail: boolean, onStats: (() => void) | null, budgets: number[] }} */
  const state = { refuse: 0, statsFail: false, onStats: null, budgets: [] };
  const bytes = () => [...rows.values()].reduce((n, r) => n + r.sizeBytes, 0);
  const storage = {
    kind: 'map',
    async write(/** @type {Row} */ row, /** @type {number} */ maxBytes, /** @type {number} */ maxEntries) {
      state.budgets.push(maxBytes);
      if (state.refuse > 0) {
        state.refuse -= 1;
        throw Object.assign(new Error('no room'), { name: 'QuotaExceededError' });
      }
      rows.set(row.uri, structuredClone(row));
      let evicted = 0;
      for (const [uri] of [...rows].sort((a, b) => a[1].lastUsedAt - b[1].lastUsedAt)) {
        if (bytes() <= maxBytes && rows.size <= maxEntries) break;
        if (uri === row.uri) continue;
        rows.delete(uri);
        evicted += 1;
      }
      return [evicted, bytes(), rows.size];
    },
    async read(/** @type {string[]} */ uris) { return uris.map((uri) => rows.get(uri)); },
    async evictOldest(/** @type {number} */ wanted) {
      let freed = 0;
      let count = 0;
      for (const [uri, row] of [...rows].sort((a, b) => a[1].lastUsedAt - b[1].lastUsedAt)) {
        if (freed >= wanted) break;
        rows.delete(uri);
        freed += row.sizeBytes;
        count += 1;
      }
      return count;
    },
    async stats() {
      const hook = state.onStats;
      state.onStats = null;
      hook?.();
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (state.statsFail) {
        state.statsFail = false;
        throw Object.assign(new Error('no answer'), { name: 'TimeoutError' });
      }
      return [rows.size, bytes(), new Set([...rows.values()].map((r) => r.convId)).size];
    },
    async remove(/** @type {string | undefined} */ convId, /** @type {number} */ cutoff) {
      let removed = 0;
      for (const [uri, row] of rows) {
        if (typeof convId === 'string' ? row.convId === convId : row.addedAt < cutoff) {
          rows.delete(uri);
          removed += 1;
        }
      }
      return removed;
    },
    async freshTools() { return []; },
    async markStale() { return 0; },
    async list(/** @type {string | undefined} */ convId) { return [...rows.values()].filter((r) => typeof convId !== 'string' || r.convId === convId); },
    async consumeOnce() { return true; },
  };
  return { storage, state, rows };
}

const payload = (/** @type {number} */ i) => ({ i, text: 'x'.repeat(990) });

test('a clear called while a refused write recovers: the retry does not undo it (the write resolves null)', async () => {
  const { storage, state, rows } = mapStorage();
  /** @type {CacheEvent[]} */
  const events = [];
  const cache = new ResultCache({ storage, threshold: 10, onEvent: (/** @type {CacheEvent} */ e) => events.push(e) });
  state.refuse = 1;
  /** @type {Promise<void> | undefined} */
  let cleared;
  state.onStats = () => { cleared = cache.clearConversation('c'); };
  const uri = await cache.cacheToolResult({ payload: payload(1), convId: 'c', sourceToolName: 't' });
  await cleared;
  assert.equal(uri, null, 'given up: its retry would take effect after the clear');
  assert.equal(rows.size, 0, 'nothing of c after the clear');
  assert.ok(events.some((e) => e.kind === 'error' && e.name === 'QuotaExceededError'), 'the refusal is reported');
});

test('totals that cannot be read while a refused write recovers: given up, and the budget is not shrunk for good', async () => {
  const { storage, state } = mapStorage();
  const cache = new ResultCache({ storage, threshold: 10, maxBytes: 1e6 });
  for (let i = 0; i < 20; i += 1) await cache.cacheToolResult({ payload: payload(i), convId: 'c', sourceToolName: 't' });
  state.refuse = 1;
  state.statsFail = true;
  assert.equal(await cache.cacheToolResult({ payload: payload(99), convId: 'c', sourceToolName: 't' }), null);
  for (let i = 0; i < 5; i += 1) await cache.cacheToolResult({ payload: payload(100 + i), convId: 'c', sourceToolName: 't' });
  assert.equal(state.budgets.at(-1), 1e6, 'later writes keep the configured maxBytes');
  assert.equal((await cache.stats()).entries, 25, 'nothing evicted');
});

test('writes refused together (IndexedDB, one batch) evict once, as one refused write does, and are all retried', async () => {
  const proto = /** @type {{ put: (...args: unknown[]) => unknown }} */ (globalThis.IDBObjectStore.prototype);
  const put = proto.put;
  let refuse = 0;
  proto.put = function (/** @type {unknown[]} */ ...args) {
    if (refuse > 0 && /** @type {{ name: string }} */ (/** @type {unknown} */ (this)).name === 'results') {
      refuse -= 1;
      throw new DOMException('no room', 'QuotaExceededError');
    }
    return put.apply(this, args);
  };
  try {
    /** @type {Record<number, { quotaEvictions: number, kept: number, stored: number }>} */
    const runs = {};
    for (const together of [1, 5]) {
      /** @type {CacheEvent[]} */
      const events = [];
      const cache = new ResultCache({ storage: 'indexeddb', dbName: `quota-${process.pid}-${together}`, threshold: 10, onEvent: (/** @type {CacheEvent} */ e) => events.push(e) });
      for (let i = 0; i < 20; i += 1) await cache.cacheToolResult({ payload: payload(i), convId: 'c', sourceToolName: 't' });
      refuse = together;
      const uris = await Promise.all(Array.from({ length: together }, (_, i) => cache.cacheToolResult({ payload: payload(100 + i), convId: 'c', sourceToolName: 't' })));
      const stored = uris.filter((u) => typeof u === 'string').length;
      runs[together] = {
        quotaEvictions: events.filter((e) => e.kind === 'evict' && e.reason === 'quota').length,
        kept: (await cache.stats()).entries - stored,
        stored,
      };
      cache.close();
    }
    assert.equal(runs[1].quotaEvictions, 1);
    assert.equal(runs[5].quotaEvictions, 1, `one eviction for the five: ${JSON.stringify(runs)}`);
    assert.equal(runs[5].kept, runs[1].kept, `as many older entries kept as for one refused write: ${JSON.stringify(runs)}`);
    assert.equal(runs[5].stored, 5, 'every refused write was retried and stored');
  } finally {
    proto.put = put;
  }
});

test('no room for one entry (maxEntries below 1, as maxBytes 0): nothing is stored, each result skipped', async () => {
  for (const [storage, limits] of /** @type {const} */ ([['memory', { maxEntries: 0 }], ['indexeddb', { maxEntries: 0.5 }], ['memory', { maxBytes: 0 }]])) {
    /** @type {CacheEvent[]} */
    const events = [];
    const cache = new ResultCache({ storage, dbName: `no-room-${process.pid}-${storage}`, threshold: 10, ...limits, onEvent: (/** @type {CacheEvent} */ e) => events.push(e) });
    assert.equal(await cache.cacheToolResult({ payload: payload(1), convId: 'c', sourceToolName: 't' }), null, `${storage} ${JSON.stringify(limits)}`);
    assert.equal((await cache.stats()).entries, 0);
    assert.ok(events.some((e) => e.kind === 'skip'), 'a skip event says why');
    cache.close();
  }
});

test('least recently used, over memory and IndexedDB alike: of 101 entries, 100 read, a write evicts the one not read', async () => {
  for (const storage of /** @type {const} */ (['memory', 'indexeddb'])) {
    let clock = 0;
    const cache = new ResultCache({ storage, dbName: `lru-${process.pid}`, threshold: 10, maxEntries: 101, now: () => clock });
    /** @type {string[]} */
    const uris = [];
    for (let i = 0; i <= 100; i += 1) {
      clock = i;
      uris.push(String(await cache.cacheToolResult({ payload: payload(i), convId: 'c', sourceToolName: 't' })));
    }
    clock = 200;
    for (let i = 0; i < 100; i += 1) await cache.lookup(uris[i], { convId: 'c' });
    clock = 300;
    await cache.cacheToolResult({ payload: payload(1000), convId: 'c', sourceToolName: 't' });
    const left = new Set((await cache.entries({ convId: 'c' })).map((e) => e.uri));
    assert.deepEqual(uris.flatMap((uri, i) => (left.has(uri) ? [] : [i])), [100], `${storage}: only the entry not read was evicted`);
    cache.close();
  }
});
