// The exported storage conformance suite (`mcp-result-cache/storage-conformance`, imported by
// the package's own name, as a third party does) against every storage here: the memory store,
// IndexedDB (fake-indexeddb), `redisStorage` over a standalone redis-server and over a 3-master
// cluster, through node-redis 6 and ioredis 6, and an adapter written only from docs/STORAGE.md
// (a Map, no code of this package), passed to `new ResultCache({ storage })` as a third party's
// would be. And the suite itself: adapters that break the contract fail it (one clearing and
// listing by URI segment instead of the exact conversation, one changing payloads silently as
// JSON does).
// Run: node --test tests/js/redis-storage-conformance.test.mjs
import 'fake-indexeddb/auto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { storageConformance } from 'mcp-result-cache/storage-conformance';
import { ResultCache, sanitizeConvId } from 'mcp-result-cache';
import { redisStorage } from 'mcp-result-cache/redis';
import {
  closeClient, ioredisClient, ioredisCluster, nodeRedisClient, nodeRedisCluster,
  startRedis, startRedisCluster,
} from '../support/redis-servers.mjs';

/** @typedef {import('mcp-result-cache').CacheStorage} CacheStorage */
/** @typedef {import('mcp-result-cache').StoredRow} StoredRow */
/** @typedef {import('mcp-result-cache/storage-conformance').StorageFactory} StorageFactory */
/** @typedef {import('mcp-result-cache/storage-conformance').StorageConformanceOptions} StorageConformanceOptions */
/** @typedef {import('mcp-result-cache/storage-conformance').TestFunction} TestFunction */

/** @type {import('../support/redis-servers.mjs').RedisServer} */
let server;
/** @type {import('../support/redis-servers.mjs').RedisCluster} */
let cluster;
const clients = /** @type {{
 *   nodeRedis: import('../support/redis-servers.mjs').NodeRedisClient,
 *   ioredis: import('../support/redis-servers.mjs').IoredisClient,
 *   nodeRedisCluster: import('../support/redis-servers.mjs').NodeRedisCluster,
 *   ioredisCluster: import('../support/redis-servers.mjs').IoredisCluster,
 * }} */ ({});
let counter = 0;
const prefix = () => `conf${process.pid}-${counter++}:`;

