// Browser / worker / bundler entry (ES module) for chat hosts. The server-side State-Sync
// decoration (`StateSync`, `detectOverlaps`, …) is `mcp-result-cache/server` (js/server.mjs),
// and the SEP-2549 list-result cache (`ListCache`, `matchUriTemplate`) is
// `mcp-result-cache/lists` (js/lists.mjs): separate modules a host downloads only if it uses them.
//
// The WebAssembly module is fetched and instantiated once, on first need: every async export
// awaits that shared initialization, so hosts never call an init function. Synchronous helpers
// need it done: `await ready()` once at startup (they throw a clear error before that).
// Importing this module has no side effects: no fetch, no IndexedDB access (SSR-safe).
import init, * as wasm from '../../pkg/web/mcp_result_cache.js';
import { lazyModule, memoizedMatchGlob } from './wasm-entry.mjs';

// The constants, written from the Rust ones by the build (scripts/constants.mjs).
export * from './constants.mjs';
// Plain JS over the caller's tool objects: works before `ready()`.
export { augmentTools } from './augment.mjs';

const lazy = lazyModule(init);

/** Resolves once the WebAssembly module is ready; idempotent. */
export const ready = lazy.ready;
const requireReady = lazy.requireReady;

const syncExport = (name) => lazy.syncExport(wasm, name);

// Cold start: a cache's first operation needs both the WebAssembly module and the browser's
// IndexedDB backend for this origin, and each takes milliseconds to start. `warmUp` starts both
// at once, before the module is ready: the module's fetch and compilation, and a version-less
// open of the database that only wakes the backend. It never creates a database (a creation is
// aborted in `upgradeneeded`, so the cache's own open creates it with the full schema) and never
// upgrades one; it is closed as soon as it opens. The cache's own open waits for it to settle,
// so the two never meet.
const DEFAULT_DB_NAME = 'mcp-result-cache';
const warmups = new Map();

function warmUp(options) {
  let dbName = DEFAULT_DB_NAME;
  try {
    // Only plain data properties are looked at here: no getter runs twice.
    const own = (key) => (options != null && typeof options === 'object' ? Object.getOwnPropertyDescriptor(options, key)?.value : undefined);
    if (own('storage') === 'memory') return undefined;
    if (typeof own('dbName') === 'string') dbName = own('dbName');
  } catch {
    return undefined; // an unreadable options object is reported by the cache itself
  }
  ready().catch(() => {}); // a failure is reported by the operation that awaits it
  if (!warmups.has(dbName)) warmups.set(dbName, peek(dbName));
  return warmups.get(dbName);
}

/** Opens `dbName` without a version and closes it; resolves when that is over, whatever happened. */
function peek(dbName) {
  if (!hasIndexedDB()) return undefined;
  return new Promise((settle) => {
    try {
      const request = indexedDB.open(dbName);
      request.onupgradeneeded = () => request.transaction.abort();
      request.onsuccess = () => {
        request.result.close();
        settle();
      };
      request.onerror = (event) => {
        event.preventDefault();
        settle();
      };
    } catch {
      settle(); // no usable IndexedDB here: the cache chooses its storage itself
    }
  });
}

export const hasIndexedDB = () => typeof globalThis.indexedDB === 'object' && globalThis.indexedDB !== null;
export const sanitizeConvId = syncExport('sanitizeConvId');
export const mintCacheUri = syncExport('mintCacheUri');
export const parseCacheUri = syncExport('parseCacheUri');
export const estimateSize = syncExport('estimateSize');
export const checkInlineListCap = syncExport('checkInlineListCap');
export const parseCacheControl = syncExport('parseCacheControl');
export const parseInvalidations = syncExport('parseInvalidations');
export const wasmMemoryBytes = syncExport('wasmMemoryBytes');

/** `matchGlob(pattern, name, { separator }?)` (memoized; see the wasm export for semantics). */
export const matchGlob = memoizedMatchGlob(lazy, wasm);

/**
 * The read-back tools over `cache` for one conversation, shaped like an MCP client (see
 * js/readback.mjs and docs/READ-BACK.md). That module is loaded on first call, so hosts that
 * never offer the tools never download it; bad options reject the first `listTools`/`callTool`.
 */
export function cacheTools(cache, options) {
  // js/readback.mjs, next to the bundle this file becomes (scripts/web-glue.mjs keeps it external).
  const tools = import('./readback.mjs').then((m) => m.cacheTools(cache, options));
  tools.catch(() => {}); // reported by the first call
  return { listTools: async (...a) => (await tools).listTools(...a), callTool: async (...a) => (await tools).callTool(...a) };
}

