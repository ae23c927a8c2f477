// Types of `mcp-result-cache/mcp-client`.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Flow, FlowPolicy, ResultCache } from './index.js';
export { referencesOf } from './index.js';

export interface WrapMcpClientOptions {
  /** The cache that stores results and resolves references. */
  cache: ResultCache;
  /** The conversation id, or a function returning the current one. Default `"default"`. */
  convId?: string | number | (() => string | number | null | undefined) | null;
  /** Options of `augmentTools` (e.g. `{ objects: true }` to add `_uri` siblings to object parameters). */
  augment?: { objects?: boolean };
  /** Longest inline array a capped argument may hold (`beforeToolCall`'s `cap`). Default 20. */
  cap?: number;
  /** Arguments the inline cap applies to (`beforeToolCall`'s `cappedArgs`). Default `["data"]`. */
  cappedArgs?: string[];
  /**
   * Most characters the model is shown per result, fresh or reused (`maxChars` of
   * `afterToolCall` and `beforeToolCall`). `Infinity` turns the cap off. Default 20000.
   */
  maxChars?: number;
  /**
   * Decoded bytes above which an image, audio or blob in a result is stored and shown as a link
   * to its reference (`afterToolCall`'s `mediaMaxBytes`). Default 1048576 (1 MiB).
   */
  mediaMaxBytes?: number;
  /**
   * Which server's data a reference may carry into this server's tools; overrides the cache's
   * `flows` (see `ResultCacheOptions.flows` and docs/SECURITY.md). Default: the cache's.
   */
  flows?: FlowPolicy;
  /**
   * Asks the user about a flow the policy says to ask about (`"guarded"` into an open-world
   * tool, or a function policy answering `"ask"`); resolve `true` to let that call's data
   * through. Called before dispatch, once a flow, for that one call (never remembered); any other
   * answer is the user's refusal ("declined"). Without it, such a flow is refused as the policy's
   * denial (`deny`). `signal` is the call's (`callTool`'s `options.signal`): when it aborts, the
   * call rejects with its reason without waiting for the answer (close the question then).
   */
  approve?: (flow: Flow, options: { signal?: AbortSignal }) => Promise<boolean> | boolean;
}

/**
 * What a call whose referenced data the flow policy (or the user) refused answers the model
 * with (as the JSON text of an `isError` result); the server is not called.
 */
export interface ReferenceNotAllowedEnvelope {
  error: 'reference_not_allowed';
  /** Names the servers, and tells the model not to copy the data into the call by hand. */
  fix_hint: string;
  /** The refused references. */
  _refused_uris: string[];
}

/**
 * What a call blocked because a reference resolved to a value of the wrong JSON type answers
 * the model with (as the JSON text of an `isError` result): `<name>_uri` stood for a parameter
 * whose original schema takes an array (or an object), and the reference held something else.
 */
export interface TypeMismatchEnvelope {
  /** `` type_mismatch: `<name>_uri` resolved to a string but <tool> expects an array for `<name>` `` */
  error: string;
  /** What to pass instead; names ready `#/<member>` references when the value had such members. */
  fix_hint: string;
  /** `"array"` or `"object"`. */
  _expected: 'array' | 'object';
  /** The JSON type the reference resolved to: `"string"`, `"object"`, `"number"`, … */
  _got: 'array' | 'object' | 'string' | 'number' | 'boolean' | 'null';
  /** The reference as the model passed it. */
  _uri: string | string[];
}

/**
 * What {@link wrapMcpClient} takes besides the official MCP SDK `Client`: any object that lists
 * and calls tools as it does, such as the cache's own read-back tools (`cacheTools(cache)`) or a
 * hand-written client. Stale notifications reach the cache only from a client with the SDK's
 * `setNotificationHandler`.
 */
export interface McpToolClient {
  /** Resolves one page of tools; `nextCursor` asks for the next page. */
  listTools(params?: { cursor?: string }, options?: unknown): Promise<{
    tools: ReadonlyArray<{ name: string; inputSchema?: object; annotations?: object }>;
    nextCursor?: string;
  }>;
  /** Calls one tool; resolves an MCP `CallToolResult`. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** The server's `serverInfo` once connected (the SDK `Client` has it): names the server to the cache. */
  getServerVersion?(): { name?: string } | undefined;
}

