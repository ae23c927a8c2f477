// mcp-result-cache/ai-sdk against the real AI SDK (`ai` 7, `@ai-sdk/mcp` 2): `generateText` with
// the AI SDK's own mock model driving tool calls against real MCP servers (`McpServer` over the
// SDK's InMemoryTransport, reached through `createMCPClient`), hand-written Zod tools, streaming
// tools, `clientToolSet` over an SDK `Client`, and the TypeErrors of bad input.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMCPClient } from '@ai-sdk/mcp';
import { asSchema, generateText, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

import { ResultCache } from '../../pkg/node.mjs';
import { cacheToolSet, clientToolSet, toModelOutput, wrapAiSdkTools } from '../../js/ai-sdk.node.mjs';

/**
 * @import { LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider'
 * @import { FlexibleSchema, ToolExecutionOptions, ToolSet } from 'ai'
 */

/**
 * What each tool of `makeServer` received, as the server parsed it (`chart.create`: read once called).
 * @typedef {{
 *   'timeseries.query'?: Array<{ metric: string }>,
 *   'chart.create': Array<{ title?: string, data: Array<{ t: string, value: number }> }>,
 *   'chart.snapshot'?: Array<{}>,
 * }} Received
 * A tool of `wrapAiSdkTools` / `clientToolSet` as the tests run it directly (js/ai-sdk.d.ts
 * types it as the AI SDK's `Tool`, whose members are optional): what `execute` resolves is cast
 * where it is read.
 * @typedef {{
 *   inputSchema: FlexibleSchema<unknown>,
 *   execute: (input: unknown, options: { toolCallId: string, messages: never[], abortSignal?: AbortSignal }) => Promise<unknown>,
 *   toModelOutput?: unknown,
 * }} WrappedTool
 * An MCP `CallToolResult` of text blocks, as the assertions read it.
 * @typedef {{ isError?: boolean, content: Array<{ type: string, text: string }> }} TextResult
 * What the model sees of a stored result (`_cache_uri`, `_cache_refs`).
 * @typedef {{ _cache_uri: string, _cache_refs: Record<string, string> }} Visible
 * The JSON Schema of an object, as the assertions read it.
 * @typedef {{ properties: Record<string, unknown>, required?: string[], additionalProperties?: unknown }} ObjectSchema
 * A tool the model was offered (`LanguageModelV4FunctionTool`), as the assertions read it.
 * @typedef {{ name: string, inputSchema: ObjectSchema }} OfferedTool
 * A `content` tool output of text and file parts, as the assertions read it.
 * @typedef {{ type: string, value: Array<{ type: string, text: string, mediaType: string, data: { type: string, data: string | Uint8Array } }> }} ContentOutput
 * The options of `toModelOutput` as js/ai-sdk.d.ts declares them (js/ai-sdk-core.mjs types only `output`).
 * @typedef {{ toolCallId: string, input: unknown, output: unknown }} ModelOutputOptions
 */

const CONV = 'ai-chat-1';
const URI_RE = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}(#.*)?$/;
// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const ROWS = Array.from({ length: 240 }, (_, i) => ({ t: `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00Z`, value: i / 2 }));

let n = 0;
const newCache = (/** @type {Record<string, unknown>} */ extra = {}) => new ResultCache({ dbName: `ai-sdk-${process.pid}-${n++}`, ...extra });

/**
 * Data, chart and image tools; `received` records what each tool got, as the server parsed it.
 * @param {Received} received
 */
function makeServer(received) {
  const server = new McpServer({ name: 'metrics', version: '1.0.0' });
  server.registerTool('timeseries.query', {
    description: 'Samples of a metric.',
    inputSchema: { metric: z.string() },
  }, async ({ metric }) => {
    (received['timeseries.query'] ??= []).push({ metric });
    const value = { ok: true, metric, columns: ['t', 'value'], rows: ROWS };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  });
  server.registerTool('chart.create', {
    description: 'Draws a chart of {t, value} rows.',
    inputSchema: z.strictObject({ title: z.string().optional(), data: z.array(z.strictObject({ t: z.string(), value: z.number() })).min(1) }),
  }, async (args) => {
    (received['chart.create'] ??= []).push(args);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, points: args.data.length }) }] };
  });
  server.registerTool('chart.snapshot', { description: 'A picture of the chart.', inputSchema: {} }, async () => {
    (received['chart.snapshot'] ??= []).push({});
    return { content: [{ type: 'text', text: 'The chart:' }, { type: 'image', data: PNG, mimeType: 'image/png' }] };
  });
  return server;
}

