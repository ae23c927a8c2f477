// Types of `mcp-result-cache/server` (all conditions). The generated declarations carry the
// TSDoc written in the Rust doc comments.
export {
  StateSync,
  matchGlob,
  validatePattern,
  detectOverlaps,
  listCacheMeta,
  wasmMemoryBytes,
} from '../pkg/server-web/mcp_result_cache.js';
export type {
  McpTool,
  ContentBlock,
  CallToolResult,
  McpNotification,
  CacheDirective,
  GlobOptions,
  SyncPolicy,
  StateSyncConfig,
  ResolvedPolicy,
  PolicyOverlap,
  ListCacheMetaOptions,
  ListCacheMeta,
} from '../pkg/server-web/mcp_result_cache.js';

/**
 * Resolves once the WebAssembly module is instantiated (idempotent). Call it once before using
 * the exports in a browser or worker; in Node they work at once.
 */
export declare function ready(): Promise<void>;
