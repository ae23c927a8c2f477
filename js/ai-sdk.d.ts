// Types of `mcp-result-cache/ai-sdk`.
import type { Tool, ToolApprovalConfiguration, ToolExecutionOptions, ToolSet } from 'ai';
import type { CacheToolsOptions, FlowPolicy, ResultCache } from './index.js';
export { referencesOf } from './index.js';

/** The output a tool gives the model (the AI SDK's `ToolResultOutput`: `text`, `json`, `content`, …). */
export type ToolModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** A conversation id, or a function answering the current one for each tool call. */
export type AiSdkConversationId =
  | string
  | number
  | ((options: ToolExecutionOptions<unknown>) => string | number | null | undefined);

/** Options of {@link wrapAiSdkTools}. */
export interface WrapAiSdkToolsOptions {
  /** The cache that stores results and resolves references. */
  cache: ResultCache;
  /**
   * The conversation the calls belong to (e.g. `useChat`'s `chat.id`, which `DefaultChatTransport`
   * sends as the request body's `id`), or a function called with each call's execute options
   * that returns it. Default `"default"`.
   */
  convId?: AiSdkConversationId | null;
  /** Options of `augmentTools` (e.g. `{ objects: true }` to add `_uri` siblings to object parameters). */
  augment?: { objects?: boolean };
  /** Longest inline array a capped argument may hold (`beforeToolCall`'s `cap`). Default 20. */
  cap?: number;
  /** Arguments the inline cap applies to (`beforeToolCall`'s `cappedArgs`). Default `["data"]`. */
  cappedArgs?: string[];
  /** Most characters the model is shown per result (`maxChars`). `Infinity` turns the cap off. Default 20000. */
  maxChars?: number;
  /** Decoded bytes above which an image, audio or blob is stored and linked (`mediaMaxBytes`). Default 1 MiB. */
  mediaMaxBytes?: number;
  /**
   * The MCP server the tools come from (its `serverInfo.name`): entries remember it, and that
   * server's invalidations touch only its own entries, and it is the `to` of the flow policy.
   * Default: none (`null` to the policy).
   */
  server?: string;
  /**
   * Which server's data a reference may carry into these tools; overrides the cache's `flows`
   * (see `ResultCacheOptions.flows` and docs/SECURITY.md). A flow the policy asks about makes
   * the tool's `needsApproval` answer `true` for that call. Default: the cache's.
   */
  flows?: FlowPolicy;
  /**
   * Keeps the stored payload out of the tool part: the output of a call whose result was stored
   * loses its `structuredContent` (the server's copy of the payload the cache now holds), so
   * `toUIMessageStream` does not stream it to the page and `useChat` does not post it back with
   * every later turn (a streaming tool's too: its progress is streamed, its stored result never
   * is). What the model sees (the text with `_cache_uri`) and the references
   * (`_meta["mcp-result-cache/uris"]`) stay; a page reads the data by reference (`cacheRoute`,
   * `useCachedResult`). Results that were not stored, and `wrapMcpClient`, are unchanged.
   * Default `false`. With {@link clientToolSet}, only together with `cache`.
   */
  omitStoredPayload?: boolean;
  /**
   * Resolves references minted in the page (a client-side tool's result in the page's cache) in
   * these tools' calls: the payloads the page attached to this request (its `pageReferences`
   * field, from {@link pageReferencePayloads}; `[]` or the field as sent when it sent none).
   * With it, a call whose `<name>_uri` arguments (where substitution looks; no other argument)
   * carry a reference this cache misses needs approval (`needsApproval`
   * answers `true`), so the page can answer it with the payloads; before an approved call runs,
   * each payload it references is stored in this cache under the conversation, with the page
   * entry's tool and server as its source, whatever its size (the cache's `threshold` does not
   * apply; its `maxEntryBytes` bounds it), and the call's
   * references are rewritten to the new entries. The flow policy then judges the flow from the
   * client tool's server (its `uris`, and a refusal's `_refused_uris`, name the page's references
   * as the model passed them). Default: off.
   * @throws TypeError when it is not an array of {@link PageReference}s, or is given without `cache`.
   */
  pageReferences?: readonly PageReference[];
}

/** A payload the page sends for one of its references ({@link pageReferencePayloads}). */
export interface PageReference {
  /** The page's reference, without a `#` fragment. */
  uri: string;
  /** The stored JSON object or array. */
  payload: object;
  /** The client-side tool that produced it. */
  sourceToolName?: string;
  /** That tool's MCP server: the source the flow policy judges. */
  sourceServer?: string;
}

