// The maxChars cap never depends on caching: whatever happens to storage, the model is never
// shown more than maxChars characters. Release package, Node, fake-indexeddb.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

/**
 * A JSON result as the model is shown it above maxChars: the fields these tests read.
 * @typedef {{ _truncated: boolean, _originalChars: number, _truncation_hint: string, _cache_uri: string, _cache_shape: { rows: number, columns: string[] }, error: string }} Summary
 */
/**
 * A CallToolResult as afterToolCall shows it.
 * @typedef {{ content: { type: string, text: string }[], structuredContent?: unknown, isError?: boolean, _meta: Record<string, string[]> }} Shown
 */

let n = 0;
const newCache = (options = {}) => {
  /** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent[]} */
  const events = [];
  const cache = new ResultCache({ dbName: `cap-${process.pid}-${n++}`, onEvent: (/** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent} */ e) => events.push(e), ...options });
  return { cache, events };
};
const rows = (/** @type {number} */ count) => ({
  ok: true,
  rows: count,
  columns: ['t', 'value', 'host'],
  data: Array.from({ length: count }, (_, i) => ({ t: 1_767_225_600_000 + i * 60_000, value: i % 97, host: `web-${i % 13}` })),
});
const visibleChars = (/** @type {unknown} */ v) => (typeof v === 'string' ? v.length : JSON.stringify(v).length);
/**
 * @param {Summary} visible
 * @param {unknown} original
 */
const assertNotKeptSummary = (visible, original, maxChars = 20_000) => {
  assert.equal(visible._truncated, true);
  assert.equal('_cache_uri' in visible, false, 'no reference that does not exist');
  assert.equal(visible._originalChars, JSON.stringify(original).length);
  assert.match(visible._truncation_hint, /not kept/);
  assert.match(visible._truncation_hint, /narrower query/);
  assert.doesNotMatch(visible._truncation_hint, /_uri/, 'never tells the model to pass a reference');
  assert.ok(visibleChars(visible) <= maxChars, `${visibleChars(visible)} > ${maxChars}`);
};

test('a 112 KB result refused by maxEntryBytes reaches the model as a summary without reference', async () => {
  const { cache, events } = newCache({ maxEntryBytes: 50_000 });
  const big = rows(2400);
  assert.ok(JSON.stringify(big).length > 110_000);
  const visible = /** @type {Summary} */ (await cache.afterToolCall('timeseries.query', big, { convId: 'c' }));
  assertNotKeptSummary(visible, big);
  assert.equal(visible._cache_shape.rows, 2400);
  assert.deepEqual(visible._cache_shape.columns, ['t', 'value', 'host']);
  assert.ok(events.some((e) => e.kind === 'skip' && e.reason === 'maxEntryBytes'));
  assert.equal((await cache.stats()).entries, 0);
});

test('enabled: false stores nothing but still caps (plain payload and CallToolResult)', async () => {
  const { cache } = newCache();
  const big = rows(4000);
  const visible = /** @type {Summary} */ (await cache.afterToolCall('timeseries.query', big, { convId: 'c', enabled: false }));
  assertNotKeptSummary(visible, big);
  const mcp = { content: [{ type: 'text', text: JSON.stringify(big) }], structuredContent: big };
  const out = /** @type {Shown} */ (await cache.afterToolCall('timeseries.query', mcp, { convId: 'c', enabled: false }));
  assert.equal(out.content.length, 1);
  assertNotKeptSummary(JSON.parse(out.content[0].text), big);
  assert.equal(out.structuredContent, undefined, 'left out, never replaced by the summary');
  assert.equal((await cache.stats()).entries, 0);
  const small = { ok: true, rows: 2 };
  assert.equal(await cache.afterToolCall('t', small, { enabled: false }), small, 'small results pass through as they are');
});

