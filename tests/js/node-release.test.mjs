// The built RELEASE package (pkg/node via pkg/node.mjs and js/node.cjs), in Node, over
// fake-indexeddb — the way a chat host's Node test suite uses it. Also catches a release build
// broken by a bad wasm-opt (it would fail at load).
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import * as api from '../../pkg/node.mjs';

const require = createRequire(import.meta.url);
const SERVER_REGEX = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}$/;
let dbCounter = 0;
const freshCache = (options = {}) =>
  new api.ResultCache({ dbName: `node-test-${process.pid}-${dbCounter++}`, ...options });
const rows = (/** @type {number} */ n) => ({
  ok: true,
  columns: ['t', 'value'],
  rows: Array.from({ length: n }, (_, i) => ({ t: `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00Z`, value: i * 7 })),
});

test('constants match the contract and the wasm build', async () => {
  assert.equal(api.CACHE_URI_SCHEME, 'mcp+cache://');
  assert.equal(api.DEFAULT_CACHE_THRESHOLD_BYTES, 4096);
  assert.equal(api.DEFAULT_MAX_TOOL_RESULT_CHARS, 20000);
  assert.equal(api.INLINE_LIST_MAX_RECORDS, 20);
  assert.equal(new api.ResultCache({ storage: 'memory' }).threshold, api.DEFAULT_CACHE_THRESHOLD_BYTES);
  assert.ok(api.mintCacheUri('c').startsWith(api.CACHE_URI_SCHEME));
  assert.equal(await api.ready(), undefined);
});

test('CommonJS entry exposes the same functions', () => {
  const cjs = require('../../js/node.cjs');
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(api).sort());
  assert.equal(cjs.sanitizeConvId('conv-1'), api.sanitizeConvId('conv-1'));
});

test('sanitizeConvId: safe ids are their own segment, lossy ones end in a digest of the whole id', () => {
  const same = [[null, 'default'], [undefined, 'default'], ['default', 'default'], [0, '0'], ['conv-1_A', 'conv-1_A'], ['x'.repeat(64), 'x'.repeat(64)]];
  for (const [input, expected] of same) assert.equal(api.sanitizeConvId(input), expected, String(input));
  const lossy = [['', ''], ['////', '____'], ['../evil/../host', '___evil____host'], ['x'.repeat(70), 'x'.repeat(55)], ['会話', '__']];
  for (const [input, prefix] of lossy) {
    const segment = api.sanitizeConvId(input);
    assert.match(segment, /^[A-Za-z0-9_-]{1,64}$/);
    assert.equal(segment, `${prefix}-${segment.slice(-8)}`, String(input));
  }
  assert.notEqual(api.sanitizeConvId('会話'), api.sanitizeConvId('对话'));
});

test('minted URIs match the server regex and parse back', () => {
  const seen = new Set();
  for (let i = 0; i < 2000; i++) {
    const uri = api.mintCacheUri(`conv ${i}`);
    assert.match(uri, SERVER_REGEX);
    seen.add(uri);
  }
  assert.equal(seen.size, 2000);
  assert.deepEqual(api.parseCacheUri('mcp+cache://c-1/abcdefgh#/rows/0'), { convId: 'c-1', token: 'abcdefgh', pointer: '/rows/0' });
  for (const bad of ['https://x/abcdefgh', 'mcp+cache://c/short', 'mcp+cache://../abcdefgh', 42, null]) {
    assert.equal(api.parseCacheUri(bad), null);
  }
});

test('estimateSize is UTF-8 bytes of JSON, 0 when not serializable', () => {
  assert.equal(api.estimateSize({ d: 'é🙂' }), 14);
  /** @type {{ a: number, self?: unknown }} */
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(api.estimateSize(cyclic), 0);
  assert.equal(api.estimateSize({ n: 10n }), 0);
  assert.equal(api.estimateSize(undefined), 0);
});

test('round trip through fake-indexeddb, scoped reads, lookup', async () => {
  const cache = freshCache();
  assert.equal(cache.storage, 'indexeddb');
  const payload = rows(240);
  const uri = await cache.cacheToolResult({ payload, convId: 'conv-1', sourceToolName: 'timeseries.query' });
  assert.match(/** @type {string} */ (uri), SERVER_REGEX);
  assert.deepEqual(await cache.readCachedPayload(uri), payload);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'conv-1' }), payload);
  assert.equal(await cache.readCachedPayload(uri, { convId: 'conv-2' }), null);
  assert.deepEqual(await cache.readCachedPayload(`${uri}#/rows/2`), payload.rows[2]);
  assert.deepEqual(await cache.lookup(uri), { status: 'hit', payload });
  assert.deepEqual(await cache.lookup('mcp+cache://conv-1/AAAAAAAAAAA'), { status: 'miss' });
  for (const probe of [42, null, 'https://example.com/x', 'mcp+cache://conv-1/AAAAAAAAAAA']) {
    assert.equal(await cache.readCachedPayload(probe), null);
  }
});

test('threshold boundary and non-cacheable payloads resolve null', async () => {
  const cache = freshCache();
  const exact = { d: 'x'.repeat(4096 - 8) };
  const short = { d: 'x'.repeat(4096 - 9) };
  assert.equal(api.estimateSize(exact), 4096);
  assert.equal(typeof (await cache.cacheToolResult({ payload: exact, convId: 'c' })), 'string');
  assert.equal(await cache.cacheToolResult({ payload: short, convId: 'c' }), null);
  assert.equal(await cache.cacheToolResult({ payload: null, convId: 'c', threshold: 0 }), null);
  assert.equal(await cache.cacheToolResult({ payload: 'x'.repeat(9000), convId: 'c' }), null);
});

test('clearConversation and evictOlderThan', async () => {
  let now = 1_000;
  const cache = freshCache({ now: () => now });
  const a = await cache.cacheToolResult({ payload: rows(100), convId: 'a' });
  now = 10_000;
  const bPayload = rows(120);
  const b = await cache.cacheToolResult({ payload: bPayload, convId: 'b' });
  assert.equal(await cache.clearConversation('b'), undefined);
  assert.equal(await cache.readCachedPayload(b), null);
  assert.notEqual(await cache.readCachedPayload(a), null);
  const c = await cache.cacheToolResult({ payload: bPayload, convId: 'c' });
  now = 12_000;
  assert.equal(await cache.evictOlderThan({ maxAgeMs: 5_000 }), undefined);
  assert.equal(await cache.readCachedPayload(a), null);
  assert.deepEqual(await cache.readCachedPayload(c), bPayload);
});

test('errors are real Errors that keep the DOMException name', async () => {
  const cache = freshCache();
  const payload = { ...rows(100), fn() {} };
  await assert.rejects(cache.cacheToolResult({ payload, convId: 'c' }), (err) => {
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'DataCloneError');
    return true;
  });
  assert.throws(() => new api.ResultCache({ storage: 'disk' }), TypeError);
});

test('free functions share one default cache', async () => {
  const payload = rows(100);
  const uri = await api.cacheToolResult({ payload, convId: 'free' });
  assert.deepEqual(await api.readCachedPayload(uri, { convId: 'free' }), payload);
  await api.clearConversation('free');
  assert.equal(await api.readCachedPayload(uri), null);
});
