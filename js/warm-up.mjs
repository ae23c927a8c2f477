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
 * database deleted; later calls answer the same promise. Never rejects: a warm-up that fails
 * (no storage, a quota, an `indexedDB` the page may not read) only leaves the first call as slow
 * as without it.
 * @param {(options: object) => any} create makes a `ResultCache` of the entry
 * @returns {Promise<void>}
 */
export function warmUp(create) {
  return (once ??= run(create).catch(() => {}));
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
