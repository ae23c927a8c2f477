// Node entry (ES module): the CommonJS entry's exports, by name.
// Written by scripts/node-entries.mjs from that module's keys (npm run build): do not edit.
import api from './node.cjs';

export const {
  CACHE_URI_SCHEME,
  DEFAULT_CACHE_THRESHOLD_BYTES,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  INLINE_LIST_MAX_RECORDS,
  ready,
  ResultCache,
  checkInlineListCap,
  estimateSize,
  hasIndexedDB,
  matchGlob,
  mintCacheUri,
  parseCacheControl,
  parseCacheUri,
  parseInvalidations,
  sanitizeConvId,
  wasmMemoryBytes,
  warmUp,
  augmentTools,
  cacheTools,
  afterToolCall,
  beforeToolCall,
  cacheToolResult,
  clearConversation,
  configureDefaultCache,
  evictOlderThan,
  lookup,
  readCachedPayload,
  substituteCacheUris,
} = api;
