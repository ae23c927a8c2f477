// Types of `mcp-result-cache/mcp-client`.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ResultCache } from './index.js';

export interface WrapMcpClientOptions {
  /** The cache that stores results and resolves references. */
  cache: ResultCache;
  /** The conversation id, or a function returning the current one. Default `"default"`. */
  convId?: string | number | (() => string | number | null | undefined) | null;
  /** Options of `augmentTools` (e.g. `{ objects: true }` to add `_uri` siblings to object parameters). */
  augment?: { objects?: boolean };
  /** Most characters the model is shown per result (`afterToolCall`'s `maxChars`). Default 20000. */
  maxChars?: number;
}

/**
 * Wraps an MCP SDK `Client`: `listTools` answers tools augmented with `<name>_uri` parameters,
 * `callTool` runs the by-reference pipeline (cap, reuse, substitution, dispatch, caching) and
 * resolves what the model should see, and stale notifications reach the cache. Everything else
 * is the original client's.
 */
export function wrapMcpClient<C extends Client>(client: C, options: WrapMcpClientOptions): C;