/**
 * In the page: the payloads one request to the route must carry — those of the references in the
 * `<name>_uri` arguments of the tool calls the page approved that have not run yet (tool parts
 * `approval-responded`, approved), that `cache` holds fresh for `convId`, at most
 * `maxEntryBytes` bytes of JSON each (default: the cache's own). Call it in
 * `DefaultChatTransport`'s `prepareSendMessagesRequest` and send the answer as the body's
 * `pageReferences`; the route passes it to {@link wrapAiSdkTools} / {@link clientToolSet}.
 * @throws TypeError (as a rejection) without a cache, a `convId` or `messages`, or with a bad `maxEntryBytes`.
 */
export function pageReferencePayloads(
  cache: ResultCache,
  options: { convId: string | number; messages: ReadonlyArray<{ role?: string; parts?: ReadonlyArray<unknown> }>; maxEntryBytes?: number },
): Promise<PageReference[]>;

/** Options of {@link clientToolSet}: without `cache`, the tools run without the pipeline. */
export interface ClientToolSetOptions extends Omit<WrapAiSdkToolsOptions, 'cache'> {
  /** When given, every tool runs the by-reference pipeline ({@link wrapAiSdkTools}). */
  cache?: ResultCache;
}

/**
 * The shape {@link clientToolSet} needs: the official MCP SDK `Client`, or any object that lists
 * tools and calls them the same way (such as the cache's own read-back tools).
 */
export interface ToolClient {
  /** Resolves one page of tools; `nextCursor` asks for the next page. */
  listTools(params?: { cursor?: string }): Promise<{
    tools: ReadonlyArray<{ name: string; title?: string; description?: string; inputSchema?: object }>;
    nextCursor?: string;
  }>;
  /** Calls one tool; resolves an MCP `CallToolResult`. `options.signal` aborts the call. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: undefined, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** The server's `serverInfo` once connected (the SDK `Client` has it): names the server to the cache. */
  getServerVersion?(): { name?: string } | undefined;
}

/**
 * Wraps an AI SDK `ToolSet` (e.g. `await createMCPClient(...).tools()` from `@ai-sdk/mcp`, or
 * hand-written `tool({...})`s) so that every tool passes big results by reference:
 *
 * - `inputSchema` is the tool's JSON Schema (a `jsonSchema(...)`, Zod or Standard Schema,
 *   converted with the AI SDK's `asSchema`) with a `<name>_uri` string sibling for every array
 *   parameter, exactly as `augmentTools` does; `<name>` stops being required, and strict
 *   schemas (`additionalProperties: false`) accept both forms.
 * - `execute` runs the whole pipeline: the inline cap, reuse of immutable results, substitution
 *   of references (`beforeToolCall`), the tool's own input validation on the substituted
 *   arguments (when its schema validates), the original `execute` (with the same execute
 *   options: `abortSignal`, `toolCallId`, `messages`, `context`), then `afterToolCall`. It
 *   resolves what the model should see. A blocked call never runs the original: it resolves an
 *   `isError` MCP `CallToolResult` holding the envelope, so the model can try again. An
 *   `async function*` execute stays a stream: its outputs but the last (the tool's progress) are
 *   yielded as they come, then, in place of the last (the result, stored), what the model should
 *   see of it. The original is pulled as the wrapped stream is (one output ahead): when the AI
 *   SDK stops the stream (its `abortSignal`, or returning the generator), the original is
 *   returned too, and the call, which did not finish, stores nothing. A plain function that
 *   returns an `AsyncIterable` is read to its last value, its output (its progress not streamed).
 * - `toModelOutput` is {@link toModelOutput}: images, audio and blobs as `file` parts, text as
 *   text, never base64 as text. It replaces the tool's own (which would see the visible value,
 *   not the tool's output), and `outputSchema` is dropped for the same reason.
 * - `needsApproval(input, options)` answers `true` when the tool's own `needsApproval` does
 *   (asked about the input `execute` would get: references resolved, input validated), or
 *   when this call would move referenced data the flow policy (`flows`) says to ask about, so
 *   the AI SDK's tool approval (`useChat`'s approval UI) asks the user; a denied approval never
 *   runs `execute`. `execute` lets such a flow through only for a call the user approved (its
 *   `tool-approval-response` in the messages; `needsApproval` answering `true` is not an
 *   approval), once; run any other way, the call is refused as the host's denial (the envelope says the host does not
 *   let the data through; "the user declined" is only for a call whose approval the user
 *   denied). A flow the policy denies is refused by `execute` with the
 *   `reference_not_allowed` envelope, without running the original (a `blocked` event of the
 *   cache). The tool's MCP `annotations` (which `@ai-sdk/mcp` tools carry) give `openWorldHint`
 *   to the `"guarded"` policy. When the AI SDK runs the call from an approval in the messages
 *   (`tool-approval-response`), `execute` first consumes that approval once in the cache's
 *   storage (`ResultCache#consumeOnce`): the same approval sent again in a later request never
 *   runs the tool (it answers `{ error: "approval_already_used", fix_hint }`), on this instance
 *   or any other sharing the storage. `streamText`'s own `toolApproval` takes
 *   precedence over `needsApproval`: compose it with {@link cacheToolApproval}; a call it
 *   decided without asking the cache is refused such a flow, with a one-time `console.warn`
 *   saying what to add.
 *
 * Tools without `execute` (executed elsewhere, such as client-side tools of `useChat`) get the
 * schema and `toModelOutput` only; provider tools (`type: "provider"`) are returned unchanged.
 * Synchronous: schemas are converted when the AI SDK first asks for them.
 *
 * @throws TypeError when `tools` is not an object of tools, or an option is invalid.
 */
