// The browser entry's cold-start warm-up (pkg/browser.mjs), over fake-indexeddb: constructing a
// ResultCache before the module is ready opens its database only to wake the backend. That open
// never creates a database, never upgrades one, and the cache's own open creates the full
// schema afterwards.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
// The entry as published (one bundled module); its `.wasm` is fetched from disk.
import './file-fetch.mjs';

const browser = /** @type {typeof import('../../js/index.js')} */ (/** @type {unknown} */ (await import('../../pkg/browser.mjs')));

const names = async () => (await indexedDB.databases()).map((d) => d.name);
/**
 * @param {string} name
 * @param {number} [version]
 * @returns {Promise<IDBDatabase>}
 */
const open = (name, version) => new Promise((resolve, reject) => {
  const request = version ? indexedDB.open(name, version) : indexedDB.open(name);
  request.onupgradeneeded = () => {
    if (version === 1) request.result.createObjectStore('older');
  };
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test('warm-up before ready(): no database is created or upgraded until the cache writes', async () => {
  // An older database of the same name: the warm-up must leave it at its version.
  const older = await open('warm-older', 1);
  older.close();

  const unused = new browser.ResultCache({ dbName: 'warm-unused' });
  const used = new browser.ResultCache({ dbName: 'warm-used' });
  const olderCache = new browser.ResultCache({ dbName: 'warm-older' });
  const memory = new browser.ResultCache({ dbName: 'warm-memory', storage: 'memory' });
  await settle();
  const before = await names();
  assert.ok(!before.includes('warm-unused') && !before.includes('warm-used'), `created early: ${before}`);
  assert.ok(!before.includes('warm-memory'));
  const stillOld = await open('warm-older');
  assert.equal(stillOld.version, 1, 'the warm-up never upgrades');
  stillOld.close();

  // The cache's own open creates the full schema; the unused cache left nothing behind.
  const payload = { rows: Array.from({ length: 300 }, (_, i) => ({ i, label: `row number ${i}` })) };
  const uri = await used.cacheToolResult({ payload, convId: 'w' });
  assert.match(/** @type {string} */ (uri), /^mcp\+cache:\/\//);
  assert.deepEqual(await used.readCachedPayload(uri, { convId: 'w' }), payload);
  assert.equal(used.storage, 'indexeddb');
  const db = await open('warm-used');
  assert.ok(['results', 'usage', 'meta'].every((s) => db.objectStoreNames.contains(s)), [.../** @type {DOMStringList & Iterable<string>} */ (db.objectStoreNames)].join());
  db.close();
  assert.ok(!(await names()).includes('warm-unused'));

  // The older database is upgraded by the cache itself when it is first used.
  assert.equal(await olderCache.cacheToolResult({ payload, convId: 'w' }) !== null, true);
  const upgraded = await open('warm-older');
  assert.ok(upgraded.version > 1 && upgraded.objectStoreNames.contains('older'), 'upgraded in place');
  upgraded.close();
  assert.equal(await memory.cacheToolResult({ payload, convId: 'w' }) !== null, true);
  assert.equal(memory.storage, 'memory');
  assert.ok(!(await names()).includes('warm-memory'));
  for (const cache of [unused, used, olderCache, memory]) cache.free();
});

test('the browser entry\'s free functions: one default cache, configured before first use only', async () => {
  await assert.rejects(browser.configureDefaultCache({ threshold: -1 }), TypeError, 'invalid options reject');
  /** @type {string[]} */
  const events = [];
  await browser.configureDefaultCache({ dbName: 'free-functions', threshold: 10, onEvent: (/** @type {import('../../js/index.js').CacheEvent} */ e) => events.push(e.kind) });
  const uri = await browser.cacheToolResult({ payload: { rows: [1, 2, 3, 4, 5] }, convId: 'f' });
  assert.match(/** @type {string} */ (uri), /^mcp\+cache:\/\/f\//, 'threshold 10 applies');
  assert.deepEqual(await browser.readCachedPayload(uri, { convId: 'f' }), { rows: [1, 2, 3, 4, 5] });
  const before = await browser.beforeToolCall('chart', { data_uri: uri }, { convId: 'f' });
  assert.deepEqual(/** @type {{ args?: unknown }} */ (before).args, { data: { rows: [1, 2, 3, 4, 5] } });
  assert.ok((await names()).includes('free-functions'));
  await browser.clearConversation('f');
  assert.equal((await browser.lookup(uri, { convId: 'f' })).status, 'miss');
  assert.deepEqual(events.slice(0, 2), ['write', 'hit']);
  await assert.rejects(browser.configureDefaultCache({}), (/** @type {Error} */ e) => e.name === 'InvalidStateError');
  await assert.rejects(browser.cacheToolResult(/** @type {never} */ (42)), TypeError, 'a bad argument rejects');
});
