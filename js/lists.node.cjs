'use strict';
// `mcp-result-cache/lists` for Node (CommonJS): the nodejs build of the lists module
// initializes synchronously on require, so every export works immediately; `ready()` exists for
// symmetry with the browser entry.
const wasm = require('../pkg/lists-node/mcp_result_cache.js');

// The nodejs build exports exactly the #[wasm_bindgen] API, so it is re-exported whole.
module.exports = {
  ready: () => Promise.resolve(),
  ...wasm,
};
