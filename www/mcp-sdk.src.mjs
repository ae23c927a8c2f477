// The pieces of the official MCP TypeScript SDK (@modelcontextprotocol/sdk) the demo page uses.
// The SDK is published as ES modules with bare imports (and CommonJS dependencies), which a
// browser cannot load as they are: scripts/serve.mjs bundles this file with Vite into
// www/vendor/mcp-sdk.js (generated, git-ignored) on the first request for it.
// First: zod parses without generated code (no eval under the page's CSP).
import './zod-jitless.mjs';

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
// This package's wrapper over the SDK Client (it imports the SDK too); its own import of the
// package entry is left as `/pkg/browser.mjs`, the very module the page imports.
export { wrapMcpClient } from '../js/mcp-client.mjs';
