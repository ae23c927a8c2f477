// The two sides of a page → server exchange (js/page-references.mjs), for its tests: the page, a
// cache in IndexedDB (fake-indexeddb, imported by the test) with a client-side tool that stores
// 240 rows, and the chart server, a real `McpServer` reached through the official SDK's client.
import assert from 'node:assert/strict';

import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { jsonSchema, tool } from 'ai';

import { ResultCache } from '../../pkg/node.mjs';
import { wrapAiSdkTools } from '../../js/ai-sdk.node.mjs';

/**
 * A tool as `wrapAiSdkTools` (and `clientToolSet` with a cache) makes it (js/ai-sdk-core.mjs): its
 * `execute` and `needsApproval` take the AI SDK's options as given (here without `context`, which
 * they do not read); its results here are MCP results of JSON text.
 * @typedef {{
 *   execute(input: unknown, options: unknown): Promise<{ content: { type: 'text', text: string }[], isError?: boolean }>,
 *   needsApproval(input: unknown, options: unknown): boolean | Promise<boolean>,
 * }} WrappedTool
 */

/** The rows the page's tool answers. */
export const ROWS = Array.from({ length: 240 }, (_, i) => ({ t: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), value: i % 50 }));
let n = 0;

/**
 * The page of chat `chat`: its cache (a new database) and its client-side tool `sensors.read`
 * (server `page-sensors`), called once; answers the cache and the reference to the rows it stored.
 * @param {string} chat
 */
export async function pageWithRows(chat) {
  const cache = new ResultCache({ dbName: `page-chat-${process.pid}-${n++}` });
  const tools = wrapAiSdkTools({
    'sensors.read': tool({
      inputSchema: jsonSchema({ type: 'object', properties: {} }),
      execute: async () => ({ content: [{ type: 'text', text: JSON.stringify({ ok: true, rows: ROWS }) }], structuredContent: { ok: true, rows: ROWS } }),
    }),
  }, { cache, convId: chat, server: 'page-sensors' });
  const output = await /** @type {WrappedTool} */ (tools['sensors.read']).execute({}, { toolCallId: 'p1', messages: [] });
  const rowsRef = /** @type {string} */ (JSON.parse(output.content[0].text)._cache_refs.rows);
  assert.ok(rowsRef.startsWith(`mcp+cache://${chat}/`) && /^mcp\+cache:\/\/[^/]+\/[A-Za-z0-9_-]+#\/rows$/.test(rowsRef), rowsRef);
  return { cache, rowsRef };
}

/**
 * Runs `body` with a client of a new chart server (see `chartClient`) and the list of what its
 * chart.create received; closes the client however `body` ends. Answers what `body` answers.
 * @template T
 * @param {(client: Client, received: unknown[]) => Promise<T>} body
 * @param {{ openWorld?: boolean }} [options]
 */
export async function withChart(body, options) {
  /** @type {unknown[]} */
  const received = [];
  const client = await chartClient(received, options);
  try {
    return await body(client, received);
  } finally {
    await client.close();
  }
}

/**
 * The chart server (`chart-server`, tool `chart.create` drawing `data`); `received` gets what
 * chart.create was called with. Answers the connected client.
 * @param {unknown[]} received
 * @param {{ openWorld?: boolean }} [options]
 */
async function chartClient(received, { openWorld = false } = {}) {
  const server = new McpServer({ name: 'chart-server', version: '1.0.0' });
  server.registerTool('chart.create', {
    description: 'Draws rows.',
    annotations: { openWorldHint: openWorld },
    inputSchema: z.strictObject({ data: z.array(z.object({ t: z.string(), value: z.number() })).min(1) }),
  }, async ({ data }) => {
    received.push(data);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, points: data.length }) }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'route', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
