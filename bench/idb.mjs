// Raw IndexedDB as promises, for the bench's page (bench/bench.mjs, bench/stores.mjs): open a
// database of one `results` store keyed by `uri`, await a transaction or a request, delete a
// database, count a store's records. Runs in the browser; nothing here touches IndexedDB until
// called.

/**
 * Opens (creating at version 1) a database of one `results` store keyed by `uri`.
 * @param {string} name @returns {Promise<IDBDatabase>}
 */
export function idbOpen(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('results', { keyPath: 'uri' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
/** Resolves when `tx` completes; rejects when it fails or aborts. */
export const txDone = (/** @type {IDBTransaction} */ tx) => new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error); });
// The floor does what raw IndexedDB can do at best, as ours does: a write commits as soon as its
// request is issued (`commit()`), a read resolves at its request's success (a read-only
// transaction has nothing left to commit).
export const committed = (/** @type {IDBTransaction} */ tx) => { tx.commit(); return txDone(tx); };
// (A request of a transaction, never of an open: its `transaction` is set.)
/** @template T @param {IDBRequest<T>} req @returns {Promise<T>} */
export const answered = (req) => new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); /** @type {IDBTransaction} */ (req.transaction).onabort = () => reject(/** @type {IDBTransaction} */ (req.transaction).error); });
/** @param {string} name @returns {Promise<void>} */
export function deleteDb(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(name);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
  });
}
/** @param {IDBDatabase} db @returns {Promise<number>} */
export function countRecords(db) {
  return new Promise((resolve, reject) => {
    const req = db.transaction('results', 'readonly').objectStore('results').count();
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
