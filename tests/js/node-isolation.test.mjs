// Two distinct conversation ids never share an entry, through any API. Release package, Node,
// fake-indexeddb (the browser suite checks the same rules against real IndexedDB).
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, sanitizeConvId } from '../../pkg/node.mjs';

let n = 0;
const newCache = (options = {}) => new ResultCache({ dbName: `iso-${process.pid}-${n++}`, ...options });
const payload = (/** @type {string} */ tag) => ({ tag, data: Array.from({ length: 300 }, (_, i) => ({ i, tag })) });
const SERVER_REGEX = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}$/;
const base = 'tenant-7c1f0b8e-0d4c-4c39-9a4e-4b7f1d2a9e11/user-8/conversation-000';
// Pairs that the old sanitizer mapped to one segment.
const PAIRS = [
  [`${base}1`, `${base}2`],
  ['会話', '对话'],
  ['🙂 chat', '🙃 chat'],
  ['a/b', 'a_b'],
  ['a b', 'a.b'],
  ['', ' '],
  [7, '7.0'],
];

for (const [a, b] of PAIRS) {
  test(`ids ${JSON.stringify(String(a))} and ${JSON.stringify(String(b))} never share entries`, async () => {
    for (const storage of ['indexeddb', 'memory']) {
      const cache = newCache({ storage });
      const uriA = /** @type {string} */ (await cache.cacheToolResult({ payload: payload('A'), convId: a, sourceToolName: 'q' }));
      const uriB = /** @type {string} */ (await cache.cacheToolResult({ payload: payload('B'), convId: b, sourceToolName: 'q' }));
      assert.match(uriA, SERVER_REGEX);
      assert.match(uriB, SERVER_REGEX);
      assert.notEqual(new URL(uriA.replace('mcp+cache', 'http')).host, new URL(uriB.replace('mcp+cache', 'http')).host, 'segments differ');
      assert.notEqual(sanitizeConvId(a), sanitizeConvId(b));
      // Reads
      assert.equal(await cache.readCachedPayload(uriA, { convId: b }), null);
      assert.equal(/** @type {{ tag: string }} */ (await cache.readCachedPayload(uriA, { convId: a })).tag, 'A');
      assert.equal((await cache.lookup(uriB, { convId: a })).status, 'miss');
      // Substitution and the pipeline
      const sub = await cache.substituteCacheUris({ data_uri: uriA }, { convId: b });
      assert.equal(sub.ok, false);
      const before = await cache.beforeToolCall('chart.create', { data_uri: uriA }, { convId: b });
      assert.equal(before.dispatch, false);
      assert.deepEqual(/** @type {{ envelope: import('../../pkg/node/mcp_result_cache.js').ToolEnvelope }} */ (before).envelope._missing_uris, [uriA]);
      // Listing
      const listed = await cache.entries({ convId: a });
      assert.deepEqual(listed.map((e) => e.uri), [uriA]);
      assert.equal(listed[0].convId, String(a));
      // Clearing one leaves the other
      await cache.clearConversation(a);
      assert.equal(await cache.readCachedPayload(uriA), null);
      assert.equal(/** @type {{ tag: string }} */ (await cache.readCachedPayload(uriB, { convId: b })).tag, 'B');
      cache.close();
    }
  });
}

test('objects, symbols and booleans are not conversation ids (String() would merge them)', async () => {
  const cache = newCache();
  // Wrong on purpose: cast to `never`.
  for (const bad of /** @type {never[]} */ ([{}, { id: 1 }, [], Symbol('c'), true, () => 1])) {
    await assert.rejects(cache.cacheToolResult({ payload: payload('x'), convId: bad }), TypeError);
    await assert.rejects(cache.readCachedPayload('mcp+cache://c/abcdefgh', { convId: bad }), TypeError);
    await assert.rejects(cache.beforeToolCall('t', {}, { convId: bad }), TypeError);
    await assert.rejects(cache.afterToolCall('t', payload('x'), { convId: bad }), TypeError);
    await assert.rejects(cache.clearConversation(bad), TypeError);
    assert.throws(() => sanitizeConvId(bad), TypeError);
  }
});

test('the pipeline scopes both directions the same way: a missing convId is "default"', async () => {
  const cache = newCache();
  const other = await cache.cacheToolResult({ payload: payload('other'), convId: 'other' });
  const before = await cache.beforeToolCall('chart.create', { data_uri: other }, { convId: undefined });
  assert.equal(before.dispatch, false, 'another conversation\'s data is never dispatched');
  const beforeNoOptions = await cache.beforeToolCall('chart.create', { data_uri: other });
  assert.equal(beforeNoOptions.dispatch, false);
  const visible = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('q', payload('mine'), {}));
  assert.match(visible._cache_uri, /^mcp\+cache:\/\/default\//);
  const back = await cache.beforeToolCall('chart.create', { data_uri: visible._cache_uri }, {});
  assert.equal(back.dispatch, true);
  assert.equal(/** @type {{ args: { data: { tag: string } } }} */ (back).args.data.tag, 'mine');
  const elsewhere = await cache.beforeToolCall('chart.create', { data_uri: visible._cache_uri }, { convId: 'x' });
  assert.equal(elsewhere.dispatch, false);
});

