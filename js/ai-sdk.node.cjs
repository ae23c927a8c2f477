// `mcp-result-cache/ai-sdk` from CommonJS: `ai` is published as ES modules only, so this entry is
// the ES module itself, loaded with require(esm) (Node 20.19+ / 22.12+, as `ai` needs anyway).
// It shares the package's CommonJS instance (js/node.cjs) with `require('mcp-result-cache')`.
'use strict';
module.exports = require('./ai-sdk.node.mjs');
