// `mcp-result-cache/lists` for Node (ES module): the CommonJS entry's exports, by name.
// Written by scripts/node-entries.mjs from that module's keys (npm run build): do not edit.
import api from './lists.node.cjs';

export const {
  ready,
  ListCache,
  matchUriTemplate,
  wasmMemoryBytes,
} = api;
