// Browser / worker / bundler entry (ES module) for chat hosts. The server-side State-Sync
// decoration (`StateSync`, `detectOverlaps`, …) is `mcp-result-cache/server` (pkg/server.mjs),
// and the SEP-2549 list-result cache (`ListCache`, `matchUriTemplate`) is
// `mcp-result-cache/lists` (pkg/lists.mjs): separate modules a host downloads only if it uses them.
//
// The WebAssembly module is fetched and instantiated once, on first need: every async export
// awaits that shared initialization, so hosts never call an init function. Synchronous helpers
// need it done: `await ready()` once at startup (they throw a clear error before that).
// Importing this module has no side effects: no fetch, no IndexedDB access (SSR-safe).
// @ts-expect-error the glue's `init` is left out of pkg/web's declarations (scripts/build.sh): it is bundled, never exported
import init, * as wasm from '../../pkg/web/mcp_result_cache.js';
import { lazyModule, memoizedMatchGlob } from './wasm-entry.mjs';
import { cacheToolsLoader, makeDefaultCacheWith } from './defaults.mjs';
import { cacheFlows } from './cache-flows.mjs';

// The constants, written from the Rust ones by the build (scripts/constants.mjs, into pkg/).
export * from '../../pkg/constants.mjs';
// Plain JS over the caller's tool objects: works before `ready()`.
export { augmentTools } from './augment.mjs';
// Plain JS over a tool output: works before `ready()`.
export { referencesOf } from '../references.mjs';

const lazy = lazyModule(init);

/** Resolves once the WebAssembly module is ready; idempotent. */
export const ready = lazy.ready;
const requireReady = lazy.requireReady;

// Cold start: a cache's first operation needs the WebAssembly module, so constructing a cache
// starts the module's fetch and compilation (`startEarly`), before any operation is called.

/**
 * An operation that waits for an earlier one (of any cache) to reach its instance, or for its
 * own cache's instance (`ResultCache#call`).
 * @typedef {{ cache: ResultCache, use: (inner: wasm.ResultCache) => unknown, resolve: (value: unknown) => void, reject: (error: unknown) => void }} Waiting
 */
/** The operations waiting, in call order. @type {Waiting[]} */
const waiting = [];

/** Starts the module's fetch and compilation; a failure is reported by the operation that awaits it. */
const startEarly = () => {
  ready().catch(() => {});
};

export const hasIndexedDB = () => typeof globalThis.indexedDB === 'object' && globalThis.indexedDB !== null;
// Each export is handed over on its own, never the module namespace: a bundle then needs no
// namespace object.
export const sanitizeConvId = lazy.syncExport(wasm.sanitizeConvId, 'sanitizeConvId');
export const mintCacheUri = lazy.syncExport(wasm.mintCacheUri, 'mintCacheUri');
export const parseCacheUri = lazy.syncExport(wasm.parseCacheUri, 'parseCacheUri');
export const estimateSize = lazy.syncExport(wasm.estimateSize, 'estimateSize');
export const checkInlineListCap = lazy.syncExport(wasm.checkInlineListCap, 'checkInlineListCap');
export const parseCacheControl = lazy.syncExport(wasm.parseCacheControl, 'parseCacheControl');
export const parseInvalidations = lazy.syncExport(wasm.parseInvalidations, 'parseInvalidations');
export const wasmMemoryBytes = lazy.syncExport(wasm.wasmMemoryBytes, 'wasmMemoryBytes');

/** `matchGlob(pattern, name, { separator }?)` (memoized; see the wasm export for semantics). */
export const matchGlob = memoizedMatchGlob(lazy, wasm.matchGlob);

// js/readback.mjs, its own module (scripts/web-glue.mjs bundles it into pkg/readback.mjs and
// points this bundle, pkg/browser.mjs, at it).
export const cacheTools = cacheToolsLoader(() => import('../readback.mjs'));

/**
 * Runs the code of a first tool result once, at startup, in a scratch cache (a database of its
 * own, deleted after), and with `options` (the host cache's) one read-write transaction that
 * changes nothing on that cache's database: the first `afterToolCall` then costs about what
 * later ones do. Awaits `ready()` (a module that failed to load leaves the warm-up to a later
 * call), then loads js/warm-up.mjs (its own module, bundled into pkg/warm-up.mjs next to this
 * one: a page that never warms up never downloads it). Never rejects for a failed warm-up (a module that failed to load is
 * reported by the calls that need it); a malformed `options` is a `TypeError`.
 */
export const warmUp = (/** @type {unknown} */ options) => ready()
  .then(() => import('../warm-up.mjs'))
  .then((/** @type {typeof import('../warm-up.mjs')} */ m) => m.warmUp(create, options), () => {});

/**
 * A new `ResultCache` (the warm-up's scratch caches, the default cache), typed as the WebAssembly
 * class whose methods the static block below installs on it (TypeScript cannot see them). The
 * options are the caller's, as given: the constructor checks them.
 * @param {unknown} options
 */
const create = (options) => /** @type {wasm.ResultCache} */ (/** @type {unknown} */ (new ResultCache(/** @type {wasm.ResultCacheOptions | undefined} */ (options))));

// The free functions over one ResultCache, made on first use (js/src/defaults.mjs); the cache of
// configureDefaultCache is made at the call, and the call resolves once the module is ready and
// its options validated (reading `threshold` makes the WebAssembly instance).
// The methods are defined from the WebAssembly class's (below); js/index.d.ts types them.
makeDefaultCacheWith(create, async (cache) => {
  await ready();
  return /** @type {wasm.ResultCache} */ (cache).threshold;
});
export {
  configureDefaultCache, cacheToolResult, readCachedPayload, lookup, clearConversation, evictOlderThan, substituteCacheUris,
  beforeToolCall, afterToolCall,
} from './defaults.mjs';

