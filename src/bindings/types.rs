//! TypeScript declarations for the option and result objects, emitted into the `.d.ts` of the
//! entries that use them: each entry's declarations re-export its `.d.ts` whole (`export *`),
//! so a type lives in the section of the feature whose exports name it.

use wasm_bindgen::prelude::*;

/// The chat host's types: cache options, results, events.
#[cfg(feature = "host")]
#[wasm_bindgen(typescript_custom_section)]
const HOST_TYPES: &'static str = r#"
/** Where a cache keeps its entries. `"auto"` = IndexedDB when present, else memory. */
export type CacheStorageKind = "auto" | "indexeddb" | "memory";

/** One stored entry as a storage keeps it and gives it back (field names: docs/PROTOCOL.md, *Storage*). */
export interface StoredRow {
  uri: string;
  payload: unknown;
  convId: string;
  sourceToolName: string;
  addedAt: number;
  sizeBytes: number;
  lastUsedAt: number;
  /** Set once the entry is stale; absent while it is fresh. */
  staleCause?: string;
  /** The reference a derived entry was made from. */
  derivedFrom?: string;
  /** Fields a later version adds: keep and return them as given. */
  [field: string]: unknown;
}

/**
 * A storage object: `new ResultCache({ storage: myStorage })` in Node (browsers keep entries in
 * IndexedDB or memory). Every method answers a promise; the cache calls them in its own call
 * order and expects each to take effect in that order. A rejection's `name`
 * (`QuotaExceededError`, `TimeoutError`, `NetworkError`, …) is what the cache's own rejection is
 * named. `mcp-result-cache/storage-conformance` tests an implementation.
 */
export interface CacheStorage {
  /** What `stats().storage` reports (e.g. `"redis"`); non-empty. */
  readonly kind: string;
  /** Stores `row` (replacing the row of its URI) after evicting least recently used rows of its conversation, never `row` itself, until the conversation fits `maxBytes` / `maxEntries` with it (or the whole store does: an engine may be stricter); `json` is `JSON.stringify(row.payload)` when the cache made it. Answers `[evicted, bytes, entries]` after the write. */
  write(row: StoredRow, maxBytes: number, maxEntries: number, json?: string): Promise<[number, number, number]>;
  /** The rows of `uris` in order, `undefined` where absent; each found row's `lastUsedAt` becomes `now` unless it is later. Optionally, after them, the present rows of their `derivedFrom` chains (up to `depth` links), read in the same atomic unit and used the same way, so an operation called after the read cannot change its answer (the cache looks again only for sources not among them, which stay absent). */
  read(uris: string[], now: number, depth?: number): Promise<(StoredRow | undefined)[]>;
  /** Evicts least recently used rows until `bytes` are freed or nothing is left; answers how many. */
  evictOldest(bytes: number): Promise<number>;
  /** `[entries, bytes, conversations]` stored now. */
  stats(): Promise<[number, number, number]>;
  /** Deletes every row of the conversation `convId` (exactly that id) or, when it is `undefined`, every row added before `cutoff`; answers how many. */
  remove(convId: string | undefined, cutoff: number): Promise<number>;
  /** The distinct `sourceToolName`s of fresh rows. Until `markStale` is called, later operations must not overtake the marks. */
  freshTools(): Promise<string[]>;
  /** Marks the fresh rows of these tools stale with `cause` (a stale row stays stale); answers how many. Always follows a `freshTools` that answered. */
  markStale(names: string[], cause: string): Promise<number>;
  /** The rows (of exactly `convId` when given), payloads included, by URI. */
  list(convId?: string): Promise<StoredRow[]>;
  /** True the first time `key` is consumed within `ttlMs`, false after: atomic across every instance sharing the storage. TypeError for an empty key or a ttl that is not a positive integer. */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Called when the cache closes; the storage decides what that means. */
  close?(): void;
}

