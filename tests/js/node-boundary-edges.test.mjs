// The boundary at its edges, through the release package in Node: a sparse array whose length
// is 2^32 - 1 (in a `*_uri` argument, as patterns, names or tools) is an answer or a TypeError,
// never a WebAssembly trap; a conversation id with a lone surrogate is a TypeError, never merged
// with another id that reads alike; options that are not an object are refused, never read as
// "every server"; reuseImmutable never answers a call whose reference went stale.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, checkInlineListCap } from '../../pkg/node.mjs';

let n = 0;
const newCache = (options = {}) => new ResultCache({ storage: 'memory', dbName: `boundary-edges-${process.pid}-${n++}`, ...options });
const rows = (count = 300) => ({ rows: Array.from({ length: count }, (_, i) => ({ i, host: `web-${i % 3}` })) });
const sparse = () => new Array(2 ** 32 - 1);

test('a sparse array of length 2^32 - 1 is an answer or a TypeError, never a trap', async () => {
  const cache = newCache();
  const args = { x_uri: sparse(), note: 'kept' };
  const outcome = await cache.substituteCacheUris(args, { convId: 'c' });
  assert.equal(outcome.ok, true);
  assert.equal(/** @type {{ args: unknown }} */ (outcome).args, args, 'no references: the arguments as they are');
  const before = await cache.beforeToolCall('t', { x_uri: sparse() }, { convId: 'c' });
  assert.equal(before.dispatch, true);
  await assert.rejects(cache.beforeToolCall('t', {}, { convId: 'c', cappedArgs: sparse() }), TypeError);
  await assert.rejects(cache.invalidate(/** @type {string[]} */ (sparse())), TypeError);
  assert.throws(() => checkInlineListCap('t', {}, 3, sparse()), TypeError);
  cache.observeTools(sparse());
  // The cache still works.
  const uri = await cache.cacheToolResult({ payload: rows(), convId: 'c' });
  assert.equal((await cache.lookup(/** @type {string} */ (uri), { convId: 'c' })).status, 'hit');
});

test('a conversation id with a lone surrogate is a TypeError, never another conversation', async () => {
  const cache = newCache();
  const uri = /** @type {string} */ (await cache.cacheToolResult({ payload: rows(), convId: 'a\uFFFD' }));
  await assert.rejects(cache.cacheToolResult({ payload: rows(), convId: 'a\uD800' }), TypeError);
  await assert.rejects(cache.lookup(uri, { convId: 'a\uDC00' }), TypeError);
  await assert.rejects(cache.clearConversation('a\uDBFF'), TypeError);
  assert.equal((await cache.lookup(uri, { convId: 'a\uFFFD' })).status, 'hit', 'the id that reads alike keeps its entry');
});

test('options that are not an object are refused: a server name is never read as "every server"', async () => {
  const cache = newCache();
  const uri = /** @type {string} */ (await cache.cacheToolResult({ payload: rows(), convId: 'c', sourceToolName: 'db.query', server: 'other' }));
  await assert.rejects(cache.invalidate(['db.*'], /** @type {never} */ ('db.update')), TypeError);
  const stale = { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/db.*' } };
  await assert.rejects(cache.handleNotification(stale, /** @type {never} */ ('srv')), TypeError);
  assert.throws(() => cache.observeTools([], /** @type {never} */ ('srv')), TypeError);
  assert.equal((await cache.lookup(uri, { convId: 'c' })).status, 'hit', 'nothing was invalidated');
  assert.equal(await cache.handleNotification(stale, { server: 'srv' }), 0, 'another server\'s entry is untouched');
});

test('reuseImmutable never answers a call whose reference went stale: the call is blocked', async () => {
  const cache = newCache({ reuseImmutable: true });
  cache.observeTools([{ name: 'stats.summarize', description: 'Summary statistics. [Cache-Control: immutable]' }]);
  const source = /** @type {string} */ (await cache.cacheToolResult({ payload: rows(), convId: 'c', sourceToolName: 'db.query' }));
  const args = { data_uri: source };
  const first = await cache.beforeToolCall('stats.summarize', args, { convId: 'c' });
  assert.equal(first.dispatch, true);
  await cache.afterToolCall('stats.summarize', { mean: 1, ...rows(200) }, { convId: 'c', args });
  assert.equal(await cache.invalidate(['db.*'], { cause: 'db.update' }), 1);
  const again = await cache.beforeToolCall('stats.summarize', args, { convId: 'c' });
  assert.equal(again.dispatch, false);
  assert.ok('envelope' in again && !('reused' in again), 'blocked with the stale envelope, not reused');
  assert.match(JSON.stringify(/** @type {{ envelope: unknown }} */ (again).envelope), /stale/);
  // A call without a reference is still reused.
  cache.observeTools([{ name: 'ref.lookup', description: 'Reference data. [Cache-Control: immutable]' }]);
  await cache.beforeToolCall('ref.lookup', { code: 'EUR' }, { convId: 'c' });
  await cache.afterToolCall('ref.lookup', rows(), { convId: 'c', args: { code: 'EUR' } });
  assert.equal((await cache.beforeToolCall('ref.lookup', { code: 'EUR' }, { convId: 'c' })).dispatch, false);
});

test('a `data_uri` the model left empty lifts no inline cap: the typed array is refused as any other', async () => {
  const cache = newCache();
  const typed = Array.from({ length: 50 }, (_, i) => ({ i }));
  for (const empty of ['', false, 0, null]) {
    const before = await cache.beforeToolCall('chart.create', { data: typed, data_uri: empty }, { convId: 'c' });
    assert.equal(before.dispatch, false, `data_uri: ${JSON.stringify(empty)}`);
    assert.match(JSON.stringify(/** @type {{ envelope: unknown }} */ (before).envelope), /data/);
  }
  const uri = /** @type {string} */ (await cache.cacheToolResult({ payload: { rows: typed }, convId: 'c', threshold: 0 }));
  const passed = await cache.beforeToolCall('chart.create', { data: typed, data_uri: `${uri}#/rows` }, { convId: 'c' });
  assert.equal(passed.dispatch, true, 'a reference beside it replaces it');
});