/**
 * The WebAssembly instance's members by name (the static block of `ResultCache` offers each).
 * @typedef {Record<string, (...args: unknown[]) => unknown>} Members
 */

/** The one method of `ResultCache` that answers at once (it needs `await ready()` first). */
const SYNC_METHOD = 'observeTools';

/**
 * A result cache. Constructing one never waits: the WebAssembly instance behind it is created
 * on first use (options are validated then, or at once when `ready()` has resolved).
 */
export class ResultCache {
  /** @type {wasm.ResultCacheOptions | undefined} the caller's options, checked by the WebAssembly constructor */
  #options;
  /** @type {wasm.ResultCache | null} */
  #inner = null;

  /** @type {ReturnType<typeof cacheFlows>} the flow policy and its reporter, in JS */
  #flows;

  constructor(/** @type {wasm.ResultCacheOptions | undefined} */ options) {
    // Held weakly: the event observer lives in the WebAssembly object, kept by this one.
    const self = new WeakRef(this);
    this.#flows = cacheFlows(options, () => /** @type {{ entries: import('./cache-flows.mjs').ListEntries }} */ (/** @type {unknown} */ (self.deref())));
    options = this.#flows.options;
    this.#options = options;
    if (lazy.initialized) this.#inner = new wasm.ResultCache(options);
    else startEarly();
  }

  /**
   * `use(instance)`, called once every operation called before it, on any cache of this module,
   * has reached its instance: the operations take their place in call order there (see
   * docs/ARCHITECTURE.md) in the order they were called, across caches, before and after the
   * module or a cache's instance is ready alike. At once when nothing waits; else in the run
   * that finds the instance ready, with every later one ready too (writes called together still
   * share a transaction). Resolves what `use` answers.
   * @template T @param {(inner: wasm.ResultCache) => T} use @returns {Promise<Awaited<T>>}
   */
  #call(use) {
    return new Promise((resolve, reject) => {
      if (waiting.push({ cache: this, use, resolve: /** @type {(value: unknown) => void} */ (resolve), reject }) === 1) ResultCache.#drain();
    });
  }

  /**
   * Hands the waiting operations to their instances, in call order: at once while the
   * instances are ready (in one run: writes called together still share a transaction), else
   * once the first one's is. Runs while operations wait; one drain at a time.
   */
  static async #drain() {
    while (waiting.length) {
      const { cache, use, resolve, reject } = waiting[0];
      try {
        if (!cache.#inner) {
          // Made once the module is ready (a failed fetch or bad options: rejected, and the
          // cache's next operation tries again).
          await ready();
          cache.#inner ??= new wasm.ResultCache(cache.#options);
        }
        resolve(use(cache.#inner));
      } catch (error) {
        reject(error);
      }
      waiting.shift();
    }
  }

  /** @param {string} name @returns {Members} */
  #sync(name) {
    requireReady(`ResultCache#${name}`);
    if (!this.#inner) this.#inner = new wasm.ResultCache(this.#options);
    return /** @type {Members} */ (/** @type {unknown} */ (this.#inner));
  }

  close() {
    this.#inner?.close();
  }
  /** The `flows` option (checked at once): an object as a frozen copy made then; `"any"` when absent. */
  get flows() {
    return this.#flows.flows;
  }

  /** Reports a flow the policy refused to `onEvent` as a `blocked` event (needs no `ready()`). @param {unknown} flow */
  reportBlockedFlow(flow) {
    this.#flows.report(flow);
  }

  /** Calls `listener` with every later change of this cache; answers the function that stops it. @param {unknown} listener */
  subscribe(listener) {
    return this.#flows.subscribe(listener);
  }

  /** The WebAssembly method, telling `subscribe`'s listeners which references went. @param {unknown} convId */
  clearConversation(convId) {
    return this.#call((inner) => this.#flows.clear(convId, inner));
  }

  free() {
    this.#inner?.close();
    this.#inner?.free();
    this.#inner = null;
  }

  // Every method and getter of the WebAssembly class is offered here, so a method added in Rust
  // needs no line in this file: the synchronous ones (getters and SYNC_METHOD) need the module
  // ready; every other method returns a promise and awaits the shared instance first.
  static {
    const own = wasm.ResultCache.prototype;
    for (const name of Object.getOwnPropertyNames(own)) {
      if (name === 'constructor' || name.startsWith('__') || Object.hasOwn(ResultCache.prototype, name)) continue;
      const { get, value } = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(own, name));
      /** @type {PropertyDescriptor & ThisType<ResultCache>} */
      const property = get
        ? { get() { return this.#sync(name)[name]; } }
        : name === SYNC_METHOD
          ? { value(/** @type {unknown[]} */ ...args) { return this.#sync(name)[name](...args); }, writable: true }
          : { value(/** @type {unknown[]} */ ...args) { return this.#call((inner) => /** @type {Members} */ (/** @type {unknown} */ (inner))[name](...args)); }, writable: true };
      if (get || typeof value === 'function') Object.defineProperty(ResultCache.prototype, name, { ...property, configurable: true });
    }
  }
}

if (typeof Symbol.dispose === 'symbol') /** @type {{ [Symbol.dispose]?: () => void }} */ (ResultCache.prototype)[Symbol.dispose] = ResultCache.prototype.free;
