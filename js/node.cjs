'use strict';
// Node entry (CommonJS). The nodejs build of the wasm initializes synchronously on require, so
// every export works immediately; `ready()` exists for symmetry with the browser entry.
// Nothing here touches IndexedDB: storage is chosen when a cache is first used.
const wasm = require('../pkg/node/mcp_result_cache.js');

// The constants, written from the Rust ones by the build (scripts/constants.mjs).
const constants = require('../pkg/constants.cjs');
// `augmentTools`, plain JS: written from js/src/augment.mjs by the build (scripts/node-entries.mjs).
const { augmentTools } = require('../pkg/augment.cjs');
// `referencesOf`, plain JS: written from js/references.mjs by the build (scripts/node-entries.mjs).
const { referencesOf } = require('../pkg/references.cjs');
// `cacheRoute`, the web-standard handler serving entries to the page: written from
// js/cache-route.mjs by the build (scripts/node-entries.mjs); references are checked by the
// cache's own parser.
const cacheRoute = require('../pkg/cache-route.cjs').makeCacheRoute(wasm.parseCacheUri);

// The free functions over a default cache and the `cacheTools` loader, shared with the browser
// entry: written from js/src/defaults.mjs by the build (scripts/node-entries.mjs).
const defaults = require('../pkg/defaults.cjs');
const { cacheToolsLoader, makeDefaultCacheWith, ...free } = defaults;

// The flow policy and its `blocked` events, kept in JS (js/src/cache-flows.mjs, shared with the
// browser entry): written from it by the build (scripts/node-entries.mjs).
const { cacheFlows } = /** @type {typeof import('./src/cache-flows.mjs')} */ (require('../pkg/cache-flows.cjs'));

/** Where OpenTelemetry's API 1.x keeps what a host registered (js/telemetry.mjs reads it too). */
const OTEL_API_KEY = Symbol.for('opentelemetry.js.api.1');
/** Most recent writes whose sizes a cache remembers for telemetry. */
const MAX_REMEMBERED_WRITES = 256;

/**
 * The options a Node cache is made with, and the sizes of its recent writes (`storedBytes(uri)`,
 * the `mcp_result_cache.stored.bytes` of a call's span, js/telemetry.mjs): when the host observes
 * events anyway (`onEvent`) or OpenTelemetry is registered, the cache's observer is a tap that
 * remembers each `write` event's `sizeBytes`, then calls the host's. Neither: the options as
 * given (the cache builds no events). An `onEvent` that cannot be read is left to `cacheFlows`.
 * @param {unknown} options
 */
function writeSizes(options) {
  /** @type {Map<string, number>} */
  const writes = new Map();
  const storedBytes = (/** @type {string} */ uri) => writes.get(uri);
  /** @type {unknown} */
  let onEvent;
  try {
    onEvent = /** @type {{ onEvent?: unknown } | null | undefined} */ (options)?.onEvent;
  } catch {
    return { options, storedBytes };
  }
  const otel = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis))[OTEL_API_KEY];
  if (options === null || typeof options !== 'object' || (typeof onEvent !== 'function' && !otel)) return { options, storedBytes };
  /** @param {{ kind?: unknown, uri?: unknown, sizeBytes?: unknown }} event */
  const tap = (event) => {
    if (event?.kind === 'write' && typeof event.uri === 'string' && typeof event.sizeBytes === 'number') {
      if (writes.set(event.uri, event.sizeBytes).size > MAX_REMEMBERED_WRITES) writes.delete(/** @type {string} */ (writes.keys().next().value));
    }
    if (typeof onEvent === 'function') onEvent.call(null, event);
  };
  return { options: new Proxy(options, { get: (target, key) => (key === 'onEvent' ? tap : Reflect.get(target, key)) }), storedBytes };
}

/**
 * A result cache: the WebAssembly class with its flow policy, which the integrations apply in
 * JS (`flows`, `reportBlockedFlow`; `flows` is checked before any other option), and its
 * subscribers (`subscribe`).
 */
