// `mcp-result-cache/mcp-client` for browsers, workers and bundlers: wrapMcpClient over the
// official MCP SDK Client (`@modelcontextprotocol/sdk`, an optional peer dependency).
import { augmentTools, ready } from '../pkg/browser.mjs';
import { createWrapMcpClient } from './mcp-client-core.mjs';

// The references a result carries (js/references.mjs).
export { referencesOf } from './references.mjs';

export const wrapMcpClient = createWrapMcpClient({ augmentTools, ready });
