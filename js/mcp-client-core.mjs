// wrapMcpClient: the whole by-reference pipeline around the official MCP TypeScript SDK's
// `Client`, for servers that never heard of references. Shared by the browser and Node entries
// (js/mcp-client.mjs, js/mcp-client.node.mjs), which pass in their own package API.
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createToolPipeline, declaredProperties, eachToolPage, isPlainObject } from './tool-pipeline.mjs';
import { isServerName } from './protocol.mjs';

const RESOURCE_UPDATED = 'notifications/resources/updated';
/** Where a client's notification chain lives (one per client, whichever copy of us wrapped it). */
const CHAIN = Symbol.for('mcp-result-cache.resourceUpdatedChain');

/**
 * The method literal of a notification schema (`"notifications/resources/updated"`), read as the
 * SDK's `Protocol.setNotificationHandler` reads it (`getMethodLiteral`: the object shape from
 * `_zod.def.shape` on zod v4, `.shape` on zod v3, either possibly a function; the literal from
 * `def.value`, `def.values[0]`, then `.value`), so any copy of zod or of the SDK (ESM or
 * CommonJS) is recognized; `undefined` when it cannot be read (it is then not ours to take).
 */
export function notificationMethodOf(/** @type {any} */ schema) {
  try {
    if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) return undefined;
    let shape = schema._zod ? schema._zod.def?.shape : schema.shape;
    if (typeof shape === 'function') shape = shape();
    const method = shape?.method;
    if (method === null || (typeof method !== 'object' && typeof method !== 'function')) return undefined;
    const literal = (/** @type {any} */ def) => (def?.value !== undefined ? def.value : Array.isArray(def?.values) ? def.values[0] : undefined);
    const value = (method._zod ? literal(method._zod.def) : undefined) ?? literal(method._def) ?? method.value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // a throwing getter or a hostile Proxy: not a schema we route
  }
}

/**
 * The one `notifications/resources/updated` handler of a client: every cache that wrapped it,
 * in wrapping order, then the host's handler. Installed once per client; `setNotificationHandler`
 * and `removeNotificationHandler` get own-property overrides on the client instance that route
 * that method to the host's slot (everything else goes to the original methods).
 */
/**
 * @typedef {(notification: unknown) => unknown} NotificationHandler
 * @typedef {{
 *   caches: NotificationHandler[],
 *   host: NotificationHandler | null,
 *   setNotificationHandler(schema: unknown, handler: NotificationHandler): unknown,
 *   removeNotificationHandler(method: unknown): unknown,
 * }} Chain
 */
/**
 * @param {any} client an `@modelcontextprotocol/sdk` `Client` (typed by js/mcp-client.d.ts)
 * @returns {Chain}
 */
