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
  AugmentToolsOptions,
  McpTool,
} from '../pkg/web/mcp_result_cache.js';
// The constants, written from the Rust ones by the build (scripts/constants.mjs, into pkg/).
export * from '../pkg/constants.js';

/**
 * Resolves once the WebAssembly module is instantiated (idempotent). Async exports await it
 * themselves; call it once before using the synchronous helpers in a browser or worker.
 */
export declare function ready(): Promise<void>;

/**
 * Runs, at startup, what a first tool result would otherwise pay for. Once per page, worker or
 * process, a sample result of 240 rows is stored by `afterToolCall` and substituted back, in a
 * scratch cache of its own (database `mcp-result-cache-warm-up`, deleted afterwards; memory
 * where there is no IndexedDB): the engine compiles WebAssembly and JS on first call. Given the
 * options the host's cache is created with (only `dbName` and `storage` are read), each call
 * also gives that cache's IndexedDB database one read-write transaction that changes nothing (a
 * database's first write is slower than its next ones); the database is created if it does not
 * exist yet, as the cache would on its first write, and nothing is touched for `storage:
 * "memory"` or a storage object. Call it after `ready()`, off the path of any tool result: the
 * first `afterToolCall` then costs about what later ones do. Never rejects for a failed
 * warm-up; a malformed `options` is a `TypeError`. No cache of the host, and no `onEvent`, sees
 * any of it.
 *
 * ```ts
 * const options = { dbName: "my-app" };
 * const cache = new ResultCache(options);
 * await warmUp(options);
 * ```
 */
export declare function warmUp(options?: ResultCacheOptions): Promise<void>;

// The free functions: the `ResultCache` methods of the same names, on one default cache
// (database "mcp-result-cache", IndexedDB when present, else memory) created on first use.

/**
 * Sets the options of the cache behind the free functions: the options of
 * `new ResultCache(options)`. Call it once at startup, before any free function: afterwards it
 * rejects with an `InvalidStateError`. It may be called again before first use (the last call
 * wins). It takes effect at the call, awaited or not: the free functions called after it run on
 * the configured cache. Invalid options reject with a `TypeError` and leave the default cache as
 * it was (in the browser entry, where they are checked once the module is loaded, the free calls
 * made before that reject with the same `TypeError`).
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

/**
 * Declares `<name>_uri` reference parameters for servers that
 * never heard of references, so that models see them and strict tool-calling modes accept them.
 *
 * `tools` is the `tools` array of an MCP `tools/list` result, or the whole result
 * (`{ tools: [...] }`, returned in the same shape with its other keys kept). For each tool
 * whose `inputSchema` is an object schema with `properties`, every top-level property that
 * takes an array (`type: "array"` or a `type` list with it, `items`/`prefixItems`, or an
 * `anyOf`/`oneOf` branch typed `"array"`) gains a sibling
 * `<name>_uri: { type: "string", description }` placed right after it, whose description
 * tells the model to copy an `mcp+cache://` value verbatim from an earlier result (its
 * `_cache_uri`, or a value of its `_cache_refs`), to prefer it over re-typing the data, and
 * that `#/json/pointer` may be appended. With `{ objects: true }`, properties that take an
 * object (`type: "object"`, `properties`) get one too.
 *
 * `<name>` is then no longer `required` (the host's `beforeToolCall` fills it from the
 * reference before the server sees the call), and its description ends with "Or pass
 * `<name>_uri` instead (…)." No `anyOf` is added; with `additionalProperties: false`, both
 * `{ data: [...] }` and `{ data_uri: "mcp+cache://…" }` validate.
 *
 * Left alone: a property whose `<name>_uri` is already declared (servers built for
 * references; augmenting twice changes nothing), a property whose name ends in `_uri`, a
 * property given only by `$ref` (not followed), and tools without a usable schema (no
 * `inputSchema`, a non-object schema, no `properties`). Tools that gain nothing come back as
 * the very same objects; augmented tools are copies (the tool, `inputSchema`, `properties`,
 * `required` and the touched property schemas; everything else is shared). The input is never
 * mutated.
 *
 * Throws a `TypeError` when `tools` is neither an array nor `{ tools: [...] }`, when
 * `options` is not an object or `options.objects` is not a boolean, or when a value on the way
 * cannot be read (a revoked `Proxy`, a throwing getter).
 *
 * ```js
 * const { tools } = await client.listTools();
 * const augmented = augmentTools(tools);
 * // chart.create's inputSchema.properties now has data_uri next to data.
 * ```
 *
 * Plain JavaScript over the caller's objects: it works before `ready()`.
 */
export declare function augmentTools(tools: readonly McpTool[], options?: AugmentToolsOptions | null): McpTool[];
/**
 * `augmentTools` on a whole `tools/list` result: the same shape back (other keys such as
 * `nextCursor` kept), with `tools` augmented as for the array form.
 */
export declare function augmentTools<T extends { tools: readonly McpTool[] }>(result: T, options?: AugmentToolsOptions | null): Omit<T, 'tools'> & { tools: McpTool[] };

