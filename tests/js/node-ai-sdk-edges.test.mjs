// mcp-result-cache/ai-sdk at its edges, with the real AI SDK's loop (`generateText` and its own
// mock model): a tool's own `needsApproval`, and the host's own rules composed by
// `cacheToolApproval`, are asked about the data its `execute` would get, not the reference the
// model sent; `omitStoredPayload` keeps small data the cache did not store; an
// `execute` that returns an AsyncIterable without being an `async function*` runs, its last
// value is its output, and an abort stops it (one that came before, too); a bad `augment` option
// is a TypeError at once; `clientToolSet` leaves out a listed tool whose name claims a server,
// and stops at a cursor the server gave twice; `toModelOutput` reads a CallToolResult as the
// cache does.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { z } from 'zod';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import { ResultCache } from '../../pkg/node.mjs';
import { cacheToolApproval, clientToolSet, toModelOutput, wrapAiSdkTools } from '../../js/ai-sdk.node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';

/**
 * @import { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider'
 * @import { ToolSet } from 'ai'
 * @typedef {NonNullable<Parameters<typeof generateText>[0]['toolApproval']>} ToolApproval
 * @typedef {Parameters<typeof toModelOutput>[0]} ModelOutputOptions
 */

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
/** A step of the mock model: one tool call. @param {string} toolName @param {unknown} input @returns {LanguageModelV4GenerateResult} */
const toolCall = (toolName, input) => ({
  content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [],
});
/** @type {LanguageModelV4GenerateResult} */
const done = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
/** The tool results the model was sent so far. @param {LanguageModelV4CallOptions} options */
const toolResults = (options) => options.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));

const PATHS = ['/etc/passwd', ...Array.from({ length: 300 }, (_, i) => `/etc/conf.d/file-${i}.conf`)];

/**
 * The "clean up /etc" turn: `find` answers 301 paths (stored: the model sees a reference), then
 * the model calls `delete_files` with `paths_uri` to them (beside a harmless `paths` when
 * `decoy`). Resolves the approval requests of the loop and the paths deleted.
 * @param {{ label: string, needsApproval?: (input: { paths?: string[] }) => Promise<boolean>, decoy?: boolean, toolApproval?: (tools: ToolSet) => unknown }} run
 */
async function cleanUp({ label, needsApproval, decoy = false, toolApproval }) {
  const cache = new ResultCache({ storage: 'memory', dbName: `edges-${label}` });
  /** @type {string[]} */
  const deleted = [];
  const tools = /** @type {ToolSet} */ (wrapAiSdkTools({
    find: { description: 'Finds files.', inputSchema: z.object({ dir: z.string() }), execute: async () => ({ paths: PATHS }) },
    delete_files: {
      description: 'Deletes files.',
      inputSchema: z.object({ paths: z.array(z.string()) }),
      ...(needsApproval ? { needsApproval } : {}),
      execute: async (/** @type {{ paths: string[] }} */ { paths }) => {
        deleted.push(...paths);
        return { deleted: paths.length };
      },
    },
  }, { cache, convId: 'conv-1' }));
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const results = toolResults(options);
      if (results.length === 0) return toolCall('find', { dir: '/etc' });
      if (results.length > 1) return done;
      const output = /** @type {{ value: { _cache_uri: string } }} */ (/** @type {{ output: unknown }} */ (results[0]).output);
      const paths_uri = `${output.value._cache_uri}#/paths`;
      return toolCall('delete_files', decoy ? { paths: ['/tmp/scratch.txt'], paths_uri } : { paths_uri });
    },
  });
  const result = await generateText({ model, tools, prompt: 'clean up', stopWhen: stepCountIs(4), ...(toolApproval ? { toolApproval: /** @type {ToolApproval} */ (toolApproval(tools)) } : {}) });
  return { requests: result.steps.flatMap((s) => s.content).filter((part) => part.type === 'tool-approval-request'), deleted };
}

/** The rule of these tests: deleting anything under /etc needs the user's approval. */
const touchesEtc = (/** @type {unknown} */ input) => ((/** @type {{ paths?: string[] }} */ (input)).paths ?? []).some((p) => p.startsWith('/etc'));

test('a tool\'s own needsApproval is asked about the referenced data its execute would get, not the reference', async () => {
  for (const composed of [false, true]) {
    for (const decoy of [false, true]) {
      const { requests, deleted } = await cleanUp({
        label: `${composed}-${decoy}`, decoy, needsApproval: async (input) => touchesEtc(input),
        ...(composed ? { toolApproval: (tools) => cacheToolApproval(tools) } : {}),
      });
      assert.equal(requests.length, 1, `the user is asked (toolApproval: ${composed}, decoy: ${decoy})`);
      assert.deepEqual(deleted, [], 'nothing deleted before an answer');
    }
  }
});

