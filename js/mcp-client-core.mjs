// wrapMcpClient: the whole by-reference pipeline around the official MCP TypeScript SDK's
// `Client`, for servers that never heard of references. Shared by the browser and Node entries
// (js/mcp-client.mjs, js/mcp-client.node.mjs), which pass in their own package API.
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createToolPipeline, declaredProperties, eachToolPage, isAugmentOption, isPlainObject, unlessAborted } from './tool-pipeline.mjs';
import { UNKNOWN_SOURCE_TOOL, isServerName } from './protocol.mjs';
import { readingArguments } from './argument-reads.mjs';
import { instrumentToolCall, withTraceContext } from './telemetry.mjs';
import { staleWindow } from './stale-window.mjs';

const RESOURCE_UPDATED = 'notifications/resources/updated';
/**
 * Where a client's notification chain lives (one per client, whichever copy of us wrapped it).
 * Copies of other versions share it: a chain an earlier copy made has no `windows`, only the
 * `caches` list, which every copy's handler runs.
 */
const CHAIN = Symbol.for('mcp-result-cache.resourceUpdatedChain');
/** Where a `ResultCache` answers the stored size of a recent write (js/src/cache-flows.mjs). */
const STORED_BYTES = Symbol.for('mcp-result-cache.storedBytes');
/** Most task answers remembered until their final result is read. */
const MAX_PENDING_TASKS = 1024;
/**
 * The tasks answered through the wrappers sharing a stale window (js/stale-window.mjs), by window.
 * @type {WeakMap<object, Map<string, PendingTask>>}
 */
const PENDING_TASKS = new WeakMap();
/** Most tool names remembered as not listed by the server (past it, each call lists again). */
const MAX_UNLISTED = 1024;

/**
 * A `tools/call` answer that is a task, not a result: `{ task: { taskId, … } }` (the SDK's
 * `CreateTaskResult`) or `resultType: "task"` (the tasks extension). Its task id, or `null`.
 * @param {unknown} result
 * @returns {string | null | undefined} the task id; `null` for a task without one; `undefined`: not a task
 */
export function taskIdOf(result) {
  if (!isPlainObject(result)) return undefined;
  if (isPlainObject(result.task)) return typeof result.task.taskId === 'string' ? result.task.taskId : null;
  if (result.resultType === 'task') return typeof result.taskId === 'string' ? result.taskId : null;
  return undefined;
}

/**
 * The method literal of a notification schema (`"notifications/resources/updated"`), read as the
 * SDK's `Protocol.setNotificationHandler` reads it (`getMethodLiteral`: the object shape from
 * `_zod.def.shape` on zod v4, `.shape` on zod v3, either possibly a function; the literal from
 * `def.value`, `def.values[0]`, then `.value`), so any copy of zod or of the SDK (ESM or
 * CommonJS) is recognized; `undefined` when it cannot be read (it is then not ours to take).
 */
export function notificationMethodOf(/** @type {unknown} */ schema) {
  try {
    const zod = member(schema, '_zod');
    let shape = zod !== undefined ? member(member(zod, 'def'), 'shape') : member(schema, 'shape');
    if (typeof shape === 'function') shape = shape();
    const method = member(shape, 'method');
    if (method === undefined || method === null) return undefined;
    const literal = (/** @type {unknown} */ def) => {
      const value = member(def, 'value');
      if (value !== undefined) return value;
      const values = member(def, 'values');
      return Array.isArray(values) ? values[0] : undefined;
    };
    const methodZod = member(method, '_zod');
    const value = (methodZod !== undefined ? literal(member(methodZod, 'def')) : undefined) ?? literal(member(method, '_def')) ?? member(method, 'value');
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // a throwing getter or a hostile Proxy: not a schema we route
  }
}

/** A property of an object or function (`undefined` for anything else); its getter may throw. */
function member(/** @type {unknown} */ value, /** @type {string} */ key) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') ? /** @type {Record<string, unknown>} */ (value)[key] : undefined;
}

