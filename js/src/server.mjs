// `mcp-result-cache/server` for browsers, workers and bundlers: MCP Fusion's State-Sync layer for
// MCP servers (and for a host decorating servers it does not control). Its own WebAssembly
// module (pkg/server-web), separate from the host entry's: a chat host never downloads it, and
// a server never downloads the cache.
//
// Every export is synchronous: `await ready()` once at startup (they throw a clear error
// before that). Importing this module has no side effects (no fetch; SSR-safe).
// @ts-expect-error the glue's `init` is left out of the browser declarations (scripts/build.sh): it is bundled, never exported
import init, * as wasm from '../../pkg/server-web/mcp_result_cache.js';
import { lazyModule, memoSet, memoizedMatchGlob, MAX_NAME_LENGTH } from './wasm-entry.mjs';

const lazy = lazyModule(init);

/** Resolves once the WebAssembly module is ready; idempotent. */
export const ready = lazy.ready;
const requireReady = lazy.requireReady;

export const validatePattern = lazy.syncExport(wasm.validatePattern, 'validatePattern');
export const detectOverlaps = lazy.syncExport(wasm.detectOverlaps, 'detectOverlaps');
export const listCacheMeta = lazy.syncExport(wasm.listCacheMeta, 'listCacheMeta');
export const wasmMemoryBytes = lazy.syncExport(wasm.wasmMemoryBytes, 'wasmMemoryBytes');

/** `matchGlob(pattern, name, { separator }?)` (memoized; see the wasm export for semantics). */
export const matchGlob = memoizedMatchGlob(lazy, wasm.matchGlob);

/** MCP Fusion's State-Sync layer (needs `await ready()` first in a browser). */
export class StateSync {
  #inner;
  #memo = new Map();

  constructor(/** @type {wasm.StateSyncConfig} */ config) {
    requireReady('new StateSync');
    this.#inner = new wasm.StateSync(config);
  }
  /**
   * Frozen resolved policy or `null`: one shared object per matching policy (and one for the
   * defaults), so names matched by the same policy get the same object.
   */
  resolve(/** @type {string} */ name) {
    if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH) return this.#inner.resolve(name);
    const hit = this.#memo.get(name);
    return hit !== undefined ? hit : memoSet(this.#memo, name, this.#inner.resolve(name));
  }
  decorateTools(/** @type {readonly wasm.McpTool[]} */ tools) {
    return this.#inner.decorateTools(tools);
  }
  decorateResult(/** @type {string} */ toolName, /** @type {wasm.CallToolResult} */ result) {
    return this.#inner.decorateResult(toolName, result);
  }
  free() {
    this.#inner.free();
  }
}

// `using sync = new StateSync(…)` frees it, as the declarations (wasm-bindgen's class) promise.
if (typeof Symbol.dispose === 'symbol') /** @type {{ [Symbol.dispose]?: () => void }} */ (StateSync.prototype)[Symbol.dispose] = StateSync.prototype.free;
