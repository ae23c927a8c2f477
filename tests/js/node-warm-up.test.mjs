// warmUp() (js/warm-up.mjs) against the built Node entry over fake-indexeddb: it runs a
// store and a substitution in a scratch database of its own and leaves nothing behind, and no
// cache of the host sees any of it. (What it buys, the first call's time, is measured by the
// bench's startup workload, not here.)
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, warmUp, ready } from '../../pkg/node.mjs';

/**
 * A host cache with one entry, and the events it sees from here on.
 * @param {import('../../pkg/node/mcp_result_cache.js').ResultCacheOptions} options
 */
async function hostCache(options) {
  await ready();
  /** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent[]} */
  const events = [];
  const cache = new ResultCache({ ...options, onEvent: (/** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent} */ e) => events.push(e) });
  const uri = await cache.cacheToolResult({ payload: { rows: [1, 2, 3] }, convId: 'c', sourceToolName: 't' });
  return { cache, uri, events };
}

/**
 * Runs `body` with every `indexedDB.open` noted, by name, in the array it is given.
 * @param {(opened: string[]) => Promise<void>} body
 */
async function noteOpens(body) {
  /** @type {string[]} */
  const opened = [];
  const open = indexedDB.open.bind(indexedDB);
  indexedDB.open = (name, ...rest) => {
    opened.push(name);
    return open(name, ...rest);
  };
  try {
    await body(opened);
  } finally {
    indexedDB.open = open;
  }
}

test('warmUp stores and substitutes in a scratch database, then deletes it; host caches see nothing', async () => {
  const { cache, uri, events } = await hostCache({ dbName: 'host-warm-up-test', threshold: 0 });
  const before = await cache.stats();
  assert.equal(before.entries, 1);
  events.length = 0;

  // The scratch cache really stores: its database exists while the warm-up runs.
  await noteOpens(async (opened) => {
    assert.equal(await warmUp(), undefined);
    assert.ok(opened.includes('mcp-result-cache-warm-up'), `databases opened: ${opened}`);
  });

  const names = (await indexedDB.databases()).map((d) => d.name);
  assert.ok(!names.includes('mcp-result-cache-warm-up'), `left behind: ${names}`);
  assert.deepEqual(events, []);
  assert.deepEqual(await cache.stats(), before);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c' }), { rows: [1, 2, 3] });
  // A host calling it from two places gets the one warm-up (one scratch database, one name).
  assert.equal(warmUp(), warmUp());
  await warmUp();
  assert.ok(!(await indexedDB.databases()).some((d) => d.name === 'mcp-result-cache-warm-up'));
  cache.close();
});

test('warmUp(options) touches the host cache\'s database without changing it; bad options are TypeErrors', async () => {
  const options = { dbName: 'host-warm-up-touch', threshold: 0 };
  const { cache, uri, events } = await hostCache(options);
  const before = { stats: await cache.stats(), entries: await cache.entries() };
  events.length = 0;

  // Its database is opened: the touch is a transaction of its own on it.
  await noteOpens(async (opened) => {
    assert.equal(await warmUp(options), undefined);
    assert.ok(opened.includes('host-warm-up-touch'), `databases opened: ${opened}`);
    opened.length = 0;
    // Memory and storage objects have no IndexedDB database to warm.
    // (The scratch run is done: it runs once per realm.)
    await warmUp({ storage: 'memory' });
    await warmUp({ dbName: 'never-made', storage: 'memory' });
    assert.deepEqual(opened, []);
  });
  // A storage object is the host's: warming leaves it alone (its close() ends the host's pool).
  let closes = 0;
  const storage = {
    kind: 'host-db',
    write: async () => [0, 0, 0], read: async () => [], evictOldest: async () => 0, stats: async () => [0, 0, 0],
    remove: async () => 0, freshTools: async () => [], markStale: async () => 0, list: async () => [],
    close: () => { closes += 1; },
  };
  assert.equal(await warmUp({ storage }), undefined);
  assert.equal(closes, 0, 'the host\'s storage object was not closed');
  assert.deepEqual(events, [], 'the host cache sees nothing');
  assert.deepEqual({ stats: await cache.stats(), entries: await cache.entries() }, before);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c' }), { rows: [1, 2, 3] });

  // A database that does not exist yet is made, as the host's cache would on its first write.
  await warmUp({ dbName: 'host-warm-up-new' });
  assert.ok((await indexedDB.databases()).some((d) => d.name === 'host-warm-up-new'));
  const fresh = new ResultCache({ dbName: 'host-warm-up-new' });
  assert.equal((await fresh.stats()).entries, 0);
  fresh.close();

  const bads = [5, 'x', null, { dbName: '' }, { dbName: 7 }, { storage: 'IndexedDB' }, { storage: null }, { storage: 5 },
    { get dbName() { throw new Error('no'); } }];
  for (const [i, bad] of bads.entries()) await assert.rejects(warmUp(bad), TypeError, `bad options #${i}`);
  cache.close();
});