/** Options of `new ResultCache(options)`. */
export interface ResultCacheOptions {
  /** IndexedDB database name. Default `"mcp-result-cache"`. */
  dbName?: string;
  /** Results whose JSON is at least this many UTF-8 bytes are stored. Default 4096. */
  threshold?: number;
  /** Clock in ms since the epoch (for tests). Default `Date.now`. */
  now?: () => number;
  /**
   * Default `"auto"`. In Node, also a storage object (`CacheStorage`): `redisStorage()` of
   * `mcp-result-cache/redis` (one cache shared by every process over one Redis) or one of your
   * own that meets the contract.
   */
  storage?: CacheStorageKind | CacheStorage;
  /** Observer of cache events; a throw inside it is swallowed. */
  onEvent?: (event: CacheEvent) => void;
  /** Separator of tool-name globs used by `invalidate`. Default `"."`. */
  separator?: string;
  /** Answer identical calls to `immutable` tools from the cache. Default `false`. */
  reuseImmutable?: boolean;
  /** Total bytes kept; least-recently-used entries are evicted beyond it. Default 128 MiB. */
  maxBytes?: number;
  /** Entries kept; least-recently-used entries are evicted beyond it. Default 5000; below 1 (as `maxBytes: 0`), nothing is stored (`skip` events). */
  maxEntries?: number;
  /** Larger results are not stored (`skip` event). Default 32 MiB. */
  maxEntryBytes?: number;
  /**
   * On a miss in this cache's own database, also look the reference up, read-only, in a
   * chatbox-core 0.12 database (`"chatbox-core-result-cache"`) on the same origin, if one exists
   * (it is never created, upgraded or blocked); `clearConversation` clears it there too.
   * Default `true`.
   */
  legacyChatboxCore?: boolean;
  /**
   * How a stored result is shown to the model. `"full"`: the payload with `_cache_uri` while it
   * fits in `maxChars`, a summary above. `"preview"`: always the summary — headline fields, shape,
   * `_preview_rows` (the first rows, about 1 500 characters) and the reference — so the model
   * reads more only when it needs to (with the read-back tools, `cacheTools`). Default `"full"`.
   */
  view?: "full" | "preview";
  /**
   * The read-back tools are offered to the model (`cacheTools`): `true` for the default names
   * (`cache_read`, `cache_search`, `cache_select`), or their prefix. Summaries and previews then
   * say which tool reads more. Default `false`.
   */
  readTools?: boolean | string;
  /**
   * Which server's data a reference may carry into which server's tool call, applied by the
   * integrations (`wrapMcpClient`, `wrapAiSdkTools`; their own `flows` option overrides it)
   * before dispatch. `"any"` (the default): every flow. `"same-server"`: only into the server that
   * produced the data. `"guarded"`: same server, or a tool that declares
   * `annotations.openWorldHint: false`; otherwise the user is asked. An object maps a source
   * server (or `"*"`: any other) to the target servers it may reach (or `"*"`); the same server
   * is always allowed. A function decides each flow. A derived reference (`cache_select`)
   * carries its source's server. See docs/SECURITY.md. A bad value is a `TypeError`.
   */
  flows?: FlowPolicy;
}

/**
 * One flow of a tool call: the references it resolved from one source, and where they would go.
 */
export interface Flow {
  /** The server the data came from; `null` when its entry recorded none. */
  from: string | null;
  /** The server of the tool called; `null` when the host did not name it. */
  to: string | null;
  /** The tool called. */
  toolName: string;
  /** The tool that produced the data. */
  sourceToolName: string;
  /** The references (as the model passed them, with any `#` pointer). */
  uris: string[];
  /** The called tool's MCP annotations (`openWorldHint`, …); `{}` when it has none. */
  annotations: { openWorldHint?: boolean; readOnlyHint?: boolean; [key: string]: unknown };
}

/** What a flow policy answers for one flow. */
export type FlowDecision = "allow" | "deny" | "ask";

/** The `flows` option: see `ResultCacheOptions.flows`. */
export type FlowPolicy =
  | "any"
  | "same-server"
  | "guarded"
  | { [sourceServer: string]: string[] | "*" }
  | ((flow: Flow) => FlowDecision | PromiseLike<FlowDecision>);

/**
 * What `ResultCache` keeps in JS around its WebAssembly core (js/src/cache-flows.mjs): the flow
 * policy is applied by the integrations, which are JS, so neither the policy nor its events
 * cross into the `.wasm`.
 */