test('cacheToolApproval: the host\'s own rules (a function, or one by tool name) judge the referenced data, not the reference', async () => {
  /** @type {[string, unknown][]} */
  const owns = [
    ['by tool name', { delete_files: (/** @type {unknown} */ input) => (touchesEtc(input) ? 'user-approval' : 'not-applicable') }],
    ['a function', (/** @type {{ toolCall: { toolName: string, input: unknown } }} */ { toolCall }) => (toolCall.toolName === 'delete_files' && touchesEtc(toolCall.input) ? 'user-approval' : 'not-applicable')],
  ];
  for (const [label, own] of owns) {
    const { requests, deleted } = await cleanUp({ label: `own-${label}`, toolApproval: (tools) => cacheToolApproval(tools, /** @type {never} */ (own)) });
    assert.equal(requests.length, 1, `the user is asked (${label})`);
    assert.deepEqual(deleted, [], `nothing deleted before an answer (${label})`);
  }
});

test('a tool\'s own needsApproval is asked about its input as validated (defaults, transforms), reference or not', async () => {
  /** @type {[z.ZodType, unknown][]} */
  const cases = [[z.object({ paths: z.array(z.string()).default(['/etc/passwd']) }), {}], [z.object({ paths: z.array(z.string().trim()) }), { paths: [' /etc/passwd'] }]];
  for (const [schema, input] of cases) {
    /** @type {string[]} */
    const deleted = [];
    const tools = /** @type {ToolSet} */ (wrapAiSdkTools({
      delete_files: {
        description: 'Deletes files.',
        inputSchema: schema,
        needsApproval: async (/** @type {{ paths?: string[] }} */ { paths }) => (paths ?? []).some((p) => p.startsWith('/etc')),
        execute: async (/** @type {{ paths: string[] }} */ { paths }) => {
          deleted.push(...paths);
          return { deleted: paths.length };
        },
      },
    }, { cache: new ResultCache({ storage: 'memory' }), convId: 'conv-1' }));
    const model = new MockLanguageModelV4({ doGenerate: async (options) => (toolResults(options).length ? done : toolCall('delete_files', input)) });
    const result = await generateText({ model, tools, prompt: 'clean up', stopWhen: stepCountIs(3) });
    assert.equal(result.steps.flatMap((s) => s.content).filter((part) => part.type === 'tool-approval-request').length, 1);
    assert.deepEqual(deleted, []);
  }
});

test('omitStoredPayload keeps structuredContent the cache did not store (a stored image beside small data)', async () => {
  const cache = new ResultCache({ storage: 'memory', dbName: 'edges-omit' });
  const image = { type: 'image', data: Buffer.alloc(2 * 1024 * 1024, 7).toString('base64'), mimeType: 'image/png' };
  const small = { chartId: 'ch-42', series: 3 };
  const big = { rows: Array.from({ length: 300 }, (_, i) => ({ i, v: `row ${i}` })) };
  const tools = wrapAiSdkTools({
    chart: { inputSchema: z.object({}), execute: async () => ({ content: [{ type: 'text', text: 'Here is the chart.' }, image], structuredContent: small }) },
    rows: { inputSchema: z.object({}), execute: async () => ({ content: [{ type: 'text', text: JSON.stringify(big) }], structuredContent: big }) },
  }, { cache, convId: 'c', omitStoredPayload: true });
  const options = { toolCallId: 'x', messages: [] };
  const chart = /** @type {{ structuredContent?: unknown }} */ (await /** @type {(i: unknown, o: unknown) => Promise<unknown>} */ (tools.chart.execute)({}, options));
  assert.deepEqual(chart.structuredContent, small, 'small data, not stored: kept');
  const rows = /** @type {{ structuredContent?: unknown }} */ (await /** @type {(i: unknown, o: unknown) => Promise<unknown>} */ (tools.rows.execute)({}, options));
  assert.equal(rows.structuredContent, undefined, 'the stored data\'s copy: omitted');
});

