// The two-call host pipeline from JavaScript, against the built release package in Node over
// fake-indexeddb — the way a chat host's Vitest/Jest suite would drive it.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, checkInlineListCap, substituteCacheUris, cacheToolResult } from '../../pkg/node.mjs';

/** @typedef {import('../../js/index.js').CacheEvent} CacheEvent */
/** @typedef {import('../../js/index.js').ToolEnvelope} ToolEnvelope */
/** A `beforeToolCall` that blocked the call: what the host answers the model with. */
/** @typedef {Extract<import('../../js/index.js').BeforeToolCallResult, { envelope: unknown }>} Blocked */
/**
 * What the model sees of a `table(count)` result: the rows as they were (with `_cache_uri` when
 * stored), or a summary of them (`_truncated`).
 * @typedef {{
 *   ok?: boolean, rows: number, columns: string[], data?: unknown, _cache_uri: string, _truncated?: boolean,
 *   _originalChars?: number, _cache_shape: object, _truncation_hint: string,
 * }} TableView
 */

let n = 0;
const table = (/** @type {number} */ count) => ({
  ok: true,
  rows: count,
  columns: ['t', 'value'],
  data: Array.from({ length: count }, (_, i) => ({ t: 1_767_225_600_000 + i * 3_600_000, value: Math.round(100 + 40 * Math.sin(i / 12)) })),
});
const records = (/** @type {number} */ count) => Array.from({ length: count }, (_, i) => ({ v: i }));

/**
 * A chat engine's dispatch loop with a fake MCP server.
 * @param {Record<string, unknown>} [options]
 */
function makeHost(options = {}) {
  /** @type {CacheEvent[]} */
  const events = [];
  const cache = new ResultCache({ dbName: `pipeline-${process.pid}-${n++}`, onEvent: (/** @type {CacheEvent} */ e) => events.push(e), ...options });
  /** @type {{ toolName: string, args: unknown }[]} */
  const dispatched = [];
  /**
   * @param {string} toolName
   * @param {unknown} args
   * @param {(args: unknown) => unknown} server
   * @param {{ enabled?: boolean }} [options]
   * @returns {Promise<unknown>} what the model sees: the blocking envelope, a reused result or the server's result
   */
  async function call(toolName, args, server, { enabled = true } = {}) {
    const before = await cache.beforeToolCall(toolName, args, { enabled, convId: 'conv' });
    if (!before.dispatch) return before;
    dispatched.push({ toolName, args: before.args });
    return cache.afterToolCall(toolName, server(before.args), { enabled, convId: 'conv' });
  }
  return { cache, call, dispatched, events };
}

test('240-row result gets _cache_uri; data_uri dispatches the rows', async () => {
  const host = makeHost();
  const original = table(240);
  const visible = /** @type {TableView} */ (await host.call('timeseries.query', { metric: 'cpu' }, () => original));
  assert.match(visible._cache_uri, /^mcp\+cache:\/\/conv\/[A-Za-z0-9_-]{11}$/);
  assert.equal(visible.rows, 240);
  assert.deepEqual(visible.data, original.data);
  const chartArgs = { data_uri: visible._cache_uri, title: 'CPU' };
  await host.call('chart.create', chartArgs, () => ({ ok: true }));
  const sent = host.dispatched.at(-1);
  assert.ok(sent);
  assert.equal(sent.toolName, 'chart.create');
  assert.deepEqual(sent.args, { title: 'CPU', data: original });
  assert.deepEqual(chartArgs, { data_uri: visible._cache_uri, title: 'CPU' }, 'caller args untouched');
  const inline = JSON.stringify({ data: original, title: 'CPU' }).length;
  const byRef = JSON.stringify(chartArgs).length;
  console.log(`240-row flow, LLM-visible arguments: inline ${inline} chars, by reference ${byRef} chars (${(inline / byRef).toFixed(0)}x smaller)`);
  assert.ok(byRef * 20 < inline);
  assert.deepEqual(host.events.map((e) => e.kind), ['write', 'hit']);
});

test('a 5000-row result is summarized and cached whole', async () => {
  const host = makeHost();
  const big = table(5000);
  const visible = /** @type {TableView} */ (await host.call('timeseries.query', {}, () => big));
  assert.equal(visible._truncated, true);
  assert.equal(visible.rows, 5000);
  assert.deepEqual(visible.columns, ['t', 'value']);
  assert.equal('data' in visible, false);
  assert.equal(visible._originalChars, JSON.stringify(big).length);
  assert.deepEqual(Object.keys(visible._cache_shape), ['bytes', 'rows', 'columns']);
  assert.match(visible._truncation_hint, /_uri/);
  assert.ok(visible._truncation_hint.includes(visible._cache_uri));
  assert.ok(JSON.stringify(visible).length < 20_000);
  assert.deepEqual(await host.cache.readCachedPayload(visible._cache_uri), big);
});