before(async () => {
  [server, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
  clients.nodeRedis = await nodeRedisClient(server.url);
  clients.ioredis = await ioredisClient(server.port);
  clients.nodeRedisCluster = await nodeRedisCluster(cluster);
  clients.ioredisCluster = await ioredisCluster(cluster);
});

after(async () => {
  await Promise.all(Object.values(clients).map(closeClient));
  await Promise.all([server?.stop(), cluster?.stop()]);
});

/**
 * A storage written from docs/STORAGE.md alone: rows in a Map, the budget and LRU order per
 * conversation, consumeOnce over a Map of deadlines. What a third party's adapter looks like.
 * `ofConversation` and `copy` break it for the tests of the suite itself: which rows `remove` and
 * `list` take as a conversation's (default: those of exactly that id), and how a payload is kept
 * (default: structured clone).
 * @param {{ ofConversation?: (row: StoredRow, convId: string) => boolean, copy?: (payload: unknown) => unknown }} [breaks]
 * @returns {CacheStorage}
 */
function mapAdapter({ ofConversation = (row, convId) => row.convId === convId, copy = structuredClone } = {}) {
  /** @type {Map<string, StoredRow>} */
  const rows = new Map();
  /** @type {Map<string, number>} */
  const once = new Map();
  // Call order: every operation runs after the ones called before it; between freshTools and
  // markStale the others wait (markStale itself goes first).
  /** @type {Promise<unknown>} */
  let tail = Promise.resolve();
  /** @type {(value?: unknown) => void} */
  let unblock = () => {};
  /** @template T @param {() => T | PromiseLike<T>} fn @returns {Promise<T>} */
  const serial = (fn) => {
    const done = tail.then(fn);
    tail = done.catch(() => {});
    return done;
  };
  const clone = (/** @type {StoredRow} */ row) => ({ ...row, payload: copy(row.payload) });
  const drop = (/** @type {string} */ uri) => rows.delete(uri);
  /** @param {StoredRow[]} list @returns {[number, number]} */
  const totals = (list) => [list.length, list.reduce((sum, r) => sum + r.sizeBytes, 0)];
  const older = (/** @type {StoredRow} */ a, /** @type {StoredRow} */ b) => a.lastUsedAt - b.lastUsedAt || (a.uri < b.uri ? -1 : 1);
  return {
    kind: 'map',
    write: (row, maxBytes, maxEntries) => serial(() => {
      const stored = clone(row);
      drop(row.uri);
      const mine = [...rows.values()].filter((r) => r.convId === row.convId).sort(older);
      let [entries, bytes] = totals(mine);
      let evicted = 0;
      for (const victim of mine) {
        if (bytes + row.sizeBytes <= maxBytes && entries + 1 <= maxEntries) break;
        drop(victim.uri);
        bytes -= victim.sizeBytes;
        entries -= 1;
        evicted += 1;
      }
      rows.set(row.uri, stored);
      return [evicted, bytes + row.sizeBytes, entries + 1];
    }),
    read: (uris, now) => serial(() => uris.map((uri) => {
      const row = rows.get(uri);
      if (!row) return undefined;
      row.lastUsedAt = Math.max(row.lastUsedAt, now);
      return clone(row);
    })),
    evictOldest: (bytes) => serial(() => {
      let count = 0;
      for (const row of [...rows.values()].sort(older)) {
        if (bytes <= 0) break;
        drop(row.uri);
        bytes -= row.sizeBytes;
        count += 1;
      }
      return count;
    }),
    stats: () => serial(() => {
      const list = [...rows.values()];
      return [...totals(list), new Set(list.map((r) => r.convId)).size];
    }),
    remove: (convId, cutoff) => serial(() => {
      const doomed = [...rows.values()].filter((r) => (typeof convId === 'string' ? ofConversation(r, convId) : r.addedAt < cutoff));
      for (const row of doomed) drop(row.uri);
      return doomed.length;
    }),
    freshTools() {
      const names = serial(() => [...new Set([...rows.values()].filter((r) => r.staleCause === undefined).map((r) => r.sourceToolName))]);
      const blocked = new Promise((resolve) => { unblock = resolve; });
      tail = tail.then(() => blocked);
      return names;
    },
    async markStale(names, cause) {
      let count = 0;
      for (const row of rows.values()) {
        if (row.staleCause === undefined && names.includes(row.sourceToolName)) {
          row.staleCause = cause;
          count += 1;
        }
      }
      unblock();
      return count;
    },
    list: (convId) => serial(() => [...rows.values()].filter((r) => convId === undefined || ofConversation(r, convId)).map(clone).sort((a, b) => (a.uri < b.uri ? -1 : 1))),
    async consumeOnce(key, ttlMs) {
      if (typeof key !== 'string' || key === '') throw new TypeError('consumeOnce: key must be a non-empty string');
      if (!(Number.isSafeInteger(ttlMs) && ttlMs > 0)) throw new TypeError('consumeOnce: ttlMs must be a positive integer');
      const now = Date.now();
      if ((once.get(key) ?? 0) > now) return false;
      once.set(key, now + ttlMs);
      return true;
    },
    close() {},
  };
}

storageConformance(async () => /** @type {const} */ ('memory'), { test, name: 'memory' });
// The default database, deleted before each test (the suite's caches take no dbName).
storageConformance(async () => {
  await new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase('mcp-result-cache');
    request.onsuccess = resolve;
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error('the database is still open'));
  });
  return /** @type {const} */ ('indexeddb');
}, { test, name: 'indexeddb (fake-indexeddb)' });
storageConformance(async () => mapAdapter(), { test, name: 'an adapter written from docs/STORAGE.md' });
storageConformance(async () => redisStorage(clients.nodeRedis, { prefix: prefix() }), { test, name: 'redis, node-redis client' });
storageConformance(async () => redisStorage(clients.ioredis, { prefix: prefix() }), { test, name: 'redis, ioredis Redis' });
storageConformance(async () => redisStorage(clients.nodeRedisCluster, { prefix: prefix() }), { test, name: 'redis cluster, node-redis' });
storageConformance(async () => redisStorage(clients.ioredisCluster, { prefix: prefix() }), { test, name: 'redis cluster, ioredis' });

