// `mcp-result-cache/mcp-client` for Node: wrapMcpClient over the official MCP SDK Client.
import { augmentTools, ready } from '../pkg/node.mjs';
import { createWrapMcpClient } from './mcp-client-core.mjs';

// The references a result carries (js/references.mjs).
export { referencesOf } from './references.mjs';

export const wrapMcpClient = createWrapMcpClient({ augmentTools, ready });