test('a miss never reaches the dispatcher', async () => {
  const host = makeHost();
  const ghost = 'mcp+cache://conv/GHOSTGHOSTG';
  const out = /** @type {Blocked} */ (await host.call('chart.create', { data_uri: ghost }, () => assert.fail('dispatched')));
  assert.deepEqual(Object.keys(out), ['dispatch', 'envelope', 'signature']);
  assert.equal(out.dispatch, false);
  assert.equal(out.signature, `chart.create|cache-miss|${JSON.stringify([ghost])}`);
  assert.equal(out.envelope.error, `invalid_args: cache URI ${ghost} could not be resolved`);
  assert.deepEqual(out.envelope._missing_uris, [ghost]);
  assert.match(out.envelope.fix_hint, /Re-call the source tool/);
  assert.equal(host.dispatched.length, 0);
});

test('inline cap: 24 blocked, 15 pass, 99 + data_uri dispatches the cached rows', async () => {
  const host = makeHost();
  const blocked = /** @type {Blocked} */ (await host.call('chart.create', { data: records(24) }, () => assert.fail('dispatched')));
  assert.equal(blocked.dispatch, false);
  assert.equal(blocked.signature, 'chart.create|inline-cap|data');
  assert.equal(blocked.envelope._capped_arg, 'data');
  assert.match(blocked.envelope.error, /^invalid_args: `data` has 24 records \(cap: 20\)\..*data_uri/);
  assert.match(blocked.envelope.fix_hint, /chart\.create.*data_uri=/);
  assert.equal(/** @type {CacheEvent} */ (host.events.at(-1)).kind, 'cap');
  await host.call('chart.create', { data: records(15) }, () => ({ ok: true }));
  assert.equal(host.dispatched.length, 1);
  const source = /** @type {TableView} */ (await host.call('timeseries.query', {}, () => table(240)));
  await host.call('chart.create', { data: records(99), data_uri: source._cache_uri }, () => ({ ok: true }));
  assert.equal(/** @type {{ args: { data: { rows: number } } }} */ (host.dispatched.at(-1)).args.data.rows, 240);
  assert.ok(host.events.some((e) => e.kind === 'conflict' && e.key === 'data'));
});

test('disabled mode stores nothing and substitutes nothing, but the model never sees more than maxChars', async () => {
  const host = makeHost();
  const args = { data_uri: 'mcp+cache://x/y' };
  const before = await host.cache.beforeToolCall('chart.create', args, { enabled: false });
  assert.equal(before.dispatch, true);
  assert.equal(before.args, args);
  const small = table(10);
  assert.equal(await host.cache.afterToolCall('q', small, { enabled: false }), small);
  const big = table(5000);
  const shown = /** @type {TableView} */ (await host.cache.afterToolCall('q', big, { enabled: false }));
  assert.equal(shown._truncated, true);
  assert.equal('_cache_uri' in shown, false);
  assert.equal((await host.cache.stats()).entries, 0);
});

test('substituteCacheUris free function: identity, pass-through, proto keys', async () => {
  const payload = table(200);
  const uri = await cacheToolResult({ payload, convId: 'free' });
  assert.equal(typeof uri, 'string');
  for (const args of [null, 'hello', [1, 2, 3], 5, { a: 1 }, { data_uri: 'https://example.com/x' }]) {
    const out = await substituteCacheUris(args);
    assert.ok(out.ok === true);
    assert.equal(out.args, args);
  }
  const hostile = JSON.parse(`{"__proto__":{"polluted":1},"data_uri":"${uri}"}`);
  const out = await substituteCacheUris(hostile, { convId: 'free' });
  assert.ok(out.ok === true);
  assert.equal(Object.getPrototypeOf(out.args), Object.prototype);
  assert.deepEqual(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(out.args, '__proto__')).value, { polluted: 1 });
  assert.equal(/** @type {{ polluted?: unknown }} */ ({}).polluted, undefined);
  assert.deepEqual(/** @type {{ data: unknown }} */ (out.args).data, payload);
  const foreign = await substituteCacheUris({ data_uri: uri }, { convId: 'other' });
  assert.equal(foreign.ok, false);
  assert.deepEqual(foreign.envelope._missing_uris, [uri]);
});

test('checkInlineListCap', () => {
  assert.equal(checkInlineListCap('t', { data: records(20) }), null);
  assert.equal(checkInlineListCap('t', { data: JSON.stringify(records(50)) }), null);
  assert.equal(checkInlineListCap('t', null), null);
  assert.equal(/** @type {ToolEnvelope} */ (checkInlineListCap('t', { rows: records(3) }, 2, ['rows']))._capped_arg, 'rows');
});