export interface ResultCache {
  /**
   * The `flows` option (checked by the constructor): which server's data a reference may carry
   * into which server's tool call; `"any"` when not given. An object is kept as a frozen copy
   * made by the constructor: changing the object given afterwards changes no cache's policy.
   * The integrations apply it (docs/SECURITY.md).
   */
  readonly flows: FlowPolicy;
  /**
   * Reports a tool call the flow policy kept from referenced data (it was not dispatched) to
   * `onEvent`, as a `blocked` event with the `from`, `to` (server names, `null` when unknown),
   * `toolName` and `uris` of `flow`. The integrations call it; a host running its own policy
   * may too. Anything else (a server name that is no string, a `uris` that is no list of
   * strings, a `flow` that cannot be read) is a `TypeError`, and nothing is told. Needs no
   * `ready()`.
   */
  reportBlockedFlow(flow: Pick<Flow, "from" | "to" | "toolName" | "uris">): void;
  /**
   * Calls `listener` with every later change made through this cache, by every caller of it
   * (the host, the integrations and read-back tools given it; not another cache over the same
   * storage, nor the free functions, whose default cache is another one): a `write`, a `clear` of a
   * conversation, an `evict` (the budget, the quota or `evictOlderThan`), a `stale` mark (an
   * invalidation or a stale notification). Answers the function that stops it. A listener that
   * throws changes nothing. Listing a clear's and an invalidation's references reads the
   * entries once per change, and only while a listener is subscribed. Needs no `ready()`.
   *
   * ```js
   * const stop = cache.subscribe(({ kind, convId, uris }) => console.log(kind, convId, uris));
   * ```
   */
  subscribe(listener: (change: CacheChange) => void): () => void;
}

/**
 * A change of a cache, as `ResultCache#subscribe` tells it:
 * - `write`: one entry stored, `uris` its reference;
 * - `clear`: `clearConversation(convId)` done, `uris` the references it removed (`null` when
 *   they could not be listed);
 * - `evict`: entries removed by the byte or entry budget, the quota or `evictOlderThan`; which
 *   ones is not known (`convId` and `uris` are `null`): read again what you show;
 * - `stale`: after an invalidation or a stale notification, the stale references of one
 *   conversation (one change per conversation holding any).
 */
export type CacheChange =
  | { kind: "write"; convId: string; uris: string[] }
  | { kind: "clear"; convId: string; uris: string[] | null }
  | { kind: "evict"; convId: null; uris: null }
  | { kind: "stale"; convId: string; uris: string[] };

/** Where the data of one resolved reference comes from. */
export interface ReferenceSource {
  /** The reference as given (with any `#` pointer). */
  uri: string;
  /** The tool that produced the entry (of a derived entry: of its first source). */
  sourceToolName: string;
  /** Its server, when the entry recorded one. */
  sourceServer?: string;
}

/** `ResultCache.stats()` */
export interface CacheStats {
  entries: number;
  bytes: number;
  conversations: number;
  /** `"indexeddb"`, `"memory"`, or a storage object's `kind` (`"redis"`, or your own). */
  storage: "indexeddb" | "memory" | "redis" | (string & {});
  maxBytes: number;
  maxEntries: number;
  maxEntryBytes: number;
  /** `navigator.storage.estimate()` where available. */
  estimate?: { usage?: number; quota?: number };
}

/** Input of `cacheToolResult`. */
export interface CacheToolResultInput {
  /** The tool result; only JSON objects and arrays get a reference. */
  payload: unknown;
  /**
   * Conversation id: a string or number (`String(convId)`), `"default"` when absent. Entries
   * are scoped by this exact id; the URI carries a sanitized segment of it.
   */
  convId?: string | number | bigint | null;
  /** The producing tool. Default `"<unknown>"`. */
  sourceToolName?: string;
  /**
   * The MCP server the producing tool belongs to (its `serverInfo.name`): recorded with the entry
   * (`sourceServer`), as `afterToolCall`'s `server` records it. A non-empty string.
   */
  server?: string;
  /** Per-call threshold override, in bytes. */
  threshold?: number;
  /**
   * The reference this payload is a part of (a selection from that entry): the new entry is then
   * handed out only while that one is — absent once it is evicted or cleared, stale (with its
   * cause) once it is stale. Chains are followed up to 8 links. It is that entry's data: it is
   * read with that entry's tool and server (what flow policies check), and is stale exactly when
   * that entry is (an invalidation matching its own `sourceToolName` does not count).
   */
  derivedFrom?: string | null;
}

/** Restricts a read to one conversation: references of other conversations are misses. */
export interface ConversationScope {
  /**
   * Only entries written under exactly this conversation id resolve (a string or number;
   * `null` means `"default"`). Omitted: any conversation's reference resolves — use that only
   * where a single conversation exists.
   */
  convId?: string | number | bigint | null;
}

/** Options of `evictOlderThan`. */
export interface EvictOptions {
  /** Entries written more than this many ms ago are deleted. */
  maxAgeMs: number;
}