/**
 * The notification methods of a client the chain takes over, and where it keeps itself.
 * @typedef {{
 *   setNotificationHandler(schema: unknown, handler: NotificationHandler): unknown,
 *   removeNotificationHandler?(method: unknown): unknown,
 *   _notificationHandlers?: { get?(method: string): unknown },
 *   [CHAIN]?: Chain,
 * }} NotifyingClient
 */

/**
 * The one `notifications/resources/updated` handler of a client: every cache that wrapped it and
 * is still alive, in wrapping order (once each, however many times it wrapped the client: the
 * wrappers of one cache share its stale window; the client holds them weakly, so a cache the host
 * let go of is collected, not notified for good), then the host's handler. Installed once per client; `setNotificationHandler`
 * and `removeNotificationHandler` get own-property overrides on the client instance that route
 * that method to the host's slot (everything else goes to the original methods).
 */
/**
 * @typedef {(notification: unknown) => unknown} NotificationHandler
 * @typedef {ReturnType<typeof staleWindow>} StaleWindow
 * @typedef {{
 *   windows?: { of: WeakMap<object, StaleWindow>, live: Set<WeakRef<StaleWindow>> },
 *   caches: NotificationHandler[],
 *   host: NotificationHandler | null,
 *   setNotificationHandler(schema: unknown, handler: NotificationHandler): unknown,
 *   removeNotificationHandler(method: unknown): unknown,
 * }} Chain
 */
/**
 * @param {unknown} rawClient an `@modelcontextprotocol/sdk` `Client` (typed by js/mcp-client.d.ts)
 * @returns {Chain}
 */
function resourceUpdatedChain(rawClient) {
  const client = /** @type {NotifyingClient} */ (rawClient);
  const existing = client[CHAIN];
  if (existing) return existing;
  const originalSet = client.setNotificationHandler;
  const originalRemove = client.removeNotificationHandler;
  const hostHandler = client._notificationHandlers?.get?.(RESOURCE_UPDATED);
  /** @type {Chain} */
  const chain = {
    // Held weakly: a cache (and its window) the host let go of is not kept alive by the client.
    windows: { of: new WeakMap(), live: new Set() },
    caches: [],
    host: typeof hostHandler === 'function' ? /** @type {NotificationHandler} */ (hostHandler) : null,
    setNotificationHandler(schema, handler) {
      if (notificationMethodOf(schema) === RESOURCE_UPDATED) {
        chain.host = handler;
        return undefined;
      }
      return originalSet.call(client, schema, handler);
    },
    removeNotificationHandler(method) {
      if (method === RESOURCE_UPDATED) {
        chain.host = null;
        return undefined;
      }
      return originalRemove?.call(client, method);
    },
  };
  originalSet.call(client, ResourceUpdatedNotificationSchema, async (/** @type {unknown} */ notification) => {
    // The windows of the caches still alive, then the handlers an earlier copy of the package added.
    /** @type {NotificationHandler[]} */
    const handlers = [];
    for (const ref of chain.windows?.live ?? []) {
      const alive = ref.deref();
      if (alive) handlers.push(alive.notify);
      else chain.windows?.live.delete(ref);
    }
    for (const handle of handlers.concat(chain.caches)) {
      try {
        await handle(notification);
      } catch {
        // a storage failure is an `error` event of its cache; the next handler still runs
      }
    }
    // The host's failure reaches the client's `onerror`, as it would without the wrapper.
    if (chain.host) await chain.host(notification);
  });
  try {
    const own = (/** @type {unknown} */ value) => ({ value, configurable: true, writable: true, enumerable: false });
    Object.defineProperty(client, CHAIN, own(chain));
    Object.defineProperty(client, 'setNotificationHandler', own(chain.setNotificationHandler));
    if (typeof originalRemove === 'function') {
      Object.defineProperty(client, 'removeNotificationHandler', own(chain.removeNotificationHandler));
    }
  } catch {
    // A frozen client: the wrapped client still routes; the raw one cannot be taught to.
  }
  return chain;
}

/**
 * The raw client as this module calls it (an `@modelcontextprotocol/sdk` `Client`, typed for
 * hosts by js/mcp-client.d.ts).
 * @typedef {{
 *   callTool(params: object, resultSchema?: unknown, options?: unknown): Promise<unknown>,
 *   listTools(params?: unknown, options?: unknown): Promise<unknown>,
 *   getServerVersion?(): { name?: unknown } | undefined,
 *   getTaskResult?(params: object, resultSchema?: unknown, options?: unknown): Promise<unknown>,
 *   experimental?: unknown,
 * }} SdkClient
 */