/** @param {Received} received */
async function connectAiSdk(received) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await makeServer(received).connect(serverSide);
  return createMCPClient({ transport: clientSide });
}

/** @param {Received} received */
async function connectSdkClient(received) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await makeServer(received).connect(serverSide);
  const client = new Client({ name: 'ai-sdk-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
/** @type {(id: string, toolName: string, input: unknown) => LanguageModelV4GenerateResult} */
const toolCall = (id, toolName, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
/** @type {(text: string) => LanguageModelV4GenerateResult} */
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

/**
 * A scripted model: `script(toolOutputs, options)` gets the outputs of every tool result in the
 * prompt so far (as the provider would send them) and answers the next step.
 * @param {(outputs: LanguageModelV4ToolResultOutput[], options: LanguageModelV4CallOptions) => LanguageModelV4GenerateResult} script
 */
function scriptedModel(script) {
  /** @type {LanguageModelV4CallOptions[]} */
  const seen = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      seen.push(options);
      const outputs = options.prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result').map((p) => p.output));
      return script(outputs, options);
    },
  });
  return { model, seen };
}

/**
 * The JSON a model reads from a tool-result output with one text part.
 * @param {LanguageModelV4ToolResultOutput} output
 * @returns {string}
 */
const textOf = (output) => {
  if (output.type === 'error-text' || output.type === 'text') return output.value;
  assert.equal(output.type, 'content', `output ${JSON.stringify(output).slice(0, 200)}`);
  return output.value.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
};

test('generateText: the chart tool gets the 240 rows while the model types only the reference', async () => {
  const received = /** @type {Received} */ ({});
  const mcp = await connectAiSdk(received);
  try {
    const tools = /** @type {ToolSet} */ (wrapAiSdkTools(await mcp.tools(), { cache: newCache(), convId: CONV }));
    let reference = /** @type {string | null} */ (null);
    const { model, seen } = scriptedModel((outputs) => {
      if (outputs.length === 0) return toolCall('c1', 'timeseries.query', { metric: 'cpu.load' });
      if (outputs.length === 1) {
        const visible = JSON.parse(textOf(outputs[0]));
        assert.match(visible._cache_uri, URI_RE);
        assert.ok(!JSON.stringify(outputs[0]).includes('"value":119.5'), 'the model was shown the rows');
        reference = visible._cache_refs.rows;
        return toolCall('c2', 'chart.create', { title: 'cpu', data_uri: reference });
      }
      return answer(`chart: ${textOf(outputs[1])}`);
    });
    const result = await generateText({ model, tools, prompt: 'Chart cpu.load', stopWhen: stepCountIs(5) });

    // The model was offered `data_uri` next to `data`, and `data` is no longer required.
    const chart = /** @type {OfferedTool} */ (/** @type {OfferedTool[]} */ (seen[0].tools).find((t) => t.name === 'chart.create'));
    assert.deepEqual(Object.keys(chart.inputSchema.properties), ['title', 'data', 'data_uri']);
    assert.ok(!(chart.inputSchema.required ?? []).includes('data'));
    assert.equal(chart.inputSchema.additionalProperties, false);

    assert.match(/** @type {string} */ (reference), URI_RE);
    assert.equal(result.steps.length, 3);
    const typed = result.steps[1].toolCalls[0];
    assert.deepEqual(typed.input, { title: 'cpu', data_uri: reference });
    assert.ok(JSON.stringify(typed.input).length < 120);
    // What the server received: the rows, and no `_uri` key.
    assert.equal(received['chart.create'].length, 1);
    assert.deepEqual(Object.keys(received['chart.create'][0]), ['title', 'data']);
    assert.deepEqual(received['chart.create'][0].data, ROWS);
    assert.equal(result.text, 'chart: {"ok":true,"points":240}');
  } finally {
    await mcp.close();
  }
});

