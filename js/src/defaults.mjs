// What the two main entries share above their caches, written once: the free functions over a
// default cache and the `cacheTools` loader. Bundled into the browser entry (pkg/browser.mjs) and
// converted to pkg/defaults.cjs for the CommonJS entry (js/node.cjs) by scripts/node-entries.mjs.
// Plain JS, no imports: each entry says how it makes a cache (`makeDefaultCacheWith`) and how it
// loads js/readback.mjs (`cacheToolsLoader`).

/**
 * The cache methods the free functions forward to.
 * @typedef {{
 *   cacheToolResult(input: unknown): Promise<unknown>,
 *   readCachedPayload(uri: unknown, options?: unknown): Promise<unknown>,
 *   lookup(uri: unknown, options?: unknown): Promise<unknown>,
 *   clearConversation(convId: unknown): Promise<unknown>,
 *   evictOlderThan(options: unknown): Promise<unknown>,
 *   substituteCacheUris(args: unknown, options?: unknown): Promise<unknown>,
 *   beforeToolCall(toolName: unknown, args: unknown, options?: unknown): Promise<unknown>,
 *   afterToolCall(toolName: unknown, result: unknown, options?: unknown): Promise<unknown>,
 * }} DefaultCache
 */

const inUseError = () =>
  Object.assign(
    new Error('configureDefaultCache() must run before the first use of the free functions (cacheToolResult, readCachedPayload, beforeToolCall, …); create a ResultCache instead'),
    { name: 'InvalidStateError' },
  );

/** @type {(options?: unknown) => DefaultCache} (set by the entry, before any use) */
let create;
/** @type {((options: unknown) => Promise<unknown>) | undefined} */
let prepare;
/** @type {DefaultCache | null} */
let defaultCache = null;
let inUse = false;
// The latest configureDefaultCache call until it settles: a free function called meanwhile waits
// for it, so a host that does not await the configuration still gets the configured cache.
/** @type {Promise<void> | null} */
let pending = null;
const theDefault = async () => {
  inUse = true;
  // A configuration that fails rejects the calls that waited for it, with its error.
  if (pending) await pending;
  return (defaultCache ??= create());
};

/**
 * How the entry importing this module makes its default cache: `make(options?)`, on first use of
 * a free function (never at import time); `before(options)`, when given, is awaited before
 * `configureDefaultCache` makes its cache (the browser entry's module and database warm-up).
 * Each entry has its own copy of this module (bundled, or pkg/defaults.cjs), so its own default.
 * @param {(options?: unknown) => DefaultCache} make
 * @param {(options: unknown) => Promise<unknown>} [before]
 */
export function makeDefaultCacheWith(make, before) {
  create = make;
  prepare = before;
}

/**
 * Makes the cache of one configuration, after the configuration called before it (the last call
 * wins). A superseded configuration's error is left to its own caller.
 * @param {Promise<void> | null} previous @param {unknown} options
 */
async function configure(previous, options) {
  await previous?.catch(() => {});
  await prepare?.(options);
  // Options are validated now (a TypeError rejects the call; nothing changes).
  defaultCache = create(options);
}

/**
 * Sets the options of the cache behind the free functions (see the `.d.ts`). It takes effect at
 * the call: free functions called after it, awaited or not, run on the configured cache. Called
 * after their first use, it rejects with an `InvalidStateError`.
 * @param {unknown} options @returns {Promise<void>}
 */
export function configureDefaultCache(options) {
  if (inUse) return Promise.reject(inUseError());
  /** @type {Promise<void>} */
  const configuring = configure(pending, options).finally(() => {
    if (pending === configuring) pending = null;
  });
  pending = configuring;
  return configuring;
}
// The free functions over the default cache.
export const cacheToolResult = async (/** @type {unknown} */ input) => (await theDefault()).cacheToolResult(input);
export const readCachedPayload = async (/** @type {unknown} */ uri, /** @type {unknown} */ options) => (await theDefault()).readCachedPayload(uri, options);
export const lookup = async (/** @type {unknown} */ uri, /** @type {unknown} */ options) => (await theDefault()).lookup(uri, options);
export const clearConversation = async (/** @type {unknown} */ convId) => (await theDefault()).clearConversation(convId);
export const evictOlderThan = async (/** @type {unknown} */ options) => (await theDefault()).evictOlderThan(options);
export const substituteCacheUris = async (/** @type {unknown} */ args, /** @type {unknown} */ options) => (await theDefault()).substituteCacheUris(args, options);
export const beforeToolCall = async (/** @type {unknown} */ toolName, /** @type {unknown} */ args, /** @type {unknown} */ options) =>
  (await theDefault()).beforeToolCall(toolName, args, options);
export const afterToolCall = async (/** @type {unknown} */ toolName, /** @type {unknown} */ result, /** @type {unknown} */ options) =>
  (await theDefault()).afterToolCall(toolName, result, options);

/**
 * @typedef {{ listTools(...args: unknown[]): Promise<unknown>, callTool(...args: unknown[]): Promise<unknown> }} ToolClient
 */

/**
 * `cacheTools(cache, options)`: the read-back tools over `cache` for one conversation, shaped
 * like an MCP client (js/readback.mjs, docs/READ-BACK.md). `load` imports js/readback.mjs (each
 * entry names it relative to itself) on the first call, so hosts that never offer the tools
 * never download it; bad options reject the first `listTools`/`callTool`.
 * @param {() => Promise<{ cacheTools(cache: unknown, options: unknown): ToolClient }>} load
 */
export function cacheToolsLoader(load) {
  return function cacheTools(/** @type {unknown} */ cache, /** @type {unknown} */ options) {
    const tools = load().then((m) => m.cacheTools(cache, options));
    tools.catch(() => {}); // reported by the first call
    return {
      listTools: async (/** @type {unknown[]} */ ...a) => (await tools).listTools(...a),
      callTool: async (/** @type {unknown[]} */ ...a) => (await tools).callTool(...a),
    };
  };
}
