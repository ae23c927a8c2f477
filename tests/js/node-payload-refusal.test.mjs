// What the byte budget counts is what is stored: payloads whose stored (structured-clone) form
// differs from their JSON are refused, and so is nesting that cannot be read back.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

let n = 0;
const newCache = (options = {}) => {
  /** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent[]} */
  const events = [];
  const cache = new ResultCache({ dbName: `refuse-${process.pid}-${n++}`, onEvent: (/** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent} */ e) => events.push(e), ...options });
  return { cache, events };
};
const pad = 'x'.repeat(5000);
class Row { constructor() { this.pad = pad; this.blob = new Uint8Array(1024 * 1024); } toJSON() { return { pad: this.pad }; } }

const NOT_PLAIN = {
  arrayBuffer: () => ({ pad, blob: new ArrayBuffer(32 * 1024 * 1024) }),
  typedArray: () => ({ pad, bytes: new Float64Array(1024) }),
  nestedBuffer: () => ({ pad, rows: [{ a: 1 }, { blob: new ArrayBuffer(1024) }] }),
  map: () => ({ pad, index: new Map([['a', pad]]) }),
  set: () => ({ pad, seen: new Set([1, 2]) }),
  prototypeToJSON: () => ({ pad, row: new Row() }),
  ownToJSON: () => ({ pad, hidden: 'y'.repeat(1e6), toJSON() { return { pad }; } }),
  classInstance: () => ({ pad, when: new (class When { constructor() { this.t = 1; } })() }),
};

for (const [name, make] of Object.entries(NOT_PLAIN)) {
  test(`refused, with a skip event: ${name}`, async () => {
    const { cache, events } = newCache({ maxBytes: 1024 * 1024 });
    assert.equal(await cache.cacheToolResult({ payload: make(), convId: 'c' }), null);
    assert.deepEqual(events.map((e) => [e.kind, /** @type {{ reason?: string }} */ (e).reason]), [['skip', 'notPlainJson']]);
    assert.equal((await cache.stats()).entries, 0);
  });
}

test('five 32 MiB ArrayBuffers under maxBytes 1 MiB store nothing', async () => {
  const { cache } = newCache({ maxBytes: 1024 * 1024 });
  for (let i = 0; i < 5; i++) assert.equal(await cache.cacheToolResult({ payload: NOT_PLAIN.arrayBuffer(), convId: 'c' }), null);
  const stats = await cache.stats();
  assert.equal(stats.entries, 0);
  assert.equal(stats.bytes, 0);
});

test('plain JSON data, null-prototype objects and dates are stored', async () => {
  const { cache } = newCache();
  const bare = Object.assign(Object.create(null), { pad, n: 1 });
  for (const payload of [{ pad, rows: [{ a: 1, b: [true, null, 'x'] }] }, bare, { pad, at: new Date(0) }]) {
    const uri = await cache.cacheToolResult({ payload, convId: 'c' });
    assert.ok(uri, JSON.stringify(payload).slice(0, 40));
  }
});

test('an enumerable property on Object.prototype is not part of the payload', async () => {
  const { cache, events } = newCache();
  try {
    Object.defineProperty(Object.prototype, 'polluted', { value: new Map([['a', pad]]), enumerable: true, configurable: true });
    assert.ok(await cache.cacheToolResult({ payload: { pad, rows: [{ a: 1 }] }, convId: 'c' }));
    assert.equal(await cache.cacheToolResult({ payload: { pad, own: new Map() }, convId: 'c' }), null);
  } finally {
    delete /** @type {Record<string, unknown>} */ (Object.prototype).polluted;
  }
  assert.deepEqual(events.filter((e) => e.kind === 'skip').map((e) => e.reason), ['notPlainJson']);
});

test('arrays nested thousands deep are refused (they could not be read back); listing keeps working', async () => {
  const { cache, events } = newCache({ threshold: 1 });
  const ok = await cache.cacheToolResult({ payload: { pad }, convId: 'c' });
  for (const depth of [1001, 2000, 4999]) {
    /** @type {unknown[]} */
    let v = [pad];
    for (let i = 0; i < depth; i++) v = [v];
    assert.equal(await cache.cacheToolResult({ payload: v, convId: 'c' }), null, `depth ${depth}`);
  }
  const skips = events.filter((e) => e.kind === 'skip');
  assert.ok(skips.length >= 1, 'depth 1001 reaches the check (deeper ones may already fail JSON sizing)');
  assert.ok(skips.every((e) => e.reason === 'maxDepth' && e.limit === 1000));
  const listed = await cache.entries();
  assert.deepEqual(listed.map((e) => e.uri), [ok]);
  /** @type {unknown[]} */
  let shallow = [pad];
  for (let i = 0; i < 999; i++) shallow = [shallow];
  const stored = await cache.cacheToolResult({ payload: shallow, convId: 'c' });
  assert.ok(stored, '1000 levels are fine');
  assert.equal((await cache.entries()).length, 2);
});

test('a 23 MB JSON text result never enters wasm memory (parsed and measured on the JS side)', async () => {
  const { wasmMemoryBytes } = await import('../../pkg/node.mjs');
  const { cache } = newCache();
  const rows = Array.from({ length: 230_000 }, (_, i) => ({ i, label: `row ${i} of the big result`, v: i * 7 }));
  const text = JSON.stringify({ ok: true, rows });
  assert.ok(text.length > 10_000_000, `${text.length}`);
  const before = wasmMemoryBytes();
  const visible = await cache.afterToolCall('big.query', { content: [{ type: 'text', text }] }, { convId: 'c' });
  const shown = JSON.parse(/** @type {{ text: string }} */ (/** @type {import('../../pkg/node/mcp_result_cache.js').CallToolResult} */ (visible).content.at(-1)).text);
  assert.equal(shown._truncated, true);
  assert.match(shown._cache_uri, /^mcp\+cache:\/\/c\//);
  const grown = wasmMemoryBytes() - before;
  assert.ok(grown < 1024 * 1024, `wasm memory grew ${grown} bytes for a ${text.length}-char result`);
});
