// The read-back tools (cacheTools) at their edges, through the release package in Node: once the
// module is loaded a call takes effect where it was called among the cache's operations, and a
// tool set reads its options when it is made; a call reads its arguments once; answers show what
// JSON shows (a Date as its ISO string, NaN as null, an undefined member not at all), the same
// in their text and structuredContent; an offset inside a surrogate pair starts at the pair; a
// convId function that throws is a TypeError; a refusal never ends in half a pair.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, cacheTools } from '../../pkg/node.mjs';

let n = 0;
const fresh = () => new ResultCache({ storage: 'memory', dbName: `readback-edges-${process.pid}-${n++}` });
/** @typedef {import('../../pkg/node/index.mjs').CacheReadToolResult} ReadResult */
/** @typedef {Record<string, any>} Answer */

/** The answer of a call that did not fail; its text and structuredContent are the same object. */
const answer = (/** @type {ReadResult} */ result) => {
  assert.notEqual(result.isError, true, result.content?.[0]?.text);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return /** @type {Answer} */ (result.structuredContent);
};

/** @param {InstanceType<typeof ResultCache>} cache @param {unknown} payload */
const stored = async (cache, payload, convId = 'c1') => /** @type {string} */ (await cache.cacheToolResult({ payload, convId, sourceToolName: 't', threshold: 0 }));

test('once loaded, a read called before a clear reads, as a lookup called there does', async () => {
  const cache = fresh();
  const uri = await stored(cache, { rows: [1, 2, 3] });
  const tools = cacheTools(cache, { convId: 'c1' });
  await tools.listTools();
  const read = tools.callTool({ name: 'cache_read', arguments: { uri } });
  const lookup = cache.lookup(uri, { convId: 'c1' });
  const cleared = cache.clearConversation('c1');
  assert.deepEqual(answer(await read).keys.map((/** @type {{ key: string }} */ k) => k.key), ['rows']);
  assert.equal((await lookup).status, 'hit');
  await cleared;
  // A tool set made after the module loaded calls straight through from its first call.
  const again = await stored(cache, [1]);
  const second = cacheTools(cache, { convId: 'c1' });
  const early = second.callTool({ name: 'cache_read', arguments: { uri: again } });
  const clear = cache.clearConversation('c1');
  assert.deepEqual(answer(await early).items, [1]);
  await clear;
});

test('once loaded, a tool set reads its options when it is made', async () => {
  const cache = fresh();
  await cacheTools(cache, {}).listTools();
  const uri = await stored(cache, [1, 2], 'c1');
  const options = { convId: 'c1' };
  const tools = cacheTools(cache, options);
  options.convId = 'c2';
  assert.deepEqual(answer(await tools.callTool({ name: 'cache_read', arguments: { uri } })).items, [1, 2]);
});

test('a call reads its arguments once, when it is made', async () => {
  const cache = fresh();
  const uri = await stored(cache, Array.from({ length: 10 }, (_, i) => i));
  const tools = cacheTools(cache, { convId: 'c1' });
  const args = { uri, offset: 0, limit: 2 };
  const call = tools.callTool({ name: 'cache_read', arguments: args });
  args.offset = 6;
  const page = answer(await call);
  assert.equal(page.offset, 0);
  assert.deepEqual(page.items, [0, 1]);

  const rows = Array.from({ length: 6 }, (_, i) => ({ i }));
  const source = await stored(cache, rows);
  const where = [{ field: 'i', op: '<', value: 2 }];
  const selecting = tools.callTool({ name: 'cache_select', arguments: { uri: source, where } });
  where[0].value = 5;
  const selected = answer(await selecting);
  assert.equal(selected.count, 2);
  assert.deepEqual(await cache.readCachedPayload(selected._cache_uri, { convId: 'c1' }), [{ i: 0 }, { i: 1 }]);
});

test('answers show what JSON shows: a Date as its ISO string, NaN as null, an undefined member not at all', async () => {
  const cache = fresh();
  const when = new Date('2026-12-01T00:00:00Z');
  const uri = await stored(cache, { rows: [{ t: when, v: NaN, w: Infinity }], note: undefined, n: 1 });
  const tools = cacheTools(cache, { convId: 'c1' });
  const call = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ args) => tools.callTool({ name, arguments: args });
  const rows = answer(await call('cache_read', { uri: `${uri}#/rows` }));
  assert.deepEqual(rows.items, [{ t: '2026-12-01T00:00:00.000Z', v: null, w: null }]);
  assert.deepEqual(answer(await call('cache_read', { uri: `${uri}#/rows/0/v` })), { uri: `${uri}#/rows/0/v`, type: 'null', value: null });
  const listing = answer(await call('cache_read', { uri }));
  assert.deepEqual(listing.keys.map((/** @type {{ key: string }} */ k) => k.key), ['rows', 'n']);
  assert.equal(listing.total_keys, 2);
  for (const query of ['nan', 'inf']) assert.equal(answer(await call('cache_search', { uri, query })).total_matches, 0, query);
});

test('a string offset inside a surrogate pair starts the page at the pair', async () => {
  const cache = fresh();
  const uri = await stored(cache, { s: '😀abc' });
  const page = answer(await cacheTools(cache, { convId: 'c1' }).callTool({ name: 'cache_read', arguments: { uri: `${uri}#/s`, offset: 1 } }));
  assert.equal(page.text, '😀abc');
  assert.equal(page.offset, 0);
});

test('a convId function that throws rejects the call with a TypeError', async () => {
  const cache = fresh();
  const uri = await stored(cache, [1]);
  const tools = cacheTools(cache, { convId: () => { throw new RangeError('no chat'); } });
  await assert.rejects(tools.callTool({ name: 'cache_read', arguments: { uri } }), (error) => error instanceof TypeError && /convId/.test(error.message));
});

test('an unknown tool name is cut before its refusal, never inside a surrogate pair', async () => {
  const result = await cacheTools(fresh(), { convId: 'c1' }).callTool({ name: `${'x'.repeat(78)}😀`, arguments: {} });
  assert.equal(result.isError, true);
  const { error } = JSON.parse(result.content[0].text);
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(error), error);
});

test('past 256 remembered selections, the oldest is forgotten, not all of them', async () => {
  const cache = fresh();
  const source = await stored(cache, Array.from({ length: 300 }, (_, i) => ({ i })));
  const tools = cacheTools(cache, { convId: 'c1' });
  const select = async (/** @type {number} */ limit) => answer(await tools.callTool({ name: 'cache_select', arguments: { uri: source, limit } }))._cache_uri;
  const first = await select(1);
  const second = await select(2);
  for (let limit = 3; limit <= 257; limit++) await select(limit);
  assert.equal(await select(2), second, 'the others are remembered');
  assert.notEqual(await select(1), first, 'the oldest was forgotten');
});
