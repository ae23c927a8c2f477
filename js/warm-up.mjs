// `warmUp(options?)`: runs, at startup, what a chat app's first tool result would otherwise pay
// for. A first `afterToolCall` costs 3–5× a warm one without it (bench/READING.md, *Startup*):
// the engine compiles the WebAssembly functions and the glue on their first call, and a
// database's first read-write transaction is slower than its next ones. So, once per realm, a
// result big enough to be stored goes through `afterToolCall` and its reference through
// `substituteCacheUris` in a scratch cache (a database of its own, deleted afterwards, where
// IndexedDB exists, else memory); and, on each call given the options of the host's cache, that
// cache's IndexedDB database gets one read-write transaction that changes nothing. No cache of
// the host and no `onEvent` sees either.
//
// Its own module, imported by the browser entry on the first `warmUp` call as the read-back
// tools are (with js/protocol.mjs, which they share): a page that never calls it never
// downloads it. Node's entry requires the CommonJS copy pkg/warm-up.cjs, written from this file
// by the build.
import { DEFAULT_DB_NAME, META_URIS_KEY, URI_ARG_SUFFIX } from './protocol.mjs';

/** The scratch database: the package's default name with a suffix no cache of the host uses by accident. */
const SCRATCH_DB = `${DEFAULT_DB_NAME}-warm-up`;

/** How long a blocked delete of the scratch database is waited for. */
const BLOCKED_WAIT_MS = 2000;

/** Whether this realm has IndexedDB (reading it may throw in a sandboxed frame: then no). */
function hasIndexedDB() {
  try {
    return typeof globalThis.indexedDB === 'object' && globalThis.indexedDB !== null;
  } catch {
    return false;
  }
}

/**
 * What the warm-up uses of a `ResultCache` of the entry.
 * @typedef {{
 *   readonly storage: string,
 *   afterToolCall(toolName: string, result: unknown, options?: { convId?: string }): Promise<unknown>,
 *   substituteCacheUris(args: unknown, options?: { convId?: string }): Promise<unknown>,
 *   evictOlderThan(options: { maxAgeMs: number }): Promise<unknown>,
 *   close(): void,
 *   free(): void,
 * }} WarmCache
 */

/** Releases a cache made here, whatever state it is in. @param {WarmCache | undefined} cache */
function release(cache) {
  try {
    cache?.close();
    cache?.free();
  } catch {
    // already freed
  }
}

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

/** The one scratch run of this realm (the scratch database has one name: two at once would share it). @type {Promise<void> | undefined} */
let once;

/**
 * Resolves once a sample tool result (240 rows, ~6 KB) has been stored by `afterToolCall` and
 * substituted back by `substituteCacheUris` in a scratch cache made by `create`, and its
 * database deleted; later calls share that run. With `options`, the options of the host's cache
 * (only `dbName` and `storage` are read), its IndexedDB database then gets one read-write
 * transaction through the package's own path that changes nothing (`touch`), on every such
 * call. Never rejects for a failure of the warm-up (no storage, a quota, an `indexedDB` the page
 * may not read: the first call is then only as slow as without it); a malformed `options`
 * rejects with the `TypeError` the `ResultCache` constructor gives it.
 * @param {(options: object) => WarmCache} create makes a `ResultCache` of the entry (at once: the module is ready)
 * @param {unknown} [options] the host cache's options
 * @returns {Promise<void>}
 */
export function warmUp(create, options) {
  let host;
  try {
    host = hostCache(create, options);
  } catch (e) {
    return Promise.reject(e);
  }
  const shared = (once ??= run(create).catch(() => {}));
  return host === undefined ? shared : shared.then(() => touch(host));
}

/**
 * A cache of its own on the database of the host's cache (no `onEvent`, no chatbox-core
 * read-through), made from the host's `dbName` and `storage`: the constructor checks them as it
 * checks the host's own, so a malformed one is its `TypeError`. Creating it opens nothing.
 * `undefined` without options, and where that storage is not IndexedDB (`"memory"`, a storage
 * object, `"auto"` without IndexedDB, or IndexedDB unavailable).
 * @param {(options: object) => WarmCache} create
 * @param {unknown} options
 */
function hostCache(create, options) {
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
  let cache;
  try {
    cache = create({ dbName, storage, legacyChatboxCore: false });
    if (cache.storage === 'indexeddb') return cache;
  } catch (e) {
    if (e instanceof TypeError) throw e;
  }
  // Freed, not closed: a storage object's `close()` is the host's (its pool, its connection).
  cache?.free();
  return undefined;
}

/**
 * One read-write transaction on the database of `cache` that changes nothing: `evictOlderThan`
 * with a cutoff before any entry can have been added (`Number.MAX_VALUE` ms ago). It runs in its
 * turn like any other operation on that database and creates it, as the host's cache would, when
 * it does not exist yet (a database an older version left without running totals gets them
 * recounted, as the host's first write would). Never rejects.
 * @param {WarmCache} cache
 */
async function touch(cache) {
  try {
    await cache.evictOlderThan({ maxAgeMs: Number.MAX_VALUE });
  } catch {
    // the first call stays as slow as without it
  } finally {
    release(cache);
  }
}

/** @param {(options: object) => WarmCache} create */
async function run(create) {
  const idb = hasIndexedDB();
  /** @type {WarmCache | undefined} */
  let scratch;
  try {
    scratch = create(idb ? { dbName: SCRATCH_DB, legacyChatboxCore: false } : { storage: 'memory' });
    const rows = Array.from({ length: 240 }, (_, i) => ({ t: i, value: i % 17, label: `row ${i}` }));
    const result = { content: [{ type: 'text', text: JSON.stringify({ rows }) }], structuredContent: { rows } };
    const shown = await scratch.afterToolCall('warm_up', result, { convId: 'warm-up' });
    const uri = /** @type {{ _meta?: { [key: string]: unknown[] | undefined } } | null | undefined} */ (shown)?._meta?.[META_URIS_KEY]?.[0];
    if (typeof uri === 'string') await scratch.substituteCacheUris({ [`data${URI_ARG_SUFFIX}`]: uri }, { convId: 'warm-up' });
  } catch {
    // nothing to undo but the database, below
  } finally {
    release(scratch);
    if (idb) await deleteDatabase(SCRATCH_DB);
  }
}