/**
 * Wraps an MCP SDK `Client` (or a {@link McpToolClient}): `listTools` answers tools augmented
 * with `<name>_uri` parameters, `callTool` runs the by-reference pipeline (cap, reuse,
 * substitution, dispatch, caching) and resolves what the model should see, and stale
 * notifications reach the cache. Everything else is the original client's.
 *
 * - A `<name>_uri` that is `null`, `""` or absent-as-`undefined` (strict function-calling modes)
 *   is dropped before dispatch unless the server declared it; any other non-reference value is
 *   refused without calling the server.
 * - A reference whose value is not the array (or object) the original schema asks for
 *   `<name>` is refused with a {@link TypeMismatchEnvelope}; the server is not called.
 * - A retry carrying `inputResponses` / `requestState` (multi round-trip requests) is neither
 *   answered from a reused result nor stored (nor is the final result of a task it is answered
 *   with): its result is capped to `maxChars`, and its invalidation signals are applied. An
 *   `input_required` result is returned untouched.
 * - `notifications/resources/updated` reach the cache first, then the host's handler, whether the
 *   host set it before or after wrapping, on the wrapped or the raw client, with the SDK's ESM
 *   or CommonJS schema (routed by its method literal; the cache's handler is never replaced).
 *   Each handler's failure is isolated from the others. Every cache that wrapped the client gets
 *   them, once each however many times it wrapped it, for as long as the host keeps that cache
 *   (or a client wrapped with it): the raw client holds it weakly, so a long-lived client wrapped
 *   with a new cache per conversation does not keep every one alive. A stale notification that arrives while
 *   a call is open (its answer not yet written, or its task's final result not yet read) is
 *   applied again once that result is stored, so that result is stale too when it matches.
 * - Before dispatch, the flow policy (`flows`) checks every resolved reference's source server
 *   against this server: a refused call answers a {@link ReferenceNotAllowedEnvelope} without
 *   calling the server, and is a `blocked` event (`from`, `to`) of the cache; a flow to ask about
 *   goes to `approve`.
 * - A `tools/call` answered with a task (`{ task }`, the SDK's `CreateTaskResult`, or
 *   `resultType: "task"`) is returned untouched: nothing stored, no invalidation applied, absent
 *   from `stats()` and from the metrics. The task's final result, read through the wrapped
 *   client (`experimental.tasks.getTaskResult(taskId)`; also `getTaskResult({ taskId })`, which
 *   the SDK declares `protected`, so TypeScript code uses the first), goes through the pipeline
 *   once, as the call's own result would (stored, referenced, invalidations
 *   applied); reading it again answers the same. A read that fails (aborted by its `signal`, a
 *   timeout) is not kept: the next read asks the server again. Every wrapper of the same
 *   client over the same cache knows the tasks the others were answered (a server wrapping the
 *   client per request reads a task's result in a later request). The final result of a task
 *   none of them remembers (they keep the last 1 024 task answers) is only capped to
 *   `maxChars`, as nothing says which call it answered. A tool the server declares
 *   with `execution: { taskSupport: "required" }` is listed as declared, without `<name>_uri`
 *   parameters: the SDK calls it through `experimental.tasks.callToolStream` only, which this
 *   wrapper passes to the raw client, outside the pipeline.
 * - With OpenTelemetry registered (`@opentelemetry/api`, an optional peer, found through its
 *   global: nothing is imported, and nothing happens when it is absent), each call is a
 *   `tools/call {tool}` client span under the active span, with the cache's facts as
 *   `mcp_result_cache.*` attributes and metrics (docs/TELEMETRY.md); never a payload, an argument
 *   value or a result's text. The active context's trace context (`traceparent`, `tracestate`,
 *   `baggage`: whatever the registered propagator writes) goes into the request's
 *   `params._meta`; a `_meta` key the caller set is kept as it is.
 * - A client without `setNotificationHandler` (a {@link McpToolClient}) delivers no
 *   notifications: none reach the cache, and the wrapped client has no such method either.
 *
 * @throws TypeError when `client` has no `listTools()` or no `callTool()` (the message names it).
 */
export function wrapMcpClient<C extends Client | McpToolClient>(client: C, options: WrapMcpClientOptions): C;