/**
 * A task answer's call, remembered until its final result is read; `visible` once read.
 * @typedef {{ name: string, args: unknown, convId: unknown, retry: boolean, window: import('./stale-window.mjs').OpenCall, visible?: Promise<unknown> }} PendingTask
 */

/**
 * The tools a wrapped client knows of its server: the declared properties of each tool's
 * original input schema and its MCP annotations, listing the server's tools once when a tool
 * is called before it was listed.
 * @param {SdkClient} client
 */
function toolCatalog(client) {
  /** @type {Map<string, Record<string, unknown> | null>} */
  const declared = new Map();
  /** @type {Map<string, Record<string, unknown>>} */
  const annotated = new Map();
  /** @type {Promise<void> | null} */
  let listing = null;
  /** Names a listing of ours did not have: not listed again for them until the host lists. */
  const unlisted = new Set();
  const remember = (/** @type {unknown} */ tools) => {
    unlisted.clear();
    for (const tool of Array.isArray(tools) ? tools : []) {
      if (!isPlainObject(tool) || typeof tool.name !== 'string') continue;
      declared.set(tool.name, declaredProperties(tool.inputSchema));
      annotated.set(tool.name, isPlainObject(tool.annotations) ? { ...tool.annotations } : {});
    }
  };
  /** The declared properties of a tool, listing the server's tools once if needed. */
  async function declaredOf(/** @type {string} */ name) {
    if (!declared.has(name) && !unlisted.has(name)) {
      listing ??= eachToolPage(client, (page) => remember(isPlainObject(page) ? page.tools : undefined)).finally(() => {
        listing = null;
      });
      await listing;
      // A name the server does not list (a model's guess): one listing, not one per call.
      if (!declared.has(name) && unlisted.size < MAX_UNLISTED) unlisted.add(name);
    }
    return declared.get(name) ?? null;
  }
  const annotationsOf = async (/** @type {string} */ name) => {
    await declaredOf(name);
    return annotated.get(name) ?? {};
  };
  return { remember, declaredOf, annotationsOf };
}

/**
 * The final results of task answers (`tasks/result`), read through the wrapped client: the first
 * read of a remembered task goes through the pipeline (`complete`); later reads answer the same.
 * A read that fails (aborted by its signal, a timeout, a transport error) is not remembered: the
 * next read asks the server again (a read that was waiting on it too, with its own options).
 * @param {SdkClient} client
 * @param {ReturnType<typeof createToolPipeline>} pipeline
 * @param {() => { server?: string }} origin
 * @param {{ bytesOf(uri: string): number | undefined }} telemetryCache
 * @param {ReturnType<typeof import('./stale-window.mjs').staleWindow>} stale where the call stays open until its task's result is written
 */
