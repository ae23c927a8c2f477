// What the two main entries share above their caches, written once: the free functions over a
// default cache and the `cacheTools` loader. Bundled into the browser entry (pkg/browser.mjs) and
// converted to pkg/defaults.cjs for the CommonJS entry (js/node.cjs) by scripts/node-entries.mjs.
// Plain JS, no imports: each entry says how it makes a cache (`makeDefaultCacheWith`) and how it
// loads the read-back tools (`cacheToolsLoader`: the browser entry pkg/readback.mjs, the Node
// entries js/readback.mjs).

/**
 * The cache methods the free functions forward to, typed as the package declares them.
 * @typedef {import('../index.js').ResultCache} ResultCache
 * @typedef {Pick<ResultCache, 'cacheToolResult' | 'readCachedPayload' | 'lookup' | 'clearConversation'
 *   | 'evictOlderThan' | 'substituteCacheUris' | 'beforeToolCall' | 'afterToolCall'>} DefaultCache
 */

const inUseError = () =>
  Object.assign(
    new Error('configureDefaultCache() must run before the first use of the free functions; create a ResultCache instead'),
    { name: 'InvalidStateError' },
  );

/** @type {(options?: unknown) => DefaultCache} (set by the entry, before any use) */
let create;
/** @type {((cache: DefaultCache, options: unknown) => Promise<unknown>) | undefined} */
let check;
/** @type {DefaultCache | null} */
let defaultCache = null;
let inUse = false;
const theDefault = () => {
  inUse = true;
  return (defaultCache ??= create());
};

/**
 * How the entry importing this module makes its default cache: `make(options?)`, on first use of
 * a free function (never at import time); `after(cache, options)`, when given, is awaited after
 * `configureDefaultCache` made its cache, and rejects when the options prove invalid (the
 * browser entry's module load and options check).
 * Each entry has its own copy of this module (bundled, or pkg/defaults.cjs), so its own default.
 * @param {(options?: unknown) => DefaultCache} make
 * @param {(cache: DefaultCache, options: unknown) => Promise<unknown>} [after]
 */
export function makeDefaultCacheWith(make, after) {
  create = make;
  check = after;
}

/**
 * Sets the options of the cache behind the free functions (see the `.d.ts`). The cache is made at
 * the call (options the entry checks synchronously reject it at once, nothing changed), so the
 * free functions called after it use it, awaited or not; when the entry's check rejects later, the
 * free functions go back to the cache they had (the calls made meanwhile reject with its error).
 * @param {unknown} options
 */
export async function configureDefaultCache(options) {
  if (inUse) throw inUseError();
  const previous = defaultCache;
  const cache = (defaultCache = create(options));
  try {
    await check?.(cache, options);
  } catch (error) {
    if (defaultCache === cache) defaultCache = previous;
    throw error;
  }
}
// The free functions over the default cache (their parameters are the methods').
/** @typedef {DefaultCache} C */
export const cacheToolResult = async (/** @type {Parameters<C['cacheToolResult']>[0]} */ input) => theDefault().cacheToolResult(input);
export const readCachedPayload = async (/** @type {unknown} */ uri, /** @type {Parameters<C['readCachedPayload']>[1]} */ options) => theDefault().readCachedPayload(uri, options);
export const lookup = async (/** @type {unknown} */ uri, /** @type {Parameters<C['lookup']>[1]} */ options) => theDefault().lookup(uri, options);
export const clearConversation = async (/** @type {unknown} */ convId) => theDefault().clearConversation(convId);
export const evictOlderThan = async (/** @type {Parameters<C['evictOlderThan']>[0]} */ options) => theDefault().evictOlderThan(options);
export const substituteCacheUris = async (/** @type {unknown} */ args, /** @type {Parameters<C['substituteCacheUris']>[1]} */ options) =>
  theDefault().substituteCacheUris(args, options);
export const beforeToolCall = async (
  /** @type {string} */ toolName,
  /** @type {unknown} */ args,
  /** @type {Parameters<C['beforeToolCall']>[2]} */ options,
) => theDefault().beforeToolCall(toolName, args, options);
export const afterToolCall = async (
  /** @type {string} */ toolName,
  /** @type {unknown} */ result,
  /** @type {Parameters<C['afterToolCall']>[2]} */ options,
) => theDefault().afterToolCall(toolName, result, options);

/**
 * The read-back tools, as the package declares them.
 * @typedef {ReturnType<typeof import('../index.js').cacheTools>} ToolClient
 */

/**
 * `cacheTools(cache, options)`: the read-back tools over `cache` for one conversation, shaped
 * like an MCP client (js/readback.mjs, docs/READ-BACK.md). `load` imports that module (each
 * entry names its own copy: the browser entry's bundled pkg/readback.mjs) on the first
 * `cacheTools()`, so hosts that never offer the tools never download it; bad options reject the
 * first `listTools`/`callTool`. Once the module is loaded, the tools are made at once (the
 * options read then) and every call goes straight through, taking effect in the order it was
 * called among the cache's operations; a call made before (the first `listTools()` resolves
 * after) waits for the module.
 * @param {() => Promise<{ cacheTools(cache: unknown, options: unknown): ToolClient }>} load
 */
export function cacheToolsLoader(load) {
  /** @type {{ cacheTools(cache: unknown, options: unknown): ToolClient } | undefined} */
  let loaded;
  return function cacheTools(
    /** @type {ResultCache} */ cache,
    /** @type {import('../index.js').CacheToolsOptions | undefined} */ options,
  ) {
    /** @type {ToolClient | undefined} */
    let client;
    const make = (/** @type {NonNullable<typeof loaded>} */ m) => (client = (loaded = m).cacheTools(cache, options));
    // Made now (a throw rejects the promise) when the module is here already.
    const tools = loaded ? new Promise((made) => made(make(/** @type {NonNullable<typeof loaded>} */ (loaded)))) : load().then(make);
    tools.catch(() => {}); // reported by the first call
    return /** @type {ToolClient} */ ({
      listTools: async (...a) => (client ?? await tools).listTools(...a),
      callTool: async (...a) => (client ?? await tools).callTool(...a),
    });
  };
}
