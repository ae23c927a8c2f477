// `mcp-result-cache/lists` for browsers, workers and bundlers: a client-side cache of MCP list
// results that honours their SEP-2549 TTLs (`ListCache`), and RFC 6570 URI-template matching
// (`matchUriTemplate`). Its own WebAssembly module (pkg/lists-web): a chat host that does not
// cache list results never downloads it.
//
// Every export is synchronous: `await ready()` once at startup (they throw a clear error
// before that). Importing this module has no side effects (no fetch; SSR-safe).
// @ts-expect-error the glue's `init` is left out of the browser declarations (scripts/build.sh): it is bundled, never exported
import init, * as wasm from '../../pkg/lists-web/mcp_result_cache.js';
import { lazyModule } from './wasm-entry.mjs';

const lazy = lazyModule(init);

/** Resolves once the WebAssembly module is ready; idempotent. */
export const ready = lazy.ready;

// Each export is handed over on its own, never the module namespace: a bundle then needs no
// namespace object (pkg/lists.mjs is held to its size budget).
export const matchUriTemplate = lazy.syncExport(wasm.matchUriTemplate, 'matchUriTemplate');
export const wasmMemoryBytes = lazy.syncExport(wasm.wasmMemoryBytes, 'wasmMemoryBytes');

/**
 * SEP-2549 list-result cache (needs `await ready()` first in a browser). The glue's class,
 * extended: `instanceof` holds and a subclass keeps its methods (its constructor sets `this`).
 */
export class ListCache extends wasm.ListCache {
  constructor(/** @type {wasm.ListCacheOptions | undefined} */ options) {
    lazy.requireReady('new ListCache');
    super(options);
  }
}