test('a blocked call (missing reference) never reaches the server; the model gets the envelope and retries', async () => {
  const received = /** @type {Received} */ ({});
  const mcp = await connectAiSdk(received);
  try {
    const tools = /** @type {ToolSet} */ (wrapAiSdkTools(await mcp.tools(), { cache: newCache(), convId: CONV }));
    const missing = `mcp+cache://${CONV}/AAAAAAAAAAAA`;
    let envelope = /** @type {{ error: string, _missing_uris: string[], fix_hint: string } | null} */ (null);
    const { model } = scriptedModel((outputs) => {
      if (outputs.length === 0) return toolCall('c1', 'chart.create', { data_uri: missing });
      if (outputs.length === 1) {
        assert.equal(outputs[0].type, 'error-text');
        envelope = JSON.parse(/** @type {{ value: string }} */ (outputs[0]).value);
        return toolCall('c2', 'chart.create', { data: ROWS.slice(0, 3) });
      }
      return answer('ok');
    });
    const result = await generateText({ model, tools, prompt: 'Chart it', stopWhen: stepCountIs(4) });
    assert.ok(envelope);
    assert.match(envelope.error, /^invalid_args: cache URI .* could not be resolved/);
    assert.deepEqual(envelope._missing_uris, [missing]);
    assert.ok(envelope.fix_hint);
    // The first call never reached the server: only the retry with inline data did.
    assert.equal(received['chart.create'].length, 1);
    assert.equal(received['chart.create'][0].data.length, 3);
    assert.equal(/** @type {TextResult} */ (result.steps[0].toolResults[0].output).isError, true);
  } finally {
    await mcp.close();
  }
});

test('an image tool result reaches the model as a file (media) part, never as base64 text', async () => {
  const received = /** @type {Received} */ ({});
  const mcp = await connectAiSdk(received);
  try {
    const tools = /** @type {ToolSet} */ (wrapAiSdkTools(await mcp.tools(), { cache: newCache(), convId: CONV }));
    let output = /** @type {ContentOutput | null} */ (null);
    const { model } = scriptedModel((outputs) => {
      if (outputs.length === 0) return toolCall('c1', 'chart.snapshot', {});
      output = /** @type {ContentOutput} */ (outputs[0]);
      return answer('a chart');
    });
    await generateText({ model, tools, prompt: 'Show me', stopWhen: stepCountIs(3) });
    assert.ok(output);
    assert.equal(output.type, 'content');
    assert.deepEqual(output.value[0], { type: 'text', text: 'The chart:' });
    const media = output.value[1];
    assert.equal(media.type, 'file');
    assert.equal(media.mediaType, 'image/png');
    assert.equal(media.data.type, 'data');
    const bytes = typeof media.data.data === 'string' ? Buffer.from(media.data.data, 'base64') : Buffer.from(media.data.data);
    assert.deepEqual(bytes, Buffer.from(PNG, 'base64'));
    assert.ok(!output.value.some((p) => p.type === 'text' && p.text.includes(PNG.slice(0, 24))), 'base64 in a text part');
  } finally {
    await mcp.close();
  }
});

test('toModelOutput: audio and blobs are file parts, links stay text, long base64 in unknown blocks is elided', () => {
  const out = toModelOutput(/** @type {ModelOutputOptions} */ ({
    toolCallId: 'x',
    input: {},
    output: {
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///tmp/a.bin', blob: 'BBBB', mimeType: 'application/pdf' } },
        { type: 'resource', resource: { uri: 'file:///tmp/a.txt', text: 'hello' } },
        { type: 'resource_link', uri: 'mcp+cache://c/AAAAAAAAAAAA', name: 'image', mimeType: 'image/png', size: 2000000 },
        { type: 'hologram', data: 'C'.repeat(1000) },
      ],
    },
  }));
  assert.equal(out.type, 'content');
  assert.deepEqual(out.value[0], { type: 'file', mediaType: 'audio/wav', data: { type: 'data', data: 'AAAA' } });
  assert.deepEqual(out.value[1], { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: 'BBBB' }, filename: 'a.bin' });
  assert.deepEqual(out.value[2], { type: 'text', text: 'file:///tmp/a.txt\nhello' });
  assert.equal(out.value[3].type, 'text');
  assert.equal(JSON.parse(out.value[3].text).uri, 'mcp+cache://c/AAAAAAAAAAAA');
  assert.ok(!out.value[4].text.includes('CCCC'));
  assert.deepEqual(toModelOutput(/** @type {ModelOutputOptions} */ ({ toolCallId: 'x', input: {}, output: 'plain' })), { type: 'text', value: 'plain' });
  assert.deepEqual(toModelOutput(/** @type {ModelOutputOptions} */ ({ toolCallId: 'x', input: {}, output: { a: 1 } })), { type: 'json', value: { a: 1 } });
});

