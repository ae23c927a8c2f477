// By reference with the official MCP SDK, end to end: real `McpServer`s and a real `Client`
// over InMemoryTransport and over Streamable HTTP on a local port, wrapped with wrapMcpClient.
// The chart server declares only `data` (strict schema): it must receive the 240 rows through
// `data_uri` and never see a `_uri` key.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

import Ajv from 'ajv';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { ResultCache } from '../../pkg/node.mjs';
import { StateSync } from '../../pkg/server.node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';

/**
 * A JSON text block's data as these tests read it (a stored result as the model sees it, the
 * chart's answer, or an error envelope).
 * @typedef {{ _cache_uri: string, _cache_refs: Record<string, string>, error: string }} TextJson
 */
const ROWS = Array.from({ length: 240 }, (_, i) => ({ t: 1_767_225_600_000 + i * 3_600_000, value: Math.round(100 + 40 * Math.sin(i / 12)) }));

/**
 * A chart server that declares only `data`, recording what each call received.
 * @param {Record<string, unknown>[]} received
 */
function chartServer(received) {
  const chart = new McpServer({ name: 'chart', version: '1.0.0' });
  chart.registerTool('chart.create', {
    description: 'Draws a line chart.',
    // Strict: an undeclared key (say `data_uri`) is rejected, as `additionalProperties: false` says.
    inputSchema: z.object({ title: z.string(), data: z.array(z.object({ t: z.number(), value: z.number() })) }).strict(),
  }, async (args) => {
    received.push(args);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, points: args.data.length }) }] };
  });
  return chart;
}

/** The servers a host talks to: data, chart (only `data`), billing (StateSync-decorated). */
function makeServers() {
  /** @type {Record<string, unknown>[]} */
  const received = [];
  const data = new McpServer({ name: 'data', version: '1.0.0' });
  data.registerTool('timeseries.query', {
    description: 'Hourly metric values.',
    inputSchema: { metric: z.string() },
  }, async ({ metric }) => {
    const payload = { ok: true, metric, columns: ['t', 'value'], rows: ROWS };
    return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
  });

  const chart = chartServer(received);

  const billing = new McpServer({ name: 'billing', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
  const sync = new StateSync({
    policies: [
      { match: 'billing.refund', invalidates: ['billing.get_*'] },
      { match: 'billing.get_*', cacheControl: 'no-store' },
    ],
    notificationSink: (n) => billing.server.notification(n),
  });
  const invoice = { ok: true, id: 'INV-7', lines: Array.from({ length: 300 }, (_, i) => ({ sku: `SKU-${i}`, amount: 10 + i })) };
  const [getDescription, refundDescription] = sync
    .decorateTools([{ name: 'billing.get_invoice', description: 'One invoice.' }, { name: 'billing.refund', description: 'Refunds.' }])
    .map((t) => t.description);
  billing.registerTool('billing.get_invoice', { description: getDescription, inputSchema: { id: z.string() } }, async () =>
    ({ content: [{ type: 'text', text: JSON.stringify(invoice) }], structuredContent: invoice }));
  billing.registerTool('billing.refund', { description: refundDescription, inputSchema: { id: z.string() } }, async ({ id }) =>
    /** @type {import('@modelcontextprotocol/sdk/types.js').CallToolResult} */ (sync.decorateResult('billing.refund', { content: [{ type: 'text', text: JSON.stringify({ ok: true, refunded: id }) }] })));
  return { servers: { data, chart, billing }, received };
}

/**
 * @param {Record<string, import('@modelcontextprotocol/sdk/server/mcp.js').McpServer>} servers
 */
async function inMemoryClients(servers) {
  /** @type {Record<string, import('@modelcontextprotocol/sdk/client/index.js').Client>} */
  const clients = {};
  for (const [name, server] of Object.entries(servers)) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: `host-${name}`, version: '1.0.0' });
    await client.connect(clientSide);
    clients[name] = client;
  }
  return clients;
}

/**
 * Streamable HTTP on 127.0.0.1: one transport (and server instance) per session.
 * @param {(name: string) => import('@modelcontextprotocol/sdk/server/mcp.js').McpServer} makeServer
 */
async function httpClients(makeServer) {
  /** @type {Map<string, StreamableHTTPServerTransport>} */
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const name = /** @type {string} */ (req.url).split('/')[2];
    const id = /** @type {string | undefined} */ (req.headers['mcp-session-id']);
    let transport = id && sessions.get(id);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: /** @type {(sid: string) => void} */ ((sid) => sessions.set(sid, /** @type {StreamableHTTPServerTransport} */ (transport))) });
      await makeServer(name).connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => http.listen(0, '127.0.0.1', resolve)));
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (http.address()).port}`;
  /** @type {Record<string, import('@modelcontextprotocol/sdk/client/index.js').Client>} */
  const clients = {};
  for (const name of ['data', 'chart', 'billing']) {
    const client = new Client({ name: `host-${name}`, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/${name}`)));
    clients[name] = client;
  }
  const close = async () => {
    for (const client of Object.values(clients)) await client.close();
    for (const transport of sessions.values()) await transport.close();
    await new Promise((resolve) => http.close(resolve));
  };
  return { clients, close };
}