class ResultCache extends wasm.ResultCache {
  /** @type {ReturnType<typeof cacheFlows>} */
  #flows;

  /** The recent writes' sizes, for telemetry (see `writeSizes`). @type {(uri: string) => number | undefined} */
  #storedBytes;
  /** The options as given (`storage` and `dbName` make the consume-once records). @type {unknown} */
  #given;

  /** @param {unknown} options the caller's, checked here (`flows`) and by the WebAssembly constructor */
  constructor(options) {
    const sizes = writeSizes(options);
    // `this` is read only after construction (by an invalidation's change), and held weakly: the
    // event observer lives as long as the WebAssembly object, which lives as long as this one,
    // so a strong `this` there would keep both for good.
    /** @type {{ self?: WeakRef<ResultCache> }} */
    const held = {};
    const flows = cacheFlows(sizes.options, () => /** @type {ResultCache} */ (held.self?.deref()));
    super(flows.options);
    held.self = new WeakRef(this);
    this.#flows = flows;
    this.#storedBytes = sizes.storedBytes;
    this.#given = options;
  }

  /**
   * Deletes every entry of this conversation (the WebAssembly method), telling `subscribe`'s
   * listeners which references went.
   * @param {unknown} convId
   */
  clearConversation(convId) {
    return this.#flows.clear(convId, { entries: (o) => super.entries(o), clearConversation: (c) => super.clearConversation(c) });
  }

  /**
   * Calls `listener` with every later change of this cache (`{ kind, convId, uris }`); answers
   * the function that stops it.
   * @param {unknown} listener
   */
  subscribe(listener) {
    return this.#flows.subscribe(listener);
  }

  /** The `flows` option: an object as a frozen copy made by the constructor; `"any"` when absent. */
  get flows() {
    return this.#flows.flows;
  }

  /** Reports a flow the policy refused to `onEvent` as a `blocked` event. @param {unknown} flow */
  reportBlockedFlow(flow) {
    this.#flows.report(flow);
  }

  /**
   * `true` the first time `key` is consumed within `ttlMs` ms, `false` after, in this cache's
   * storage (js/consume-once.mjs, loaded on the first call). @param {string} key @param {number} ttlMs
   */
  async consumeOnce(key, ttlMs) {
    this.#consumed = true;
    const { consumeOnceFor } = await import('./consume-once.mjs');
    return consumeOnceFor(this, this.storage, this.#given, key, ttlMs);
  }

  /** Whether `consumeOnce` was called (its records then have a connection to close). */
  #consumed = false;

  close() {
    if (this.#consumed) import('./consume-once.mjs').then((m) => m.closeRecords(this), () => {});
    super.close();
  }

  /** The stored size of a recent write, for telemetry (js/telemetry.mjs). @param {string} uri */
  [Symbol.for('mcp-result-cache.storedBytes')](uri) {
    return this.#storedBytes(uri);
  }
}

// `warmUp()`: the code of a first tool result run once, in a scratch cache (js/warm-up.mjs,
// shared with the browser entry; written from it by the build).
const { warmUp: warmUpWith } = /** @type {typeof import('./warm-up.mjs')} */ (require('../pkg/warm-up.cjs'));
/** @param {unknown} [options] the options of the cache to warm up (its database is touched too) */
const warmUp = (options) => warmUpWith((o) => new ResultCache(o), options);

// One ResultCache with default options (or configureDefaultCache's), created on first use.
makeDefaultCacheWith((options) => new ResultCache(options));

/**
 * The read-back tools over `cache` for one conversation, shaped like an MCP client (see
 * js/readback.mjs, an ES module, and docs/READ-BACK.md), loaded on first call.
 */
const cacheTools = cacheToolsLoader(() => import('./readback.mjs'));

// The constants, the nodejs build's #[wasm_bindgen] API re-exported whole, the free functions
// and cacheTools.
module.exports = {
  ...constants,
  ready: () => Promise.resolve(),
  ...wasm,
  ResultCache,
  warmUp,
  augmentTools,
  referencesOf,
  cacheRoute,
  cacheTools,
  ...free,
};
