// The read-back tools at their edges: a stored Date read, searched and selected as the ISO text
// its JSON is; a value behind a #pointer too long for maxChars refused, never answered without
// it; a search match whose pointer no answer can hold listed with a null pointer, the matches
// after it still listed; case folded the same for every "Σ"; refusals within maxChars whatever
// their escaping; cache_select refuses an array with no row in it.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, cacheTools } from '../../pkg/node.mjs';

let n = 0;
const fresh = () => new ResultCache({ storage: 'memory', dbName: `readback-bounds-${process.pid}-${n++}` });
/**
 * A read-back tool's answer or refusal, parsed from its text.
 * @typedef {{ error?: string, text?: string, keys: { key: string, type: string, value?: unknown }[], items: unknown[],
 *   matches: { pointer: string | null, snippet: string }[], total_matches: number, count: number,
 *   sample: unknown[], value?: unknown, _missing_uris?: string[] }} Answer
 */
/**
 * Calls `name` of `tools` with `args`: whether it was refused, its text and what the text says.
 * @param {ReturnType<typeof cacheTools>} tools @param {string} name @param {Record<string, unknown>} args
 */
async function call(tools, name, args) {
  const result = await tools.callTool({ name, arguments: args });
  const text = /** @type {string} */ (result.content[0].text);
  return { refused: result.isError === true, text, answer: /** @type {Answer} */ (JSON.parse(text)) };
}
/** @param {import('../../pkg/node/mcp_result_cache.js').ResultCache} cache @param {unknown} payload */
const stored = async (cache, payload) => /** @type {string} */ (await cache.cacheToolResult({ payload, convId: 'c1', threshold: 0 }));

test('a stored Date is read, searched and selected as its ISO text', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1' });
  const uri = await stored(cache, { when: new Date('2026-01-02T03:04:05Z'), rows: [{ a: 1, t: new Date('2026-01-01T00:00:00Z') }, { a: 2, t: new Date('2026-02-01T00:00:00Z') }] });
  const listing = await call(tools, 'cache_read', { uri });
  assert.deepEqual(listing.answer.keys[0], { key: 'when', type: 'string', size: 26, pointer: `${uri}#/when`, value: '2026-01-02T03:04:05.000Z' });
  assert.equal((await call(tools, 'cache_read', { uri: `${uri}#/when` })).answer.text, '2026-01-02T03:04:05.000Z');
  assert.equal((await call(tools, 'cache_search', { uri, query: '2026-02' })).answer.total_matches, 1);
  const later = await call(tools, 'cache_select', { uri: `${uri}#/rows`, where: [{ field: 't', op: '>=', value: '2026-01-15' }] });
  assert.equal(later.answer.count, 1, later.text);
  // A Date is no row, and is text inside a row's array.
  const mixed = await stored(cache, [{ id: 1, seen: [new Date(0)] }, new Date(0), new Date(NaN)]);
  const rows = await call(tools, 'cache_select', { uri: mixed, where: [{ field: 'seen', op: 'contains', value: '1970-01-01T00:00:00.000Z' }] });
  assert.deepEqual(rows.answer.sample, [{ id: 1, seen: ['1970-01-01T00:00:00.000Z'] }], rows.text);
  assert.match(String((await call(tools, 'cache_select', { uri: `${uri}#/when` })).answer.error), /holds a string$/);
});

test('a value behind a #pointer too long for maxChars is refused as too long, never answered without it', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1', maxChars: 1000 });
  for (let length = 900; length < 990; length += 3) {
    const key = 'k'.repeat(length);
    const uri = await stored(cache, { [key]: 1234567890.5 });
    const read = await call(tools, 'cache_read', { uri: `${uri}#/${key}` });
    assert.ok(read.text.length <= 1000);
    if (read.refused) assert.match(String(read.answer.error), /uri is too long/);
    else assert.equal(read.answer.value, 1234567890.5, `key of ${length}`);
  }
});