test('a 30 000-char plain-text result: stored and previewed, or cut with a marker when not stored', async () => {
  const { cache } = newCache();
  const text = 'log line with details\n'.repeat(1400).slice(0, 30_000);
  const result = { content: [{ type: 'text', text }] };
  const out = /** @type {Shown} */ (await cache.afterToolCall('logs.tail', result, { convId: 'c' }));
  const shown = out.content[0].text;
  assert.ok(shown.length <= 20_000, `${shown.length}`);
  assert.ok(text.startsWith(shown.slice(0, 15_000)));
  const [uri] = out._meta['mcp-result-cache/uris'];
  assert.match(shown, /\[preview: the text has 30000 characters in 1364 lines, stored in full as "mcp\+cache:\/\/c\/[^"]+#\/text"/);
  assert.ok(shown.includes(`"${uri}#/text"`));
  assert.equal(await cache.readCachedPayload(`${uri}#/text`, { convId: 'c' }), text, 'the whole text reads back');
  assert.equal(result.content[0].text, text, 'the caller\'s result is not mutated');
  const unstored = /** @type {Shown} */ (await cache.afterToolCall('logs.tail', result, { convId: 'c', enabled: false }));
  assert.match(unstored.content[0].text, /\[truncated: this result had 30000 characters/);
  assert.ok(unstored.content[0].text.length <= 20_000);
  const bare = /** @type {string} */ (await cache.afterToolCall('logs.tail', text, { convId: 'c', maxChars: 1000 }));
  assert.ok(bare.length <= 1000 && bare.includes('30000 characters'));
});

test('cutting never splits a surrogate pair', async () => {
  const { cache } = newCache();
  const text = '🙂'.repeat(30_000);
  for (const maxChars of [1001, 1002, 5003]) {
    const out = /** @type {string} */ (await cache.afterToolCall('t', text, { maxChars }));
    assert.ok(out.length <= maxChars);
    assert.equal(out.isWellFormed(), true, `maxChars ${maxChars}`);
  }
});

test('maxChars: Infinity turns the cap off', async () => {
  const { cache } = newCache({ maxEntryBytes: 50_000 });
  const big = rows(2000);
  assert.equal(await cache.afterToolCall('t', big, { maxChars: Infinity }), big);
  const text = 'x'.repeat(100_000);
  assert.equal(await cache.afterToolCall('t', text, { maxChars: Infinity }), text);
  await assert.rejects(cache.afterToolCall('t', big, { maxChars: -1 }), TypeError);
  await assert.rejects(cache.afterToolCall('t', big, { maxChars: NaN }), TypeError);
});

test('errors are capped, never referenced', async () => {
  const { cache, events } = newCache();
  const huge = 'stack frame\n'.repeat(5000);
  const err = { isError: true, content: [{ type: 'text', text: huge }] };
  const out = /** @type {Shown} */ (await cache.afterToolCall('t', err, { convId: 'c' }));
  assert.equal(out.isError, true);
  assert.ok(out.content[0].text.length <= 20_000);
  assert.match(out.content[0].text, /truncated/);
  const plain = { isError: true, error: 'boom', details: rows(3000) };
  const shown = /** @type {Summary} */ (await cache.afterToolCall('t', plain, { convId: 'c' }));
  assertNotKeptSummary(shown, plain);
  assert.equal(shown.error, 'boom', 'headline fields survive');
  assert.equal(events.filter((e) => e.kind === 'write').length, 0);
});

test('a stored result keeps its reference in the summary, within maxChars', async () => {
  const { cache } = newCache();
  const big = rows(3000);
  const visible = /** @type {Summary} */ (await cache.afterToolCall('timeseries.query', big, { convId: 'c' }));
  assert.match(visible._cache_uri, /^mcp\+cache:\/\/c\//);
  assert.match(visible._truncation_hint, /stored in full/);
  assert.ok(visibleChars(visible) <= 20_000);
});

test('without IndexedDB-backed storage failing, a quota-like failure still caps (memory store refusing by budget)', async () => {
  const { cache } = newCache({ storage: 'memory', maxEntryBytes: 10 });
  const big = rows(2000);
  const visible = /** @type {Summary} */ (await cache.afterToolCall('t', big, { convId: 'c' }));
  assertNotKeptSummary(visible, big);
});

test('summaries stay within small maxChars even with huge headline fields', async () => {
  const { cache } = newCache({ maxEntryBytes: 10 });
  const payload = { ok: false, error: 'e'.repeat(50_000), columns: Array.from({ length: 5000 }, (_, i) => `col${i}`), data: [] };
  const visible = /** @type {Summary} */ (await cache.afterToolCall('t', payload, { maxChars: 2000 }));
  assert.ok(visibleChars(visible) <= 2000, `${visibleChars(visible)}`);
  assert.equal(visible._truncated, true);
});
