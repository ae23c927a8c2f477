// Browser / worker / bundler entry (ES module).
//
// The WebAssembly module is fetched and instantiated once, on first need: every async export
// awaits that shared initialization, so hosts never call an init function. Synchronous helpers
// need it done: `await ready()` once at startup (they throw a clear error before that).
// Importing this module has no side effects: no fetch, no IndexedDB access (SSR-safe).
import init, * as wasm from '../pkg/web/mcp_result_cache.js';

export const CACHE_URI_SCHEME = 'mcp+cache://';
export const DEFAULT_CACHE_THRESHOLD_BYTES = 4096;
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 20000;
export const INLINE_LIST_MAX_RECORDS = 20;

let initialization = null;
let initialized = false;

/** Resolves once the WebAssembly module is ready; idempotent. */
export function ready() {
  if (!initialization) {
    initialization = init().then(
      () => {
        initialized = true;
      },
      (error) => {
        initialization = null; // a failed fetch is retried by the next call
        throw error;
      },
    );
  }
  return initialization;
}

function requireReady(name) {
  if (!initialized) {
    throw new Error(
      `mcp-result-cache: ${name}() needs the WebAssembly module; await ready() once before calling it`,
    );
  }
}

function syncExport(name) {
  return (...args) => {
    requireReady(name);
    return wasm[name](...args);
  };
}

function asyncExport(name) {
  return async (...args) => {
    await ready();
    return wasm[name](...args);
  };
}

export const hasIndexedDB = () => typeof globalThis.indexedDB === 'object' && globalThis.indexedDB !== null;
export const sanitizeConvId = syncExport('sanitizeConvId');
export const mintCacheUri = syncExport('mintCacheUri');
export const parseCacheUri = syncExport('parseCacheUri');
export const estimateSize = syncExport('estimateSize');
export const checkInlineListCap = syncExport('checkInlineListCap');
export const validatePattern = syncExport('validatePattern');
export const detectOverlaps = syncExport('detectOverlaps');
export const parseCacheControl = syncExport('parseCacheControl');
export const parseInvalidations = syncExport('parseInvalidations');
export const listCacheMeta = syncExport('listCacheMeta');
export const matchUriTemplate = syncExport('matchUriTemplate');
export const wasmMemoryBytes = syncExport('wasmMemoryBytes');
export const augmentTools = syncExport('augmentTools');

// Hot-path memo for the two calls hosts make per tool name: the answers are pure functions of
// their arguments, so a bounded JS Map in front of the wasm call returns identical results
// without paying the boundary crossing (string copies) on every call.
const MEMO_LIMIT = 4096;
function memoSet(map, key, value) {
  if (map.size >= MEMO_LIMIT) map.clear();
  map.set(key, value);
  return value;
}

// Bounds of the wasm matcher (see matchGlob's docs): longer strings are answered there in
// constant time, and are not kept here, where one memo entry would hold them alive.
const MAX_NAME_LENGTH = 256;
const MAX_PATTERN_LENGTH = 1024;

const globMemo = new Map();
/** `matchGlob(pattern, name, { separator }?)` (memoized; see the wasm export for semantics). */
export function matchGlob(pattern, name, options) {
  requireReady('matchGlob');
  if (
    typeof pattern !== 'string' || typeof name !== 'string' ||
    pattern.length > MAX_PATTERN_LENGTH || name.length > MAX_NAME_LENGTH ||
    (options != null && typeof options !== 'object')
  ) {
    return wasm.matchGlob(pattern, name, options); // answers, or throws the TypeError
  }
  // Read the separator once: a getter could answer differently for the key and for the match.
  // A read that throws is left to the wasm export, which reports it as a TypeError.
  let separator;
  try {
    separator = options?.separator;
  } catch {
    return wasm.matchGlob(pattern, name, options);
  }
  if (separator !== undefined && typeof separator !== 'string') return wasm.matchGlob(pattern, name, { separator });
  const sep = separator ?? '.';
  // Length prefixes make the key collision-free whatever the strings contain.
  const key = `${sep.length}:${sep}${pattern.length}:${pattern}${name}`;
  const hit = globMemo.get(key);
  return hit !== undefined ? hit : memoSet(globMemo, key, wasm.matchGlob(pattern, name, { separator: sep }));
}