function taskResults(client, pipeline, origin, telemetryCache, stale) {
  // Task id → the call whose answer it was, kept with the window the call holds open: every
  // wrapper sharing that window (a server wrapping the client per request reads a task's result
  // in a later request than the call) finds the task, stores its result and closes its window.
  const tasks = PENDING_TASKS.get(stale) ?? new Map();
  PENDING_TASKS.set(stale, tasks);
  /** `client.getTaskResult` through the pipeline, once a remembered task. */
  async function getTaskResult(/** @type {unknown} */ params, /** @type {unknown} */ resultSchema, /** @type {unknown} */ requestOptions) {
    if (typeof client.getTaskResult !== 'function') throw new TypeError('wrapMcpClient: this client has no getTaskResult (an MCP SDK with tasks is needed)');
    // A `tools/call` task's result is a `CallToolResult` (the SDK needs a schema to parse it).
    // Async: a client whose getTaskResult throws at once fails the read like one that rejects.
    // Called inside the `tasks/result` span: the request carries its trace context.
    const read = async () => /** @type {NonNullable<SdkClient['getTaskResult']>} */ (client.getTaskResult).call(client, /** @type {object} */ (isPlainObject(params) ? traced(params) : params), resultSchema ?? CallToolResultSchema, requestOptions);
    const taskId = isPlainObject(params) ? params.taskId : undefined;
    const pending = typeof taskId === 'string' ? tasks.get(taskId) : undefined;
    // A task this client never saw answered (or forgotten, past the most remembered): its result
    // is only capped, as nothing says which call, conversation or arguments it belongs to.
    if (!pending) {
      return instrumentToolCall(UNKNOWN_SOURCE_TOOL, telemetryCache, async (_facts, onRaw) => {
        const result = await read();
        onRaw?.(result);
        return pipeline.complete(UNKNOWN_SOURCE_TOOL, undefined, result, { origin, retry: true });
      }, 'tasks/result');
    }
    for (;;) {
      const shared = pending.visible;
      if (!shared) break;
      try {
        return await shared;
      } catch (error) {
        // The pipeline failed on the result: every read answers that. The read failed (aborted
        // by its caller's signal, timed out): this caller reads again with its own options.
        if (pending.visible === shared) throw error;
      }
    }
    // The read runs inside the `tasks/result` span: its time is the span's, and a read that
    // fails ends it with the error.
    /** @type {Promise<unknown>} */
    const visible = instrumentToolCall(pending.name, telemetryCache, async (_facts, onRaw) => {
      let result;
      try {
        result = await read();
      } catch (error) {
        // Nothing was read: forgotten, so that a later read asks the server again.
        if (pending.visible === visible) pending.visible = undefined;
        throw error;
      }
      onRaw?.(result);
      let written = false;
      try {
        const visibleResult = await pipeline.complete(pending.name, pending.args, result, { convId: pending.convId, origin, retry: pending.retry });
        written = !pending.retry;
        return visibleResult;
      } finally {
        await stale.close(pending.window, written);
      }
    }, 'tasks/result');
    pending.visible = visible;
    return visible;
  }
  return {
    getTaskResult,
    /** Remembers the call a task answered (the oldest forgotten past `MAX_PENDING_TASKS`). */
    remember(/** @type {string} */ taskId, /** @type {PendingTask} */ call) {
      const earlier = tasks.get(taskId);
      tasks.set(taskId, call);
      if (earlier && earlier !== call) void stale.close(earlier.window, false);
      if (tasks.size > MAX_PENDING_TASKS) {
        const [oldest, forgotten] = /** @type {[string, PendingTask]} */ (tasks.entries().next().value);
        tasks.delete(oldest);
        void stale.close(forgotten.window, false);
      }
    },
    /** `client.experimental`, its `tasks.getTaskResult(taskId, …)` through {@link getTaskResult}. */
    experimental() {
      const raw = client.experimental;
      if (!isPlainObject(raw) || !isPlainObject(raw.tasks)) return raw;
      const wrappedTasks = new Proxy(raw.tasks, {
        get: (target, prop) => (prop === 'getTaskResult'
          ? (/** @type {unknown} */ taskId, /** @type {unknown} */ resultSchema, /** @type {unknown} */ requestOptions) => getTaskResult({ taskId }, resultSchema, requestOptions)
          : bound(target, prop)),
      });
      return new Proxy(raw, { get: (target, prop) => (prop === 'tasks' ? wrappedTasks : bound(target, prop)) });
    },
  };
}

/** `params` with the active trace context in its `_meta` (js/telemetry.mjs), keys the caller set kept. */
function traced(/** @type {Record<string, unknown>} */ params) {
  const meta = withTraceContext(params._meta);
  return meta === params._meta ? params : { ...params, _meta: meta };
}

/** Whether a listed tool must be called as a task (`execution.taskSupport: "required"`). */
const taskOnly = (/** @type {unknown} */ tool) =>
  isPlainObject(tool) && isPlainObject(tool.execution) && tool.execution.taskSupport === 'required';

