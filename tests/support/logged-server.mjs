// An MCP SDK `McpServer` on an in-memory transport whose server side logs every raw `tools/call`
// it delivers (`raw`, the params as the server received them): what tests of the wrappers read to
// see exactly what reached a server (substituted data, `_meta`, trace context).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

/**
 * A server named `name`, its tools registered by `register`, and the client side of its transport.
 * @param {string} name
 * @param {(server: McpServer) => void} register
 */
export async function serveLogged(name, register) {
  const server = new McpServer({ name, version: '1.0.0' });
  register(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  /** @type {unknown[]} */
  const raw = [];
  const deliver = serverSide.onmessage;
  serverSide.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'tools/call') raw.push(structuredClone(message.params));
    return deliver?.call(serverSide, message, extra);
  };
  return { clientSide, raw, close: () => server.close() };
}
