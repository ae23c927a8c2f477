// `mcp-result-cache/server` for Node (ES module): the CommonJS entry's exports, by name.
import api from './server.node.cjs';

export const {
  ready,
  StateSync,
  matchGlob,
  validatePattern,
  detectOverlaps,
  listCacheMeta,
  wasmMemoryBytes,
} = api;
