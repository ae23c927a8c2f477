// A clear leaves nothing of the conversation behind: no record, no usage row, no totals row —
// whatever reads were remembered before it (their last uses are flushed by later transactions).
// Over fake-indexeddb, reading the database the cache wrote directly.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

const rows = (/** @type {number} */ i) => ({ i, rows: Array.from({ length: 200 }, (_, j) => ({ j, label: `row ${i}.${j}` })) });

/**
 * @param {string} name
 * @returns {Promise<IDBDatabase>}
 */
function open(name) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
/**
 * @param {IDBDatabase} db
 * @param {string} store
 * @returns {Promise<unknown[]>}
 */
const all = (db, store) => new Promise((resolve, reject) => {
  const request = db.transaction(store).objectStore(store).getAll();
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});
/**
 * @param {IDBDatabase} db
 * @param {string} store
 * @returns {Promise<IDBValidKey[]>}
 */
const allKeys = (db, store) => new Promise((resolve, reject) => {
  const request = db.transaction(store).objectStore(store).getAllKeys();
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

test('clearing conversations after reads and a substitution leaves no usage row, record or totals row of them', async () => {
  const dbName = `clear-nothing-${process.pid}`;
  const cache = new ResultCache({ dbName });
  /** @type {Record<string, (string | null)[]>} */
  const uris = { L: [], M: [] };
  for (const conv of ['L', 'M']) {
    uris[conv] = await Promise.all(Array.from({ length: 150 }, (_, i) => cache.cacheToolResult({ payload: rows(i), convId: conv })));
  }
  assert.ok([...uris.L, ...uris.M].every((u) => typeof u === 'string'), 'every result stored');
  // Reads remember last uses; one substitution resolves 200 references at once.
  await Promise.all(uris.L.map((uri) => cache.readCachedPayload(uri, { convId: 'L' })));
  await Promise.all(uris.M.map((uri) => cache.lookup(uri, { convId: 'M' })));
  const refs = Object.fromEntries(uris.L.slice(0, 100).concat(uris.M.slice(0, 100)).map((u, i) => [`a${i}_uri`, u]));
  const substituted = await cache.substituteCacheUris(refs);
  assert.equal(substituted.ok, true);

  await cache.clearConversation('L');
  const db = await open(dbName);
  const usage = await all(db, 'usage');
  assert.ok(usage.length > 0 && usage.every((row) => !JSON.stringify(row).includes('mcp+cache://L/')), `${usage.filter((r) => JSON.stringify(r).includes('mcp+cache://L/')).length} usage rows of L remain`);
  db.close();
  await cache.clearConversation('M');
  const after = await open(dbName);
  assert.deepEqual(await allKeys(after, 'results'), [], 'no record');
  assert.deepEqual(await allKeys(after, 'usage'), [], 'no usage row');
  const meta = await allKeys(after, 'meta');
  assert.ok(!meta.some((key) => Array.isArray(key) && key[0] === 'conv'), `no conversation totals: ${JSON.stringify(meta)}`);
  assert.equal((await cache.stats()).entries, 0);
  after.close();
  // A write after the clears is counted and stored again.
  assert.ok(await cache.cacheToolResult({ payload: rows(1), convId: 'L' }));
  assert.equal((await cache.stats()).entries, 1);
  cache.close();
});