/**
 * The references a tool output carries, as reference strings (`mcp+cache://…`, with any `#`
 * pointer), deduplicated, in order of appearance. Every form this package produces:
 *
 * - a stored result as the model sees it, `{ ...payload, _cache_uri, _cache_refs? }` or the
 *   summary above `maxChars` (its `_cache_uri`, then the values of `_cache_refs`);
 * - a `CallToolResult` (`afterToolCall`, `wrapMcpClient`): `_meta["mcp-result-cache/uris"]`,
 *   the `resource_link` blocks to stored blocks, and the JSON text blocks' `_cache_uri` /
 *   `_cache_refs`;
 * - an AI SDK tool part (`{ type: "tool-<name>" | "dynamic-tool", output }`, as `useChat`
 *   shows it, or a `tool-result` part) or its `output`, and a model output (`{ type: "json" |
 *   "text" | "content", value }`, what `toModelOutput` answers);
 * - JSON text of any of these, and an array of them.
 *
 * Anything else carries none (`[]`). Never throws (a value that cannot be read carries none)
 * and never mutates `output`. Plain JavaScript: it works before `ready()`.
 *
 * ```js
 * const [uri] = referencesOf(part); // part: a useChat tool part
 * ```
 */
export declare function referencesOf(output: unknown): string[];

/** Options of `cacheRoute`. */
export interface CacheRouteOptions {
  /**
   * Whether `request` may read `uri` (`null` for the list) of conversation `convId`: the route
   * answers 403 before reading anything unless it answers `true` (or a promise of `true`).
   * Required: the route has no default policy. A throw answers 500.
   */
  authorize: (request: Request, scope: { convId: string; uri: string | null }) => boolean | PromiseLike<boolean>;
  /**
   * The conversation of a request, for a server that knows it from the session rather than the
   * query (then `?convId=` is ignored). Answers a string (`""` included) or a number; anything else (`null`: no session) is a 400.
   */
  convId?: (request: Request) => string | number | PromiseLike<string | number>;
}

/** One entry as `cacheRoute` lists it (`GET ?convId=`): its metadata, no payload. */
export interface CacheRouteEntry {
  uri: string;
  sourceToolName: string;
  sourceServer?: string;
  addedAt: number;
  sizeBytes: number;
  /** The invalidating tool, or `null` while fresh. */
  staleCause: string | null;
  derivedFrom?: string;
}

/** What `cacheRoute` answers for `GET ?convId=` (no `uri`). */
export interface CacheRouteList {
  convId: string;
  entries: CacheRouteEntry[];
}

/** What `cacheRoute` answers for `GET ?uri=&offset=&limit=`: a page of an array, as `cache_read` shapes it. */
export interface CacheRoutePage {
  uri: string;
  total: number;
  offset: number;
  items: unknown[];
  /** Where the next page starts; absent on the last page. */
  next_offset?: number;
}

/**
 * A web-standard request handler, `(Request) => Promise<Response>` (Next.js route handlers,
 * Hono, `node:http` through a small adapter), that serves `cache`'s entries
 * to the people in the chat:
 *
 * - `GET ?uri=<reference>&convId=<id>`: the stored JSON, unwrapped (a `#` JSON Pointer selects;
 *   the reference arrives URL-encoded, its `#` as `%23`); with `offset`/`limit` (a page of
 *   1–10 000 items, default 100) of an array, a `CacheRoutePage`;
 * - `GET ?convId=<id>`: the conversation's entries, oldest first, as a `CacheRouteList`
 *   (metadata, no payloads; it reads the entries as `entries()` does).
 *
 * Every answer is JSON with `Cache-Control: private`; 200s carry an `ETag` (a reference's
 * entry never changes; the list's tag changes when the list does), and a request whose
 * `If-None-Match` names it gets 304. Errors: 400 (`bad_request`: a malformed reference, one
 * `parseCacheUri` answers `null` for, a bad `offset`/`limit`, no conversation), 403 (`forbidden`, when `authorize` does not answer
 * `true`: nothing is read), 404 (`not_found`, the same body for a missing reference and one of
 * another conversation), 405 (`method_not_allowed`, anything but `GET`), 410 (`stale`, with
 * the `cause` and the `sourceToolName` to call again), 500 (`internal_error`). No error body
 * carries payload data.
 *
 * Throws a `TypeError` when `cache` is not a cache, `options.authorize` is not a function,
 * `options.convId` is given and is not a function, or one of these cannot be read (a getter
 * threw, a revoked `Proxy`).
 *
 * Node only (`import { cacheRoute } from "mcp-result-cache"` on the server): the browser module
 * does not export it, so a page bundle importing it fails to build.
 *
 * ```js
 * // app/api/cache/route.js (Next.js)
 * export const GET = cacheRoute(cache, { authorize: async (req, { convId }) => ownsChat(await session(req), convId) });
 * ```
 */
export declare function cacheRoute(cache: ResultCache, options: CacheRouteOptions): (request: Request) => Promise<Response>;

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
 * The implementation is loaded on first call: bad options (or options that cannot be read) reject
 * the first call with a TypeError; so does a call whose `name` or `arguments` cannot be read.
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