// The free functions: one ResultCache with default options (or configureDefaultCache's),
// created on first use — never at import time.
let defaultCache = null;
let defaultInUse = false;
const theDefault = () => {
  defaultInUse = true;
  return (defaultCache ??= new ResultCache());
};
const inUseError = () =>
  Object.assign(
    new Error('configureDefaultCache() must run before the first use of the free functions (cacheToolResult, readCachedPayload, beforeToolCall, …); create a ResultCache instead'),
    { name: 'InvalidStateError' },
  );

/** Sets the options of the cache behind the free functions (see the `.d.ts`). */
export async function configureDefaultCache(options) {
  if (defaultInUse) throw inUseError();
  await Promise.all([ready(), warmUp(options)]);
  // The module is ready: the options are validated now (a TypeError rejects this call).
  const cache = new ResultCache(options);
  if (defaultInUse) throw inUseError();
  defaultCache = cache;
}
export const cacheToolResult = (input) => theDefault().cacheToolResult(input);
export const readCachedPayload = (uri, options) => theDefault().readCachedPayload(uri, options);
export const lookup = (uri, options) => theDefault().lookup(uri, options);
export const clearConversation = (convId) => theDefault().clearConversation(convId);
export const evictOlderThan = (options) => theDefault().evictOlderThan(options);
export const substituteCacheUris = (args, options) => theDefault().substituteCacheUris(args, options);
export const beforeToolCall = (toolName, args, options) => theDefault().beforeToolCall(toolName, args, options);
export const afterToolCall = (toolName, result, options) => theDefault().afterToolCall(toolName, result, options);

/** The methods of `ResultCache` that answer at once (they need `await ready()` first). */
const SYNC_METHODS = new Set(['observeTools', 'reportBlockedFlow']);

/**
 * A result cache. Constructing one never waits: the WebAssembly instance behind it is created
 * on first use (options are validated then, or at once when `ready()` has resolved).
 */
export class ResultCache {
  #options;
  #inner = null;
  #warm;

  constructor(options) {
    this.#options = options;
    if (lazy.initialized) this.#inner = new wasm.ResultCache(options);
    else this.#warm = warmUp(options);
  }

  #pending = null;

  // Every async method awaits this one promise: its continuations run in the order the methods
  // were called, so the operations reach the cache (and take their place in call order, see
  // docs/ARCHITECTURE.md) in that order too, before and after the module is ready alike.
  #cache() {
    return (this.#pending ??= (async () => {
      if (!this.#inner) {
        await Promise.all([ready(), this.#warm]);
        this.#inner ??= new wasm.ResultCache(this.#options);
      }
      return this.#inner;
    })().catch((error) => {
      this.#pending = null; // a failed fetch or bad options: the next call tries again
      throw error;
    }));
  }

  #sync(name) {
    requireReady(`ResultCache#${name}`);
    if (!this.#inner) this.#inner = new wasm.ResultCache(this.#options);
    return this.#inner;
  }

  close() {
    this.#inner?.close();
  }
  free() {
    this.#inner?.close();
    this.#inner?.free();
    this.#inner = null;
    this.#pending = null;
  }

  // Every method and getter of the WebAssembly class is offered here, so a method added in Rust
  // needs no line in this file: the synchronous ones (getters and SYNC_METHODS) need the module
  // ready; every other method returns a promise and awaits the shared instance first.
  static {
    const own = wasm.ResultCache.prototype;
    for (const name of Object.getOwnPropertyNames(own)) {
      if (name === 'constructor' || name.startsWith('__') || Object.hasOwn(ResultCache.prototype, name)) continue;
      const { get, value } = Object.getOwnPropertyDescriptor(own, name);
      const property = get
        ? { get() { return this.#sync(name)[name]; } }
        : SYNC_METHODS.has(name)
          ? { value(...args) { return this.#sync(name)[name](...args); }, writable: true }
          : { async value(...args) { return (await this.#cache())[name](...args); }, writable: true };
      if (get || typeof value === 'function') Object.defineProperty(ResultCache.prototype, name, { ...property, configurable: true });
    }
  }
}

if (typeof Symbol.dispose === 'symbol') ResultCache.prototype[Symbol.dispose] = ResultCache.prototype.free;
