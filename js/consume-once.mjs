// Consume-once records: `consume(kind, key, ttlMs)` answers `true` the first time `key` is
// consumed within `ttlMs` milliseconds and `false` after, so a thing (an AI SDK tool approval)
// is used at most once, whichever instance of the cache sees it. Each storage keeps the records
// itself:
// - a storage object (`redisStorage`): its own `consumeOnce(key, ttlMs)` (one atomic
//   `SET key NX PX` in Redis, shared by every instance over the same server);
// - `"memory"`: a map of this cache (one process, one cache);
// - `"indexeddb"`: an object store of a database of its own next to the cache's
//   (`<dbName>-consume-once`), shared by the tabs of an origin: one read-write transaction reads
//   and writes the record, and IndexedDB runs read-write transactions over one store one at a
//   time, so two tabs never both see a key as new.
import { DEFAULT_DB_NAME } from './protocol.mjs';

/** Most records a memory cache keeps: past it, expired ones go, then the oldest. */
const MAX_MEMORY_RECORDS = 100_000;
/** The object store of the IndexedDB records (key → the time it expires, ms since the epoch). */
const ONCE_STORE = 'once';
/**
 * IndexedDB records one consume looks at for expiry (bounded work per call): each call goes on
 * from where the last one stopped, so the sweep cycles through the whole store.
 */
const SWEEP_VISITS = 32;

/** @typedef {(key: string, ttlMs: number) => Promise<boolean>} Consume */

/** Checks the arguments of `consumeOnce`: a non-empty string key, a positive integer ttl. */
function checkArgs(/** @type {unknown} */ key, /** @type {unknown} */ ttlMs) {
  if (typeof key !== 'string' || key === '') throw new TypeError('consumeOnce: key must be a non-empty string');
  if (!(typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    throw new TypeError('consumeOnce: ttlMs must be a positive integer (milliseconds)');
  }
}

/** The records of a memory cache. @returns {Consume} */
function memoryRecords() {
  /** @type {Map<string, number>} key → expiry */
  const records = new Map();
  return async (key, ttlMs) => {
    const now = Date.now();
    const until = records.get(key);
    if (until !== undefined && until > now) return false;
    records.delete(key);
    records.set(key, now + ttlMs);
    if (records.size > MAX_MEMORY_RECORDS) {
      for (const [k, t] of records) if (t <= now) records.delete(k);
      for (const k of records.keys()) {
        if (records.size <= MAX_MEMORY_RECORDS) break;
        records.delete(k);
      }
    }
    return true;
  };
}

/** A promise of an IDB request's result. @template T @param {IDBRequest<T>} request @returns {Promise<T>} */
const settled = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

/** The records of an IndexedDB cache, in `<dbName>-consume-once`. */
function indexedDbRecords(/** @type {string} */ dbName) {
  /** @type {Promise<IDBDatabase> | null} */
  let opening = null;
  /** The key the last sweep stopped at (`null`: start from the first). */
  /** @type {string | null} */
  let sweepFrom = null;
  const open = () => {
    if (opening) return opening;
    const request = globalThis.indexedDB.open(`${dbName}-consume-once`, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(ONCE_STORE);
    const mine = settled(request).then((db) => {
      // Another tab upgrading or deleting the database: the connection is released (its
      // transactions finish first), and the next call reopens; so when the browser closed it
      // (site data cleared).
      const release = () => {
        if (opening === mine) opening = null;
      };
      db.onversionchange = () => {
        db.close();
        release();
      };
      db.onclose = release;
      return db;
    }, (/** @type {unknown} */ error) => {
      if (opening === mine) opening = null;
      throw error;
    });
    return (opening = mine);
  };
  /** A read-write transaction on the records; a connection found closing is opened again once. */
  const transaction = async () => {
    try {
      return (await open()).transaction(ONCE_STORE, 'readwrite');
    } catch (error) {
      if (/** @type {{ name?: unknown } | null} */ (error)?.name !== 'InvalidStateError') throw error;
      opening = null;
      return (await open()).transaction(ONCE_STORE, 'readwrite');
    }
  };
  /** @type {Consume} */
  const consume = async (key, ttlMs) => {
    const tx = await transaction();
    const now = Date.now();
    const store = tx.objectStore(ONCE_STORE);
    const done = new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve(undefined);
      tx.onabort = () => reject(tx.error ?? new Error('consumeOnce: the IndexedDB transaction was aborted'));
    });
    // A failed `get` throws here and aborts the transaction, rejecting `done` too: that rejection
    // is the same failure, already reported, not an unhandled one.
    done.catch(() => {});
    const until = await settled(store.get(key));
    const fresh = !(typeof until === 'number' && until > now);
    if (fresh) store.put(now + ttlMs, key);
    // A few records are looked at with each call, the expired ones deleted, so the store does
    // not only grow; live ones (an approval lasts 90 days) are stepped over, not walked each time.
    let visited = 0;
    const cursor = store.openCursor(sweepFrom === null ? null : IDBKeyRange.lowerBound(sweepFrom, true));
    cursor.onsuccess = () => {
      const at = cursor.result;
      if (!at) {
        sweepFrom = null; // the end: the next sweep starts over
        return;
      }
      if (typeof at.value !== 'number' || at.value <= now) at.delete();
      sweepFrom = /** @type {string} */ (at.key);
      visited += 1;
      if (visited < SWEEP_VISITS) at.continue();
    };
    await done;
    return fresh;
  };
  const close = () => {
    const pending = opening;
    opening = null;
    pending?.then((db) => db.close(), () => {});
  };
  return { consume, close };
}