function resourceUpdatedChain(client) {
  const existing = client[CHAIN];
  if (existing) return existing;
  const originalSet = client.setNotificationHandler;
  const originalRemove = client.removeNotificationHandler;
  /** @type {Chain} */
  const chain = {
    caches: [],
    host: client._notificationHandlers?.get?.(RESOURCE_UPDATED) ?? null,
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
    for (const handle of chain.caches) {
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
 * @param {{ augmentTools(tools: unknown, options?: unknown): unknown, ready(): Promise<unknown> }} api the entry's package API
 */
export function createWrapMcpClient(api) {
  /**
   * Wraps an MCP SDK `Client` so that every tool gets by-reference arguments.
   *
   * - `listTools()` answers the tools with `<name>_uri` siblings for array parameters
   *   (`augmentTools`), and teaches the cache their `[Cache-Control]` directives. The original
   *   input schemas are remembered (a tool never listed is listed once on its first call).
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
   *     multi round-trip requests) is never answered from a reused result and its result is not
   *     stored; an `input_required` result is handed back untouched.
   * - `notifications/resources/updated` reach `cache.handleNotification` first, then the handler
   *   the host set for that method (before wrapping, or after it: through the wrapped client or
   *   the raw one, with the SDK's ESM or CommonJS schema; the method literal is what counts, so
   *   the cache's handler is never replaced). A failing cache does not keep the host's handler
   *   from running. `removeNotificationHandler('notifications/resources/updated')` removes only
   *   the host's. Several caches may wrap one client; each gets the notifications.
   * - The server's name (`serverInfo.name`, once connected) goes with every call to the cache:
   *   entries remember which server they came from, and that server's invalidation signals and
   *   stale notifications touch only its own entries, even when another server has tools of the
   *   same names.
   * - Before dispatch, the flow policy (`flows`, else the cache's; js/flows.mjs) decides whether
   *   the data of each resolved reference may reach this server: a denied call resolves the
   *   `reference_not_allowed` envelope (the server is not called) and is a `blocked` event of the
   *   cache; a flow the policy asks about goes to `approve(flow)`, one call at a time (no
   *   `approve`: refused). An approval covers that call only.
   * - Everything else is the original client's.
   *
   * @param client an `@modelcontextprotocol/sdk` `Client` (connected or not)
   * @param options `{ cache, convId, augment?, cap?, cappedArgs?, maxChars?, mediaMaxBytes?, flows?, approve? }`:
   *   `convId` is the conversation id, or a function returning the current one (for hosts that
   *   switch conversations); `augment` is passed to `augmentTools` (e.g. `{ objects: true }`);
   *   `cap` and `cappedArgs` to `beforeToolCall` (the inline-list cap); `maxChars` to both
   *   (reused and fresh results); `mediaMaxBytes` to `afterToolCall`.
   */
  return function wrapMcpClient(/** @type {any} */ client, /** @type {any} */ options) {
    if (client === null || typeof client !== 'object' || typeof client.callTool !== 'function') {
      throw new TypeError('wrapMcpClient expects an MCP SDK Client');
    }
    const { cache, augment, approve } = options ?? {};
    const pipeline = createToolPipeline(options, 'wrapMcpClient');
    if (approve !== undefined && typeof approve !== 'function') {
      throw new TypeError('wrapMcpClient: approve must be a function (flow) => Promise<boolean>');
    }
    // The server's own name (known once connected): entries remember it, and its invalidations
    // and stale notifications touch only its entries, whatever tool names other servers share.
    const origin = () => {
      const name = client.getServerVersion?.()?.name;
      return isServerName(name) ? { server: name } : {};
    };

    /** Tool name → the top-level properties of its original input schema (`null`: any). */
    /** @type {Map<string, Record<string, unknown> | null>} */
    const declared = new Map();
    /** Tool name → its MCP annotations (`openWorldHint`, …), for the flow policy. */
    /** @type {Map<string, Record<string, unknown>>} */
    const annotated = new Map();
    /** @type {Promise<void> | null} */
    let listing = null;

    const remember = (/** @type {any[] | undefined} */ tools) => {
      for (const tool of tools ?? []) {
        declared.set(tool.name, declaredProperties(tool?.inputSchema));
        annotated.set(tool.name, isPlainObject(tool?.annotations) ? { ...tool.annotations } : {});
      }
    };

    async function listTools(/** @type {unknown} */ params, /** @type {unknown} */ requestOptions) {
      const result = await client.listTools(params, requestOptions);
      remember(result.tools);
      await api.ready();
      cache.observeTools(result.tools, origin());
      return { ...result, tools: api.augmentTools(result.tools, augment) };
    }

    /** The declared properties of a tool, listing the server's tools once if needed. */
    async function declaredOf(/** @type {string} */ name) {
      if (!declared.has(name)) {
        listing ??= eachToolPage(client, (page) => remember(page.tools)).finally(() => {
          listing = null;
        });
        await listing;
      }
      return declared.get(name) ?? null;
    }

    async function callTool(/** @type {any} */ params, /** @type {unknown} */ resultSchema, /** @type {unknown} */ requestOptions) {
      const name = params?.name;
      return pipeline.run(name, params?.arguments ?? {}, {
        convId: pipeline.conversation(),
        origin,
        declaredOf: () => declaredOf(name),
        annotationsOf: async () => {
          await declaredOf(name);
          return annotated.get(name) ?? {};
        },
        ask: approve && ((/** @type {unknown} */ flow) => approve(flow)),
        // A retry of a multi round-trip call: its result depends on the answers it carries.
        retry: params?.inputResponses != null || params?.requestState != null,
        dispatch: (/** @type {unknown} */ dispatched) => client.callTool({ ...params, arguments: dispatched }, resultSchema, requestOptions),
        // The server asks for input first: the host answers it and retries; nothing to keep.
        passThrough: (/** @type {any} */ result) => result?.resultType === 'input_required',
      });
    }

    // Stale notifications: every wrapping cache first, then the host's (set before or after).
    const chain = resourceUpdatedChain(client);
    chain.caches.push((/** @type {unknown} */ notification) => cache.handleNotification(notification, origin()));

    /** @type {Record<string | symbol, unknown>} */
    const overrides = {
      listTools,
      callTool,
      setNotificationHandler: chain.setNotificationHandler,
      removeNotificationHandler: chain.removeNotificationHandler,
    };
    return new Proxy(client, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop];
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}