/** Metadata of one stored entry (`ResultCache.entries`). */
export interface CacheEntryInfo {
  uri: string;
  convId: string;
  sourceToolName: string;
  /** The MCP server the tool belongs to, when the host said (`server` option). */
  sourceServer?: string;
  addedAt: number;
  lastUsedAt: number;
  sizeBytes: number;
  /** The invalidating tool, or `null` while fresh. */
  staleCause: string | null;
  /**
   * For a derived entry: the key of the entry it was selected from. `staleCause` is the entry's
   * own; a lookup also refuses it while its source is stale (with the source's cause) or gone.
   */
  derivedFrom?: string;
}

/** What `lookup` found. */
export type LookupResult =
  | { status: "hit"; payload: unknown }
  | { status: "miss" }
  | { status: "stale"; cause: string; sourceToolName: string; sourceServer?: string };

/** A parsed `mcp+cache://` reference. */
export interface ParsedCacheUri {
  /** The conversation segment. */
  convId: string;
  /** The random token (8–16 base64url characters). */
  token: string;
  /** The `#` JSON Pointer, or `null` without a fragment. */
  pointer: string | null;
}

/** What the model sees instead of a blocked call's result. */
export interface ToolEnvelope {
  /** `invalid_args: …` */
  error: string;
  /** References that could not be resolved (the first 32; `error` counts them all). */
  _missing_uris?: string[];
  /** References whose data a mutation made stale (the first 32; `error` counts them all). */
  _stale_uris?: string[];
  /** What the model should do next. */
  fix_hint: string;
  /** The argument that exceeded the inline-list cap. */
  _capped_arg?: string;
}

/** Result of `substituteCacheUris`. */
export type SubstitutionResult =
  | { ok: true; args: unknown; sources?: ReferenceSource[] }
  | { ok: false; envelope: ToolEnvelope };

/** Options of `beforeToolCall`. */
export interface BeforeToolCallOptions {
  /** `false` passes the call through untouched. Default `true`. */
  enabled?: boolean;
  /** Only references written under exactly this conversation id resolve. Default `"default"`. */
  convId?: string | number | bigint | null;
  /** Inline-list cap. Default 20. */
  cap?: number;
  /** Arguments the cap applies to. Default `["data"]`. */
  cappedArgs?: string[];
  /** For reused results: above this many characters of JSON the model sees a summary. */
  maxChars?: number;
  /**
   * The MCP server the tool belongs to (its `serverInfo.name`): reuse of immutable results is
   * per server and tool. Pass the same `server` to `observeTools` and `afterToolCall`.
   */
  server?: string;
}

/** Result of `beforeToolCall`. */
export type BeforeToolCallResult =
  | { dispatch: true; args: unknown; sources?: ReferenceSource[] }
  | { dispatch: false; envelope: ToolEnvelope; signature: string }
  | { dispatch: false; reused: unknown };

/** Options of `afterToolCall`. */
export interface AfterToolCallOptions {
  /** `false` stores nothing and applies no invalidation; `maxChars` still applies. Default `true`. */
  enabled?: boolean;
  /** The conversation the result belongs to (exact id). Default `"default"`. */
  convId?: string | number | bigint | null;
  /**
   * Most characters the model is shown, stored or not (texts, and the JSON of links and other
   * blocks; a failed call's texts only): a larger JSON result becomes a summary
   * (with `_cache_uri` when it was stored, otherwise a hint to narrow the query), larger text is
   * cut with a marker giving its original length. `Infinity` turns the cap off. Default 20000.
   */
  maxChars?: number;
  /**
   * Decoded bytes above which an `image` or `audio` block, or binary data (an embedded
   * resource's `blob`), is stored whole and shown to the model as a `resource_link` to its
   * `mcp+cache://` reference plus one line saying what it was. Smaller media pass unchanged;
   * a blob is also stored when its base64 would exceed what is left of `maxChars`.
   * Default 1048576 (1 MiB).
   */
  mediaMaxBytes?: number;
  /**
   * The MCP server the tool belongs to (its `serverInfo.name`). Recorded with every entry
   * (`sourceServer`); the result's invalidation signals then touch only that server's entries
   * (and entries written without a server), whatever tool names other servers share.
   */
  server?: string;
  /**
   * The call's arguments as the model wrote them (what you passed to `beforeToolCall`). With
   * `reuseImmutable`, pairs this result with its own call even when calls to the same tool
   * complete out of order; without it, results pair with calls in dispatch order.
   */
  args?: unknown;
  /** This call's `view` (see `ResultCacheOptions.view`). Default: the cache's. */
  view?: "full" | "preview";
  /** This call's `readTools` (see `ResultCacheOptions.readTools`). Default: the cache's. */
  readTools?: boolean | string;
}

