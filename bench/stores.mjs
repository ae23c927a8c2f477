// The stores of the store-size workloads (bench/bench.mjs), one per implementation: a store is
// one database (or, for the peer, conversations in its one database) written, read, refilled,
// cleared, counted and closed through the same calls (`BenchStore`), so a workload measures the
// same operation on each. Runs in the browser.
import { JsBaselineCache, estimateSize as baselineSize, openDb as openBaselineDb } from './js-baseline.mjs';
import { answered, committed, countRecords, txDone } from './idb.mjs';

/** @typedef {import('./bench.mjs').OursCache} OursCache */
/** @typedef {import('./bench.mjs').PeerCache} PeerCache */
/** @typedef {import('./bench.mjs').Payload} Payload */
/** @typedef {import('./bench.mjs').FloorRecord} FloorRecord */
/**
 * A store of the store-size workloads: one database (or, for the peer, conversations in its
 * one database) written, read, refilled, cleared and counted.
 * @typedef {{
 *   name: string, peer?: boolean, write: (payload: Payload, convId: string) => Promise<string>, read: (uri: string) => Promise<unknown>,
 *   fill?: (convId: string, count: number) => Promise<void>, clear: (convId: string) => Promise<unknown>, count: () => Promise<number>,
 *   close: () => void | Promise<void>,
 * }} BenchStore
 */

// The keys of the floor's records, unique across its stores.
let floorToken = 0;
/**
 * What opens a store, by implementation (`ours`, `js-baseline`, `peer`, `floor`): each call opens
 * a new one named `name`. `four` is the payload refills write; `peer` and `peerDb` are the peer's
 * module and the bench's own connection to its database (both `null` without the peer).
 * @param {{ ours: typeof import('../pkg/browser.mjs'), oursOptions: Record<string, unknown>, peer: PeerCache | null, peerDb: IDBDatabase | null, four: Payload }} options
 * @returns {Record<string, (name: string) => Promise<BenchStore>>}
 */
export function storeOpeners({ ours, oursOptions, peer, peerDb, four }) {
  return {
    ours: async (name) => {
      const cache = /** @type {OursCache} */ (/** @type {unknown} */ (new ours.ResultCache({ dbName: name, ...oursOptions })));
      return {
        name,
        write: (payload, convId) => cacheOrThrow(() => cache.cacheToolResult({ payload, convId })),
        read: (uri) => cache.readCachedPayload(uri),
        clear: (convId) => cache.clearConversation(convId),
        count: async () => (await cache.stats()).entries,
        close: () => { cache.close(); cache.free(); },
      };
    },
    'js-baseline': async (name) => {
      const cache = new JsBaselineCache(name, 0);
      return {
        name,
        write: (payload, convId) => cacheOrThrow(() => cache.cacheToolResult({ payload, convId })),
        read: (uri) => cache.readCachedPayload(uri),
        // Untimed refills: the records cacheToolResult writes, put in one transaction.
        async fill(convId, count) {
          await cache.readCachedPayload('mcp+cache://x/y'); // opens the connection
          const tx = /** @type {IDBDatabase} */ (cache.db).transaction('results', 'readwrite');
          const sizeBytes = baselineSize(four);
          for (let i = 0; i < count; i++) {
            tx.objectStore('results').put({ uri: `mcp+cache://${convId}/${randomToken()}`, payload: four, convId, sourceToolName: '<unknown>', addedAt: Date.now(), sizeBytes });
          }
          await txDone(tx);
        },
        clear: (convId) => cache.clearConversation(convId),
        count: async () => { await cache.readCachedPayload('mcp+cache://x/y'); return countRecords(/** @type {IDBDatabase} */ (cache.db)); },
        close: () => cache.close(),
      };
    },
    // The peer's one database: a store here is a set of conversations in it, cleared when disposed
    // (the peer keeps its connection open, so its database is never deleted during the run).
    peer: async (name) => {
      // Called only for the peer column, which exists only with the peer loaded.
      if (!peer || !peerDb) throw new Error('bench: a peer store without the peer (no ?peer=)');
      /** @type {Set<string>} */
      const convs = new Set();
      return {
        name,
        peer: true,
        write: (payload, convId) => { convs.add(convId); return cacheOrThrow(() => peer.cacheToolResult({ payload, convId, threshold: 0 })); },
        read: (uri) => peer.readCachedPayload(uri),
        // Untimed refills: the records the peer's cacheToolResult writes, put in one transaction.
        async fill(convId, count) {
          convs.add(convId);
          const tx = peerDb.transaction('results', 'readwrite');
          const sizeBytes = peer.estimateSize(four);
          for (let i = 0; i < count; i++) {
            tx.objectStore('results').put({ uri: peer.mintCacheUri(convId), payload: four, convId, sourceToolName: '<unknown>', addedAt: Date.now(), sizeBytes });
          }
          await txDone(tx);
        },
        clear: (convId) => peer.clearConversation(convId),
        count: () => countRecords(peerDb),
        close: async () => { for (const c of convs) await peer.clearConversation(c); },
      };
    },
    // The key-range floor: raw IndexedDB on the JS module's own schema (same records, keys and
    // indexes `convId`, `addedAt`); a conversation is cleared with one range delete.
    floor: async (name) => {
      const db = await openBaselineDb(name);
      /** @param {unknown} payload @param {string} convId */
      const record = (payload, convId) => ({ uri: `mcp+cache://${convId}/f${floorToken++}`, payload, convId, addedAt: Date.now(), sizeBytes: 0 });
      return {
        name,
        async write(payload, convId) {
          const tx = db.transaction('results', 'readwrite', { durability: 'relaxed' });
          const r = record(payload, convId);
          tx.objectStore('results').put(r);
          await committed(tx);
          return r.uri;
        },
        async read(uri) {
          const tx = db.transaction('results', 'readonly');
          return /** @type {FloorRecord} */ (await answered(tx.objectStore('results').get(uri))).payload;
        },
        async fill(convId, count) {
          const tx = db.transaction('results', 'readwrite', { durability: 'relaxed' });
          for (let i = 0; i < count; i++) tx.objectStore('results').put(record(four, convId));
          await txDone(tx);
        },
        async clear(convId) {
          const tx = db.transaction('results', 'readwrite', { durability: 'relaxed' });
          tx.objectStore('results').delete(IDBKeyRange.bound(`mcp+cache://${convId}/`, `mcp+cache://${convId}0`, false, true));
          await txDone(tx);
        },
        count: () => countRecords(db),
        close: () => db.close(),
      };
    },
  };
}
function randomToken() {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(8)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
/** @param {() => Promise<unknown>} write @returns {Promise<string>} */
async function cacheOrThrow(write) {
  const uri = await write();
  if (typeof uri !== 'string') throw new Error(`write not cached: ${uri}`);
  return uri;
}
