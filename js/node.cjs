'use strict';
// Node entry (CommonJS). The nodejs build of the wasm initializes synchronously on require, so
// every export works immediately; `ready()` exists for symmetry with the browser entry.
// Nothing here touches IndexedDB: storage is chosen when a cache is first used.
const wasm = require('../pkg/node/mcp_result_cache.js');

// The constants, written from the Rust ones by the build (scripts/constants.mjs).
const constants = require('./constants.cjs');
// `augmentTools`, plain JS: written from js/src/augment.mjs by the build (scripts/node-entries.mjs).
const { augmentTools } = require('./augment.cjs');

// The free functions: one ResultCache with default options (or configureDefaultCache's),
// created on first use.
let defaultCache = null;
let defaultInUse = false;
const theDefault = () => {
  defaultInUse = true;
  return (defaultCache ??= new wasm.ResultCache());
};
const inUseError = () =>
  Object.assign(
    new Error('configureDefaultCache() must run before the first use of the free functions (cacheToolResult, readCachedPayload, beforeToolCall, …); create a ResultCache instead'),
    { name: 'InvalidStateError' },
  );

/**
 * The read-back tools over `cache` for one conversation, shaped like an MCP client (see
 * js/readback.mjs, an ES module, and docs/READ-BACK.md). That module is loaded on first call, so hosts that
 * never offer the tools never download it; bad options reject the first `listTools`/`callTool`.
 */
function cacheTools(cache, options) {
  const tools = import('./readback.mjs').then((m) => m.cacheTools(cache, options));
  tools.catch(() => {}); // reported by the first call
  return { listTools: async (...a) => (await tools).listTools(...a), callTool: async (...a) => (await tools).callTool(...a) };
}

// The constants, the nodejs build's #[wasm_bindgen] API re-exported whole, the free functions
// and cacheTools.
module.exports = {
  ...constants,
  ready: () => Promise.resolve(),
  ...wasm,
  augmentTools,
  cacheTools,
  async configureDefaultCache(options) {
    if (defaultInUse) throw inUseError();
    const cache = new wasm.ResultCache(options);
    if (defaultInUse) throw inUseError();
    defaultCache = cache;
  },
  cacheToolResult: async (input) => theDefault().cacheToolResult(input),
  readCachedPayload: async (uri, options) => theDefault().readCachedPayload(uri, options),
  lookup: async (uri, options) => theDefault().lookup(uri, options),
  clearConversation: async (convId) => theDefault().clearConversation(convId),
  evictOlderThan: async (options) => theDefault().evictOlderThan(options),
  substituteCacheUris: async (args, options) => theDefault().substituteCacheUris(args, options),
  beforeToolCall: async (toolName, args, options) => theDefault().beforeToolCall(toolName, args, options),
  afterToolCall: async (toolName, result, options) => theDefault().afterToolCall(toolName, result, options),
};
