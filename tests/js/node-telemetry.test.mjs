// OpenTelemetry around `wrapMcpClient` calls on real MCP SDK servers (`McpServer` and a low-level
// `Server` over InMemoryTransport), with OpenTelemetry's own SDK registered through its API:
// `@opentelemetry/sdk-trace`'s and `@opentelemetry/sdk-metrics`' in-memory exporters, the async-hooks context manager and W3C propagators. Checked: the MCP client
// span (name, kind, attributes, parent), the cache's `mcp_result_cache.*` facts, the guardrail
// attributes of a refused flow, the metrics, no payload text anywhere in what was exported, the
// `traceparent` (and `baggage`) the server received in `_meta` next to the caller's own keys,
// and a task answer passed through untouched, its final result stored once.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';

import { z } from 'zod';
import { SpanStatusCode, context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serveLogged } from '../support/logged-server.mjs';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ErrorCode, GetTaskPayloadRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { ResultCache } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';

/** @typedef {import('../../js/index.js').CacheEvent} CacheEvent */
/** @typedef {Extract<CacheEvent, { kind: 'write' }>} WriteEvent */
/**
 * The `execute` of a wrapped or read-back tool (js/ai-sdk-core.mjs): it takes the AI SDK's execute
 * options as given (here without `context`, which these tools do not read).
 * @typedef {(input: unknown, options: unknown) => Promise<unknown>} Execute
 */
/** The data points of each metric exported, by the metric's name. */
/** @typedef {Record<string, import('@opentelemetry/sdk-metrics').DataPoint<unknown>[]>} Points */

// Registered before any cache exists (as a host's instrumentation does at startup).
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
// Cumulative: the last export holds the totals; exported on demand (forceFlush).
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
trace.setGlobalTracerProvider(provider);
metrics.setGlobalMeterProvider(meterProvider);
after(async () => {
  await provider.shutdown();
  await meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
});

const tracer = trace.getTracer('host');
const CONV = 'otel-1';
// Markers that must never reach telemetry: in results, and in arguments.
const SECRET = 'SECRET-ROW-TEXT';
const ARG_SECRET = 'cpu.load-private-metric';
const ROWS = Array.from({ length: 200 }, (_, i) => ({ t: i, value: i / 2, note: `${SECRET} ${i}` }));

/**
 * An `McpServer` whose transport logs every raw `tools/call` it delivers, and a client of it.
 * @param {string} name
 * @param {Parameters<typeof serveLogged>[1]} register
 */