test('hand-written Zod tools: augmented schema, validated substituted input, execute options passed through', async () => {
  const cache = newCache();
  /** @type {Array<{ input: object, options: { abortSignal?: AbortSignal, toolCallId: string } }>} */
  const calls = [];
  const raw = {
    load: tool({
      description: 'Loads rows.',
      inputSchema: z.object({ metric: z.string() }),
      execute: async ({ metric }) => ({ metric, rows: ROWS, labels: ROWS.map((r) => r.t) }),
    }),
    plot: tool({
      description: 'Plots rows.',
      inputSchema: z.object({ rows: z.array(z.object({ t: z.string(), value: z.number() })), width: z.number().default(640) }).strict(),
      execute: async (input, options) => {
        calls.push({ input, options });
        return { points: input.rows.length, width: input.width };
      },
    }),
  };
  /** @type {string[]} */
  const convIds = [];
  const tools = /** @type {Record<string, WrappedTool>} */ (wrapAiSdkTools(raw, {
    cache,
    convId: (/** @type {ToolExecutionOptions<unknown>} */ options) => {
      convIds.push(options.toolCallId);
      return CONV;
    },
  }));
  const schema = /** @type {ObjectSchema} */ (await asSchema(tools.plot.inputSchema).jsonSchema);
  assert.ok(schema.properties.rows_uri, 'rows_uri declared');
  assert.equal(schema.additionalProperties, false);
  assert.ok(!(schema.required ?? []).includes('rows'));

  const loaded = /** @type {Visible} */ (await tools.load.execute({ metric: 'm' }, { toolCallId: 't1', messages: [] }));
  assert.match(loaded._cache_uri, URI_RE);
  assert.equal(toModelOutput(/** @type {ModelOutputOptions} */ ({ toolCallId: 't1', input: {}, output: loaded })).type, 'json');

  const controller = new AbortController();
  const plotted = await tools.plot.execute({ rows_uri: loaded._cache_refs.rows, width_uri: null }, { toolCallId: 't2', messages: [], abortSignal: controller.signal });
  assert.deepEqual(plotted, { points: 240, width: 640 });
  assert.equal(calls.length, 1);
  assert.deepEqual(Object.keys(calls[0].input).sort(), ['rows', 'width']);
  assert.equal(calls[0].options.abortSignal, controller.signal);
  assert.equal(calls[0].options.toolCallId, 't2');
  assert.deepEqual(convIds, ['t1', 't2']);

  // Substituted arguments are validated by the tool's own schema: a bad reference target blocks.
  const bad = /** @type {TextResult} */ (await tools.plot.execute({ rows_uri: `${loaded._cache_uri}#/labels` }, { toolCallId: 't3', messages: [] }));
  assert.equal(bad.isError, true);
  assert.match(JSON.parse(bad.content[0].text).error, /^invalid_args: the arguments of plot/);
  assert.equal(calls.length, 1);
  // The inline cap applies to `data` by default; `cappedArgs` names other arguments.
  const inline = /** @type {{ points: number }} */ (await tools.plot.execute({ rows: ROWS.slice(0, 24) }, { toolCallId: 't4', messages: [] }));
  assert.equal(inline.points, 24);
  assert.equal(calls.length, 2);
  const cappedRows = /** @type {Record<string, WrappedTool>} */ (wrapAiSdkTools(raw, { cache, convId: CONV, cappedArgs: ['rows'] }));
  const refused = /** @type {TextResult} */ (await cappedRows.plot.execute({ rows: ROWS.slice(0, 24) }, { toolCallId: 't5', messages: [] }));
  assert.equal(refused.isError, true);
  assert.equal(JSON.parse(refused.content[0].text)._capped_arg, 'rows');
  assert.equal(calls.length, 2);
});

