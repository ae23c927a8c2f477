// Node entry (ES module): the CommonJS entry's exports, by name.
import api from './node.cjs';

export const {
  CACHE_URI_SCHEME,
  DEFAULT_CACHE_THRESHOLD_BYTES,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  INLINE_LIST_MAX_RECORDS,
  ready,
  ResultCache,
  hasIndexedDB,
  sanitizeConvId,
  mintCacheUri,
  parseCacheUri,
  estimateSize,
  cacheToolResult,
  readCachedPayload,
  lookup,
  clearConversation,
  evictOlderThan,
  substituteCacheUris,
  checkInlineListCap,
  beforeToolCall,
  afterToolCall,
} = api;
