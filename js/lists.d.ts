// Types of `mcp-result-cache/lists` (all conditions). The generated declarations carry the TSDoc
// written in the Rust doc comments.
// Everything the lists build of the crate exports, with the declarations of its types
// (src/bindings/types.rs), as wasm-bindgen generated them.
export * from '../pkg/lists-web/mcp_result_cache.js';

/**
 * Resolves once the WebAssembly module is instantiated (idempotent). Call it once before using
 * the exports in a browser or worker; in Node they work at once.
 */
export declare function ready(): Promise<void>;
