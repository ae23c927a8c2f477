// The chat host: the in-page MCP servers' tools as one AI SDK ToolSet, every call running the
// by-reference pipeline (clientToolSet from mcp-result-cache/ai-sdk), on IndexedDB, under the
// flow policy "guarded": a reference's data reaches an open-world tool of another server only
// after the user approves (the agent's `toolApproval: cacheToolApproval(tools)`, through
// useChat's tool approval).
import { DirectChatTransport, ToolLoopAgent } from 'ai';
import { ResultCache } from 'mcp-result-cache';
import { cacheToolApproval, clientToolSet } from 'mcp-result-cache/ai-sdk';
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
 * `onToolCall`), what the agent declares to the model (the same tools without `execute`:
 * augmented schemas and `toModelOutput`; the AGENT_TOOLS with it), and the agent's
 * `toolApproval`, made from the wrapped tools (it finds each call's tool by name among them;
 * a declaration stripped of `execute` is not a wrapped tool).
 */
export async function connectTools(clients, convId) {
  const tools = {};
  for (const client of Object.values(clients)) Object.assign(tools, await clientToolSet(client, { cache, convId }));
  const declared = Object.fromEntries(Object.entries(tools).map(([name, tool]) => {
    if (AGENT_TOOLS.has(name)) return [name, tool];
    const { execute: _execute, ...declaration } = tool;
    return [name, declaration];
  }));
  return { tools, declared, toolApproval: cacheToolApproval(tools) };
}

/** A transport to an in-page agent on the scripted model: what a route handler would run. */
export function localTransport({ declared, toolApproval }) {
  const { model, calls } = scriptedModel();
  const agent = new ToolLoopAgent({ model, tools: declared, toolApproval });
  return { transport: new DirectChatTransport({ agent }), calls };
}