test('a streaming tool: preliminary outputs pass through, the last one is what the model sees', async () => {
  const tools = wrapAiSdkTools({
    progress: tool({
      inputSchema: z.object({}),
      async *execute() {
        yield { status: 'loading' };
        yield { status: 'done', rows: ROWS };
      },
    }),
  }, { cache: newCache(), convId: CONV });
  /** @type {Array<{ status?: string, rows: unknown[], _cache_uri: string }>} */
  const seen = [];
  for await (const output of /** @type {(input: unknown, options: unknown) => AsyncIterable<(typeof seen)[number]>} */ (tools.progress.execute)({}, { toolCallId: 's1', messages: [] })) seen.push(output);
  // The last output (the result, stored) is never passed on: what the model sees takes its place.
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[0], { status: 'loading' });
  assert.match(seen[1]._cache_uri, URI_RE);
});

test('a streaming tool stopped early (streamText aborted, or its generator returned) stops, and stores nothing', async () => {
  /** @type {number[]} */
  const steps = [];
  let closed = 0;
  const cache = newCache();
  const tools = wrapAiSdkTools({
    export_rows: tool({
      inputSchema: z.object({}),
      async *execute() {
        try {
          for (let i = 0; i < 10; i++) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            steps.push(i); // a side effect per step (a page fetched, a row exported)
            yield { status: `page ${i}` };
          }
          yield { status: 'done', rows: ROWS };
        } finally {
          closed += 1;
        }
      },
    }),
  }, { cache, convId: CONV });
  // `streamText` streams: the model calls the tool, then answers.
  let turn = 0;
  const model = new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream(/** @type {import('@ai-sdk/provider').LanguageModelV4StreamPart[]} */ (turn++ === 0
        ? [{ type: 'tool-call', toolCallId: 'x1', toolName: 'export_rows', input: '{}' }, { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage }]
        : [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage }])),
    }),
  });
  const stop = new AbortController();
  const result = streamText({ model, tools: /** @type {ToolSet} */ (/** @type {unknown} */ (tools)), prompt: 'export', stopWhen: stepCountIs(3), abortSignal: stop.signal, onError: () => {} });
  let progress = 0;
  for await (const part of result.fullStream) {
    // The user stops the chat once two pages of progress have arrived.
    if (part.type === 'tool-result' && part.preliminary && ++progress === 2) stop.abort();
  }
  assert.equal(progress, 2, 'the tool ran and reported its progress');
  await new Promise((resolve) => setTimeout(resolve, 250)); // the ten steps' time, and more
  assert.ok(steps.length <= 4, `the original stopped (ran ${steps.length} of 10 steps)`);
  assert.equal(closed, 1, 'the original was returned');
  assert.deepEqual(await cache.entries({ convId: CONV }), [], 'nothing stored');

  // A consumer that stops pulling (returns the generator) stops the original as well.
  steps.length = 0;
  const outputs = /** @type {(input: unknown, options: unknown) => AsyncIterable<unknown>} */ (tools.export_rows.execute)({}, { toolCallId: 'x2', messages: [] });
  for await (const _output of outputs) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.ok(steps.length <= 2, `the original stopped (ran ${steps.length} of 10 steps)`);
  assert.equal(closed, 2);
  assert.deepEqual(await cache.entries({ convId: CONV }), [], 'nothing stored');
});