test('an execute that returns an AsyncIterable without being an async function* runs; its last value is the output', async () => {
  /** @type {string[]} */
  const log = [];
  const rows = Array.from({ length: 300 }, (_, i) => ({ i, s: 'row'.repeat(5) }));
  async function* progressThenRows() {
    log.push('started');
    yield { progress: 0.5 };
    log.push('finished');
    yield { rows };
  }
  const tools = /** @type {ToolSet} */ (wrapAiSdkTools({ report: { inputSchema: z.object({}), execute: () => progressThenRows() } }, { cache: new ResultCache({ storage: 'memory', dbName: 'edges-iterable' }), convId: 'c' }));
  const model = new MockLanguageModelV4({ doGenerate: async (options) => (toolResults(options).length ? done : toolCall('report', {})) });
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
  assert.deepEqual(log, ['started', 'finished']);
  const output = /** @type {{ _cache_uri?: unknown }} */ (result.steps[0].toolResults[0].output);
  assert.equal(typeof output._cache_uri, 'string', `the rows, stored: ${JSON.stringify(output).slice(0, 200)}`);
});

test('an abort stops an execute that returns an AsyncIterable, and the call stores nothing', async () => {
  /** @type {(number | string)[]} */
  const log = [];
  async function* slow() {
    try {
      for (let i = 0; i < 6; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        log.push(i);
        yield { progress: i };
      }
    } finally {
      log.push('finally');
    }
  }
  const cache = new ResultCache({ storage: 'memory', dbName: 'edges-abort' });
  const tools = /** @type {ToolSet} */ (wrapAiSdkTools({ report: { inputSchema: z.object({}), execute: () => slow() } }, { cache, convId: 'c' }));
  const model = new MockLanguageModelV4({ doGenerate: async () => toolCall('report', {}) });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('user stopped')), 120);
  await generateText({ model, tools, prompt: 'x', stopWhen: stepCountIs(1), abortSignal: controller.signal }).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(log.at(-1), 'finally', 'returned');
  assert.ok(log.length < 7, `stopped early: ${JSON.stringify(log)}`);
  assert.equal((await cache.entries({ convId: 'c' })).length, 0);
});

test('a bad augment option is a TypeError when the tools or the client are wrapped', () => {
  const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
  for (const augment of [{ objects: 'yes' }, { objects: 1 }, 'objects']) {
    assert.throws(() => wrapAiSdkTools({}, { cache: new ResultCache({ storage: 'memory' }), augment }), { name: 'TypeError', message: /augment must be an object/ });
    assert.throws(() => wrapMcpClient(client, { cache: new ResultCache({ storage: 'memory' }), augment }), { name: 'TypeError', message: /wrapMcpClient: augment must be an object/ });
  }
  assert.doesNotThrow(() => wrapAiSdkTools({}, { cache: new ResultCache({ storage: 'memory' }), augment: { objects: true } }));
});

test('clientToolSet leaves out a listed tool whose name claims a server (U+001F); the others are offered', async () => {
  const client = {
    listTools: async () => ({ tools: [{ name: 'vault\u001fx', inputSchema: { type: 'object' } }, { name: 'notes.add', inputSchema: { type: 'object' } }] }),
    callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    getServerVersion: () => ({ name: 'notes' }),
  };
  for (const options of [{ cache: new ResultCache({ storage: 'memory' }), convId: 'c' }, {}]) {
    const tools = await clientToolSet(client, options);
    assert.deepEqual(Object.keys(tools), ['notes.add'], options.cache ? 'with a cache' : 'without');
  }
});

test('toModelOutput reads a CallToolResult as afterToolCall does: a page of rows under `content` is JSON, its reference with it', async () => {
  const cache = new ResultCache({ storage: 'memory', dbName: 'edges-model-output' });
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, title: `post ${i}` }));
  const outputs = [
    { content: rows, totalElements: 300 },
    { content: [{ type: 'text', text: JSON.stringify({ rows }) }, null] },
    { content: [], structuredContent: { rows } },
  ];
  for (const output of outputs) {
    const shown = /** @type {Record<string, unknown>} */ (await cache.afterToolCall('t', output, { convId: 'c' }));
    // Stored as data, the result carries its reference at the top; as a CallToolResult, in `_meta`.
    const storedAsData = typeof shown._cache_uri === 'string';
    assert.ok(storedAsData || Array.isArray(/** @type {Record<string, unknown>} */ (shown._meta)?.['mcp-result-cache/uris']), 'stored either way');
    const model = toModelOutput(/** @type {ModelOutputOptions} */ ({ toolCallId: 'x', input: {}, output: shown }));
    assert.equal(model.type === 'json', storedAsData, JSON.stringify(output).slice(0, 80));
  }
  const shown = await cache.afterToolCall('t', outputs[0], { convId: 'c' });
  const model = /** @type {{ type: string, value: Record<string, unknown> }} */ (toModelOutput(/** @type {ModelOutputOptions} */ ({ toolCallId: 'x', input: {}, output: shown })));
  assert.equal(typeof model.value._cache_uri, 'string', 'the model can pass the page on by reference');
  assert.equal(model.value.totalElements, 300);
});