test('an adapter is a storage of ResultCache: stats() names its kind; its rejections keep their names', async () => {
  const adapter = mapAdapter();
  const cache = new ResultCache({ threshold: 1, storage: adapter });
  await cache.cacheToolResult({ payload: { a: 1 }, convId: 'c', sourceToolName: 't' });
  assert.equal((await cache.stats()).storage, 'map');
  const failing = { ...mapAdapter(), read: async () => { throw Object.assign(new Error('down'), { name: 'NetworkError' }); } };
  const broken = new ResultCache({ threshold: 1, storage: failing });
  const uri = await broken.cacheToolResult({ payload: { a: 1 }, convId: 'c', sourceToolName: 't' });
  await assert.rejects(broken.lookup(uri, { convId: 'c' }), (/** @type {Error} */ error) => error.name === 'NetworkError' && /down/.test(error.message));
});

/**
 * Runs the suite over `makeStorage` with a `test` of its own: the names (without the prefix) of
 * the checks that failed.
 * @param {StorageFactory} makeStorage
 * @returns {Promise<string[]>}
 */
async function failures(makeStorage) {
  /** @type {[string, (t: { skip(message?: string): void }) => void | Promise<void>][]} */
  const checks = [];
  storageConformance(makeStorage, { test: (title, fn) => checks.push([title, fn]), name: 'x' });
  const failed = [];
  for (const [title, fn] of checks) {
    try {
      await fn({ skip() {} });
    } catch {
      failed.push(title.slice('x: '.length));
    }
  }
  return failed;
}

test('storageConformance fails an adapter that clears and lists a conversation by its URI segment, not its exact id', async () => {
  const segmentOf = (/** @type {string} */ uri) => uri.slice('mcp+cache://'.length, uri.indexOf('/', 'mcp+cache://'.length));
  const bySegment = () => mapAdapter({ ofConversation: (row, convId) => segmentOf(row.uri) === sanitizeConvId(convId) });
  assert.deepEqual(await failures(async () => bySegment()), ['clearConversation deletes exactly that conversation']);
  assert.deepEqual(await failures(async () => mapAdapter()), [], 'the same adapter by the exact id passes');
});

test('storageConformance fails an adapter that keeps payloads as JSON without refusing what JSON changes', async () => {
  /**
   * The Map adapter keeping payloads as JSON, refusing (TypeError) the payloads `refused` finds.
   * @param {(value: unknown) => boolean} refused
   */
  const json = (refused) => {
    const adapter = mapAdapter({ copy: (payload) => JSON.parse(JSON.stringify(payload)) });
    const { write } = adapter;
    adapter.write = (row, ...rest) => (refused(row.payload) ? Promise.reject(new TypeError('not JSON')) : write(row, ...rest));
    return adapter;
  };
  /** @param {(v: unknown) => boolean} found @returns {(v: unknown) => boolean} */
  const anywhere = (found) => (v) => found(v) || (v !== null && typeof v === 'object' && Object.values(v).some(anywhere(found)));
  // Functions and symbols refused (what the suite checked before), NaN, -0, undefined and Date not.
  const lossy = anywhere((v) => typeof v === 'function' || typeof v === 'symbol');
  assert.deepEqual(await failures(async () => json(lossy)), ['a value JSON would change (NaN, -0, an undefined member, a Date) is kept exactly or refused, never changed']);
  // Refusing whatever JSON would change passes (as redisStorage does).
  const exact = anywhere((v) => lossy(v) || v === undefined || v instanceof Date || (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))));
  assert.deepEqual(await failures(async () => json(exact)), []);
});

test('storageConformance: TypeErrors for a missing factory or test function', () => {
  // Calls its declaration refuses, cast so that they reach the checks at run time.
  assert.throws(() => storageConformance(/** @type {StorageFactory} */ (/** @type {unknown} */ (undefined)), { test }), TypeError);
  assert.throws(() => storageConformance(async () => /** @type {const} */ ('memory'), /** @type {StorageConformanceOptions} */ ({})), TypeError);
  assert.throws(() => /** @type {(makeStorage: StorageFactory) => void} */ (storageConformance)(async () => /** @type {const} */ ('memory')), TypeError);
});
