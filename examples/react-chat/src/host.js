// The chat host: every tool call goes through beforeToolCall / afterToolCall.
import { ResultCache } from 'mcp-result-cache';

export const cache = new ResultCache({ dbName: 'react-chat-example' });

/** Runs one tool call; resolves what the model sees and the arguments actually dispatched. */
export async function runToolCall(server, convId, name, args) {
  const before = await cache.beforeToolCall(name, args, { convId });
  if (!before.dispatch) {
    // Never dispatched: answer the model with the envelope (or the reused immutable result).
    return { visible: 'envelope' in before ? before.envelope : before.reused, dispatched: null };
  }
  const result = await server.callTool({ name, arguments: before.args });
  const visible = await cache.afterToolCall(name, result, { convId });
  return { visible, dispatched: before.args };
}

/** The text a model is given for a tool result (a CallToolResult's JSON text block). */
export function modelText(visible) {
  if (Array.isArray(visible?.content)) {
    const block = visible.content.findLast((b) => b.type === 'text');
    if (block) return block.text;
  }
  return JSON.stringify(visible);
}
