// afterToolCall on what is not a well-formed CallToolResult, through the release package in
// Node: a plain string (an AI SDK tool's text) is a one-block result, stored and previewed when
// too big, never cut with its rest lost; a malformed block beside typed ones keeps the result a
// CallToolResult (its isError and _meta kept); a preview of rows JSON cannot write (`undefined`)
// resolves; a JSON text with an integer that JSON.parse rounds (2^53 + 1) stays text.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, referencesOf } from '../../pkg/node.mjs';

let n = 0;
const newCache = (options = {}) => new ResultCache({ dbName: `content-edges-${process.pid}-${n++}`, ...options });
const text = (/** @type {string} */ t) => ({ type: 'text', text: t });
/** @typedef {{ content: { type: string, text?: string }[], isError?: boolean, _meta?: Record<string, unknown>, structuredContent?: unknown }} Shown */

test('a plain string too big to show is stored whole and previewed with its reference, still a string', async () => {
  const cache = newCache();
  const log = Array.from({ length: 4_000 }, (_, i) => `line ${i}: ${'x'.repeat(i % 7)}`).join('\n');
  assert.ok(log.length > 20_000);
  const shown = await cache.afterToolCall('logs.tail', log, { convId: 'c' });
  assert.equal(typeof shown, 'string');
  const visible = /** @type {string} */ (shown);
  assert.ok(visible.length <= 20_000, `${visible.length} characters shown`);
  const uri = /stored in full as "(mcp\+cache:\/\/[^"]+)"/.exec(visible)?.[1];
  assert.ok(uri, visible.slice(-300));
  assert.equal(await cache.readCachedPayload(uri, { convId: 'c' }), log, 'the whole text reads back');
  assert.ok(log.startsWith(visible.slice(0, 1_000)), 'the preview is the text’s beginning');
});

test('a plain string that fits is answered as it is; with enabled: false a big one is only cut', async () => {
  const cache = newCache();
  assert.equal(await cache.afterToolCall('t', 'short answer', { convId: 'c' }), 'short answer');
  const big = 'y'.repeat(30_000);
  const cut = /** @type {string} */ (await cache.afterToolCall('t', big, { convId: 'c', enabled: false }));
  assert.equal(typeof cut, 'string');
  assert.ok(cut.length <= 20_000 && cut.includes('[truncated: this result had 30000 characters'), cut.slice(-200));
  assert.equal((await cache.stats()).entries, 0);
});

test('a plain string holding a JSON object of at least the threshold is stored as data', async () => {
  const cache = newCache();
  const data = { rows: Array.from({ length: 300 }, (_, i) => ({ i, v: i % 17 })) };
  const shown = await cache.afterToolCall('metrics.query', JSON.stringify(data), { convId: 'c' });
  assert.equal(typeof shown, 'string');
  const visible = JSON.parse(/** @type {string} */ (shown));
  assert.deepEqual(visible.rows, data.rows);
  assert.deepEqual(await cache.readCachedPayload(visible._cache_uri, { convId: 'c' }), data);
});

test('a malformed block beside typed ones: still a CallToolResult, isError and _meta kept, the block shown', async () => {
  const cache = newCache();
  const odd = { text: 'a block without a type' };
  const failed = /** @type {Shown} */ (await cache.afterToolCall('t', {
    content: [text(`Error: ${'x'.repeat(30_000)}`), odd],
    isError: true,
    _meta: { trace: 'a1' },
  }, { convId: 'c' }));
  assert.equal(failed.isError, true);
  assert.deepEqual(failed._meta, { trace: 'a1' });
  assert.equal(failed.content.length, 2);
  assert.ok(/** @type {string} */ (failed.content[0].text).includes('[truncated: this result had'), 'the error text is cut, not dropped');
  assert.deepEqual(failed.content[1], odd);

  const data = { rows: Array.from({ length: 300 }, (_, i) => ({ i, host: `web-${i % 3}` })) };
  const ok = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [text(JSON.stringify(data)), null], _meta: { k: 1 } }, { convId: 'c' }));
  assert.equal(ok.content.length, 2);
  assert.equal(ok.content[1], null);
  const [uri] = /** @type {string[]} */ (/** @type {Record<string, unknown>} */ (ok._meta)['mcp-result-cache/uris']);
  assert.equal(/** @type {Record<string, unknown>} */ (ok._meta).k, 1);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c' }), data);
});

test('a content array of nothing but untyped items is data, stored as the object it is', async () => {
  const cache = newCache();
  const payload = { content: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `post ${i}` })), total: 300 };
  const shown = /** @type {Record<string, unknown>} */ (await cache.afterToolCall('posts.list', payload, { convId: 'c' }));
  assert.equal(typeof shown._cache_uri, 'string');
  assert.deepEqual(await cache.readCachedPayload(/** @type {string} */ (shown._cache_uri), { convId: 'c' }), payload);
});

test('a content array past 1 048 576 items is data, not blocks to walk', async () => {
  const cache = newCache({ maxEntryBytes: 1_000 });
  const content = [text('a')];
  content.length = 2 ** 20 + 1;
  const shown = /** @type {Record<string, unknown>} */ (await cache.afterToolCall('t', { content }, { convId: 'c' }));
  assert.equal(shown._truncated, true, 'summarized as data, not shown as content');
  assert.ok(!('content' in shown));
});

test('a preview of rows holding undefined resolves: that row ends the preview, the data is stored whole', async () => {
  const cache = newCache();
  const rows = [undefined, ...Array.from({ length: 300 }, (_, i) => ({ i, v: 'v'.repeat(20) }))];
  const plain = /** @type {Record<string, unknown>} */ (await cache.afterToolCall('t', { rows }, { convId: 'c', view: 'preview' }));
  assert.equal(typeof plain._cache_uri, 'string');
  assert.equal((/** @type {unknown[]} */ (await cache.readCachedPayload(/** @type {string} */ (plain._cache_uri) + '#/rows', { convId: 'c' }))).length, 301);
  const structured = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [], structuredContent: { rows } }, { convId: 'c', view: 'preview' }));
  assert.ok(structured.content.length >= 1);
  assert.ok(referencesOf(structured).length >= 1);
});

test('a JSON text holding 2^53 + 1 stays text: stored as the server wrote it, never as a rounded id', async () => {
  const cache = newCache();
  const body = `{"id":9007199254740993,"rows":${JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ i })))}}`;
  const shown = /** @type {Shown} */ (await cache.afterToolCall('t', { content: [text(body)] }, { convId: 'c', maxChars: 1_000 }));
  const [uri] = referencesOf(shown);
  assert.ok(uri);
  const stored = await cache.readCachedPayload(uri, { convId: 'c' });
  assert.equal(typeof stored, 'object');
  assert.equal(/** @type {Record<string, unknown>} */ (stored).text, body, 'the text, digits as sent');
});
