// The plain objects the stores keep (field names: docs/PROTOCOL.md, *Storage*): the rows the
// IndexedDB store writes, each built by one call from WebAssembly instead of one boundary
// crossing per property, the one transaction overload web-sys does not expose, the upgrade's
// cursor walks, and the memory store's contents (below). One file: the test runner and the
// browser fetch each snippet file as a module of its own. The builders cannot throw: they make
// fresh objects, or read rows that are structured clones (data properties only) or this
// package's own objects.

/**
 * A stored row (docs/PROTOCOL.md, *Storage*).
 * @typedef {{ uri: string, payload: unknown, convId: string, sourceToolName: string, addedAt: number, sizeBytes: number, lastUsedAt: number, staleCause?: string, derivedFrom?: string }} Row
 * @typedef {{ rows: Map<string, Row>, bytes: number, entries: number }} MemoryStore
 */

// A cache record as stored in `results` (a stale cause is added by the caller when there is one).
/**
 * @param {string} uri @param {unknown} payload @param {string} convId @param {string} sourceToolName
 * @param {number} addedAt @param {number} sizeBytes @param {number} lastUsedAt
 */
export function mcpCacheRecord(uri, payload, convId, sourceToolName, addedAt, sizeBytes, lastUsedAt) {
  return { uri, payload, convId, sourceToolName, addedAt, sizeBytes, lastUsedAt };
}

// The `usage` row of a stored record: a record written by chatbox-core has no `lastUsedAt` (its
// `addedAt` stands in), may lack a numeric size, and may lack a tool name (reads report it as
// `unknownTool`, Rust's `UNKNOWN_SOURCE_TOOL`, and so does the row: invalidation finds entries by it).
/** @param {Record<string, unknown>} record @param {string} unknownTool */
export function mcpCacheUsageRow(record, unknownTool) {
  const number = (/** @type {unknown} */ value) => (typeof value === 'number' ? value : undefined);
  const tool = record.sourceToolName;
  return {
    uri: record.uri,
    convId: record.convId,
    sizeBytes: number(record.sizeBytes) ?? 0,
    lastUsedAt: number(record.lastUsedAt) ?? number(record.addedAt) ?? 0,
    sourceToolName: typeof tool === 'string' ? tool : unknownTool,
  };
}

// The store-wide totals row (`exact`: kept in every transaction that changes the store).
/** @param {number} bytes @param {number} entries */
export function mcpCacheTotalsRow(bytes, entries) {
  return { bytes, entries, exact: true };
}

// What a clear's key range holds (src/store/indexeddb/clear.rs): the bytes of its usage rows,
// as long as every one is `convId`'s and has a tool name (the 0.1 build, which skips the totals,
// leaves rows without one); -1 otherwise. One pass here, not four boundary crossings a row.
/** @param {Array<Record<string, unknown>>} rows @param {string} convId */
export function mcpCacheRangeBytes(rows, convId) {
  let bytes = 0;
  for (const row of rows) {
    if (row.convId !== convId || typeof row.sourceToolName !== 'string') return -1;
    if (typeof row.sizeBytes === 'number') bytes += row.sizeBytes;
  }
  return bytes;
}

// `IDBTransaction.commit()` once the last request is issued (src/store/indexeddb/tx.rs). Where
// `commit` is missing (older engines) or refused (the transaction is already aborting), the
// transaction ends on its own, as it would have.
/** @param {IDBTransaction} tx */
export function mcpCacheCommit(tx) {
  try {
    tx.commit?.();
  } catch {
    // refused: the transaction is already aborting, and reports that itself
  }
}

// `db.transaction(storeNames, "readwrite", { durability: "relaxed" })` (throws what it throws:
// the import catches).
/** @param {IDBDatabase} db @param {string[]} storeNames */
export function mcpCacheRelaxedWrite(db, storeNames) {
  return db.transaction(storeNames, 'readwrite', { durability: 'relaxed' });
}

