// The chat host: SDK clients wrapped with wrapMcpClient. Every tool call goes through the
// by-reference pipeline (beforeToolCall / dispatch / afterToolCall) inside the wrapper.
import { ResultCache } from 'mcp-result-cache';
import { wrapMcpClient } from 'mcp-result-cache/mcp-client';

export const cache = new ResultCache({ dbName: 'react-chat-example' });

/**
 * Wraps each connected client and lists its tools once. Resolves `{ tools, callTool }`:
 * the tools as the model is shown them (with `*_uri` reference parameters) and a call that
 * routes by tool name and resolves what the model sees.
 */
export async function connectHost(clients, convId) {
  const route = new Map();
  const tools = [];
  for (const client of Object.values(clients)) {
    const wrapped = wrapMcpClient(client, { cache, convId });
    for (const tool of (await wrapped.listTools()).tools) {
      route.set(tool.name, wrapped);
      tools.push(tool);
    }
  }
  return {
    tools,
    callTool: (name, args) => route.get(name).callTool({ name, arguments: args }),
  };
}

/** The text a model is given for a tool result (a CallToolResult's JSON text block). */
export function modelText(visible) {
  if (Array.isArray(visible?.content)) {
    const block = visible.content.findLast((b) => b.type === 'text');
    if (block) return block.text;
  }
  return JSON.stringify(visible);
}