/** MCP Fusion's State-Sync layer (needs `await ready()` first in a browser). */
export class StateSync {
  #inner;
  #memo = new Map();

  constructor(config) {
    requireReady('new StateSync');
    this.#inner = new wasm.StateSync(config);
  }
  /**
   * Frozen resolved policy or `null`: one shared object per matching policy (and one for the
   * defaults), so names matched by the same policy get the same object.
   */
  resolve(name) {
    if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH) return this.#inner.resolve(name);
    const hit = this.#memo.get(name);
    return hit !== undefined ? hit : memoSet(this.#memo, name, this.#inner.resolve(name));
  }
  decorateTools(tools) {
    return this.#inner.decorateTools(tools);
  }
  decorateResult(toolName, result) {
    return this.#inner.decorateResult(toolName, result);
  }
  free() {
    this.#inner.free();
  }
}

/** SEP-2549 list-result cache (needs `await ready()` first in a browser). */
export class ListCache {
  constructor(options) {
    requireReady('new ListCache');
    return new wasm.ListCache(options);
  }
}

export const configureDefaultCache = asyncExport('configureDefaultCache');
export const cacheToolResult = asyncExport('cacheToolResult');
export const readCachedPayload = asyncExport('readCachedPayload');
export const lookup = asyncExport('lookup');
export const clearConversation = asyncExport('clearConversation');
export const evictOlderThan = asyncExport('evictOlderThan');
export const substituteCacheUris = asyncExport('substituteCacheUris');
export const beforeToolCall = asyncExport('beforeToolCall');
export const afterToolCall = asyncExport('afterToolCall');

/**
 * A result cache. Constructing one never waits: the WebAssembly instance behind it is created
 * on first use (options are validated then, or at once when `ready()` has resolved).
 */
export class ResultCache {
  #options;
  #inner = null;

  constructor(options) {
    this.#options = options;
    if (initialized) this.#inner = new wasm.ResultCache(options);
  }

  async #cache() {
    await ready();
    if (!this.#inner) this.#inner = new wasm.ResultCache(this.#options);
    return this.#inner;
  }

  #sync(name) {
    requireReady(`ResultCache#${name}`);
    if (!this.#inner) this.#inner = new wasm.ResultCache(this.#options);
    return this.#inner;
  }

  async cacheToolResult(input) {
    return (await this.#cache()).cacheToolResult(input);
  }
  async readCachedPayload(uri, options) {
    return (await this.#cache()).readCachedPayload(uri, options);
  }
  async lookup(uri, options) {
    return (await this.#cache()).lookup(uri, options);
  }
  async clearConversation(convId) {
    return (await this.#cache()).clearConversation(convId);
  }
  async evictOlderThan(options) {
    return (await this.#cache()).evictOlderThan(options);
  }
  async substituteCacheUris(args, options) {
    return (await this.#cache()).substituteCacheUris(args, options);
  }
  async beforeToolCall(toolName, args, options) {
    return (await this.#cache()).beforeToolCall(toolName, args, options);
  }
  async afterToolCall(toolName, result, options) {
    return (await this.#cache()).afterToolCall(toolName, result, options);
  }
  async invalidate(patterns, options) {
    return (await this.#cache()).invalidate(patterns, options);
  }
  async handleNotification(message) {
    return (await this.#cache()).handleNotification(message);
  }
  async stats() {
    return (await this.#cache()).stats();
  }
  async entries(options) {
    return (await this.#cache()).entries(options);
  }
  observeTools(tools) {
    return this.#sync('observeTools').observeTools(tools);
  }
  get threshold() {
    return this.#sync('threshold').threshold;
  }
  get storage() {
    return this.#sync('storage').storage;
  }
  close() {
    this.#inner?.close();
  }
  free() {
    this.#inner?.close();
    this.#inner?.free();
    this.#inner = null;
  }
}

if (typeof Symbol.dispose === 'symbol') ResultCache.prototype[Symbol.dispose] = ResultCache.prototype.free;