/**
 * `wrapMcpClient` over the entry's package API `api`: it wraps an MCP SDK `Client` so that every
 * tool gets by-reference arguments.
 *
 * - `listTools()` answers the tools with `<name>_uri` siblings for array parameters
 *   (`augmentTools`; not for a tool that must be called as a task, which the SDK calls through
 *   `experimental.tasks.callToolStream` only, outside the pipeline), and teaches the cache their
 *   `[Cache-Control]` directives. The original
 *   input schemas are remembered (a tool never listed is listed on its first call; a name the
 *   server's listing does not have is not listed again until the host lists the tools).
 * - `callTool()` runs the whole pipeline: inline cap (`cap`, `cappedArgs`), reuse of immutable
 *   results, substitution of references, dispatch (never with a reference key the server did not
 *   declare), then `afterToolCall` (`maxChars`, `mediaMaxBytes`); it resolves what the model
 *   should see. A blocked call resolves an `isError` result whose text is the envelope for the
 *   model; the server is not called. In particular:
 *   - a `<name>_uri` that is `null`, `""` or `undefined` (strict function-calling modes send
 *     every optional property) means "not given": it is removed before the pipeline runs, unless
 *     the server declared that property itself (then it is passed on untouched). Any other value
 *     that is not a reference is refused (`invalid_args: \`<name>_uri\` must hold …`);
 *   - a reference whose value is not of the type the original schema gives `<name>` (only
 *     checked when that is `array` or `object`, possibly nullable) is refused with
 *     `{error: "type_mismatch: …", fix_hint, _expected, _got, _uri}`; when the value is an
 *     object with members of the right type, the hint names ready references to them;
 *   - a retry carrying MCP input responses (`params.inputResponses` or `params.requestState`,
 *     multi round-trip requests) is never answered from a reused result and its result (or its
 *     task's final result) is only capped, not stored, its invalidation signals applied; an
 *     `input_required` result is handed back untouched;
 *   - an answer that is a task (`{ task }`, or `resultType: "task"`) is handed back untouched
 *     (nothing stored, no invalidation); the task's final result, read through the wrapped
 *     client's `getTaskResult` (or `experimental.tasks.getTaskResult`), goes through the
 *     pipeline once, as a direct call's result would (a task not remembered: only capped);
 *   - the active OpenTelemetry context's trace context goes into `params._meta` (keys the
 *     caller set are kept), and the call is a `tools/call {tool}` span (js/telemetry.mjs).
 * - `notifications/resources/updated` reach `cache.handleNotification` first, then the handler
 *   the host set for that method (before wrapping, or after it: through the wrapped client or
 *   the raw one, with the SDK's ESM or CommonJS schema; the method literal is what counts, so
 *   the cache's handler is never replaced). A failing cache does not keep the host's handler
 *   from running. `removeNotificationHandler('notifications/resources/updated')` removes only
 *   the host's. Several caches may wrap one client; each gets the notifications. A stale
 *   notification that arrives while a call is open (its answer not yet written, or its task's
 *   final result not yet read) is applied again once that result is stored: an answer that came
 *   in the same chunk as the notification, or was computed while the data changed, is stale too.
 * - The server's name (`serverInfo.name`, once connected) goes with every call to the cache:
 *   entries remember which server they came from, and that server's invalidation signals and
 *   stale notifications touch only its own entries, even when another server has tools of the
 *   same names. A name the cache cannot record (empty, or with U+001F) names no server: that
 *   server's entries record none, and its signals reach every server's entries, as the host's
 *   do (docs/SECURITY.md).
 * - Before dispatch, the flow policy (`flows`, else the cache's; js/flows.mjs) decides whether
 *   the data of each resolved reference may reach this server: a denied call resolves the
 *   `reference_not_allowed` envelope (the server is not called) and is a `blocked` event of the
 *   cache; a flow the policy asks about goes to `approve(flow)`, one call at a time (no
 *   `approve`: refused). An approval covers that call only.
 * - Everything else is the original client's.
 *
 * `wrapMcpClient(client, options)`: `client` an `@modelcontextprotocol/sdk` `Client` (connected
 * or not), or any object with its `listTools()` and `callTool()` (stale notifications reach the
 * cache only from a client with `setNotificationHandler`; a `TypeError` names a missing method); `options` `{ cache, convId, augment?, cap?, cappedArgs?, maxChars?, mediaMaxBytes?,
 * flows?, approve? }`: `convId` is the conversation id, or a function returning the current one
 * (for hosts that switch conversations); `augment` is passed to `augmentTools` (e.g.
 * `{ objects: true }`); `cap` and `cappedArgs` to `beforeToolCall` (the inline-list cap);
 * `maxChars` to both (reused and fresh results); `mediaMaxBytes` to `afterToolCall`.
 *
 * @param {{ augmentTools(tools: unknown, options?: unknown): unknown, ready(): Promise<unknown> }} api the entry's package API
 */
