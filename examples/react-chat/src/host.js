// The chat host: the in-page MCP servers' tools as one AI SDK ToolSet, every call running the
// by-reference pipeline (clientToolSet from mcp-result-cache/ai-sdk), on IndexedDB, under the
// flow policy "guarded": a reference's data reaches an open-world tool of another server only
// after the user approves (the wrapped tool's `needsApproval`, through useChat's tool approval).
import { DirectChatTransport, ToolLoopAgent } from 'ai';
import { ResultCache } from 'mcp-result-cache';
import { clientToolSet } from 'mcp-result-cache/ai-sdk';
import { scriptedModel } from './scriptedModel.js';

export const cache = new ResultCache({ dbName: 'react-chat-example', flows: 'guarded' });

/**
 * Tools the agent runs itself, so that the AI SDK's tool approval gates them (a page tool run by
 * `onToolCall` starts as soon as its input is known, before any approval).
 */
export const AGENT_TOOLS = new Set(['send_report']);

/**
 * The tools of every connected SDK client, wrapped: `convId` answers the conversation of each
 * call (the `useChat` chat's id). Resolves the executable tools (run in the page, by
 * `onToolCall`) and what the agent declares to the model (the same tools without `execute`:
 * augmented schemas, `toModelOutput` and `needsApproval`; the AGENT_TOOLS with it).
 */
export async function connectTools(clients, convId) {
  const tools = {};
  for (const client of Object.values(clients)) Object.assign(tools, await clientToolSet(client, { cache, convId }));
  const declared = Object.fromEntries(Object.entries(tools).map(([name, tool]) => {
    if (AGENT_TOOLS.has(name)) return [name, tool];
    const { execute: _execute, ...declaration } = tool;
    return [name, declaration];
  }));
  return { tools, declared };
}

/** A transport to an in-page agent on the scripted model: what a route handler would run. */
export function localTransport(declared) {
  const { model, calls } = scriptedModel();
  const agent = new ToolLoopAgent({ model, tools: declared });
  return { transport: new DirectChatTransport({ agent }), calls };
}
