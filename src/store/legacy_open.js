// Opening chatbox-core's database for the read-through (src/store/legacy.rs states the rules):
// never creating it, never upgrading it, never waiting on it for long. Every step is an event
// handler or a timer on JS objects, so it is written here; the connection it resolves is kept by
// Rust like its own database's (closed on `versionchange`).

// A reader's opening state: the open in flight, shared by every operation (`open`, resolving to
// `{ db }`, `{ absent: true }` or `{ error }`), how many operations wait on it, a connection that
// arrived after they all gave up, and when the database was last found missing.
/**
 * @typedef {{ db?: IDBDatabase | null, absent?: boolean, error?: unknown }} LegacyOutcome
 * @typedef {{ open: Promise<LegacyOutcome> | null, waiting: number, db: IDBDatabase | null, absentAt: number | undefined, gone: boolean }} LegacyState
 */

/**
 * The conversation id chatbox-core 0.12 stored for `id` (its own `sanitizeConvId`, the same
 * expression over UTF-16 code units): its records' `convId`, which a clear deletes.
 * @param {string} id
 */
export const mcpLegacyConvId = (id) => id.replace(/[^\w-]/g, '_').slice(0, 64) || 'default';

/** @returns {LegacyState} */
export function mcpLegacyState() {
  return { open: null, waiting: 0, db: null, absentAt: undefined, gone: false };
}

// Forgets that the database was missing and closes a connection no operation took. `gone`: the
// reader is dropped, so a connection still to arrive is closed at once.
/** @param {LegacyState} state @param {boolean} gone */
export function mcpLegacyClose(state, gone) {
  state.db?.close();
  state.db = null;
  state.absentAt = undefined;
  state.gone = gone;
}

// The connection for the next operation: an `IDBDatabase`, or `null` when the database does not
// exist or has no `storeName` store. Rejects with the open's error, or a `TimeoutError` after
// `timeoutMs` (an open without a version waits only when queued behind another context's blocked
// upgrade; it stays queued, and its connection is kept for a later operation). A database found
// missing is taken as missing for `recheckMs`.
/**
 * @param {LegacyState} state @param {IDBFactory} factory @param {string} name @param {string} storeName
 * @param {number} timeoutMs @param {number} recheckMs @returns {Promise<IDBDatabase | null>}
 */
export async function mcpLegacyOpen(state, factory, name, storeName, timeoutMs, recheckMs) {
  if (!state.open) {
    if (state.db) return legacyTake(state);
    // Never found missing: `undefined` makes NaN, which is no recent absence.
    const since = Date.now() - /** @type {number} */ (state.absentAt);
    if (since >= 0 && since < recheckMs) return null;
    if ((await legacyListed(factory, name)) === false) {
      state.absentAt = Date.now();
      return null;
    }
    if (state.db) return legacyTake(state); // arrived during that wait
    state.open ??= legacyStart(state, factory, name, storeName);
  }
  state.waiting += 1;
  let timer;
  // Timers exist wherever IndexedDB does (windows and workers).
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  const outcome = await Promise.race([state.open, late]);
  clearTimeout(timer);
  state.waiting -= 1;
  if (!outcome) {
    throw Object.assign(new Error("still waiting behind another context's version change"), { name: 'TimeoutError' });
  }
  if (outcome.error) throw outcome.error;
  return outcome.db ?? null;
}

/** @param {LegacyState} state */
function legacyTake(state) {
  const db = state.db;
  state.db = null;
  return db;
}

// Whether `indexedDB.databases()` lists `name`; `undefined` where the method is missing or fails
// (the open itself then decides).
/** @param {IDBFactory} factory @param {string} name */
async function legacyListed(factory, name) {
  try {
    return (await factory.databases()).some((info) => info.name === name);
  } catch {
    return undefined;
  }
}

// Opens `name` without a version: an existing database opens at its version and never waits for
// other connections. `upgradeneeded` then means it did not exist: the upgrade is aborted, so the
// open fails with `AbortError` and nothing is created.
/** @param {LegacyState} state @param {IDBFactory} factory @param {string} name @param {string} storeName @returns {Promise<LegacyOutcome>} */
function legacyStart(state, factory, name, storeName) {
  const request = factory.open(name);
  let created = false;
  request.onupgradeneeded = () => {
    created = true;
    request.transaction?.abort();
  };
  return new Promise((settle) => {
    request.onsuccess = request.onerror = (/** @type {Event} */ event) => {
      request.onupgradeneeded = request.onsuccess = request.onerror = null;
      state.open = null;
      const db = event.type === 'success' && !created ? request.result : null;
      if (!db || !db.objectStoreNames.contains(storeName)) {
        db?.close();
        if (db || created) {
          state.absentAt = Date.now();
          return settle({ absent: true });
        }
        return settle({ error: request.error ?? Object.assign(new Error('request failed'), { name: 'UnknownError' }) });
      }
      state.absentAt = undefined;
      // Closed when another context needs it gone, until Rust keeps it (its own handler then
      // replaces this one) or if it never does (every waiting operation was dropped).
      db.onversionchange = db.onclose = () => {
        db.close();
        if (state.db === db) state.db = null;
      };
      if (state.waiting > 0) return settle({ db });
      // Every operation gave up waiting: keep it for the next one, or close it at once when the
      // reader is gone.
      if (state.gone || state.db) db.close();
      else state.db = db;
      settle({ absent: false });
    };
  });
}