/** Kinds of `CacheEvent`. */
export type CacheEventKind =
  | "write" | "hit" | "miss" | "stale" | "conflict" | "cap" | "evict" | "invalidate" | "reuse" | "skip" | "blocked" | "error";

/** An event delivered to `onEvent`. */
export type CacheEvent =
  | { kind: "write"; uri: string; convId: string; sourceToolName: string; sourceServer?: string; sizeBytes: number }
  | { kind: "hit"; uri: string }
  | { kind: "miss"; uri: string }
  | { kind: "stale"; uri: string; cause: string }
  | { kind: "conflict"; toolName: string; key: string; uris: string[] }
  | { kind: "cap"; toolName: string; arg: string; count: number; cap: number }
  | { kind: "invalidate"; cause: string; patterns: string[]; count: number }
  | { kind: "reuse"; toolName: string; uri: string }
  | { kind: "evict"; count: number; reason: "clearConversation" | "maxAge" | "budget" | "quota" }
  | { kind: "skip"; reason: "maxEntryBytes" | "notPlainJson" | "maxDepth"; sizeBytes: number; limit: number }
  | { kind: "blocked"; database: string }
  | { kind: "blocked"; from: string | null; to: string | null; toolName: string; uris: string[] }
  | { kind: "error"; operation: string; name: string; message: string };

/** One invalidation signal found in a tool result. */
export interface Invalidation {
  cause: string;
  domains: string[];
}

/** Options of `augmentTools`. */
export interface AugmentToolsOptions {
  /** Also give parameters that take an object a `<name>_uri` sibling. Default `false` (arrays only). */
  objects?: boolean;
}
"#;

/// `ResultCache#consumeOnce`, which the Node entry's caches have (the browser entry's leave it
/// out): declared as always there in the Node build's declarations, optional in the others'.
#[cfg(all(feature = "host", feature = "external-store"))]
#[wasm_bindgen(typescript_custom_section)]
const CONSUME_ONCE_TYPES: &'static str = r#"
export interface ResultCache {
  /**
   * Node entry: resolves `true` the first time `key` is consumed within `ttlMs` milliseconds and
   * `false` after, in this cache's own storage: a map of the cache (`"memory"`), a database next
   * to the cache's (`"indexeddb"`: `<dbName>-consume-once`), or the storage object's own
   * `consumeOnce` (`redisStorage`: shared by every instance over the same Redis). The AI SDK
   * integration records each used tool approval with it, so a replayed approval never runs a
   * tool twice. Rejects with a `TypeError` for an empty key, a `ttlMs` that is not a positive
   * integer, or a storage object without `consumeOnce`. (The browser entry's caches have none.)
   */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
}
"#;

#[cfg(all(feature = "host", not(feature = "external-store")))]
#[wasm_bindgen(typescript_custom_section)]
const CONSUME_ONCE_TYPES: &'static str = r#"
export interface ResultCache {
  /**
   * The Node entry's caches only (see its declarations): the browser entry's leave the method out
   * (its bundle stays within its size budget), and the AI SDK entry keeps their approvals' records
   * itself (IndexedDB: `mcp-result-cache-consume-once`, shared by an origin's tabs).
   */
  consumeOnce?(key: string, ttlMs: number): Promise<boolean>;
}
"#;

/// The list-result cache's types (`mcp-result-cache/lists`).
#[cfg(feature = "lists")]
#[wasm_bindgen(typescript_custom_section)]
const LISTS_TYPES: &'static str = r#"
/** Options of `new ListCache`. */
export interface ListCacheOptions {
  /** Clock in ms; must return a finite number (else `put`/`get` throw). Default `Date.now`. */
  now?: () => number;
  /** At most this many entries (each page and each private context counts once): a non-negative integer, default 1000, `0` stores nothing, `Infinity` keeps everything; storing a new one in a full cache drops the one stored longest ago (by the order of `put` calls). Anything else (`null`, `0.5`, `-1`) is a `TypeError`. */
  maxEntries?: number;
}

/**
 * The request parameters that select a cached list result, compared exactly: `cursor`
 * (paginated lists) and `uri` (`resources/read`). MCP defines both as strings; present with any
 * other value (`null`, a number, a `URL` object: pass `url.href`) is a `TypeError`, never read
 * as absent. Other keys (such as `_meta`) do not select a result.
 */