// ---- The upgrade's walks (src/store/indexeddb/schema.rs) ----
// Cursors inside the upgrade transaction, listened to by plain JS functions: they go with their
// requests once the upgrade ends (a listener made in Rust would stay pinned, and with it every
// request and store it held). A row that cannot be written is skipped, as a failed `put` would
// be; what the calls themselves throw, the caller answers by aborting the upgrade.

// A usage row for every record that predates the usage store (chatbox-core v1).
/** @param {IDBObjectStore} results @param {IDBObjectStore} usage @param {string} unknownTool */
export function mcpCacheBackfillUsage(results, usage, unknownTool) {
  const walk = results.openCursor();
  walk.onsuccess = () => {
    const cursor = walk.result;
    if (!cursor) return;
    try {
      usage.put(mcpCacheUsageRow(cursor.value, unknownTool));
    } catch {
      // skipped: a record without a usable key
    }
    cursor.continue();
  };
}

// Versions 2 to 4 → 5: each usage row gets its record's tool name from the retired index `index`
// (a key cursor: key = name, primary key = URI; no payload read), `unknownTool` for a record
// the index did not hold (it had no name); then the index is deleted.
/** @param {IDBObjectStore} results @param {IDBObjectStore} usage @param {string} index @param {string} unknownTool */
export function mcpCacheNameUsageRows(results, usage, index, unknownTool) {
  /** @type {Map<IDBValidKey, unknown>} */
  const names = new Map();
  const walk = results.index(index).openKeyCursor();
  walk.onsuccess = () => {
    const cursor = walk.result;
    if (cursor) {
      names.set(cursor.primaryKey, cursor.key);
      cursor.continue();
      return;
    }
    // Every name is known (a throw here aborts the upgrade).
    results.deleteIndex(index);
    const rows = usage.openCursor();
    rows.onsuccess = () => {
      const row = rows.result;
      if (!row) return;
      const value = row.value;
      if (value !== null && typeof value === 'object') {
        const name = names.get(value.uri);
        value.sourceToolName = typeof name === 'string' ? name : unknownTool;
        try {
          row.update(value);
        } catch {
          // skipped, as a failed `put` is
        }
      }
      row.continue();
    };
  };
}

// ---- The memory store (src/store/memory.rs) ----
// A Map from URI to the very row the IndexedDB store would write, and running totals. Payloads
// are structured-cloned on the way in and out, as IndexedDB does: a caller mutating its object
// afterwards changes nothing stored, and a value IndexedDB refuses is refused here with the same
// `DataCloneError`. How much a write must free is the cache policy's, in Rust; these functions
// apply it.

/** @template T @param {T} value @returns {T} */
function memClone(value) {
  if (typeof structuredClone !== 'function') {
    throw Object.assign(new Error('globalThis.structuredClone is not available'), { name: 'NotSupportedError' });
  }
  return structuredClone(value);
}

// An empty store.
/** @returns {MemoryStore} */
export function mcpMemoryStore() {
  return { rows: new Map(), bytes: 0, entries: 0 };
}

/** @param {MemoryStore} store @param {string} uri */
function memRemove(store, uri) {
  const row = store.rows.get(uri);
  if (row) {
    store.rows.delete(uri);
    store.bytes -= row.sizeBytes;
    store.entries -= 1;
  }
}

