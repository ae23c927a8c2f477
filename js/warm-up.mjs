// `warmUp()`: runs, once, the code a chat app's first tool result runs, so that result does not
// pay for it. Its own module, imported by the browser entry on the first `warmUp()` call (as the
// read-back tools are): a page that never calls it never downloads it. A first `afterToolCall` costs 3–5× a warm one (bench/RESULTS.md, *Startup*): the
// engine compiles the WebAssembly functions and the glue on their first call, and the browser
// starts IndexedDB's write path on a database's first read-write transaction. Both happen here,
// at startup, in a scratch cache: a result big enough to be stored goes through
// `afterToolCall`, and its reference through `substituteCacheUris`. The scratch cache has a
// database of its own (deleted afterwards) where IndexedDB exists, else memory; no other cache,
// database or observer sees any of it. Shared by the browser and Node entries (js/node.cjs
// through the CommonJS copy js/warm-up.cjs).
import { DEFAULT_DB_NAME, META_URIS_KEY, URI_ARG_SUFFIX } from './protocol.mjs';

/** The scratch database: the package's default name with a suffix no cache of the host uses by accident. */
const SCRATCH_DB = `${DEFAULT_DB_NAME}-warm-up`;

/**
 * Deletes `name` and resolves when it is gone, or on an error. A `blocked` delete waits on: the
 * scratch cache's connection is closing but its last read-only transaction may still run (reads
 * resolve at their last request's success), and the delete proceeds once it ends; after
 * `BLOCKED_WAIT_MS` (a connection someone else keeps open) it resolves anyway, and the delete
 * completes whenever that connection closes.
 * @param {string} name
 */
function deleteDatabase(name) {
  return new Promise((/** @type {(value?: unknown) => void} */ settle) => {
    try {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = request.onerror = settle;
      request.onblocked = () => setTimeout(settle, BLOCKED_WAIT_MS);
    } catch {
      settle();
    }
  });
}

/** How long a blocked delete of the scratch database is waited for. */
const BLOCKED_WAIT_MS = 2000;

/** The one warm-up of this realm (the scratch database has one name: two at once would share it). @type {Promise<void> | undefined} */
let once;

/**
 * Resolves once a sample tool result (240 rows, ~6 KB) has been stored by `afterToolCall` and
 * substituted back by `substituteCacheUris` in a scratch cache made by `create`, and its
 * database deleted; later calls share that run. With `options`, the options of the host's cache
 * (only `dbName` and `storage` are read), its IndexedDB database then gets one read-write
 * transaction through the package's own path that changes nothing (`touch`): the first write of
 * a database is slower than the next ones even once the code is warm (bench/READING.md,
 * *Startup*). Never rejects for a failure of the warm-up (no storage, a quota, an `indexedDB`
 * the page may not read: the first call is then only as slow as without it); a malformed
 * `options` rejects with a `TypeError`.
 * @param {(options: object) => any} create makes a `ResultCache` of the entry
 * @param {unknown} [options] the host cache's options
 * @returns {Promise<void>}
 */
export function warmUp(create, options) {
  let dbName;
  try {
    dbName = hostDatabase(options);
  } catch (e) {
    return Promise.reject(e);
  }
  const shared = (once ??= run(create).catch(() => {}));
  return dbName === undefined ? shared : shared.then(() => touch(create, dbName));
}

/**
 * The IndexedDB database the host's cache uses, from its options: `undefined` without options,
 * and for a cache that does not use IndexedDB (`storage` "memory" or a storage object).
 * @param {unknown} options
 * @returns {string | undefined}
 */
function hostDatabase(options) {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object') throw new TypeError('warmUp options must be the options object of the ResultCache to warm up');
  /** @type {unknown} */
  let dbName;
  /** @type {unknown} */
  let storage;
  try {
    ({ dbName, storage } = /** @type {{ dbName?: unknown, storage?: unknown }} */ (options));
  } catch {
    throw new TypeError('warmUp: could not read `dbName` or `storage` (a getter threw, or the object is a revoked Proxy)');
  }
  if (dbName !== undefined && (typeof dbName !== 'string' || dbName === '')) throw new TypeError('dbName must be a non-empty string');
  if (storage !== undefined && storage !== 'auto' && storage !== 'indexeddb') return undefined;
  return dbName ?? DEFAULT_DB_NAME;
}

/**
 * One read-write transaction on the database `dbName` that changes nothing, through a cache of
 * its own (no `onEvent`, no chatbox-core read-through): `evictOlderThan` with a cutoff before
 * any entry can have been added (`Number.MAX_VALUE` ms ago). It runs in its turn like any other
 * operation on that database and creates it, as the host's cache would, when it does not exist
 * yet. Never rejects.
 * @param {(options: object) => any} create
 * @param {string} dbName
 */
async function touch(create, dbName) {
  if (typeof globalThis.indexedDB !== 'object' || globalThis.indexedDB === null) return;
  /** @type {any} */
  let cache;
  try {
    cache = create({ dbName, storage: 'indexeddb', legacyChatboxCore: false });
    await cache.evictOlderThan({ maxAgeMs: Number.MAX_VALUE });
  } catch {
    // the first call stays as slow as without it
  } finally {
    try {
      cache?.close();
      cache?.free();
    } catch {
      // already freed
    }
  }
}

/** @param {(options: object) => any} create */
async function run(create) {
  let idb = false;
  /** @type {any} */
  let scratch;
  try {
    idb = typeof globalThis.indexedDB === 'object' && globalThis.indexedDB !== null;
    scratch = create(idb ? { dbName: SCRATCH_DB, legacyChatboxCore: false } : { storage: 'memory' });
    const rows = Array.from({ length: 240 }, (_, i) => ({ t: i, value: i % 17, label: `row ${i}` }));
    const result = { content: [{ type: 'text', text: JSON.stringify({ rows }) }], structuredContent: { rows } };
    const shown = await scratch.afterToolCall('warm_up', result, { convId: 'warm-up' });
    const uri = shown?._meta?.[META_URIS_KEY]?.[0];
    if (typeof uri === 'string') await scratch.substituteCacheUris({ [`data${URI_ARG_SUFFIX}`]: uri }, { convId: 'warm-up' });
  } catch {
    // nothing to undo but the database, below
  } finally {
    try {
      scratch?.close();
      scratch?.free();
    } catch {
      // already freed
    }
    if (idb) await deleteDatabase(SCRATCH_DB);
  }
}
