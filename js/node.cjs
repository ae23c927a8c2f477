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
// js/cache-route.mjs by the build (scripts/node-entries.mjs).
const { cacheRoute } = require('../pkg/cache-route.cjs');

// The free functions over a default cache and the `cacheTools` loader, shared with the browser
// entry: written from js/src/defaults.mjs by the build (scripts/node-entries.mjs).
const defaults = require('../pkg/defaults.cjs');
const { cacheToolsLoader, makeDefaultCacheWith, ...free } = defaults;

// The flow policy and its `blocked` events, kept in JS (js/src/cache-flows.mjs, shared with the
// browser entry): written from it by the build (scripts/node-entries.mjs).
const { cacheFlows } = /** @type {typeof import('./src/cache-flows.mjs')} */ (require('../pkg/cache-flows.cjs'));

// What each change of a cache is, for `subscribe`: an ES module, loaded on the first change anybody listens to.
const changes = () => import('./cache-changes.mjs');

/**
 * A result cache: the WebAssembly class with its flow policy, which the integrations apply in
 * JS (`flows`, `reportBlockedFlow`; `flows` is checked before any other option), and its
 * subscribers (`subscribe`).
 */
class ResultCache extends wasm.ResultCache {
  /** @type {ReturnType<typeof cacheFlows>} */
  #flows;

  /** @param {unknown} options the caller's, checked here (`flows`) and by the WebAssembly constructor */
  constructor(options) {
    // `this` is read only after construction (by an invalidation's change).
    const flows = cacheFlows(options, changes, () => this);
    super(flows.options);
    this.#flows = flows;
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

  /** The `flows` option as given; `"any"` when absent. */
  get flows() {
    return this.#flows.flows;
  }

  /** Reports a flow the policy refused to `onEvent` as a `blocked` event. @param {unknown} flow */
  reportBlockedFlow(flow) {
    this.#flows.report(flow);
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
