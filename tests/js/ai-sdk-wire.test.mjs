// `omitStoredPayload` (js/ai-sdk-wire.mjs) in the real AI SDK loop: a route handler running
// `streamText` with `clientToolSet` tools of a real `McpServer`, talked to by the AI SDK's own
// `DefaultChatTransport` as `useChat` does (tests/support/chat-wire.mjs), over three turns.
// With the option, the stored 240 rows leave the tool part (the stream and every re-post get
// smaller), while the model is given exactly what it was given without it, and the references
// stay. Bad input is a TypeError.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { convertToModelMessages, createUIMessageStreamResponse, stepCountIs, streamText, toUIMessageStream, tool, jsonSchema } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

import { ResultCache } from '../../pkg/node.mjs';
import { clientToolSet, wrapAiSdkTools } from '../../js/ai-sdk.node.mjs';
import { converse, toolParts } from '../support/chat-wire.mjs';

/**
 * @import { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider'
 * @import { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
 * @import { ToolSet, UIMessage } from 'ai'
 */

/**
 * The output of a tool part, as the assertions read it (a `CallToolResult` the pipeline gave;
 * `structuredContent` and `_meta` are there where the assertions say they are).
 * @typedef {{ content: Array<{ type: string, text: string }>, structuredContent: Record<string, unknown>, _meta: Record<string, string[]> }} ToolOutput
 * @typedef {{ state?: unknown, output: ToolOutput }} ToolPart a tool part of a turn's message (`toolParts`)
 */

const URIS = 'mcp-result-cache/uris';
const ROWS = Array.from({ length: 240 }, (_, i) => ({ t: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), value: (i * 7) % 100 }));
const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

function dataServer() {
  const server = new McpServer({ name: 'data', version: '1.0.0' });
  const result = (/** @type {Record<string, unknown>} */ value) => /** @type {CallToolResult} */ ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
  server.registerTool('series', { description: 'The rows.', inputSchema: {} }, async () => result({ ok: true, rows: ROWS }));
  server.registerTool('status', { description: 'A small answer.', inputSchema: {} }, async () => result({ ok: true, up: 3 }));
  return server;
}

async function connect() {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await dataServer().connect(serverSide);
  const client = new Client({ name: 'wire-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** Turn by turn: "rows" calls `series`, "status" calls `status`, anything else is answered in text. */
function scriptedModel() {
  /** Every prompt the model was given, as the provider would send it. @type {LanguageModelV4Prompt[]} */
  const prompts = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      const last = /** @type {LanguageModelV4Message} */ (prompt.at(-1));
      const user = /** @type {Extract<LanguageModelV4Message, { role: 'user' }>} */ (prompt.findLast((m) => m.role === 'user'));
      const ask = user.content.map((p) => /** @type {{ text?: string }} */ (p).text ?? '').join('');
      const tool = /rows/.test(ask) ? 'series' : /status/.test(ask) ? 'status' : null;
      /** @type {LanguageModelV4StreamPart[]} */
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (tool && last.role !== 'tool') {
        parts.push({ type: 'tool-call', toolCallId: `call-${prompts.length}`, toolName: tool, input: '{}' });
        parts.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage });
      } else {
        parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: `done: ${ask}` }, { type: 'text-end', id: 't' });
        parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
      }
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, prompts };
}

/**
 * A route handler as examples/ai-sdk-redis/route.mjs has it, with the option given or not.
 * @param {Client} client
 * @param {InstanceType<typeof ResultCache>} cache
 * @param {{ omitStoredPayload?: boolean }} extra
 */
function route(client, cache, extra) {
  const { model, prompts } = scriptedModel();
  /** @param {Request} request */
  async function POST(request) {
    const { id, messages } = /** @type {{ id: string, messages: UIMessage[] }} */ (await request.json());
    const tools = await clientToolSet(client, { cache, convId: id, ...extra });
    const result = streamText({ model, tools, messages: await convertToModelMessages(messages, { tools }), stopWhen: stepCountIs(3) });
    return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream, tools, originalMessages: messages }) });
  }
  return { POST, prompts };
}

const TURNS = ['get the rows', 'what is the status', 'thanks'];

/** @param {{ omitStoredPayload?: boolean }} extra */
async function conversation(extra) {
  const client = await connect();
  try {
    const cache = new ResultCache({ storage: 'memory' });
    const { POST, prompts } = route(client, cache, extra);
    const { turns } = await converse(POST, 'chat-wire', TURNS);
    return { turns, prompts, cache };
  } finally {
    await client.close();
  }
}

