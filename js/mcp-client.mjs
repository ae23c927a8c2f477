// `mcp-result-cache/mcp-client` for browsers, workers and bundlers: wrapMcpClient over the
// official MCP SDK Client (`@modelcontextprotocol/sdk`, an optional peer dependency).
import { augmentTools, ready } from '../pkg/browser.mjs';
import { createWrapMcpClient } from './mcp-client-core.mjs';

export const wrapMcpClient = createWrapMcpClient({ augmentTools, ready });
