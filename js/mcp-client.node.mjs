// `mcp-result-cache/mcp-client` for Node: wrapMcpClient over the official MCP SDK Client.
import { augmentTools, ready } from '../pkg/node.mjs';
import { createWrapMcpClient } from './mcp-client-core.mjs';

export const wrapMcpClient = createWrapMcpClient({ augmentTools, ready });
