// Call order through the release package in Node over fake-indexeddb (consumers' unit-test
// setting): operations take effect in the order they were called, across write batches, two
// caches on one database, and afterToolCall's invalidations and writes.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

const payload = { rows: 'x'.repeat(4096) };
let n = 0;
const fresh = () => `call-order-${process.pid}-${n++}`;

test('a clear called after 1 000 of 2 000 concurrent writes keeps exactly the 1 000 called after it', async () => {
  const cache = new ResultCache({ dbName: fresh() });
  const before = Array.from({ length: 1000 }, () => cache.cacheToolResult({ payload, convId: 'L' }));
  const clear = cache.clearConversation('L');
  const after = Array.from({ length: 1000 }, () => cache.cacheToolResult({ payload, convId: 'L' }));
  await Promise.all([...before, clear, ...after]);
  const later = new Set(await Promise.all(after));
  assert.equal(later.size, 1000);
  const survivors = (await cache.entries()).map((e) => e.uri).sort();
  assert.deepEqual(survivors, [...later].sort());
  for (const uri of (await Promise.all(before)).slice(0, 20)) assert.equal(await cache.readCachedPayload(uri), null);
  assert.equal((await cache.stats()).entries, 1000);
  cache.close();
});

test('two caches on one database: a clear through one sees the other\'s earlier writes, not its later ones', async () => {
  const dbName = fresh();
  const a = new ResultCache({ dbName });
  const b = new ResultCache({ dbName });
  const before = Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).cacheToolResult({ payload, convId: 'L' }));
  const clear = b.clearConversation('L');
  const after = Array.from({ length: 200 }, (_, i) => (i % 2 ? b : a).cacheToolResult({ payload, convId: 'L' }));
  await Promise.all([...before, clear, ...after]);
  const later = new Set(await Promise.all(after));
  for (const cache of [a, b]) {
    const survivors = (await cache.entries()).map((e) => e.uri);
    assert.equal(survivors.length, 200);
    assert.ok(survivors.every((u) => later.has(u)));
  }
  a.close();
  b.close();
});

test('reads, invalidations and evictions see exactly the writes called before them', async () => {
  let now = 1000;
  const cache = new ResultCache({ dbName: fresh(), now: () => now });
  const first = await cache.cacheToolResult({ payload, convId: 'L', sourceToolName: 'billing.get_invoice' });
  now = 5000;
  const write = cache.cacheToolResult({ payload, convId: 'L', sourceToolName: 'billing.get_invoice' });
  const invalidated = cache.invalidate(['billing.*'], { cause: 'refund' });
  const after = cache.cacheToolResult({ payload, convId: 'L', sourceToolName: 'billing.get_invoice' });
  const evicted = cache.evictOlderThan({ maxAgeMs: 1000 });
  const read = cache.lookup(first);
  assert.equal(await invalidated, 2, 'the earlier write and the one before it are marked stale');
  assert.equal((await cache.lookup(await write)).status, 'stale');
  assert.equal((await cache.lookup(await after)).status, 'hit', 'a write called after the invalidation is fresh');
  await evicted;
  assert.equal((await read).status, 'miss', 'the read called after the eviction misses the evicted entry');
  cache.close();
});

test('a hit called before a write (not awaited) is a use the write\'s eviction sees, in IndexedDB as in memory', async () => {
  for (const storage of ['indexeddb', 'memory']) {
    let now = 1000;
    const cache = new ResultCache({ storage, dbName: fresh(), maxEntries: 3, now: () => (now += 10) });
    const uris = [];
    for (const i of [0, 1, 2]) uris.push(String(await cache.cacheToolResult({ payload: { i, ...payload }, convId: 'L' })));
    const read = cache.lookup(uris[0]);
    const d = cache.cacheToolResult({ payload: { i: 3, ...payload }, convId: 'L' });
    assert.equal((await read).status, 'hit');
    uris.push(String(await d));
    const status = await Promise.all(uris.map(async (uri) => (await cache.lookup(uri)).status));
    assert.deepEqual(status, ['hit', 'miss', 'hit', 'hit'], `${storage}: the least recently used (the second) went`);
    cache.close();
  }
});

test('afterToolCall: its invalidations and writes take their place when it is called', async () => {
  const cache = new ResultCache({ dbName: fresh(), threshold: 10 });
  const rows = Array.from({ length: 50 }, (_, i) => ({ i, label: `row ${i}` }));
  const invoice = await cache.cacheToolResult({ payload: { rows }, convId: 'L', sourceToolName: 'billing.get_invoice' });
  const refund = {
    content: [
      { type: 'text', text: JSON.stringify({ ok: true, rows }) },
      { type: 'text', text: '<cache_invalidation cause="billing.refund" domains="billing.get_invoice" />' },
    ],
  };
  const shown = cache.afterToolCall('billing.refund', refund, { convId: 'L' });
  const clear = cache.clearConversation('L');
  const later = cache.cacheToolResult({ payload: { rows }, convId: 'L', sourceToolName: 'timeseries.query' });
  const result = /** @type {{ _meta?: Record<string, string[] | undefined> }} */ (await shown);
  await clear;
  const refs = result._meta?.['mcp-result-cache/uris'] ?? [];
  assert.ok(refs.length >= 1, `the refund's data was stored: ${JSON.stringify(result).slice(0, 300)}`);
  for (const uri of [invoice, ...refs]) assert.equal((await cache.lookup(uri)).status, 'miss', `${uri} is cleared`);
  assert.equal((await cache.lookup(await later)).status, 'hit', 'the write called after the clear survives');
  cache.close();
});