/**
 * The consume-once records of a cache made with `storage` and `dbName` (its options):
 * `consume(kind, key, ttlMs)` with `kind` the storage the cache resolved to (its `storage`
 * getter: `"memory"`, `"indexeddb"` or the storage object's `kind`), and `close()`.
 * A storage object without `consumeOnce` rejects with a `TypeError` saying so.
 * @param {unknown} storage
 * @param {unknown} dbName
 */
export function consumeOnceOf(storage, dbName) {
  /** @type {Consume | null} */
  let memory = null;
  /** @type {ReturnType<typeof indexedDbRecords> | null} */
  let idb = null;
  return {
    /** @param {string} kind @param {unknown} key @param {unknown} ttlMs @returns {Promise<boolean>} */
    async consume(kind, key, ttlMs) {
      checkArgs(key, ttlMs);
      const k = /** @type {string} */ (key);
      const ttl = /** @type {number} */ (ttlMs);
      if (storage !== null && typeof storage === 'object') {
        const own = /** @type {{ consumeOnce?: unknown }} */ (storage).consumeOnce;
        if (typeof own !== 'function') {
          throw new TypeError('consumeOnce: this cache\'s storage object has no consumeOnce(key, ttlMs) operation (a storage for approvals must provide one)');
        }
        try {
          return (await own.call(storage, k, ttl)) === true;
        } catch (error) {
          // As the cache reads a storage's failures (`StoreError::from_js`): an Error as it is;
          // else its string `name` and `message` when it has them (a DOMException-like object),
          // or an `UnknownError` saying what was thrown.
          if (error instanceof Error) throw error;
          const text = (/** @type {string} */ key) => {
            try {
              const value = /** @type {Record<string, unknown>} */ (error)?.[key];
              return typeof value === 'string' ? value : undefined;
            } catch {
              return undefined; // a getter that throws reads as absent
            }
          };
          const name = text('name');
          const message = name === undefined ? (typeof error === 'string' ? error : 'a value that is not an Error was thrown') : text('message') ?? '';
          throw Object.assign(new Error(`consumeOnce: ${message}`), { name: name ?? 'UnknownError' });
        }
      }
      if (kind === 'indexeddb') {
        // A cache made without a `dbName` here (the browser entry's, through the AI SDK entry):
        // the default database's records, shared by the origin's caches and tabs.
        idb ??= indexedDbRecords(typeof dbName === 'string' ? dbName : DEFAULT_DB_NAME);
        return idb.consume(k, ttl);
      }
      memory ??= memoryRecords();
      return memory(k, ttl);
    },
    close() {
      idb?.close();
      idb = null;
    },
  };
}

/** The records of each cache, made on its first `consumeOnce`. @type {WeakMap<object, ReturnType<typeof consumeOnceOf>>} */
const byCache = new WeakMap();

/**
 * `ResultCache#consumeOnce` of both entries: `key` consumed in the records of `cache`, made on
 * its first call from its options' `storage` and `dbName` (`options`), in the storage it resolved
 * to (`kind`, its `storage` getter).
 * @param {object} cache
 * @param {string} kind
 * @param {unknown} options the options the cache was made with
 * @param {unknown} key
 * @param {unknown} ttlMs
 */
export function consumeOnceFor(cache, kind, options, key, ttlMs) {
  let records = byCache.get(cache);
  if (!records) {
    const own = options !== null && typeof options === 'object' ? /** @type {{ storage?: unknown, dbName?: unknown }} */ (options) : {};
    records = consumeOnceOf(own.storage, own.dbName);
    byCache.set(cache, records);
  }
  return records.consume(kind, key, ttlMs);
}

/** Closes what the records of `cache` opened (`ResultCache#close`). @param {object} cache */
export function closeRecords(cache) {
  byCache.get(cache)?.close();
  byCache.delete(cache);
}
