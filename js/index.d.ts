// Types of the package entry (all conditions). The generated declarations carry the TSDoc written in
// the Rust doc comments.
// Everything the host build of the crate exports, with the declarations of its option and
// result types (src/bindings/types.rs), as wasm-bindgen generated them.
export * from '../pkg/web/mcp_result_cache.js';
import type {
  ResultCache,
  ResultCacheOptions,
  CacheToolResultInput,
  ConversationScope,
  EvictOptions,
  LookupResult,
  SubstitutionResult,
  BeforeToolCallOptions,
  BeforeToolCallResult,
  AfterToolCallOptions,
} from '../pkg/web/mcp_result_cache.js';
// The constants, written from the Rust ones by the build (scripts/constants.mjs).
export * from './constants.js';

/**
 * Resolves once the WebAssembly module is instantiated (idempotent). Async exports await it
 * themselves; call it once before using the synchronous helpers in a browser or worker.
 */
export declare function ready(): Promise<void>;

// The free functions: the `ResultCache` methods of the same names, on one default cache
// (database "mcp-result-cache", IndexedDB when present, else memory) created on first use.

/**
 * Sets the options of the cache behind the free functions: the options of
 * `new ResultCache(options)`. Call it once at startup, before any free function: afterwards it
 * rejects with an `InvalidStateError`. It may be called again before first use (the last call
 * wins). Invalid options reject with a `TypeError` and leave the default cache unconfigured.
 */
export declare function configureDefaultCache(options?: ResultCacheOptions): Promise<void>;
/** `ResultCache#cacheToolResult` on the default cache. */
export declare function cacheToolResult(input: CacheToolResultInput): Promise<string | null>;
/** `ResultCache#readCachedPayload` on the default cache. */
export declare function readCachedPayload(uri: unknown, options?: ConversationScope): Promise<unknown>;
/** `ResultCache#lookup` on the default cache. */
export declare function lookup(uri: unknown, options?: ConversationScope): Promise<LookupResult>;
/** `ResultCache#clearConversation` on the default cache. */
export declare function clearConversation(convId: unknown): Promise<void>;
/** `ResultCache#evictOlderThan` on the default cache. */
export declare function evictOlderThan(options: EvictOptions): Promise<void>;
/** `ResultCache#substituteCacheUris` on the default cache. */
export declare function substituteCacheUris(args: unknown, options?: ConversationScope): Promise<SubstitutionResult>;
/** `ResultCache#beforeToolCall` on the default cache. */
export declare function beforeToolCall(toolName: string, args: unknown, options?: BeforeToolCallOptions): Promise<BeforeToolCallResult>;
/** `ResultCache#afterToolCall` on the default cache. */
export declare function afterToolCall(toolName: string, result: unknown, options?: AfterToolCallOptions): Promise<unknown>;

/** One read-back tool, as an MCP `tools/list` entry. */
export interface CacheReadTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false };
  annotations: { readOnlyHint: boolean; openWorldHint: false };
}

/** What a read-back tool answers: an MCP `CallToolResult`. */
export interface CacheReadToolResult {
  content: { type: 'text'; text: string }[];
  /** The answer as an object (absent on errors). */
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

/** Options of `cacheTools`. */
export interface CacheToolsOptions {
  /**
   * The conversation whose references the tools read (exact id), or a function answering it at
   * every call (one tool set for a host that switches conversations). Default `"default"`.
   */
  convId?: string | number | bigint | null | (() => string | number | bigint | null);
  /** Prefix of the tool names: `<prefix>read`, `<prefix>search`, `<prefix>select`. Default `"cache_"`. */
  prefix?: string;
  /** Most characters of an answer's text (1 000 to 100 000). Default 4000. */
  maxChars?: number;
}

/**
 * The read-back tools over `cache` for one conversation, shaped like an MCP SDK `Client`:
 * `cache_read { uri, offset?, limit? }` pages through a stored result (arrays by whole items,
 * strings by characters, objects by keys), `cache_search { uri, query, limit? }` finds values,
 * `cache_select { uri, where?, fields?, limit? }` stores the matching rows as a derived reference
 * that is refused once its source is stale or gone. List them next to your servers' tools and
 * route calls by name; every answer is deterministic JSON text of at most `maxChars`.
 * The implementation is loaded on first call: bad options reject the first call with a TypeError.
 */
export declare function cacheTools(
  cache: ResultCache,
  options?: CacheToolsOptions,
): {
  listTools(): Promise<{ tools: CacheReadTool[] }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<CacheReadToolResult>;
};