export function wrapAiSdkTools<TOOLS extends ToolSet>(tools: TOOLS, options: WrapAiSdkToolsOptions): { [K in keyof TOOLS]: ToolSet[string] };

/**
 * Lists every tool of an MCP client (all pages) and answers them as an AI SDK `ToolSet` of
 * dynamic tools whose `execute` calls `client.callTool({ name, arguments })` (with the call's
 * abort signal). With `cache`, they run the by-reference pipeline ({@link wrapAiSdkTools}; the
 * server's name comes from `getServerVersion()` unless `server` is given); without, they are plain
 * tools with {@link toModelOutput}. A listed tool whose name contains U+001F (which separates a
 * server's name from a tool's in what the cache records) is left out of the set.
 *
 * @throws TypeError (as a rejection) when `client` lacks `listTools`/`callTool`, `listTools()`
 *   does not resolve `{ tools: [...] }`, a tool has no name, or an option is invalid.
 */
export function clientToolSet(client: ToolClient, options?: ClientToolSetOptions): Promise<ToolSet>;

/**
 * The cache's read-back tools (`cache_read`, `cache_search`, `cache_select`; see `cacheTools`)
 * as an AI SDK `ToolSet` for one conversation: spread it next to your other tools
 * (`{ ...mcpTools, ...await cacheToolSet(cache, { convId: chat.id }) }`). Bad options reject
 * with a TypeError.
 */
export function cacheToolSet(cache: ResultCache, options?: CacheToolsOptions): Promise<ToolSet>;

/**
 * What the model is given for a tool's output (the `toModelOutput` of wrapped tools; attach it
 * to tool declarations a server forwards for client-side tools): a string as `text`; an MCP
 * `CallToolResult` as `content` parts (`text` blocks as text, `image` / `audio` / embedded
 * `blob`s as `file` parts with their media type and base64 data, `resource_link`s as their JSON
 * text, long base64 in unknown blocks elided), or `error-text` for an `isError` result of text
 * blocks (a blocked call's envelope); anything else as `json`.
 */
export function toModelOutput(options: { toolCallId: string; input: unknown; output: unknown }): ToolModelOutput;

/**
 * The AI SDK 7 `toolApproval` configuration (`streamText({ toolApproval })`, which takes
 * precedence over every tool's `needsApproval`) for `tools`, the `ToolSet` given to
 * `streamText` with tools wrapped by {@link wrapAiSdkTools} (or {@link clientToolSet} /
 * {@link cacheToolSet}) among them:
 *
 * - a call of a wrapped tool that would move referenced data the flow policy asks about answers
 *   `{ type: "user-approval", reason }`, the reason naming the tools and servers the data moves
 *   between (never the data);
 * - with the `pageReferences` option, a call whose `<name>_uri` arguments carry a reference
 *   minted in the page that the server's cache misses answers `user-approval` too, its reason naming the tool and counting
 *   the references;
 * - combined with the host's own configuration `own` (a function for every call, or an object of
 *   statuses or functions by tool name): the stricter answer wins (`"denied"`, then
 *   `"user-approval"`, then `"approved"`, then `"not-applicable"`); two reasons for
 *   `user-approval` are joined. For a wrapped tool, `own`'s functions are asked about the input
 *   its `execute` would pass on (references resolved, input validated; the function form gets
 *   it as `toolCall.input`), not about `<name>_uri`;
 * - a wrapped tool without an entry in `own` keeps its original `needsApproval` (as
 *   `user-approval`); tools neither wrapped nor in `own` keep their own `needsApproval` (they get
 *   no entry).
 *
 * An approved call runs once with the data; a denied one never runs (nothing is resolved or
 * stored for it). Set
 * `experimental_toolApprovalSecret` too: the AI SDK then rejects a forged or tampered approval,
 * and the wrapped tools refuse a replayed one (each approval is consumed once in the cache's
 * storage, `approval_already_used`).
 *
 * @throws TypeError when `tools` is not an object, none of its tools is wrapped, or `own` is not
 *   a function or an object of statuses (or functions).
 */
export function cacheToolApproval<TOOLS extends ToolSet>(
  tools: TOOLS,
  own?: ToolApprovalConfiguration<TOOLS, unknown>,
): ToolApprovalConfiguration<TOOLS, unknown>;
