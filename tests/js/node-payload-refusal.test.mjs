// What the byte budget counts is what is stored: payloads whose stored (structured-clone) form
// differs from their JSON are refused, and so is nesting that cannot be read back.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../js/node.mjs';

let n = 0;
const newCache = (options = {}) => {
  const events = [];
  const cache = new ResultCache({ dbName: `refuse-${process.pid}-${n++}`, onEvent: (e) => events.push(e), ...options });
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
    assert.deepEqual(events.map((e) => [e.kind, e.reason]), [['skip', 'notPlainJson']]);
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

test('arrays nested thousands deep are refused (they could not be read back); listing keeps working', async () => {
  const { cache, events } = newCache({ threshold: 1 });
  const ok = await cache.cacheToolResult({ payload: { pad }, convId: 'c' });
  for (const depth of [1001, 2000, 4999]) {
    let v = [pad];
    for (let i = 0; i < depth; i++) v = [v];
    assert.equal(await cache.cacheToolResult({ payload: v, convId: 'c' }), null, `depth ${depth}`);
  }
  const skips = events.filter((e) => e.kind === 'skip');
  assert.ok(skips.length >= 1, 'depth 1001 reaches the check (deeper ones may already fail JSON sizing)');
  assert.ok(skips.every((e) => e.reason === 'maxDepth' && e.limit === 1000));
  const listed = await cache.entries();
  assert.deepEqual(listed.map((e) => e.uri), [ok]);
  let shallow = [pad];
  for (let i = 0; i < 999; i++) shallow = [shallow];
  const stored = await cache.cacheToolResult({ payload: shallow, convId: 'c' });
  assert.ok(stored, '1000 levels are fine');
  assert.equal((await cache.entries()).length, 2);
});