export interface ListRequestParams {
  cursor?: string;
  uri?: string;
  [key: string]: unknown;
}

/** A cached list result. */
export interface ListCacheHit {
  result: unknown;
  /** True only when served past its TTL (`allowStale`). */
  stale: boolean;
  ageMs: number;
}
"#;

/// The JSON-RPC notification shape, used by every entry.
#[wasm_bindgen(typescript_custom_section)]
const NOTIFICATION_TYPES: &'static str = r#"
/** A JSON-RPC notification. */
export interface McpNotification {
  method: string;
  params?: { uri?: string; [key: string]: unknown };
}
"#;

/// MCP shapes and glob options, used by the host and server entries.
#[cfg(any(feature = "host", feature = "server"))]
#[wasm_bindgen(typescript_custom_section)]
const SHARED_TYPES: &'static str = r#"
/** An MCP tool definition (as in `tools/list`). */
export interface McpTool {
  name: string;
  description?: string;
  [key: string]: unknown;
}

/** An MCP content block. */
export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** An MCP `CallToolResult`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** The MCP Fusion Cache-Control vocabulary. */
export type CacheDirective = "immutable" | "no-store";

/** Options of the glob helpers. */
export interface GlobOptions {
  /** Segment separator (a non-empty string without lone surrogates). Default `"."`. */
  separator?: string;
}
"#;

/// The MCP server's types: State-Sync policies and SEP-2549 list metadata.
#[cfg(feature = "server")]
#[wasm_bindgen(typescript_custom_section)]
const SERVER_TYPES: &'static str = r#"
/**
 * A State-Sync policy: first match wins. Patterns are at most 1024 characters; tool names over
 * 4096 bytes (MCP tool names are far shorter) are matched by no policy.
 */
export interface SyncPolicy {
  /** Glob over tool names (`*` one segment, `**` any, `get_*` within a segment). */
  match: string;
  cacheControl?: CacheDirective;
  /** Globs of tools whose data a successful call makes stale. */
  invalidates?: string[];
}

/** Configuration of `new StateSync(config)`. */
export interface StateSyncConfig {
  policies: SyncPolicy[];
  /** Directive for matched-without-directive and unmatched tools. */
  defaults?: { cacheControl?: CacheDirective };
  /** Called after a successful invalidating call; a throw or rejection is swallowed. */
  onInvalidation?: (event: { causedBy: string; patterns: string[]; timestamp: string }) => void;
  /** Receives one `notifications/resources/updated` per pattern; what it returns is ignored, a throw or rejection swallowed. */
  notificationSink?: (notification: McpNotification) => unknown;
  /**
   * What the `uri` of each stale notification starts with, before the pattern: a non-empty
   * string ending with `stale/` (at most 256 characters), else a `TypeError`. Default
   * `"mcpfusion://stale/"`. `ResultCache.handleNotification` accepts the three spellings MCP
   * Fusion servers send: `"mcpfusion://stale/"`, `"fusion://stale/"` (MCP Fusion v2.6–v3.1) and
   * `"vurb://stale/"` (v3.2 and later); pick the one your hosts expect.
   */
  staleUriPrefix?: string;
  separator?: string;
}

/**
 * What applies to one tool (frozen). Every tool name one policy matches gets the very same
 * object, and every unmatched name the defaults' object.
 */
export interface ResolvedPolicy {
  readonly cacheControl?: CacheDirective;
  readonly invalidates?: readonly string[];
}

/** A later policy shadowed by an earlier one (MCP Fusion's `OverlapWarning`, plus details). */
export interface PolicyOverlap {
  /** MCP Fusion's wording: `policy[0] (match: "a.*") shadows policy[1] (match: "a.b"). …` */
  message: string;
  /** Index of the shadowing (earlier) policy. */
  shadowingIndex: number;
  /** Index of the shadowed (later) policy. */
  shadowedIndex: number;
  /** Same as `shadowingIndex`. */
  earlier: number;
  /** Same as `shadowedIndex`. */
  later: number;
  earlierMatch: string;
  laterMatch: string;
}

/** Input of `listCacheMeta`. */
export interface ListCacheMetaOptions {
  ttlMs: number;
  scope?: "public" | "private";
}

/**
 * SEP-2549 fields of a list result. `cacheScope` is always present, `"private"` unless `scope`
 * was `"public"` (SEP-2549 reads an absent `cacheScope` as `"public"`).
 */
export interface ListCacheMeta {
  ttlMs: number;
  cacheScope: "public" | "private";
}
"#;
