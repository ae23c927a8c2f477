'use strict';
// Node entry (CommonJS). The nodejs build of the wasm initializes synchronously on require, so
// every export works immediately; `ready()` exists for symmetry with the browser entry.
// Nothing here touches IndexedDB: storage is chosen when a cache is first used.
const wasm = require('../pkg/node/mcp_result_cache.js');

/** @type {"mcp+cache://"} */
const CACHE_URI_SCHEME = 'mcp+cache://';
const DEFAULT_CACHE_THRESHOLD_BYTES = 4096;
const DEFAULT_MAX_TOOL_RESULT_CHARS = 20000;
const INLINE_LIST_MAX_RECORDS = 20;

// The nodejs build exports exactly the #[wasm_bindgen] API, so it is re-exported whole.
module.exports = {
  CACHE_URI_SCHEME,
  DEFAULT_CACHE_THRESHOLD_BYTES,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  INLINE_LIST_MAX_RECORDS,
  ready: () => Promise.resolve(),
  ...wasm,
};