async function serve(name, register) {
  const { clientSide, raw, close } = await serveLogged(name, register);
  const client = new Client({ name: 'otel-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, raw, close: async () => { await client.close(); await close(); } };
}

/** @param {unknown} value @returns {{ content: { type: 'text', text: string }[] }} */
const json = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const rowSchema = z.array(z.object({ t: z.number(), value: z.number(), note: z.string() }));

async function metricsServer() {
  return serve('metrics', (s) => {
    s.registerTool('rows.get', { description: 'Rows of a metric.', inputSchema: { metric: z.string() } }, async () => json({ ok: true, rows: ROWS }));
    s.registerTool('chart.create', { description: 'Draws rows.', inputSchema: { data: rowSchema } }, async (args) => json({ ok: true, points: args.data.length }));
  });
}

const spanNamed = (/** @type {string} */ name) => exporter.getFinishedSpans().filter((s) => s.name === name);
// SimpleSpanProcessor exports each ended span asynchronously: flushed before reading.
const flushed = () => provider.forceFlush();
/** The text of a `callTool` result. @param {unknown} result */
const textOf = (result) => /** @type {import('@modelcontextprotocol/sdk/types.js').CallToolResult} */ (result).content.filter((b) => b.type === 'text').map((b) => b.text).join('');
/** The reference of a `callTool` result. @param {unknown} result @returns {string} */
const referenceOf = (result) => /** @type {{ _meta?: { 'mcp-result-cache/uris'?: string[] } }} */ (result)._meta?.['mcp-result-cache/uris']?.[0] ?? JSON.parse(textOf(result))._cache_uri;

async function collected() {
  await reader.forceFlush();
  const resourceMetrics = metricExporter.getMetrics().at(-1);
  /** @type {Points} */
  const points = {};
  for (const scope of resourceMetrics?.scopeMetrics ?? []) {
    for (const metric of scope.metrics) points[metric.descriptor.name] = metric.dataPoints;
  }
  return points;
}
/** The sum of a counter's points (of one `outcome`). @param {Points} points @param {string} name @param {string} [outcome] */
const sumOf = (points, name, outcome) => (points[name] ?? [])
  .filter((p) => outcome === undefined || p.attributes['mcp_result_cache.lookup.outcome'] === outcome)
  .reduce((n, p) => n + /** @type {number} */ (p.value), 0);

test('a wrapped call is a tools/call span under the active span, with the cache\'s facts and metrics, never a payload', async () => {
  exporter.reset();
  const before = await collected();
  /** @type {WriteEvent[]} */
  const writes = [];
  const cache = new ResultCache({ storage: 'memory', onEvent: (/** @type {CacheEvent} */ e) => e.kind === 'write' && writes.push(e) });
  const s = await metricsServer();
  // A small maxChars: the model is shown a summary with the reference, not the rows.
  const client = wrapMcpClient(s.client, { cache, convId: CONV, maxChars: 2000 });
  try {
    let parentId;
    let traceId;
    const [fetched, charted, missed] = await tracer.startActiveSpan('chat turn', async (parent) => {
      parentId = parent.spanContext().spanId;
      traceId = parent.spanContext().traceId;
      const one = await client.callTool({ name: 'rows.get', arguments: { metric: ARG_SECRET } });
      const two = await client.callTool({ name: 'chart.create', arguments: { data_uri: `${referenceOf(one)}#/rows` } });
      const three = await client.callTool({ name: 'chart.create', arguments: { data_uri: `mcp+cache://${CONV}/AAAAAAAAAAA` } });
      parent.end();
      return [one, two, three];
    });
    assert.equal(JSON.parse(textOf(charted)).points, 200, 'the reference resolved');
    assert.equal(missed.isError, true);

    await flushed();
    const [get] = spanNamed('tools/call rows.get');
    assert.ok(get, 'a span named tools/call rows.get');
    assert.equal(get.kind, 2, 'CLIENT');
    assert.equal(get.parentSpanContext?.spanId, parentId, 'nested under the active span');
    assert.equal(get.spanContext().traceId, traceId);
    const a = get.attributes;
    assert.equal(a['mcp.method.name'], 'tools/call');
    assert.equal(a['gen_ai.tool.name'], 'rows.get');
    assert.equal(a['gen_ai.operation.name'], 'execute_tool');
    assert.equal(a['mcp_result_cache.stored'], true);
    assert.equal(a['mcp_result_cache.reference'], referenceOf(fetched));
    assert.equal(writes.length, 1);
    assert.equal(a['mcp_result_cache.stored.bytes'], writes[0].sizeBytes, 'bytes stored, as the cache wrote them');
    assert.ok(/** @type {number} */ (a['mcp_result_cache.result.chars']) > /** @type {number} */ (a['mcp_result_cache.shown.chars']), 'the model was shown less than the result');
    assert.equal(a['error.type'], undefined);

    const [chart, miss] = spanNamed('tools/call chart.create');
    assert.equal(chart.attributes['mcp_result_cache.references.resolved'], 1);
    assert.equal(chart.attributes['mcp_result_cache.lookup.hit'], 1);
    assert.equal(miss.attributes['mcp_result_cache.lookup.miss'], 1);
    assert.equal(miss.attributes['mcp_result_cache.blocked'], 'invalid_args');
    assert.equal(miss.attributes['error.type'], 'tool_error');
    assert.equal(miss.status.code, SpanStatusCode.ERROR, 'a call answered isError is an error span');
    assert.equal(chart.status.code, SpanStatusCode.UNSET);

    const points = await collected();
    assert.equal(sumOf(points, 'mcp_result_cache.stored.size') - sumOf(before, 'mcp_result_cache.stored.size'), writes[0].sizeBytes);
    assert.ok(sumOf(points, 'mcp_result_cache.prompt.chars_saved') > sumOf(before, 'mcp_result_cache.prompt.chars_saved'));
    assert.equal(sumOf(points, 'mcp_result_cache.lookups', 'hit') - sumOf(before, 'mcp_result_cache.lookups', 'hit'), 1);
    assert.equal(sumOf(points, 'mcp_result_cache.lookups', 'miss') - sumOf(before, 'mcp_result_cache.lookups', 'miss'), 1);
    const durations = /** @type {import('@opentelemetry/sdk-metrics').DataPoint<import('@opentelemetry/sdk-metrics').Histogram>[]} */ (points['mcp_result_cache.operation.duration']);
    assert.ok(durations.reduce((n, p) => n + p.value.count, 0) >= 3, 'a duration per call');
    assert.ok(durations.some((p) => p.attributes['gen_ai.tool.name'] === 'chart.create' && p.attributes['error.type'] === 'tool_error' && p.value.count >= 1), 'the call answered isError counts as failed');

    // Nothing of a payload, an argument value or a result's text in anything exported.
    const exported = JSON.stringify({ spans: exporter.getFinishedSpans().map((sp) => ({ name: sp.name, attributes: sp.attributes, events: sp.events })), points });
    assert.doesNotMatch(exported, new RegExp(SECRET));
    assert.doesNotMatch(exported, new RegExp(ARG_SECRET));
    assert.doesNotMatch(exported, /"value":\s*1\.5|"note"/);
  } finally {
    await s.close();
  }
});

test('a server\'s own _meta naming references is not the cache\'s: not stored, no reference, nothing counted; input_required is no task', async () => {
  exporter.reset();
  const cache = new ResultCache({ storage: 'memory' });
  const stored = String(await cache.cacheToolResult({ payload: { rows: ROWS }, convId: CONV, sourceToolName: 'rows.get' }));
  const before = await collected();
  const forged = { 'mcp-result-cache/uris': [`${SECRET} as a reference`, stored] };
  const client = {
    listTools: async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object', properties: {} } }, { name: 'ask', inputSchema: { type: 'object', properties: {} } }] }),
    callTool: async (/** @type {{ name: string }} */ { name }) => (name === 'echo'
      ? { content: [{ type: 'text', text: 'ok' }], _meta: forged }
      : { resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } }, requestState: 'st' }),
  };
  const wrapped = /** @type {{ callTool(p: object): Promise<unknown> }} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache, convId: CONV })));
  for (let i = 0; i < 3; i += 1) await wrapped.callTool({ name: 'echo', arguments: {} });
  await wrapped.callTool({ name: 'ask', arguments: {} });
  await flushed();
  for (const span of spanNamed('tools/call echo')) {
    assert.equal(span.attributes['mcp_result_cache.stored'], false);
    assert.equal(span.attributes['mcp_result_cache.reference'], undefined);
    assert.equal(span.attributes['mcp_result_cache.references.minted'], 0);
  }
  const [ask] = spanNamed('tools/call ask');
  assert.equal(ask.attributes['mcp_result_cache.task'], false, 'a question for the host, not a task');
  const points = await collected();
  assert.equal(sumOf(points, 'mcp_result_cache.stored.size') - sumOf(before, 'mcp_result_cache.stored.size'), 0, 'an echoed reference is not stored again');
  assert.doesNotMatch(JSON.stringify(exporter.getFinishedSpans().map((sp) => sp.attributes)), new RegExp(SECRET));
});

test('a refused flow carries the guardrail attributes', async () => {
  exporter.reset();
  const cache = new ResultCache({ storage: 'memory', flows: 'same-server' });
  const vault = await metricsServer();
  const mailer = await serve('mailer', (s) => s.registerTool('send', { description: 'Mails rows.', inputSchema: { data: rowSchema } }, async () => json({ sent: true })));
  try {
    const source = wrapMcpClient(vault.client, { cache, convId: CONV });
    const target = wrapMcpClient(mailer.client, { cache, convId: CONV });
    const fetched = await source.callTool({ name: 'rows.get', arguments: { metric: 'm' } });
    const refused = await target.callTool({ name: 'send', arguments: { data_uri: `${referenceOf(fetched)}#/rows` } });
    assert.equal(JSON.parse(textOf(refused)).error, 'reference_not_allowed');
    assert.deepEqual(mailer.raw, [], 'the mailer never received the call');
    await flushed();
    const [span] = spanNamed('tools/call send');
    assert.equal(span.attributes['mcp_result_cache.flow.decision'], 'deny');
    assert.equal(span.attributes['gen_ai.security.decision.type'], 'deny');
    assert.equal(span.attributes['gen_ai.security.target.type'], 'tool_call');
    assert.equal(span.attributes['gen_ai.security.decision.reason'], 'reference_flow_denied');
    assert.equal(typeof span.attributes['gen_ai.guardian.name'], 'string');
  } finally {
    await vault.close();
    await mailer.close();
  }
});

test('the server receives the active trace context in _meta, next to the caller\'s own keys', async () => {
  exporter.reset();
  const cache = new ResultCache({ storage: 'memory' });
  const s = await metricsServer();
  const client = wrapMcpClient(s.client, { cache, convId: CONV });
  try {
    const baggage = propagation.createBaggage({ tenant: { value: 'acme' } });
    await context.with(propagation.setBaggage(context.active(), baggage), () => tracer.startActiveSpan('turn', async (parent) => {
      await client.callTool({ name: 'rows.get', arguments: { metric: 'm' }, _meta: { progressToken: 'p-1', 'example.com/kept': 'yes' } });
      parent.end();
    }));
    const [params] = /** @type {{ _meta: Record<string, string>, arguments: { metric: string } }[]} */ (s.raw);
    await flushed();
    const [span] = spanNamed('tools/call rows.get');
    const { traceId, spanId } = span.spanContext();
    assert.match(params._meta.traceparent, new RegExp(`^00-${traceId}-${spanId}-0[01]$`), 'the call\'s span, in the active trace');
    assert.equal(params._meta.baggage, 'tenant=acme');
    assert.equal(params._meta.progressToken, 'p-1', 'the caller\'s keys are kept');
    assert.equal(params._meta['example.com/kept'], 'yes');
    assert.equal(params.arguments.metric, 'm');
  } finally {
    await s.close();
  }
});

