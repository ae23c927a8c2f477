// Types of the package entry (all conditions). The generated declarations carry the TSDoc
// written in the Rust doc comments.
export {
  ResultCache,
  hasIndexedDB,
  sanitizeConvId,
  mintCacheUri,
  parseCacheUri,
  estimateSize,
  configureDefaultCache,
  cacheToolResult,
  readCachedPayload,
  lookup,
  clearConversation,
  evictOlderThan,
  substituteCacheUris,
  checkInlineListCap,
  beforeToolCall,
  afterToolCall,
  matchGlob,
  parseCacheControl,
  parseInvalidations,
  ListCache,
  matchUriTemplate,
  wasmMemoryBytes,
  augmentTools,
} from '../pkg/web/mcp_result_cache.js';
export type {
  CacheStorageKind,
  ResultCacheOptions,
  CacheToolResultInput,
  ConversationScope,
  EvictOptions,
  LookupResult,
  CacheEntryInfo,
  CacheStats,
  ParsedCacheUri,
  CacheEventKind,
  CacheEvent,
  ToolEnvelope,
  SubstitutionResult,
  BeforeToolCallOptions,
  BeforeToolCallResult,
  AfterToolCallOptions,
  McpTool,
  ContentBlock,
  CallToolResult,
  McpNotification,
  CacheDirective,
  GlobOptions,
  Invalidation,
  ListCacheOptions,
  ListRequestParams,
  ListCacheHit,
  AugmentToolsOptions,
} from '../pkg/web/mcp_result_cache.js';

/** Scheme of every reference this package mints. */
export declare const CACHE_URI_SCHEME: 'mcp+cache://';
/** Results whose JSON is at least this many UTF-8 bytes are cached by default. */
export declare const DEFAULT_CACHE_THRESHOLD_BYTES: 4096;
/** `afterToolCall` summarizes results whose JSON exceeds this many characters by default. */
export declare const DEFAULT_MAX_TOOL_RESULT_CHARS: 20000;
/** Default cap on the length of an inline array argument. */
export declare const INLINE_LIST_MAX_RECORDS: 20;
/**
 * Resolves once the WebAssembly module is instantiated (idempotent). Async exports await it
 * themselves; call it once before using the synchronous helpers in a browser or worker.
 */
export declare function ready(): Promise<void>;