test('clientToolSet over an SDK Client: the same pipeline, the server named; without a cache, plain tools', async () => {
  const received = /** @type {Received} */ ({});
  const client = await connectSdkClient(received);
  try {
    const cache = newCache();
    const tools = /** @type {Record<string, WrappedTool>} */ (/** @type {unknown} */ (await clientToolSet(client, { cache, convId: CONV })));
    assert.deepEqual(Object.keys(tools).sort(), ['chart.create', 'chart.snapshot', 'timeseries.query']);
    const schema = /** @type {ObjectSchema} */ (await asSchema(tools['chart.create'].inputSchema).jsonSchema);
    assert.ok(schema.properties.data_uri);
    const first = /** @type {TextResult} */ (await tools['timeseries.query'].execute({ metric: 'm' }, { toolCallId: 'a', messages: [] }));
    const visible = JSON.parse(/** @type {{ text: string }} */ (first.content.find((b) => b.type === 'text')).text);
    const entries = await cache.entries({ convId: CONV });
    assert.equal(entries.length, 1);
    const second = /** @type {TextResult} */ (await tools['chart.create'].execute({ data_uri: visible._cache_refs.rows }, { toolCallId: 'b', messages: [] }));
    assert.equal(JSON.parse(second.content[0].text).points, 240);
    assert.deepEqual(Object.keys(received['chart.create'][0]), ['data']);

    const plain = /** @type {Record<string, WrappedTool>} */ (/** @type {unknown} */ (await clientToolSet(client)));
    const plainSchema = /** @type {ObjectSchema} */ (await asSchema(plain['chart.create'].inputSchema).jsonSchema);
    assert.equal(plainSchema.properties.data_uri, undefined);
    const raw = /** @type {{ structuredContent: { rows: unknown[] } }} */ (await plain['timeseries.query'].execute({ metric: 'm' }, { toolCallId: 'c', messages: [] }));
    assert.equal(raw.structuredContent.rows.length, 240);

    // Any object of that shape works (what `cacheTools(cache)` returns).
    const shaped = /** @type {Record<string, WrappedTool>} */ (/** @type {unknown} */ (await clientToolSet({
      listTools: async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] }),
      callTool: async (/** @type {{ name: string, arguments: { text: string } }} */ { name, arguments: args }) => ({ content: [{ type: 'text', text: `${name}:${args.text}` }] }),
    })));
    assert.deepEqual(await shaped.echo.execute({ text: 'hi' }, { toolCallId: 'd', messages: [] }), { content: [{ type: 'text', text: 'echo:hi' }] });
  } finally {
    await client.close();
  }
});

test('cacheToolSet: the model selects the last 48 rows inside the cache and charts that derived reference', async () => {
  const received = /** @type {Received} */ ({});
  const client = await connectSdkClient(received);
  try {
    const cache = newCache({ readTools: true });
    const tools = { ...(await clientToolSet(client, { cache, convId: CONV, view: 'preview' })), ...(await cacheToolSet(cache, { convId: CONV })) };
    assert.deepEqual(Object.keys(tools).filter((k) => k.startsWith('cache_')), ['cache_read', 'cache_search', 'cache_select']);
    const { model, seen } = scriptedModel((outputs) => {
      if (outputs.length === 0) return toolCall('c1', 'timeseries.query', { metric: 'cpu' });
      const last = JSON.parse(textOf(/** @type {LanguageModelV4ToolResultOutput} */ (outputs.at(-1))));
      if (outputs.length === 1) {
        assert.equal(last._cache_shape.rows, 240);
        assert.ok(last._preview_rows.length > 0 && last._preview_rows.length < 240, 'a preview');
        assert.match(last._truncation_hint, /cache_read .*cache_search .*cache_select/);
        return toolCall('c2', 'cache_select', { uri: last._cache_refs.rows, where: [{ field: 'value', op: '>=', value: 96 }] });
      }
      if (outputs.length === 2) {
        assert.equal(last.count, 48);
        return toolCall('c3', 'chart.create', { title: 'last 48', data_uri: last._cache_uri });
      }
      return answer(textOf(/** @type {LanguageModelV4ToolResultOutput} */ (outputs.at(-1))));
    });
    const result = await generateText({ model, tools, prompt: 'chart the last 48 samples', stopWhen: stepCountIs(6) });
    const select = /** @type {OfferedTool} */ (/** @type {OfferedTool[]} */ (seen[0].tools).find((t) => t.name === 'cache_select'));
    assert.deepEqual(select.inputSchema.required, ['uri']);
    assert.equal(result.text, '{"ok":true,"points":48}');
    assert.deepEqual(received['chart.create'][0].data, ROWS.slice(192));
    assert.deepEqual(Object.keys(received['chart.create'][0]), ['title', 'data']);
  } finally {
    await client.close();
  }
  await assert.rejects(cacheToolSet(newCache(), { prefix: 'bad prefix' }), TypeError);
});