test('a caller\'s own traceparent or tracestate keeps its trace: the active context\'s pair is not mixed in', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const s = await metricsServer();
  const client = wrapMcpClient(s.client, { cache, convId: CONV });
  try {
    // The active trace has a tracestate (an upstream request's, extracted).
    const upstream = propagation.extract(context.active(), { traceparent: '00-11111111111111111111111111111111-2222222222222222-01', tracestate: 'vendor=upstream' });
    const own = '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01';
    await context.with(upstream, () => tracer.startActiveSpan('turn', async (parent) => {
      await client.callTool({ name: 'rows.get', arguments: { metric: 'm' }, _meta: { traceparent: own } });
      await client.callTool({ name: 'rows.get', arguments: { metric: 'm' }, _meta: { tracestate: 'caller=own' } });
      await client.callTool({ name: 'rows.get', arguments: { metric: 'm' } });
      parent.end();
    }));
    const [onlyParent, onlyState, neither] = /** @type {{ _meta: Record<string, string> }[]} */ (s.raw);
    assert.deepEqual(onlyParent._meta, { traceparent: own });
    assert.deepEqual(onlyState._meta, { tracestate: 'caller=own' });
    assert.match(neither._meta.traceparent, /^00-11111111111111111111111111111111-[0-9a-f]{16}-01$/);
    assert.equal(neither._meta.tracestate, 'vendor=upstream');
  } finally {
    await s.close();
  }
});