let n = 0;
/**
 * @param {Record<string, import('@modelcontextprotocol/sdk/client/index.js').Client>} clients
 * @param {import('../../pkg/node/mcp_result_cache.js').ResultCacheOptions} [extra]
 */
function wrapAll(clients, extra = {}) {
  const cache = new ResultCache({ dbName: `sdk-${process.pid}-${n++}`, ...extra });
  const wrapped = Object.fromEntries(Object.entries(clients).map(([k, c]) => [k, wrapMcpClient(c, { cache, convId: () => 'chat-1' })]));
  return { cache, wrapped };
}

/**
 * @param {unknown} result a CallToolResult
 * @returns {TextJson}
 */
const textJson = (result) => JSON.parse(/** @type {{ text: string }} */ (/** @type {{ content: unknown[] }} */ (result).content.at(-1)).text);

/**
 * @param {Record<string, import('@modelcontextprotocol/sdk/client/index.js').Client>} wrapped
 * @param {Record<string, unknown>[]} received
 */
async function byReferenceFlow(wrapped, received) {
  const { tools } = await wrapped.chart.listTools();
  const chartTool = /** @type {{ inputSchema: { properties: Record<string, { type: string }>, required?: string[], additionalProperties?: unknown } }} */ (tools.find((t) => t.name === 'chart.create'));
  assert.equal(chartTool.inputSchema.properties.data_uri.type, 'string');
  assert.ok(!(chartTool.inputSchema.required ?? []).includes('data'), '`data` is no longer required');
  assert.equal(chartTool.inputSchema.additionalProperties, false, 'still strict');
  const ajv = new (/** @type {typeof import('ajv').default} */ (/** @type {unknown} */ (Ajv)))({ strict: false });
  const validate = ajv.compile(chartTool.inputSchema);
  assert.ok(validate({ title: 'CPU', data_uri: 'mcp+cache://c/AAAAAAAAAAA#/rows' }), JSON.stringify(validate.errors));
  assert.ok(validate({ title: 'CPU', data: [{ t: 1, value: 2 }] }));
  assert.ok(!validate({ title: 'CPU', other_uri: 'x' }), 'undeclared keys stay refused');

  await wrapped.data.listTools();
  const query = /** @type {{ content: unknown[], structuredContent: { rows: unknown[], _cache_uri?: string }, _meta: Record<string, string[]> }} */ (await wrapped.data.callTool({ name: 'timeseries.query', arguments: { metric: 'cpu' } }));
  const visible = textJson(query);
  assert.match(visible._cache_uri, /^mcp\+cache:\/\/chat-1\//);
  assert.equal(visible._cache_refs.rows, `${visible._cache_uri}#/rows`);
  // The server's structuredContent reaches the host as it was sent (the model saw all of it).
  assert.equal(query.structuredContent.rows.length, 240);
  assert.equal(query.structuredContent._cache_uri, undefined);
  assert.deepEqual(query._meta['mcp-result-cache/uris'], [visible._cache_uri]);

  // The model copies one value verbatim.
  const chart = await wrapped.chart.callTool({ name: 'chart.create', arguments: { title: 'CPU', data_uri: visible._cache_refs.rows } });
  assert.equal(chart.isError, undefined, JSON.stringify(chart));
  assert.deepEqual(textJson(chart), { ok: true, points: 240 });
  const got = /** @type {Record<string, unknown>} */ (received.at(-1));
  assert.deepEqual(got.data, ROWS, 'the server received the 240 rows');
  assert.deepEqual(Object.keys(got).sort(), ['data', 'title'], 'and no _uri key');

  // A made-up reference never reaches the server.
  const before = received.length;
  const missing = await wrapped.chart.callTool({ name: 'chart.create', arguments: { title: 'x', data_uri: 'mcp+cache://chat-1/AAAAAAAAAAA' } });
  assert.equal(missing.isError, true);
  assert.match(textJson(missing).error, /could not be resolved/);
  const stray = await wrapped.chart.callTool({ name: 'chart.create', arguments: { title: 'x', data_uri: 'the rows above' } });
  assert.equal(stray.isError, true);
  assert.match(textJson(stray).error, /data_uri/);
  assert.equal(received.length, before, 'blocked calls are never dispatched');
}

test('InMemoryTransport: 240 rows reach a data-only server through data_uri from _cache_refs', async () => {
  const { servers, received } = makeServers();
  const clients = await inMemoryClients(servers);
  const { wrapped } = wrapAll(clients);
  await byReferenceFlow(wrapped, received);
  for (const c of Object.values(clients)) await c.close();
});

test('Streamable HTTP on a local port: the same flow over real HTTP sessions', async () => {
  /** @type {Record<string, unknown>[]} */
  const received = [];
  // One server instance per HTTP session; the chart servers share one record of calls.
  const { clients, close } = await httpClients((name) => (name === 'chart' ? chartServer(received) : makeServers().servers[/** @type {'data' | 'billing'} */ (name)]));
  try {
    const { wrapped } = wrapAll(clients);
    await byReferenceFlow(wrapped, received);
  } finally {
    await close();
  }
});

test('a stale notification sent by the billing server over the connection refuses the invoice reference', async () => {
  const { servers } = makeServers();
  const clients = await inMemoryClients(servers);
  /** @type {string[]} */
  const seenByHost = [];
  clients.billing.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { seenByHost.push(n.params.uri); });
  const { cache, wrapped } = wrapAll(clients);
  const { tools } = await wrapped.billing.listTools();
  assert.match(/** @type {{ description: string }} */ (tools.find((t) => t.name === 'billing.get_invoice')).description, /\[Cache-Control: no-store\]/);
  const invoice = textJson(await wrapped.billing.callTool({ name: 'billing.get_invoice', arguments: { id: 'INV-7' } }));
  assert.ok(invoice._cache_uri);
  assert.equal((await cache.lookup(invoice._cache_uri, { convId: 'chat-1' })).status, 'hit');
  const refund = await wrapped.billing.callTool({ name: 'billing.refund', arguments: { id: 'INV-7' } });
  assert.match(/** @type {{ content: { text: string }[] }} */ (refund).content[0].text, /<cache_invalidation cause="billing.refund" domains="billing.get_\*" \/>/);
  // The notification travels over the connection asynchronously.
  for (let i = 0; i < 50 && seenByHost.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seenByHost, ['mcpfusion://stale/billing.get_*'], 'the host\'s own handler still runs');
  const looked = await cache.lookup(invoice._cache_uri, { convId: 'chat-1' });
  assert.equal(looked.status, 'stale');
  const reuse = await wrapped.chart.callTool({ name: 'chart.create', arguments: { title: 'inv', data_uri: invoice._cache_refs.lines } });
  assert.equal(reuse.isError, true);
  assert.match(textJson(reuse).error, /is stale \(invalidated by /);
  for (const c of Object.values(clients)) await c.close();
});

test('wrapMcpClient checks its arguments and delegates everything else', async () => {
  const { servers } = makeServers();
  const clients = await inMemoryClients(servers);
  const cache = new ResultCache({ storage: 'memory' });
  assert.throws(() => wrapMcpClient(null, { cache }), TypeError);
  assert.throws(() => wrapMcpClient(clients.data, {}), TypeError);
  const wrapped = wrapMcpClient(clients.data, { cache, convId: 'c' });
  assert.equal(/** @type {{ name: string }} */ (wrapped.getServerVersion()).name, 'data');
  assert.deepEqual(await wrapped.ping(), {});
  for (const c of Object.values(clients)) await c.close();
});

test('a task\'s final result read after an aborted read: the server is asked again, the result stored once', async () => {
  const store = new InMemoryTaskStore();
  const jobs = new McpServer({ name: 'jobs', version: '1.0.0' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: store });
  jobs.experimental.tasks.registerToolTask('report', { inputSchema: { month: z.string() }, execution: { taskSupport: 'optional' } }, {
    createTask: async (_args, extra) => ({ task: await extra.taskStore.createTask({ ttl: 60_000 }) }),
    getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => /** @type {import('@modelcontextprotocol/sdk/types.js').CallToolResult} */ (await extra.taskStore.getTaskResult(extra.taskId)),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // The `tasks/result` requests the client sends the server.
  let serverReads = 0;
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => {
    if ('method' in message && message.method === 'tasks/result') serverReads += 1;
    return send(message, options);
  };
  await jobs.connect(serverSide);
  const raw = new Client({ name: 'tasks-test', version: '1.0.0' });
  await raw.connect(clientSide);
  const cache = new ResultCache({ storage: 'memory' });
  const client = wrapMcpClient(raw, { cache, convId: 'c' });
  try {
    // A task answer (the SDK's `CreateTaskResult`), handed back untouched.
    const { task } = /** @type {{ task: { taskId: string } }} */ (/** @type {unknown} */ (await client.callTool({ name: 'report', arguments: { month: '2026-11' }, task: { ttl: 60_000 } })));
    // The first read gives up while the task still works (its caller's signal aborts).
    const aborted = new AbortController();
    const first = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { signal: aborted.signal });
    setTimeout(() => aborted.abort(), 20);
    await assert.rejects(first, (/** @type {Error} */ e) => /abort/i.test(String(e.message)));
    const payload = { ok: true, rows: ROWS };
    await store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload });
    // A later read without a signal asks the server again and gets the result, through the pipeline.
    const final = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(serverReads, 2, 'the server was asked again');
    const uri = textJson(final)._cache_uri;
    assert.match(uri, /^mcp\+cache:\/\//);
    assert.deepEqual(/** @type {{ payload: { rows: unknown } }} */ (await cache.lookup(uri, { convId: 'c' })).payload.rows, ROWS);
    const again = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(textJson(again)._cache_uri, uri, 'read once: the same reference');
    assert.equal(serverReads, 2, 'not asked a third time');
    assert.equal((await cache.entries({ convId: 'c' })).length, 1, 'stored once');
  } finally {
    await raw.close();
    await jobs.close();
  }
});