test('a search match whose pointer no answer can hold is listed with a null pointer, one that cannot be listed is counted, and the matches after them still are', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1', maxChars: 1000 });
  const uri = await stored(cache, { ['k'.repeat(1200)]: 'error here', a: 'error 1', b: 'error 2' });
  const search = await call(tools, 'cache_search', { uri, query: 'error' });
  assert.deepEqual(search.answer.matches.map((m) => m.pointer), [null, '/a', '/b'], search.text);
  // A snippet full of escapes (6 characters each) too long for an answer: counted, not listed.
  const query = 'x'.repeat(150);
  const key = 'k'.repeat(200);
  const escapes = await stored(cache, { [key]: { a: `${'\u0001'.repeat(40)}${query}${'\u0001'.repeat(40)}`, b: query } });
  const found = await call(tools, 'cache_search', { uri: `${escapes}#/${key}`, query });
  assert.equal(found.answer.total_matches, 2);
  assert.deepEqual(found.answer.matches.map((m) => m.pointer), [`/${key}/b`], found.text);
  // A short pointer stays, whatever its snippet.
  const short = await stored(cache, { ['k'.repeat(100)]: `${'\u0001'.repeat(20)}${query}` });
  const listed = await call(tools, 'cache_search', { uri: short, query });
  assert.deepEqual(listed.answer.matches.map((m) => m.pointer), [`/${'k'.repeat(100)}`], listed.text);
});

test('cache_select that would answer a reference reading as missing (its source evicted by the write) is refused', async () => {
  const cache = new ResultCache({ storage: 'memory', dbName: `readback-bounds-evict-${process.pid}`, maxEntries: 1 });
  const tools = cacheTools(cache, { convId: 'c1' });
  const uri = await stored(cache, [{ a: 1 }, { a: 2 }]);
  const select = await call(tools, 'cache_select', { uri });
  assert.ok(select.refused, select.text);
  assert.match(String(select.answer.error), /could not be stored to resolve/);
});

test('search and contains fold every capital sigma the same, at a word\'s end or inside it', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1' });
  const uri = await stored(cache, { rows: [{ name: 'ΟΔΟΣΠΟΡΟΣ' }, { name: 'ΟΔΟΣ' }, { name: 'Patras ΟΔΟΣ 5' }, { name: 'other' }] });
  for (const query of ['ΟΔΟΣ', 'οδοσ', 'οδος']) {
    assert.equal((await call(tools, 'cache_search', { uri, query })).answer.total_matches, 3, query);
    assert.equal((await call(tools, 'cache_select', { uri: `${uri}#/rows`, where: [{ field: 'name', op: 'contains', value: query }] })).answer.count, 3, query);
  }
});

test('a refusal stays within maxChars whatever its JSON escaping, and never ends in half a surrogate pair', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1', maxChars: 1000 });
  const uri = await stored(cache, { a: 1 });
  for (const key of ['\\'.repeat(1400), '"'.repeat(1400), '😀'.repeat(400)]) {
    const read = await call(tools, 'cache_read', { uri: `${uri}#/${key}` });
    assert.ok(read.refused);
    assert.ok(read.text.length <= 1000, `${read.text.length} characters`);
    assert.ok(String(read.answer.error).length >= 100, 'the error still says what is wrong');
    assert.doesNotMatch(read.text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  }
});

test('cache_select refuses an array with items but no row (object)', async () => {
  const cache = fresh();
  const tools = cacheTools(cache, { convId: 'c1' });
  const uri = await stored(cache, { hosts: ['a', 'b', 'web-1'], dates: [new Date(0)], none: [] });
  for (const pointer of ['hosts', 'dates']) {
    const select = await call(tools, 'cache_select', { uri: `${uri}#/${pointer}` });
    assert.ok(select.refused, select.text);
    assert.match(String(select.answer.error), /needs an array of rows \(objects\); .* holds an array of other values/);
  }
  assert.equal((await cache.stats()).entries, 1, 'nothing stored');
  assert.equal((await call(tools, 'cache_select', { uri: `${uri}#/none` })).answer.count, 0, 'no rows: none selected');
});
