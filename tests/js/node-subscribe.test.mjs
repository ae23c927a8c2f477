// `ResultCache#subscribe`: every change of a cache with its conversation and references — a
// write, a clear, a stale mark (invalidation, stale notification), an eviction — on the Node
// entry's class (memory and IndexedDB over fake-indexeddb) and on the browser entry's bundled
// class (its `.wasm` read from disk), with the caller's own `onEvent` still called.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './file-fetch.mjs';

import * as node from 'mcp-result-cache';

const browser = /** @type {typeof import('../../js/index.js')} */ (/** @type {unknown} */ (await import('../../pkg/browser.mjs')));
const table = (/** @type {number} */ n) => ({ ok: true, columns: ['t', 'value'], rows: Array.from({ length: n }, (_, i) => ({ t: `2026-01-01T00:00:${i}Z`, value: i })) });
/**
 * Resolves once `list` holds `n` changes (they are told asynchronously); fails after 10 s.
 * @param {unknown[]} list
 * @param {number} n
 */
async function told(list, n) {
  for (let i = 0; i < 1000 && list.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(list.length >= n, `${list.length} changes told, expected ${n}: ${JSON.stringify(list)}`);
}
let n = 0;

/**
 * Stores one 300-row result of `tool` in `convId`; answers its reference.
 * @param {InstanceType<EitherResultCache>} cache
 * @param {string} tool
 * @param {string | undefined} convId
 */
async function store(cache, tool, convId) {
  const visible = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall(tool, table(300), { convId }));
  return visible._cache_uri;
}

/** Either entry's class (the browser entry's caches have no `consumeOnce`). @typedef {typeof node.ResultCache | typeof browser.ResultCache} EitherResultCache */
/**
 * @param {EitherResultCache} ResultCache
 * @param {'memory' | 'indexeddb'} storage
 */