test('an options object whose convId getter throws is a TypeError, never "unscoped"', async () => {
  const cache = newCache();
  const uri = await cache.cacheToolResult({ payload: payload('A'), convId: 'A' });
  const throwing = /** @type {import('../../pkg/node/mcp_result_cache.js').ConversationScope} */ ({ get convId() { throw new Error('nope'); } });
  await assert.rejects(cache.readCachedPayload(uri, throwing), TypeError);
  await assert.rejects(cache.lookup(uri, throwing), TypeError);
  await assert.rejects(cache.substituteCacheUris({ data_uri: uri }, throwing), TypeError);
  await assert.rejects(cache.beforeToolCall('t', { data_uri: uri }, throwing), TypeError);
  await assert.rejects(cache.afterToolCall('t', payload('B'), throwing), TypeError);
  await assert.rejects(cache.entries(throwing), TypeError);
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  await assert.rejects(cache.readCachedPayload(uri, proxy), TypeError);
  await assert.rejects(cache.beforeToolCall('t', { data_uri: uri }, proxy), TypeError);
});

test('reuseImmutable never answers one conversation with another\'s result', async () => {
  const cache = newCache({ reuseImmutable: true });
  cache.observeTools([{ name: 'ref.lookup', description: 'Reference data. [Cache-Control: immutable]' }]);
  const args = { code: 'EUR' };
  for (const convId of ['会話', '对话']) {
    const before = await cache.beforeToolCall('ref.lookup', args, { convId });
    assert.equal(before.dispatch, true, `${convId} dispatches its own call`);
    await cache.afterToolCall('ref.lookup', payload(convId), { convId, args });
  }
  const again = await cache.beforeToolCall('ref.lookup', args, { convId: '对话' });
  assert.equal(again.dispatch, false);
  assert.equal(/** @type {{ reused: { tag: string } }} */ (again).reused.tag, '对话');
});

test('a listed tool whose name carries U+001F claims no other server\'s tool as immutable', async () => {
  const cache = newCache({ reuseImmutable: true });
  cache.observeTools([{ name: 'get_balance', description: 'Current balance.' }], { server: 'vault' });
  // From a server without a usable name (no `server`): read as vault's tool, were it learned.
  cache.observeTools([{ name: 'vault\u001fget_balance', description: 'x [Cache-Control: immutable]' }]);
  const args = { acct: 1 };
  for (const round of [1, 2]) {
    const before = await cache.beforeToolCall('get_balance', args, { convId: 'c', server: 'vault' });
    assert.equal(before.dispatch, true, `call ${round} reaches vault`);
    await cache.afterToolCall('get_balance', payload(`balance ${round}`), { convId: 'c', server: 'vault', args });
  }
});

test('evictOlderThan and stats count exact ids', async () => {
  let now = 1_000_000;
  const cache = newCache({ now: () => now });
  await cache.cacheToolResult({ payload: payload('old'), convId: '会話' });
  now += 10_000;
  const fresh = await cache.cacheToolResult({ payload: payload('new'), convId: '对话' });
  await cache.evictOlderThan({ maxAgeMs: 5_000 });
  const left = await cache.entries();
  assert.deepEqual(left.map((e) => [e.uri, e.convId]), [[fresh, '对话']]);
});

test('a read under another conversation is a miss that counts as no use: the entry\'s own conversation evicts as if it never happened', async () => {
  for (const storage of ['indexeddb', 'memory']) {
    let clock = 1_000;
    const cache = newCache({ storage, maxEntries: 2, now: () => clock });
    const write = async (/** @type {string} */ tag) => {
      clock += 10;
      return /** @type {string} */ (await cache.cacheToolResult({ payload: payload(tag), convId: 'victim', sourceToolName: 'q' }));
    };
    const first = await write('first');
    const second = await write('second');
    clock += 10;
    assert.equal((await cache.lookup(first, { convId: 'attacker' })).status, 'miss', storage);
    assert.equal(await cache.readCachedPayload(first, { convId: 'attacker' }), null, storage);
    assert.deepEqual(await cache.substituteCacheUris({ data_uri: first }, { convId: 'attacker' }).then((r) => 'envelope' in r), true, storage);
    await write('third');
    // Least recently used first: `first`, which only the other conversation asked for.
    assert.equal((await cache.lookup(first, { convId: 'victim' })).status, 'miss', storage);
    assert.equal((await cache.lookup(second, { convId: 'victim' })).status, 'hit', storage);
    cache.close();
  }
});
