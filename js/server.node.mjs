// `mcp-result-cache/server` for Node (ES module): the CommonJS entry's exports, by name.
// Written by scripts/node-entries.mjs from that module's keys (npm run build): do not edit.
import api from './server.node.cjs';

export const {
  ready,
  StateSync,
  detectOverlaps,
  listCacheMeta,
  matchGlob,
  validatePattern,
  wasmMemoryBytes,
} = api;