// Least recently used first; ties by URI (code-unit order, as IndexedDB orders keys).
/** @type {(a: Row, b: Row) => number} */
const memByUri = (a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
/** @type {(a: Row, b: Row) => number} */
const memOlder = (a, b) => a.lastUsedAt - b.lastUsedAt || memByUri(a, b);

// Evicts least-recently-used rows, never the one of `keep`, until `bytes` bytes and `entries`
// entries are freed or nothing else is left; returns how many. Each row evicted is found by one
// pass over the rows: a full store's write evicts one, so a steady write costs a pass, not a sort
// of every row.
/** @param {MemoryStore} store @param {number} bytes @param {number} entries @param {string} [keep] */
export function mcpMemoryEvict(store, bytes, entries, keep) {
  let count = 0;
  while (bytes > 0 || entries > 0) {
    /** @type {Row | undefined} */
    let row;
    for (const next of store.rows.values()) if (next.uri !== keep && (!row || memOlder(next, row) < 0)) row = next;
    if (!row) break;
    memRemove(store, row.uri);
    bytes -= row.sizeBytes;
    entries -= 1;
    count += 1;
  }
  return count;
}

// `[bytes, entries]` of the store without the row of `uri`: what a write of `uri` must fit next to.
/** @param {MemoryStore} store @param {string} uri */
export function mcpMemoryTotalsWithout(store, uri) {
  const row = store.rows.get(uri);
  return row ? [store.bytes - row.sizeBytes, store.entries - 1] : [store.bytes, store.entries];
}

// Stores `row` (its payload cloned first, so a refused value changes nothing), replacing the row
// of its URI, after evicting others until `roomBytes` / `roomEntries` are freed. Returns
// `[evicted, bytes, entries]`.
/** @param {MemoryStore} store @param {Row} row @param {number} roomBytes @param {number} roomEntries */
export function mcpMemoryPut(store, row, roomBytes, roomEntries) {
  const stored = { ...row, payload: memClone(row.payload) };
  memRemove(store, row.uri);
  const evicted = mcpMemoryEvict(store, roomBytes, roomEntries, row.uri);
  store.rows.set(row.uri, stored);
  store.bytes += stored.sizeBytes;
  store.entries += 1;
  return [evicted, store.bytes, store.entries];
}

// The rows of `uris` (`undefined` where absent), then the present rows of their `derivedFrom`
// chains (up to `depth` links), payloads cloned; each row's last use becomes `now` unless it is
// later.
/** @param {MemoryStore} store @param {string[]} uris @param {number} now @param {number} depth */
export function mcpMemoryRead(store, uris, now, depth) {
  /** @type {(Row | undefined)[]} */
  const out = [];
  // A source also asked for as a row is read again: the sources come after the rows.
  const asked = new Set();
  for (let batch = uris; batch.length; ) {
    /** @type {string[]} */
    const next = [];
    for (const uri of batch) {
      const row = store.rows.get(uri);
      if (row && !(row.lastUsedAt >= now)) row.lastUsedAt = now;
      if (out.length < uris.length || row) out.push(row && { ...row, payload: memClone(row.payload) });
      const source = row?.derivedFrom;
      if (source && !asked.has(source)) asked.add(source), next.push(source);
    }
    batch = depth-- > 0 ? next : [];
  }
  return out;
}

// `[entries, bytes, conversations]`.
/** @param {MemoryStore} store */
export function mcpMemoryStats(store) {
  return [store.entries, store.bytes, new Set(Array.from(store.rows.values(), (row) => row.convId)).size];
}

// Deletes the rows of exactly conversation `convId` (when it is a string) or else those added
// before `cutoff`; returns how many.
/** @param {MemoryStore} store @param {unknown} convId @param {number} cutoff */
export function mcpMemoryDelete(store, convId, cutoff) {
  let count = 0;
  // (A Map's iteration skips the entries deleted during it, the current one included.)
  for (const row of store.rows.values()) {
    if (typeof convId === 'string' ? row.convId === convId : row.addedAt < cutoff) {
      memRemove(store, row.uri);
      count += 1;
    }
  }
  return count;
}

// The distinct tool names of the rows not yet stale.
/** @param {MemoryStore} store */
export function mcpMemoryFreshTools(store) {
  /** @type {Set<string>} */
  const names = new Set();
  for (const row of store.rows.values()) if (row.staleCause === undefined) names.add(row.sourceToolName);
  return [...names];
}

// Marks stale, with `cause`, every fresh row whose tool is one of `names`; returns how many.
/** @param {MemoryStore} store @param {string[]} names @param {string} cause */
export function mcpMemoryMarkStale(store, names, cause) {
  let count = 0;
  for (const row of store.rows.values()) {
    if (row.staleCause === undefined && names.includes(row.sourceToolName)) {
      row.staleCause = cause;
      count += 1;
    }
  }
  return count;
}

// The rows (of exactly conversation `convId` when it is a string) by URI, as IndexedDB lists by
// primary key; payloads are not cloned (listings read metadata only).
/** @param {MemoryStore} store @param {unknown} convId */
export function mcpMemoryList(store, convId) {
  return [...store.rows.values()].filter((row) => typeof convId !== 'string' || row.convId === convId).sort(memByUri);
}

// ---- Opening the cache's own database (src/store/indexeddb/connection.rs) ----
// Resolves the connection to `name` at `version`, or at its current version when it exists at a
// newer one (`VersionError`: a newer build of this library upgraded it). `onUpgrade` handles
// `upgradeneeded`, `onBlocked` (optional) `blocked` (the open keeps waiting). Rejects with the
// request's error, or a `NotFoundError` when the database lacks one of `stores`.
/**
 * @param {IDBFactory} factory @param {string} name @param {number | undefined} version @param {string[]} stores
 * @param {(event: IDBVersionChangeEvent) => void} onUpgrade @param {((event: IDBVersionChangeEvent) => void) | undefined} onBlocked
 * @returns {Promise<IDBDatabase>}
 */
export function mcpCacheOpen(factory, name, version, stores, onUpgrade, onBlocked) {
  return new Promise((resolve, reject) => {
    const open = (/** @type {number | undefined} */ atVersion) => {
      const request = atVersion === undefined ? factory.open(name) : factory.open(name, atVersion);
      request.onupgradeneeded = onUpgrade;
      if (onBlocked) request.onblocked = onBlocked;
      request.onsuccess = () => {
        const db = request.result;
        // Closed when another context needs it gone until Rust keeps it (its handler then
        // replaces this one), so a connection whose operation was dropped never blocks one.
        db.onversionchange = () => db.close();
        if (stores.every((store) => db.objectStoreNames.contains(store))) return resolve(db);
        db.close();
        reject(Object.assign(new Error(`it lacks the "${stores.join('"/"')}" object stores`), { name: 'NotFoundError' }));
      };
      request.onerror = () => {
        const error = request.error;
        if (error?.name === 'VersionError' && atVersion !== undefined) return open(undefined);
        reject(error ?? Object.assign(new Error('request failed'), { name: 'UnknownError' }));
      };
    };
    try {
      open(version);
    } catch (error) {
      reject(error);
    }
  });
}

// A read: a `get` of every key in `keys` on `store` at once, answered with their results in
// order as soon as the last one succeeds. A read-only transaction has nothing to commit, so its
// results are final then (requests are answered in order); waiting for `complete` as well cost
// ~0.2 ms a read. A failed request fires no success: the transaction aborts, and the read
// rejects with its error (an `AbortError` when it has none). `keys` is never empty. Up to `depth`
// links of the rows' `derivedFrom` chains are read in the same transaction, from the success
// events (so at the read's place in call order), and answered after the rows: the present ones.
/**
 * @param {IDBTransaction} tx @param {IDBObjectStore} store @param {string[]} keys @param {number} depth
 * @returns {Promise<unknown[]>}
 */
export function mcpCacheGetRows(tx, store, keys, depth) {
  return new Promise((resolve, reject) => {
    /** @type {unknown[]} */
    const rows = [];
    // A source also asked for as a row is read again: the sources come after the rows.
    const asked = new Set();
    /** @param {string[]} batch */
    const get = (batch) => {
      const requests = batch.map((key) => store.get(key));
      /** @type {IDBRequest} */ (requests.at(-1)).onsuccess = () => {
        /** @type {string[]} */
        const next = [];
        for (const { result } of requests) {
          if (rows.length < keys.length || result) rows.push(result);
          const source = result?.derivedFrom;
          if (source && !asked.has(source)) asked.add(source), next.push(source);
        }
        if (next.length && depth-- > 0) get(next);
        else resolve(rows);
      };
    };
    get(keys);
    tx.onabort = () => reject(tx.error ?? Object.assign(new Error('transaction aborted'), { name: 'AbortError' }));
  });
}