async function scenario(ResultCache, storage) {
  /** @type {string[]} */
  const events = [];
  let clock = 1_000_000;
  const cache = new ResultCache({ storage, dbName: `subscribe-${process.pid}-${n++}`, onEvent: (e) => events.push(e.kind), now: () => clock });
  /** @type {import('mcp-result-cache').CacheChange[]} */
  const changes = [];
  const stop = cache.subscribe((change) => changes.push(change));
  // Every change, never unsubscribed: what the others are compared with.
  /** @type {import('mcp-result-cache').CacheChange[]} */
  const all = [];
  cache.subscribe((change) => all.push(change));
  // A listener that throws changes nothing for the others.
  const stopThrowing = cache.subscribe(() => {
    throw new Error('listener failure');
  });

  const a1 = await store(cache, 'metrics.query', 'chat-a');
  const a2 = await store(cache, 'files.read', 'chat-a');
  const b1 = await store(cache, 'metrics.query', 'chat-b');
  // Changes are told asynchronously (what each is is worked out by a module loaded on first use), in order.
  await told(changes, 3);
  assert.deepEqual(changes, [
    { kind: 'write', convId: 'chat-a', uris: [a1] },
    { kind: 'write', convId: 'chat-a', uris: [a2] },
    { kind: 'write', convId: 'chat-b', uris: [b1] },
  ]);
  assert.ok(events.includes('write'), 'the caller\'s onEvent is still called');

  // An invalidation: one `stale` change per conversation holding stale entries.
  changes.length = 0;
  assert.equal(await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' }), 2);
  await told(changes, 2);
  assert.deepEqual(changes.sort((x, y) => /** @type {string} */ (x.convId).localeCompare(/** @type {string} */ (y.convId))), [
    { kind: 'stale', convId: 'chat-a', uris: [a1] },
    { kind: 'stale', convId: 'chat-b', uris: [b1] },
  ]);

  // A stale notification is a stale mark too.
  changes.length = 0;
  assert.equal(await cache.handleNotification({ method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/files.*' } }), 1);
  await told(changes, 2);
  // (Entries written at one instant of the cache's clock list in any order.)
  const staleA = /** @type {{ kind: 'stale', convId: string, uris: string[] }} */ (changes.find((c) => c.convId === 'chat-a'));
  assert.deepEqual({ ...staleA, uris: [...staleA.uris].sort() }, { kind: 'stale', convId: 'chat-a', uris: [a1, a2].sort() });

  // A clear names its conversation and exactly the references it removed.
  changes.length = 0;
  await cache.clearConversation('chat-a');
  await told(changes, 1);
  assert.equal(changes.length, 1);
  assert.deepEqual({ ...changes[0], uris: [.../** @type {string[]} */ (changes[0].uris)].sort() }, { kind: 'clear', convId: 'chat-a', uris: [a1, a2].sort() });
  assert.equal((await cache.lookup(a1, { convId: 'chat-a' })).status, 'miss');
  // A bad conversation id rejects as before, and nobody is told anything.
  await assert.rejects(cache.clearConversation({}), TypeError);
  const x1 = await store(cache, 'metrics.query', 'chat-x');
  await told(changes, 2);
  assert.deepEqual(changes[1], { kind: 'write', convId: 'chat-x', uris: [x1] });

  // No id clears the default conversation, and names its references only.
  changes.length = 0;
  const d1 = await store(cache, 'metrics.query', undefined);
  const o1 = await store(cache, 'metrics.query', 'chat-other');
  await told(changes, 2);
  await cache.clearConversation(undefined);
  await told(changes, 3);
  assert.deepEqual(changes[2], { kind: 'clear', convId: 'default', uris: [d1] });
  assert.equal((await cache.lookup(o1, { convId: 'chat-other' })).status, 'hit');
  // Told in the order the changes were made: a write called before a clear (not awaited) first.
  changes.length = 0;
  const written = cache.afterToolCall('metrics.query', table(300), { convId: 'chat-k' });
  const clearedK = cache.clearConversation('chat-k');
  const k1 = /** @type {{ _cache_uri: string }} */ (await written)._cache_uri;
  await clearedK;
  await told(changes, 2);
  assert.deepEqual(changes, [{ kind: 'write', convId: 'chat-k', uris: [k1] }, { kind: 'clear', convId: 'chat-k', uris: [k1] }]);
  assert.equal((await cache.lookup(k1, { convId: 'chat-k' })).status, 'miss');

  // An eviction by age: which entries is not known.
  changes.length = 0;
  clock += 10_000;
  await cache.evictOlderThan({ maxAgeMs: 1 });
  await told(changes, 1);
  assert.deepEqual(changes, [{ kind: 'evict', convId: null, uris: null }]);

  // Unsubscribed: nothing more.
  stop();
  stopThrowing();
  stop();
  changes.length = 0;
  const seen = all.length;
  const c1 = await store(cache, 'metrics.query', 'chat-c');
  await told(all, seen + 1);
  assert.deepEqual(all.at(-1), { kind: 'write', convId: 'chat-c', uris: [c1] });
  assert.deepEqual(changes, []);
  assert.throws(() => cache.subscribe(/** @type {never} */ ('not a function')), TypeError);
  cache.free?.();
}

test('Node entry, memory storage', () => scenario(node.ResultCache, 'memory'));
test('Node entry, IndexedDB storage (fake-indexeddb)', () => scenario(node.ResultCache, 'indexeddb'));
test('browser entry (the bundled module), IndexedDB storage', () => scenario(browser.ResultCache, 'indexeddb'));

test('a clear that also removed chatbox-core\'s entries (read through) says it cannot list them all: uris null', async () => {
  const legacy = 'mcp+cache://legacy-chat/OLDTOKEN000';
  await new Promise((resolve, reject) => {
    const request = indexedDB.open('chatbox-core-result-cache', 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore('results', { keyPath: 'uri' });
      store.createIndex('convId', 'convId');
      store.createIndex('addedAt', 'addedAt');
      store.put({ uri: legacy, payload: { old: true }, convId: 'legacy-chat', sourceToolName: 't', addedAt: Date.now(), sizeBytes: 14 });
    };
    request.onsuccess = () => {
      request.result.close();
      resolve(undefined);
    };
    request.onerror = () => reject(request.error);
  });
  try {
    const cache = new node.ResultCache({ storage: 'indexeddb', dbName: `subscribe-legacy-${process.pid}` });
    /** @type {import('mcp-result-cache').CacheChange[]} */
    const changes = [];
    cache.subscribe((change) => changes.push(change));
    await store(cache, 'metrics.query', 'legacy-chat');
    assert.equal((await cache.lookup(legacy, { convId: 'legacy-chat' })).status, 'hit', 'read through');
    await cache.clearConversation('legacy-chat');
    await told(changes, 2);
    assert.deepEqual(changes[1], { kind: 'clear', convId: 'legacy-chat', uris: null });
    assert.equal((await cache.lookup(legacy, { convId: 'legacy-chat' })).status, 'miss');
    cache.free();
  } finally {
    await new Promise((resolve) => {
      const request = indexedDB.deleteDatabase('chatbox-core-result-cache');
      request.onsuccess = request.onerror = request.onblocked = () => resolve(undefined);
    });
  }
});

test('a cache made without options can be subscribed to', async () => {
  const cache = new node.ResultCache();
  /** @type {import('mcp-result-cache').CacheChange[]} */
  const changes = [];
  cache.subscribe((c) => changes.push(c));
  const uri = await store(cache, 'metrics.query', undefined);
  await told(changes, 1);
  assert.deepEqual(changes, [{ kind: 'write', convId: 'default', uris: [uri] }]);
  // No conversation: the default one.
  await /** @type {(convId?: unknown) => Promise<void>} */ (cache.clearConversation)();
  await told(changes, 2);
  assert.deepEqual(changes[1], { kind: 'clear', convId: 'default', uris: [uri] });
});

test('an onEvent that is no function is still refused by the constructor', () => {
  assert.throws(() => new node.ResultCache({ storage: 'memory', onEvent: /** @type {never} */ ('log') }), { name: 'TypeError', message: /onEvent must be a function/ });
  /** @type {string[]} */
  const events = [];
  new node.ResultCache({ storage: 'memory', onEvent: /** @type {never} */ (null) });
  const cache = new node.ResultCache({ storage: 'memory', onEvent: (e) => events.push(e.kind) });
  assert.equal(typeof cache.subscribe, 'function');
});

for (const storage of /** @type {const} */ (['memory', 'indexeddb'])) {
  test(`${storage}: a clear is told before the change of a call made after it, however soon that resolves`, async () => {
    const cache = new node.ResultCache({ storage, dbName: `subscribe-order-${process.pid}-${n++}` });
    const old = await store(cache, 'metrics.query', 'c1');
    /** @type {import('mcp-result-cache').CacheChange[]} */
    const changes = [];
    cache.subscribe((change) => changes.push(change));
    const cleared = cache.clearConversation('c1');
    const written = store(cache, 'metrics.query', 'c1');
    const [, fresh] = await Promise.all([cleared, written]);
    await told(changes, 2);
    assert.deepEqual(changes.map((c) => [c.kind, c.uris]), [['clear', [old]], ['write', [fresh]]]);
  });
}

test('a listener subscribed while a change is told hears the later changes only', async () => {
  const cache = new node.ResultCache({ storage: 'memory' });
  /** @type {string[]} */
  const late = [];
  /** @type {string[]} */
  const first = [];
  let added = false;
  cache.subscribe((change) => {
    first.push(change.kind);
    if (added) return;
    added = true;
    cache.subscribe((c) => late.push(`${c.kind} ${c.uris}`));
  });
  const a = await store(cache, 'metrics.query', 'c1');
  await told(first, 1);
  const b = await store(cache, 'metrics.query', 'c1');
  await told(first, 2);
  assert.deepEqual(late, [`write ${b}`], `not the write of ${a}, told while it subscribed`);
});

test('reportBlockedFlow refuses what is not a flow with a TypeError and tells nothing', () => {
  for (const { ResultCache } of [node, browser]) {
    /** @type {unknown[]} */
    const events = [];
    const cache = new ResultCache({ storage: 'memory', onEvent: (e) => events.push(e) });
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const bad = [42, null, undefined, 'flow', revoked.proxy, { from: 'a', to: 'b', toolName: 't', uris: 'notarray' },
      { from: 'a', to: 'b', toolName: Symbol('t'), uris: [] }, { from: 1, to: 'b', toolName: 't', uris: [] }, { from: 'a', to: 'b', toolName: 't', uris: [1] },
      { get from() { throw new Error('getter'); }, to: 'b', toolName: 't', uris: [] }];
    for (const [i, flow] of bad.entries()) assert.throws(() => cache.reportBlockedFlow(/** @type {never} */ (flow)), TypeError, `bad flow ${i}`);
    assert.deepEqual(events, []);
    cache.reportBlockedFlow({ from: null, to: 'mailer', toolName: 'send', uris: ['mcp+cache://c/x'] });
    // A server left out is not known: `null`.
    cache.reportBlockedFlow(/** @type {never} */ ({ toolName: 'send', uris: [] }));
    assert.deepEqual(events, [
      { kind: 'blocked', from: null, to: 'mailer', toolName: 'send', uris: ['mcp+cache://c/x'] },
      { kind: 'blocked', from: null, to: null, toolName: 'send', uris: [] },
    ]);
  }
});

test('a clear called before anyone listened is told as its own conversation, never as a later clear\'s', async () => {
  for (const ResultCache of [node.ResultCache, browser.ResultCache]) {
    const cache = new ResultCache({ storage: 'memory', threshold: 0 });
    await cache.cacheToolResult({ payload: table(3), convId: 'x' });
    const y = /** @type {string} */ (await cache.cacheToolResult({ payload: table(3), convId: 'y' }));
    /** @type {import('mcp-result-cache').CacheChange[]} */
    const changes = [];
    const first = cache.clearConversation('x'); // nobody listens yet
    cache.subscribe((change) => changes.push(change));
    await Promise.all([first, cache.clearConversation('y')]);
    await told(changes, 2);
    assert.deepEqual(changes, [{ kind: 'clear', convId: 'x', uris: null }, { kind: 'clear', convId: 'y', uris: [y] }]);
  }
});

test('a stale mark is told for every conversation it marked, even when one is cleared right after', async () => {
  for (const ResultCache of [node.ResultCache, browser.ResultCache]) {
    for (const storage of /** @type {const} */ (['memory', 'indexeddb'])) {
      const cache = new ResultCache({ storage, threshold: 0, dbName: `stale-then-clear-${n++}` });
      /** @type {string[]} */
      const changes = [];
      cache.subscribe((change) => changes.push(`${change.kind}:${change.convId}`));
      await cache.cacheToolResult({ payload: table(3), convId: 'a', sourceToolName: 'billing.get' });
      await cache.cacheToolResult({ payload: table(3), convId: 'b', sourceToolName: 'billing.get' });
      assert.equal(await cache.invalidate(['billing.*'], { cause: 'refund' }), 2);
      await cache.clearConversation('a');
      await told(changes, 5);
      assert.deepEqual(changes, ['write:a', 'write:b', 'stale:a', 'stale:b', 'clear:a'], storage);
    }
  }
});