export function createWrapMcpClient(api) {
  /**
   * @template C
   * @param {C} rawClient
   * @param {unknown} options
   * @returns {C} the wrapped client (a Proxy of it)
   */
  return function wrapMcpClient(rawClient, options) {
    return readingArguments('wrapMcpClient', () => wrap(rawClient, options), [[rawClient, 'client', ['listTools', 'callTool']], [options, 'options']]);
  };

  /**
   * wrapMcpClient's work; a read of its arguments that throws is the TypeError of `readingArguments`.
   * @template C
   * @param {C} rawClient
   * @param {unknown} options
   * @returns {C}
   */
  function wrap(rawClient, options) {
    // The SDK's `Client`, or any object that lists and calls tools as it does (`cacheTools(cache)`,
    // a hand-written client): both methods are used, so both are checked here.
    const missing = isPlainObject(rawClient) ? ['listTools', 'callTool'].filter((key) => typeof rawClient[key] !== 'function') : ['listTools', 'callTool'];
    if (missing.length > 0) {
      throw new TypeError(`wrapMcpClient expects an MCP SDK Client, or an object with listTools() and callTool() as it has: ${missing.map((key) => `${key}()`).join(' and ')} missing`);
    }
    const client = /** @type {SdkClient} */ (/** @type {unknown} */ (rawClient));
    const pipeline = createToolPipeline(options, 'wrapMcpClient');
    const { augment, approve } = /** @type {Record<string, unknown>} */ (options);
    if (approve !== undefined && typeof approve !== 'function') {
      throw new TypeError('wrapMcpClient: approve must be a function (flow) => Promise<boolean>');
    }
    if (!isAugmentOption(augment)) throw new TypeError('wrapMcpClient: augment must be an object ({ objects?: boolean })');
    const cache = /** @type {import('./tool-pipeline.mjs').PipelineCache & { handleNotification(n: unknown, origin: object): unknown, [STORED_BYTES]?: (uri: string) => number | undefined }} */ (pipeline.cache);
    // The server's own name (known once connected): entries remember it, and its invalidations
    // and stale notifications touch only its entries, whatever tool names other servers share.
    const origin = () => {
      const name = client.getServerVersion?.()?.name;
      return isServerName(name) ? { server: name } : {};
    };
    const catalog = toolCatalog(client);
    const telemetryCache = { bytesOf: (/** @type {string} */ uri) => cache[STORED_BYTES]?.(uri) };
    // A client that delivers notifications shares one window per cache among its wrappers (a
    // server wrapping the client per request adds nothing per wrap); one without them (a
    // hand-written client, `cacheTools`) gets its own, which nothing notifies.
    const notifying = typeof (/** @type {Record<string, unknown>} */ (rawClient)).setNotificationHandler === 'function';
    const chain = notifying ? resourceUpdatedChain(client) : null;
    const makeWindow = () => staleWindow((notification) => cache.handleNotification(notification, origin()));
    const known = chain?.windows?.of.get(cache);
    const stale = known ?? makeWindow();
    // A chain an earlier copy made keeps a list: one more handler there for each wrap.
    if (chain?.windows) {
      if (!known) {
        const { of, live } = chain.windows;
        of.set(cache, stale);
        // The windows of caches collected since: gone from the set (a server that never sends a
        // notification would otherwise keep one empty reference per cache it ever wrapped with).
        for (const ref of live) if (!ref.deref()) live.delete(ref);
        live.add(new WeakRef(stale));
      }
    } else chain?.caches.push(stale.notify);
    const tasks = taskResults(client, pipeline, origin, telemetryCache, stale);

    async function listTools(/** @type {unknown} */ params, /** @type {unknown} */ requestOptions) {
      const result = await client.listTools(params, requestOptions);
      const tools = isPlainObject(result) ? result.tools : undefined;
      catalog.remember(tools);
      await api.ready();
      cache.observeTools(tools, origin());
      return { ...(isPlainObject(result) ? result : {}), tools: augmentCallable(tools) };
    }

    /**
     * `tools` augmented, but for those the SDK's `callTool` refuses (`execution.taskSupport:
     * "required"`: called through `experimental.tasks.callToolStream` only, which does not run
     * the pipeline), listed as the server declared them: no `<name>_uri` the call could not
     * resolve.
     */
    function augmentCallable(/** @type {unknown} */ tools) {
      if (!Array.isArray(tools) || !tools.some(taskOnly)) return api.augmentTools(tools, augment);
      const augmented = /** @type {unknown[]} */ (api.augmentTools(tools.filter((tool) => !taskOnly(tool)), augment));
      let next = 0;
      return tools.map((tool) => (taskOnly(tool) ? tool : augmented[next++]));
    }

    async function callTool(/** @type {unknown} */ params, /** @type {unknown} */ resultSchema, /** @type {unknown} */ requestOptions) {
      const call = isPlainObject(params) ? params : {};
      const name = /** @type {string} */ (call.name);
      const signal = isPlainObject(requestOptions) && requestOptions.signal instanceof AbortSignal ? requestOptions.signal : undefined;
      const convId = pipeline.conversation();
      // A retry of a multi round-trip call: its result depends on the answers it carries.
      const retry = call.inputResponses != null || call.requestState != null;
      // Open until its result is written: a stale notification meanwhile applies to it too.
      const window = stale.open();
      let passed = false;
      let held = false;
      const visible = instrumentToolCall(name, telemetryCache, (facts, onRaw) => pipeline.run(name, call.arguments ?? {}, {
        convId,
        origin,
        declaredOf: () => catalog.declaredOf(name),
        annotationsOf: () => catalog.annotationsOf(name),
        // The host's answer: `true` lets the flow through; anything else is the user's refusal.
        // The call's signal goes with the question, and its abort ends the wait.
        ask: typeof approve === 'function' ? async (flow) => (await unlessAborted(Promise.resolve(approve(flow, { signal })), signal)) === true : undefined,
        retry,
        dispatch: (dispatched) => client.callTool(traced({ ...call, arguments: dispatched }), resultSchema, requestOptions),
        // The server asks for input first (the host answers it and retries), or answers with a
        // task (its final result is read later): nothing to keep now.
        passThrough: (result, args) => {
          const taskId = taskIdOf(result);
          passed = taskId === undefined ? isPlainObject(result) && result.resultType === 'input_required' : true;
          // (a task answer, not a question for the host: telemetry's `task`)
          if (taskId !== undefined && facts) facts.task = true;
          // The task's final result is written later: the call stays open until then.
          held = typeof taskId === 'string';
          if (held) tasks.remember(/** @type {string} */ (taskId), { name, args, convId, retry, window });
          return passed;
        },
        facts,
        onRaw,
      }));
      let written = false;
      try {
        const result = await visible;
        written = !passed && !retry;
        return result;
      } finally {
        if (!held) await stale.close(window, written);
      }
    }


    /** @type {Record<string | symbol, unknown>} */
    const overrides = { listTools, callTool, getTaskResult: tasks.getTaskResult };
    // Stale notifications: every wrapping cache first, then the host's (set before or after). A
    // client without `setNotificationHandler` (a hand-written one, `cacheTools`) delivers none:
    // nothing is installed, and the wrapped client has no such method either.
    if (chain) {
      overrides.setNotificationHandler = chain.setNotificationHandler;
      overrides.removeNotificationHandler = chain.removeNotificationHandler;
    }
    return /** @type {C} */ (/** @type {unknown} */ (new Proxy(client, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop];
        if (prop === 'experimental') return tasks.experimental();
        return bound(target, prop);
      },
    })));
  }
}

/** A property of `target`, methods bound to it (what the wrapped client's proxies answer). */
function bound(/** @type {object} */ target, /** @type {string | symbol} */ prop) {
  const value = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}