test('a task answer passes through untouched (not stored, not counted); its final result goes through the pipeline once', async () => {
  exporter.reset();
  const before = await collected();
  /** @type {WriteEvent[]} */
  const writes = [];
  const cache = new ResultCache({ storage: 'memory', onEvent: (/** @type {CacheEvent} */ e) => e.kind === 'write' && writes.push(e) });
  const now = new Date().toISOString();
  const task = { taskId: 'task-1', status: 'working', ttl: 60_000, createdAt: now, lastUpdatedAt: now };
  const server = new Server({ name: 'jobs', version: '1.0.0' }, { capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } } });
  let finalReads = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
    { name: 'report', inputSchema: { type: 'object', properties: { month: { type: 'string' } } } },
    { name: 'report.ext', inputSchema: { type: 'object', properties: {} } },
  ] }));
  // A big `_meta` on the task answer: never stored. `report.ext` answers as the tasks extension
  // does (`resultType: "task"`), with a big JSON text: not stored either.
  server.setRequestHandler(CallToolRequestSchema, async (request) => (request.params.name === 'report.ext'
    ? { resultType: 'task', taskId: 'task-ext', content: [{ type: 'text', text: JSON.stringify({ rows: ROWS }) }] }
    : { task, _meta: { 'example.com/trace': 'x'.repeat(10_000) } }));
  /** The `traceparent` each `tasks/result` request carried. @type {unknown[]} */
  const readParents = [];
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => {
    readParents.push(/** @type {{ _meta?: { traceparent?: unknown } }} */ (request.params)._meta?.traceparent);
    if (request.params.taskId === 'task-2') throw new McpError(ErrorCode.InternalError, 'the job failed');
    finalReads += 1;
    return json({ ok: true, rows: ROWS });
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const raw = new Client({ name: 'otel-test', version: '1.0.0' });
  await raw.connect(clientSide);
  const client = wrapMcpClient(raw, { cache, convId: CONV });
  try {
    const statsBefore = await cache.stats();
    const answer = await client.callTool({ name: 'report', arguments: { month: '2026-11' } });
    assert.deepEqual(answer.task, task, 'the task, untouched');
    assert.equal(/** @type {Record<string, string>} */ (answer._meta)['example.com/trace'].length, 10_000);
    assert.equal(/** @type {Record<string, unknown>} */ (answer._meta)['mcp-result-cache/uris'], undefined, 'no reference');
    assert.equal(writes.length, 0, 'nothing stored');
    const ext = await client.callTool({ name: 'report.ext', arguments: {} });
    assert.equal(ext.resultType, 'task');
    assert.deepEqual(JSON.parse(/** @type {{ content: { text: string }[] }} */ (ext).content[0].text).rows, ROWS, 'untouched');
    assert.equal(writes.length, 0, 'nothing stored');
    assert.deepEqual(await cache.stats(), statsBefore, 'absent from stats');
    await flushed();
    const [callSpan] = spanNamed('tools/call report');
    assert.equal(callSpan.attributes['mcp_result_cache.task'], true);
    assert.equal(callSpan.attributes['mcp_result_cache.stored'], false);
    const mid = await collected();
    assert.equal(sumOf(mid, 'mcp_result_cache.stored.size'), sumOf(before, 'mcp_result_cache.stored.size'), 'absent from metrics');
    assert.equal(sumOf(mid, 'mcp_result_cache.prompt.chars_saved'), sumOf(before, 'mcp_result_cache.prompt.chars_saved'));

    // The final result through the wrapped client: stored and referenced, once.
    const final = await client.experimental.tasks.getTaskResult('task-1');
    const uri = referenceOf(final);
    assert.match(uri, /^mcp\+cache:\/\//);
    assert.equal(writes.length, 1, 'stored once');
    assert.deepEqual(/** @type {{ payload: { rows: unknown } }} */ (await cache.lookup(uri, { convId: CONV })).payload.rows, ROWS);
    // The wrapped client's `getTaskResult` takes the params alone (the SDK's is protected, with a schema).
    const again = await /** @type {{ getTaskResult(params: { taskId: string }): Promise<unknown> }} */ (/** @type {unknown} */ (client)).getTaskResult({ taskId: 'task-1' });
    assert.equal(referenceOf(again), uri, 'a second read answers the same');
    assert.equal(writes.length, 1, 'still stored once');
    assert.equal(finalReads, 1);
    await flushed();
    const [resultSpan] = spanNamed('tasks/result');
    assert.equal(resultSpan.attributes['gen_ai.tool.name'], 'report');
    assert.equal(resultSpan.attributes['mcp_result_cache.stored'], true);

    // A read that fails is a `tasks/result` span too, ended with its error.
    exporter.reset();
    task.taskId = 'task-2';
    await client.callTool({ name: 'report', arguments: { month: '2026-12' } });
    await assert.rejects(client.experimental.tasks.getTaskResult('task-2'), /the job failed/);
    await flushed();
    const [failedSpan] = spanNamed('tasks/result');
    assert.ok(failedSpan, 'a span for the failed read');
    assert.equal(failedSpan.attributes['gen_ai.tool.name'], 'report');
    assert.equal(failedSpan.attributes['error.type'], String(ErrorCode.InternalError), 'a JSON-RPC error is typed by its code');
    assert.equal(failedSpan.attributes['rpc.response.status_code'], String(ErrorCode.InternalError));
    assert.equal(failedSpan.status.code, SpanStatusCode.ERROR);

    // Read through another wrapper of the same client and cache (a server wrapping the client per
    // request): the task is found and its result stored; a task no wrapper saw answered gets its
    // span too; each read carries its span's trace context.
    exporter.reset();
    readParents.length = 0;
    task.taskId = 'task-3';
    await client.callTool({ name: 'report', arguments: { month: '2027-01' } });
    const other = wrapMcpClient(raw, { cache, convId: CONV });
    const stored = writes.length;
    const third = await other.experimental.tasks.getTaskResult('task-3');
    assert.match(referenceOf(third), /^mcp\+cache:\/\//, 'stored, through the other wrapper');
    assert.equal(writes.length, stored + 1);
    await other.experimental.tasks.getTaskResult('task-unknown');
    await flushed();
    const reads = spanNamed('tasks/result');
    assert.deepEqual(reads.map((span) => span.attributes['gen_ai.tool.name']), ['report', '<unknown>']);
    assert.deepEqual(readParents, reads.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`), 'each read carries its span');
  } finally {
    await raw.close();
    await server.close();
  }
});

test('wrapAiSdkTools and cacheToolSet calls are spans too, under the active span', async () => {
  exporter.reset();
  const { wrapAiSdkTools, cacheToolSet } = await import('../../js/ai-sdk.node.mjs');
  const cache = new ResultCache({ storage: 'memory' });
  const tools = wrapAiSdkTools({ 'rows.local': { inputSchema: z.object({}), execute: async () => ({ ok: true, rows: ROWS }) } }, { cache, convId: CONV, maxChars: 2000 });
  const readBack = await cacheToolSet(cache, { convId: CONV });
  let parentId;
  await tracer.startActiveSpan('ai tool', async (parent) => {
    parentId = parent.spanContext().spanId;
    const visible = /** @type {{ _cache_uri: string }} */ (await /** @type {Execute} */ (tools['rows.local'].execute)({}, { toolCallId: 't1', messages: [] }));
    await /** @type {Execute} */ (readBack.cache_read.execute)({ uri: visible._cache_uri }, { toolCallId: 't2', messages: [] });
    parent.end();
  });
  await flushed();
  const [local] = spanNamed('tools/call rows.local');
  assert.equal(local.parentSpanContext?.spanId, parentId);
  assert.equal(local.attributes['mcp_result_cache.stored'], true);
  const [read] = spanNamed('tools/call cache_read');
  assert.equal(read.parentSpanContext?.spanId, parentId);
  assert.equal(read.attributes['gen_ai.tool.name'], 'cache_read');
  assert.doesNotMatch(JSON.stringify(exporter.getFinishedSpans().map((sp) => sp.attributes)), new RegExp(SECRET));
});

test('a streaming tool\'s own work runs in its tools/call span, step after step, as a plain tool\'s does', async () => {
  exporter.reset();
  const { wrapAiSdkTools } = await import('../../js/ai-sdk.node.mjs');
  const inner = (/** @type {string} */ name) => tracer.startActiveSpan(name, (span) => span.end());
  const tools = wrapAiSdkTools({
    plain: { inputSchema: z.object({}), execute: async () => (inner('plain step'), { ok: true }) },
    streamed: {
      inputSchema: z.object({}),
      async *execute() {
        inner('streamed step 1');
        yield { progress: 1 };
        inner('streamed step 2');
        yield { ok: true };
      },
    },
  }, { cache: new ResultCache({ storage: 'memory' }), convId: CONV });
  await tracer.startActiveSpan('host', async (host) => {
    await /** @type {Execute} */ (tools.plain.execute)({}, { toolCallId: 'p', messages: [] });
    const outputs = /** @type {AsyncIterable<unknown>} */ (/** @type {unknown} */ (/** @type {Execute} */ (tools.streamed.execute)({}, { toolCallId: 's', messages: [] })));
    for await (const output of outputs) void output;
    host.end();
  });
  await flushed();
  const parentOf = (/** @type {string} */ name) => {
    const [span] = spanNamed(name);
    return exporter.getFinishedSpans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId)?.name;
  };
  assert.equal(parentOf('plain step'), 'tools/call plain');
  assert.equal(parentOf('streamed step 1'), 'tools/call streamed');
  assert.equal(parentOf('streamed step 2'), 'tools/call streamed');
  assert.equal(parentOf('tools/call streamed'), 'host');
});

test('a flow refused with nobody asked is a denial, not the user declining; asked and refused is declined', async () => {
  exporter.reset();
  const { clientToolSet } = await import('../../js/ai-sdk.node.mjs');
  const { generateText, stepCountIs } = await import('ai');
  const { MockLanguageModelV4 } = await import('ai/test');
  const cache = new ResultCache({ storage: 'memory', flows: 'guarded' });
  const vault = await metricsServer();
  // Open world (no annotations): under "guarded", the data of another server is asked about.
  const mailer = await serve('mailer', (s) => s.registerTool('send', { description: 'Mails rows.', inputSchema: { data: rowSchema } }, async () => json({ sent: true })));
  /** @type {string[]} */
  const warnings = [];
  const warn = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    const tools = { ...(await clientToolSet(vault.client, { cache, convId: CONV })), ...(await clientToolSet(mailer.client, { cache, convId: CONV })) };
    const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
    /** @type {string | undefined} */
    let uri;
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result'));
        const last = /** @type {{ output: { type: string, value: unknown } } | undefined} */ (results.at(-1));
        const text = last?.output.type === 'content' ? /** @type {{ text: string }[]} */ (last.output.value)[0].text : String(last?.output.value);
        if (results.length === 2) return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
        if (results.length === 1) uri = JSON.parse(text)._cache_uri;
        const [toolName, input] = results.length === 0 ? ['rows.get', { metric: 'm' }] : ['send', { data_uri: `${uri}#/rows` }];
        return { content: [{ type: 'tool-call', toolCallId: `call-${results.length}`, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
      },
    });
    // The host's own toolApproval approves every call: nobody is asked about the flow.
    const looped = await generateText({ model, tools, prompt: 'mail the rows', stopWhen: stepCountIs(4), toolApproval: () => 'approved' });
    const refused = JSON.parse(looped.text);
    assert.equal(refused.error, 'reference_not_allowed');
    assert.match(refused.fix_hint, /^The host does not let data from "metrics" reach "mailer"/);
    assert.equal(warnings.length, 1, 'the not-composed warning');
    // `execute` run directly, never sent to approval: the same.
    const send = /** @type {Execute} */ (/** @type {{ execute: unknown }} */ (tools.send).execute);
    const input = { data_uri: `${uri}#/rows` };
    const direct = JSON.parse(textOf(await send(input, { toolCallId: 'never-asked', messages: [] })));
    assert.match(direct.fix_hint, /^The host does not let/);
    // Asked (needsApproval answered true), and the user declined: the approval response says so.
    const needsApproval = /** @type {(input: unknown, options: unknown) => Promise<boolean>} */ (/** @type {{ needsApproval: unknown }} */ (tools.send).needsApproval);
    assert.equal(await needsApproval(input, { toolCallId: 'asked', messages: [] }), true);
    const messages = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'asked', toolName: 'send', input }, { type: 'tool-approval-request', approvalId: 'a-1', toolCallId: 'asked' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a-1', approved: false }] },
    ];
    const declined = JSON.parse(textOf(await send(input, { toolCallId: 'asked', messages })));
    assert.match(declined.fix_hint, /^The user declined to let data from "metrics" reach "mailer"/);
    assert.deepEqual(mailer.raw, [], 'the mailer never received a call');

    await flushed();
    const decisions = spanNamed('tools/call send').map((sp) => [sp.attributes['mcp_result_cache.flow.decision'], sp.attributes['gen_ai.security.decision.type'], sp.attributes['gen_ai.security.decision.reason']]);
    assert.deepEqual(decisions, [
      ['deny', 'deny', 'reference_flow_denied'],
      ['deny', 'deny', 'reference_flow_denied'],
      ['declined', 'deny', 'reference_flow_declined'],
    ]);
  } finally {
    console.warn = warn;
    await vault.close();
    await mailer.close();
  }
});

test('a replayed AI SDK approval is a blocked call in its span (approval_already_used), and the tool does not run', async () => {
  const { randomUUID } = await import('node:crypto');
  const { stepCountIs, streamText } = await import('ai');
  const { MockLanguageModelV4, convertArrayToReadableStream } = await import('ai/test');
  const { cacheToolApproval, wrapAiSdkTools } = await import('../../js/ai-sdk.node.mjs');
  /** @type {string[]} */
  const wiped = [];
  const tools = /** @type {import('ai').ToolSet} */ (wrapAiSdkTools({
    wipe: { description: 'Wipes a folder.', inputSchema: z.object({ folder: z.string() }), execute: async (/** @type {{ folder: string }} */ { folder }) => (wiped.push(folder), { wiped: folder }) },
  }, { cache: new ResultCache({ storage: 'memory' }), convId: CONV }));
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const answered = prompt.some((m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool-result'));
      /** @type {import('@ai-sdk/provider').LanguageModelV4StreamPart[]} */
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (!answered) parts.push({ type: 'tool-call', toolCallId: `call-${randomUUID()}`, toolName: 'wipe', input: JSON.stringify({ folder: '/tmp/x' }) }, { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage });
      else parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  const run = async (/** @type {import('ai').ModelMessage[]} */ messages) => {
    const result = streamText({ model, tools, messages, stopWhen: stepCountIs(3), experimental_toolApprovalSecret: 's', toolApproval: /** @type {NonNullable<Parameters<typeof streamText>[0]['toolApproval']>} */ (cacheToolApproval(tools, { wipe: 'user-approval' })) });
    await result.consumeStream();
    return { content: await result.content, responseMessages: await result.responseMessages };
  };
  /** @type {import('ai').ModelMessage[]} */
  const user = [{ role: 'user', content: 'wipe' }];
  const first = await run(user);
  const asked = /** @type {{ approvalId: string }} */ (first.content.find((p) => p.type === 'tool-approval-request'));
  /** @type {import('ai').ModelMessage[]} */
  const approved = [...user, ...first.responseMessages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: asked.approvalId, approved: true }] }];
  await run(approved);
  await flushed();
  exporter.reset();
  await run(approved);
  await flushed();
  assert.deepEqual(wiped, ['/tmp/x'], 'the approval ran the tool once');
  const [replayed] = spanNamed('tools/call wipe');
  assert.equal(replayed.attributes['mcp_result_cache.blocked'], 'approval_already_used');
  assert.equal(replayed.attributes['error.type'], 'tool_error');
});

test('a thrown error is typed by its code only when it is a JSON-RPC one; a transport\'s HTTP status or a DOMException\'s code is not', async () => {
  exporter.reset();
  const { instrumentToolCall } = await import('../../js/telemetry.mjs');
  /** @type {[Error, string][]} */
  const thrown = [
    [new DOMException('stopped', 'AbortError'), 'AbortError'],
    [Object.assign(new Error('Unauthorized'), { name: 'StreamableHTTPError', code: 401 }), 'StreamableHTTPError'],
    [new McpError(ErrorCode.InvalidParams, 'bad'), String(ErrorCode.InvalidParams)],
  ];
  for (const [error] of thrown) await assert.rejects(instrumentToolCall('codes.check', {}, async () => { throw error; }));
  await flushed();
  const spans = spanNamed('tools/call codes.check');
  assert.deepEqual(spans.map((span) => span.attributes['error.type']), thrown.map(([, type]) => type));
  assert.deepEqual(spans.map((span) => span.attributes['rpc.response.status_code']), [undefined, undefined, String(ErrorCode.InvalidParams)]);
});
