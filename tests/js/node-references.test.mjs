// `referencesOf(output)` on every form of output this package produces, each made by the real
// pipeline: `afterToolCall` on a JSON payload and on MCP `CallToolResult`s (structured data, a
// big text, an image), and the AI SDK's own `generateText` loop with a scripted model over
// `wrapAiSdkTools` (the tool result's `output`, the model's view of it, a UI tool part). Also:
// the same function from every entry, hostile values, and an input never mutated.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { z } from 'zod';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import { ResultCache, referencesOf } from 'mcp-result-cache';
import { referencesOf as fromAiSdk, wrapAiSdkTools } from 'mcp-result-cache/ai-sdk';
import { referencesOf as fromMcpClient } from 'mcp-result-cache/mcp-client';

const require = createRequire(import.meta.url);
const CONV = 'refs-1';
const URI_RE = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}(#.*)?$/;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/**
 * A stored JSON result as the model sees it: the fields these tests read.
 * @typedef {{ _cache_uri: string, _cache_refs: Record<string, string>, _truncated?: boolean }} Visible
 */
/**
 * A CallToolResult as afterToolCall shows it: the fields these tests read.
 * @typedef {{ content: { type: string, text: string, uri: string }[], _meta: Record<string, string[]> }} Shown
 */
const table = (/** @type {number} */ n) => ({ ok: true, columns: ['t', 'value'], rows: Array.from({ length: n }, (_, i) => ({ t: `2026-01-01T00:00:${i}Z`, value: i })) });
const unique = (/** @type {unknown[]} */ list) => [...new Set(list)];

let n = 0;
const newCache = () => new ResultCache({ storage: 'memory', dbName: `refs-${process.pid}-${n++}` });

/**
 * A deep copy that throws on any write: `referencesOf` must not mutate what it reads.
 * @param {unknown} value
 * @returns {unknown}
 */
function frozen(value) {
  if (value === null || typeof value !== 'object') return value;
  for (const key of Object.keys(value)) /** @type {Record<string, unknown>} */ (value)[key] = frozen(/** @type {Record<string, unknown>} */ (value)[key]);
  return Object.freeze(value);
}

test('a stored JSON payload as the model sees it: _cache_uri, then the _cache_refs values', async () => {
  const visible = /** @type {Visible} */ (await newCache().afterToolCall('metrics.query', table(300), { convId: CONV }));
  assert.match(visible._cache_uri, URI_RE);
  assert.ok(Object.keys(visible._cache_refs).length >= 1);
  const expected = [visible._cache_uri, ...Object.values(visible._cache_refs)];
  assert.deepEqual(referencesOf(frozen(structuredClone(visible))), expected);
  // Its JSON text (what a host finds in a message) answers the same.
  assert.deepEqual(referencesOf(JSON.stringify(visible)), expected);
  // An array payload is stored as { data, _cache_uri }.
  const array = /** @type {Visible} */ (await newCache().afterToolCall('metrics.list', table(300).rows, { convId: CONV }));
  assert.deepEqual(referencesOf(array), [array._cache_uri, ...Object.values(array._cache_refs ?? {})]);
  // The summary above maxChars carries the reference too.
  const summary = /** @type {Visible} */ (await newCache().afterToolCall('metrics.query', table(3000), { convId: CONV, maxChars: 2000 }));
  assert.equal(summary._truncated, true);
  assert.deepEqual(referencesOf(summary), [summary._cache_uri, ...Object.values(summary._cache_refs ?? {})]);
});

test('a CallToolResult: _meta["mcp-result-cache/uris"], the text JSON, resource links', async () => {
  const cache = newCache();
  const data = table(300);
  const structured = /** @type {Shown} */ (await cache.afterToolCall('metrics.query', { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data }, { convId: CONV }));
  const meta = structured._meta['mcp-result-cache/uris'];
  assert.ok(meta.length >= 1 && meta.every((u) => URI_RE.test(u)));
  const text = JSON.parse(structured.content[0].text);
  assert.deepEqual(referencesOf(structured), unique([...meta, text._cache_uri, ...Object.values(text._cache_refs)]));
  assert.equal(referencesOf(structured)[0], meta[0]);

  // A big text: the preview line is not parsed; _meta names the stored text.
  const long = Array.from({ length: 2000 }, (_, i) => `line ${i} of a long log`).join('\n');
  const preview = /** @type {Shown} */ (await cache.afterToolCall('logs.tail', { content: [{ type: 'text', text: long }] }, { convId: CONV, maxChars: 4000 }));
  assert.ok(preview.content[0].text.includes('[preview:'));
  assert.deepEqual(referencesOf(preview), preview._meta['mcp-result-cache/uris']);
  assert.equal(referencesOf(preview).length, 1);

  // An image too big to show: its resource_link and _meta agree.
  const image = /** @type {Shown} */ (await cache.afterToolCall('chart.snapshot', { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }, { convId: CONV, mediaMaxBytes: 10 }));
  const link = image.content.find((b) => b.type === 'resource_link');
  assert.ok(link, JSON.stringify(image).slice(0, 300));
  assert.deepEqual(referencesOf(image), [link.uri]);
  // Without its _meta (a proxy that dropped it), the link still names it.
  const { _meta, ...bare } = image;
  assert.ok(_meta);
  assert.deepEqual(referencesOf(bare), [link.uri]);
});

test('AI SDK: the tool result output, the model output and a UI tool part, from generateText', async () => {
  const tools = wrapAiSdkTools({
    query: tool({ description: 'Rows.', inputSchema: z.object({ n: z.number() }), execute: async ({ n: count }) => table(count) }),
  }, { cache: newCache(), convId: CONV });
  /** @type {unknown[]} */
  const modelOutputs = [];
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const outputs = options.prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result').map((p) => p.output));
      modelOutputs.push(...outputs);
      if (outputs.length === 0) {
        return { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'query', input: JSON.stringify({ n: 300 }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
      }
      return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
  const result = await generateText({ model, tools, prompt: 'rows', stopWhen: stepCountIs(3) });
  const { output } = result.steps[0].toolResults[0];
  assert.match(output._cache_uri, URI_RE);
  const expected = [output._cache_uri, ...Object.values(output._cache_refs)];
  assert.deepEqual(referencesOf(output), expected);
  // What the model was sent (toModelOutput's form).
  assert.equal(modelOutputs.length, 1);
  assert.deepEqual(referencesOf(modelOutputs[0]), expected);
  // useChat's tool part and a dynamic tool's, and the step's tool-result part, around the output.
  assert.deepEqual(referencesOf({ type: 'tool-query', toolCallId: 'c1', state: 'output-available', input: { n: 300 }, output }), expected);
  assert.deepEqual(referencesOf({ type: 'dynamic-tool', toolName: 'query', toolCallId: 'c1', state: 'output-available', input: {}, output }), expected);
  assert.deepEqual(referencesOf(result.steps[0].content.find((p) => p.type === 'tool-result')), expected);
  // A message's parts at once, deduplicated.
  assert.deepEqual(referencesOf([{ type: 'text', text: 'hi' }, { type: 'tool-query', output }, { type: 'tool-query', output }]), expected);
});

test('one function in every entry; anything else carries no reference; hostile values never throw', () => {
  const cjs = require('mcp-result-cache');
  for (const f of [fromAiSdk, fromMcpClient, cjs.referencesOf]) {
    assert.deepEqual(f({ _cache_uri: 'mcp+cache://c/AAAAAAAAAAA', _cache_refs: { rows: 'mcp+cache://c/AAAAAAAAAAA#/rows' } }), ['mcp+cache://c/AAAAAAAAAAA', 'mcp+cache://c/AAAAAAAAAAA#/rows']);
  }
  for (const value of [undefined, null, 0, 'text', '{"a":1}', '{not json', [], {}, { _cache_uri: 'https://example.com/x' }, { _cache_uri: 42 }, { content: 'not blocks' }]) {
    assert.deepEqual(referencesOf(value), [], JSON.stringify(value));
  }
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const throwing = { get _cache_uri() { throw new Error('boom'); }, _meta: { 'mcp-result-cache/uris': ['mcp+cache://c/BBBBBBBBBBB'] } };
  assert.deepEqual(referencesOf(revoked.proxy), []);
  // A value whose reading throws carries none; its siblings still do.
  assert.deepEqual(referencesOf(throwing), []);
  assert.deepEqual(referencesOf([throwing, { _cache_uri: 'mcp+cache://c/CCCCCCCCCCC' }]), ['mcp+cache://c/CCCCCCCCCCC']);
  assert.deepEqual(referencesOf({ content: revoked.proxy }), []);
  // A self-referencing value ends.
  /** @type {{ type: string, output: unknown }} */
  const loop = { type: 'tool-x', output: null };
  loop.output = loop;
  assert.deepEqual(referencesOf(loop), []);
});