test('declaration-only tools (executed elsewhere, e.g. in the browser) get the schema and toModelOutput', async () => {
  const tools = /** @type {Record<string, Partial<WrappedTool>>} */ (wrapAiSdkTools({ plot: { inputSchema: z.object({ data: z.array(z.number()) }) } }, { cache: newCache() }));
  assert.equal(tools.plot.execute, undefined);
  assert.ok(/** @type {ObjectSchema} */ (await asSchema(tools.plot.inputSchema).jsonSchema).properties.data_uri);
  assert.equal(tools.plot.toModelOutput, toModelOutput);
});

test('bad input is a TypeError', async () => {
  const cache = newCache();
  assert.throws(() => wrapAiSdkTools(null, { cache }), TypeError);
  assert.throws(() => wrapAiSdkTools([], { cache }), TypeError);
  assert.throws(() => wrapAiSdkTools({}, {}), /needs \{ cache: ResultCache \}/);
  assert.throws(() => /** @type {(tools: unknown) => unknown} */ (wrapAiSdkTools)({}), TypeError); // no options, on purpose
  assert.throws(() => wrapAiSdkTools({}, { cache, convId: {} }), /convId must be/);
  assert.throws(() => wrapAiSdkTools({ x: 42 }, { cache }), /`x` is not an AI SDK tool/);
  assert.throws(() => wrapAiSdkTools({}, { cache, server: 7 }), /server must be/);
  assert.throws(() => wrapAiSdkTools({}, { cache, augment: true }), /augment must be/);
  await assert.rejects(clientToolSet({}), TypeError);
  await assert.rejects(clientToolSet({ listTools: async () => ({}), callTool: async () => ({}) }), /must resolve \{ tools/);
  await assert.rejects(clientToolSet({ listTools: async () => ({ tools: [] }), callTool: async () => ({}) }, { cache: 1 }), TypeError);
});

test('the CommonJS entry is the same module, sharing the package instance', async () => {
  const require = createRequire(import.meta.url);
  const cjs = require('../../js/ai-sdk.node.cjs');
  assert.equal(cjs.wrapAiSdkTools, wrapAiSdkTools);
  assert.equal(require('../../js/node.cjs').ResultCache, ResultCache);
});

test('tools named __proto__, constructor or toString are tools like any other: own keys of every tool set, never its prototype', async () => {
  // A low-level SDK server: `McpServer` keeps its tools in a plain object and cannot register `__proto__`.
  const server = new Server({ name: 'odd-names', version: '1.0.0' }, { capabilities: { tools: {} } });
  const names = ['__proto__', 'constructor', 'toString', 'ok'];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: names.map((name) => ({ name, description: `tool ${name}`, inputSchema: { type: 'object', properties: { q: { type: 'string' } } } })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `${request.params.name}:${request.params.arguments?.q}` }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'odd-names-test', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    const cache = new ResultCache({ storage: 'memory' });
    for (const set of [await clientToolSet(client), await clientToolSet(client, { cache, convId: 'c' }), await clientToolSet(client, { cache, convId: 'c', omitStoredPayload: true, pageReferences: [] })]) {
      assert.deepEqual(Object.keys(set), names);
      assert.equal(Object.getPrototypeOf(set), Object.prototype);
      const proto = /** @type {{ execute(input: unknown, options: unknown): Promise<{ content: { text: string }[] }> }} */ (/** @type {unknown} */ (Object.getOwnPropertyDescriptor(set, '__proto__')?.value));
      const out = await proto.execute({ q: 'x' }, { toolCallId: '1', messages: [] });
      assert.equal(out.content[0].text, '__proto__:x');
    }
  } finally {
    await client.close();
    await server.close();
  }
});
