// Types of `mcp-result-cache/server` (all conditions). The generated declarations carry the TSDoc written in
// the Rust doc comments.
// Everything the server build of the crate exports, with the declarations of its types
// (src/bindings/types.rs), as wasm-bindgen generated them.
export * from '../pkg/server-web/mcp_result_cache.js';

// The decorating methods typed by the caller's own shapes (the MCP SDK's `CallToolResult` and
// `Tool`, …), so that a decorated result or tool list goes back where it came from (an
// `McpServer` tool callback, a `tools/list` handler) without a cast. These signatures come first;
// the generated ones, over this package's own `CallToolResult` and `McpTool`, remain.
declare module '../pkg/server-web/mcp_result_cache.js' {
  interface StateSync {
    /**
     * `result` itself, or (after a successful call of a tool whose policy invalidates
     * patterns) a shallow copy of it whose `content` starts with the
     * `<cache_invalidation … />` text block: typed as the caller's result, whose `content` may
     * also hold that block.
     */
    decorateResult<T>(toolName: string, result: T): T extends { content: readonly unknown[] }
      ? { [K in keyof T]: K extends 'content' ? Array<(T[K] extends readonly (infer B)[] ? B : never) | { type: 'text'; text: string }> : T[K] }
      : T;
    /**
     * Each tool itself, or a shallow copy of it whose `description` ends with its
     * `[Cache-Control: …]` directive; typed as the caller's tools.
     */
    decorateTools<T extends McpTool>(tools: readonly T[]): T[];
  }
}

/**
 * Resolves once the WebAssembly module is instantiated (idempotent). Call it once before using
 * the exports in a browser or worker; in Node they work at once.
 */
export declare function ready(): Promise<void>;