test('an execute whose iterable is not an async function* stops at once on a signal that has aborted already', async () => {
  const cache = new ResultCache({ storage: 'memory', dbName: 'edges-aborted' });
  let steps = 0;
  const iterable = { [Symbol.asyncIterator]: () => ({ next: async () => (steps++ < 5 ? { done: false, value: { rows: [steps] } } : { done: true, value: undefined }) }) };
  const tools = /** @type {Record<string, { execute: (input: unknown, options: unknown) => Promise<unknown> }>} */ (/** @type {unknown} */ (wrapAiSdkTools({ report: { inputSchema: z.object({}), execute: () => iterable } }, { cache, convId: 'c' })));
  const controller = new AbortController();
  controller.abort(new Error('user stopped'));
  await assert.rejects(tools.report.execute({}, { toolCallId: 't1', messages: [], abortSignal: controller.signal, context: {} }), /user stopped/);
  assert.ok(steps <= 1, `${steps} steps ran`);
  assert.equal((await cache.entries({ convId: 'c' })).length, 0);
});

test('a server that answers a cursor it gave before stops the listing with a TypeError, never lists forever', async () => {
  let lists = 0;
  const client = {
    listTools: async () => ({ tools: [{ name: `t${lists++}`, inputSchema: { type: 'object' } }], nextCursor: 'again' }),
    callTool: async () => ({ content: [] }),
  };
  await assert.rejects(clientToolSet(client, { cache: new ResultCache({ storage: 'memory' }), convId: 'c' }), { name: 'TypeError', message: /cursor "again" twice/ });
  assert.equal(lists, 2);
});

test('tools wrapped twice over one cache store a result once, and answer what the inner wrapper stored', async () => {
  const rows = Array.from({ length: 120 }, (_, i) => ({ id: i, note: 'x'.repeat(20) }));
  const cache = new ResultCache({ storage: 'memory' });
  const tools = { series: { inputSchema: z.object({ n: z.number() }), execute: async () => ({ rows }) } };
  const inner = wrapAiSdkTools(tools, { cache, convId: 'twice' });
  const outer = /** @type {Record<string, { execute: (input: unknown, options: unknown) => Promise<unknown> }>} */ (wrapAiSdkTools(inner, { cache, convId: 'twice' }));
  const output = /** @type {{ _cache_uri?: string }} */ (await outer.series.execute({ n: 1 }, { toolCallId: 'c1', messages: [] }));
  const stored = await cache.entries({ convId: 'twice' });
  assert.equal(stored.length, 1, 'one entry, not one per wrapper');
  assert.equal(output._cache_uri, stored[0].uri, 'the model is shown that entry');
  assert.deepEqual(/** @type {{ status: string, payload?: unknown }} */ (await cache.lookup(stored[0].uri, { convId: 'twice' })).payload, { rows }, 'holding the tool\'s own result, not the inner wrapper\'s answer');
});

test('a tool\'s text wrapped twice is stored once; the same text from the tool again is a new result, stored again', async () => {
  const text = JSON.stringify({ rows: Array.from({ length: 120 }, (_, i) => ({ id: i, note: 'x'.repeat(20) })) });
  const cache = new ResultCache({ storage: 'memory' });
  const tools = { series: { inputSchema: z.object({ n: z.number() }), execute: async () => text } };
  const inner = /** @type {Record<string, { execute: (input: unknown, options: unknown) => Promise<unknown> }>} */ (wrapAiSdkTools(tools, { cache, convId: 'text' }));
  const outer = /** @type {Record<string, { execute: (input: unknown, options: unknown) => Promise<unknown> }>} */ (wrapAiSdkTools(inner, { cache, convId: 'text' }));
  const first = await outer.series.execute({ n: 1 }, { toolCallId: 'c1', messages: [] });
  assert.equal(typeof first, 'string');
  const stored = await cache.entries({ convId: 'text' });
  assert.equal(stored.length, 1, 'one entry for the two layers');
  assert.equal(JSON.parse(/** @type {string} */ (first))._cache_uri, stored[0].uri);
  // The tool answers the very same text again: the cache reads it as the new result it is.
  await inner.series.execute({ n: 2 }, { toolCallId: 'c2', messages: [] });
  assert.equal((await cache.entries({ convId: 'text' })).length, 2, 'a tool\'s own text is never taken for an answer');
});