test('omitStoredPayload: the stored rows leave the tool part; the model is given the same; the references stay', async () => {
  const before = await conversation({});
  const after = await conversation({ omitStoredPayload: true });

  const [rowsBefore] = /** @type {ToolPart[]} */ (toolParts(before.turns[0].message));
  const [rowsAfter] = /** @type {ToolPart[]} */ (toolParts(after.turns[0].message));
  assert.equal(rowsBefore.state, 'output-available');
  assert.deepEqual(rowsBefore.output.structuredContent.rows, ROWS, 'without the option the tool part carries the payload');
  assert.equal(rowsAfter.state, 'output-available');
  assert.equal('structuredContent' in rowsAfter.output, false, 'the stored payload is still in the tool part');
  const unminted = (/** @type {unknown} */ value) => JSON.stringify(value).replace(/mcp\+cache:\/\/chat-wire\/[A-Za-z0-9_-]+/g, 'REF');
  assert.ok(unminted(rowsAfter.output.content) === unminted(rowsBefore.output.content), 'the text the model reads changed');
  const uris = rowsAfter.output._meta[URIS];
  assert.equal(uris.length, 1);
  assert.equal(uris[0], JSON.parse(rowsAfter.output.content[0].text)._cache_uri);
  // The references resolve: the page reads the rows by reference, not from the message.
  assert.deepEqual(await after.cache.readCachedPayload(uris[0], { convId: 'chat-wire' }), { ok: true, rows: ROWS });

  // A result too small to store keeps its structuredContent (there is nothing to fetch it by).
  const [statusAfter] = /** @type {ToolPart[]} */ (toolParts(after.turns[1].message));
  assert.deepEqual(statusAfter.output.structuredContent, { ok: true, up: 3 });
  assert.equal(statusAfter.output._meta?.[URIS], undefined);

  // Every prompt the model was given is the same, turn by turn and step by step.
  assert.equal(after.prompts.length, before.prompts.length);
  assert.ok(unminted(after.prompts) === unminted(before.prompts), 'the model was given something else');

  // The wire: the first answer streams the payload once less, and every later turn posts it back once less.
  const payload = Buffer.byteLength(JSON.stringify({ ok: true, rows: ROWS }));
  for (const [i, turn] of after.turns.entries()) {
    const was = before.turns[i];
    if (i === 0) assert.ok(was.streamed - turn.streamed >= payload, `turn 1 streamed ${was.streamed} → ${turn.streamed} bytes`);
    else assert.ok(was.posted - turn.posted >= payload, `turn ${i + 1} posted ${was.posted} → ${turn.posted} bytes`);
  }
});

test('omitStoredPayload on a streaming tool: its progress is streamed, the stored result never is (streamText → UI message stream)', async () => {
  const value = { ok: true, rows: ROWS };
  const stored = () => /** @type {CallToolResult} */ ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
  const inputSchema = jsonSchema({ type: 'object', properties: {} });
  const raw = {
    plain: tool({ inputSchema, execute: async () => stored() }),
    streaming: tool({
      inputSchema,
      async* execute() {
        yield { content: [{ type: 'text', text: 'working' }] };
        yield stored();
      },
    }),
  };
  /** The UI message stream of one turn whose model calls `name` (as `series`), and its tool outputs. @param {'plain' | 'streaming'} name */
  const turn = async (name) => {
    const tools = /** @type {ToolSet} */ (/** @type {unknown} */ (wrapAiSdkTools({ series: raw[name] }, { cache: new ResultCache({ storage: 'memory' }), convId: 'c', omitStoredPayload: true })));
    const result = streamText({ model: scriptedModel().model, tools, prompt: 'get the rows', stopWhen: stepCountIs(3) });
    /** @type {Array<{ type: string, preliminary?: boolean, output?: ToolOutput }>} */
    const chunks = [];
    const reader = toUIMessageStream({ stream: result.stream, tools }).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(/** @type {(typeof chunks)[number]} */ (read.value));
    return { wire: JSON.stringify(chunks), outputs: chunks.filter((c) => c.type === 'tool-output-available') };
  };
  const plain = await turn('plain');
  const streaming = await turn('streaming');
  // The progress, then what the model sees in place of the stored result (preliminary, and final).
  assert.deepEqual(streaming.outputs.map((c) => c.preliminary === true), [true, true, false]);
  assert.deepEqual(streaming.outputs[0].output, { content: [{ type: 'text', text: 'working' }] });
  for (const { output } of streaming.outputs.slice(1)) {
    assert.equal('structuredContent' in /** @type {ToolOutput} */ (output), false, 'the stored payload streamed to the page');
    assert.equal(/** @type {ToolOutput} */ (output)._meta[URIS].length, 1);
  }
  assert.ok(!streaming.wire.includes('"structuredContent"'));
  // A row's data is on the wire only in what the model sees: once for the tool not streaming,
  // twice streaming (the AI SDK streams the last output as a preliminary result and as the final one).
  const copies = (/** @type {string} */ wire) => wire.split(/** @type {{ t: string }} */ (ROWS.at(-1)).t).length - 1;
  assert.equal(copies(streaming.wire), 2 * copies(plain.wire), `${copies(streaming.wire)} copies of the last row streamed`);
});

test('omitStoredPayload: bad values are TypeErrors, and clientToolSet needs a cache for it', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const tools = { t: tool({ inputSchema: z.object({}), execute: async () => 'x' }) };
  for (const bad of ['yes', 1, null, {}]) {
    assert.throws(() => wrapAiSdkTools(tools, { cache, omitStoredPayload: bad }), { name: 'TypeError', message: /omitStoredPayload must be a boolean/ });
  }
  assert.equal(typeof wrapAiSdkTools(tools, { cache, omitStoredPayload: false }).t.execute, 'function');
  const client = await connect();
  try {
    await assert.rejects(clientToolSet(client, { omitStoredPayload: true }), { name: 'TypeError', message: /omitStoredPayload needs a cache/ });
    await assert.rejects(clientToolSet(client, { cache, omitStoredPayload: 'no' }), TypeError);
  } finally {
    await client.close();
  }
});
