// wrapMcpClient and stale notifications that arrive while a call is open. A server answers a
// call and reports that tool's data stale right after: over stdio both can arrive in one chunk,
// and the notification is handled before the answer is written (the real SDK Client, the
// messages delivered together as a stdio chunk delivers them). A notification that arrives while
// the call runs, or while its task runs, may describe data the answer was computed from
// (hand-written clients, the notification delivered at a chosen moment). In each case the
// answer's entry ends stale; a call made after the notification stays fresh.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

import { ResultCache } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';
import { MAX_NOTED, staleWindow } from '../../js/stale-window.mjs';

const ROWS = Array.from({ length: 120 }, (_, i) => ({ id: i, name: `entity-${i}`, note: 'x'.repeat(20) }));
const STALE = { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/report.get' } };
/** A text result as the model is shown it. @typedef {{ content: { text: string }[], task?: { taskId: string } }} Shown */
/** The wrapped hand-written client's methods the tests call. @typedef {{ callTool(p: object): Promise<Shown>, getTaskResult(p: object): Promise<Shown> }} Wrapped */

/** The reference a shown result carries. @param {Shown} shown */
const uriOf = (shown) => /** @type {string} */ (JSON.parse(shown.content[0].text)._cache_uri);

test('an answer and the stale notification after it, delivered in one chunk: the answer\'s entry is stale', async () => {
  const server = new McpServer({ name: 'reports', version: '1.0.0' }, { capabilities: { resources: {} } });
  server.registerTool('report.get', { description: 'A report.', inputSchema: { n: z.number() } }, () => {
    // Sent after the answer (the answer goes out when this handler returns).
    setTimeout(() => void server.server.sendResourceUpdated({ uri: STALE.params.uri }), 0);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, rows: ROWS }) }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // What the server sends while `chunked` is on reaches the client in one synchronous batch, as
  // the lines of one stdio chunk do.
  let chunked = false;
  /** @type {Parameters<InMemoryTransport['send']>[]} */
  const held = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = async (...args) => {
    if (!chunked) return send(...args);
    held.push(args);
  };
  await server.connect(serverSide);
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(clientSide);
  const cache = new ResultCache({ storage: 'memory' });
  const wrapped = wrapMcpClient(client, { cache, convId: 'c' });
  await wrapped.listTools();

  chunked = true;
  const call = wrapped.callTool({ name: 'report.get', arguments: { n: 1 } });
  for (let i = 0; i < 200 && held.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.equal(held.length, 2, 'the answer and the notification were both sent');
  assert.equal(/** @type {{ method?: string }} */ (held[1][0]).method, STALE.method, 'the notification after the answer');
  chunked = false;
  for (const args of held.splice(0)) void send(...args);
  const uri = uriOf(/** @type {Shown} */ (await call));
  const seen = await cache.lookup(uri, { convId: 'c' });
  assert.equal(seen.status, 'stale');
  assert.match(/** @type {{ cause: string }} */ (seen).cause, /stale notification for report\.get/);

  await client.close();
});

/**
 * A hand-written client: `report.get` answers when the test says (`answer()`), tasks when asked
 * (`{ task: true }`), and the test delivers notifications itself (`notify()`).
 */
function heldClient() {
  /** @type {((n: unknown) => unknown) | undefined} */
  let handler;
  /** @type {(() => void)[]} */
  const waiting = [];
  let id = 0;
  const result = () => ({ content: [{ type: 'text', text: JSON.stringify({ ok: true, rows: ROWS }) }] });
  const client = {
    getServerVersion: () => ({ name: 'reports' }),
    setNotificationHandler: (/** @type {unknown} */ _schema, /** @type {(n: unknown) => unknown} */ h) => { handler = h; },
    listTools: async () => ({ tools: [{ name: 'report.get', inputSchema: { type: 'object', properties: { task: { type: 'boolean' } } } }] }),
    callTool: async (/** @type {{ arguments: { task?: boolean } }} */ { arguments: args }) => {
      if (args.task) return { task: { taskId: `t${++id}`, status: 'working' } };
      await new Promise((resolve) => waiting.push(() => resolve(undefined)));
      return result();
    },
    getTaskResult: async () => result(),
  };
  return {
    client,
    /** Answers the oldest waiting call. */
    answer: () => /** @type {() => void} */ (waiting.shift())(),
    waiting: () => waiting.length,
    notify: async (/** @type {unknown} */ n) => handler?.(n),
  };
}

test('a stale notification while a call runs: its answer\'s entry is stale, other entries too, a later call\'s is not', async () => {
  const { client, answer, waiting, notify } = heldClient();
  const cache = new ResultCache({ storage: 'memory' });
  const mcp = /** @type {Wrapped} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache, convId: 'c' })));
  const first = mcp.callTool({ name: 'report.get', arguments: {} });
  await new Promise((resolve) => setTimeout(resolve, 5));
  answer();
  const before = uriOf(await first);
  const running = mcp.callTool({ name: 'report.get', arguments: {} });
  for (let i = 0; i < 100 && waiting() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  await notify(STALE);
  assert.equal((await cache.lookup(before, { convId: 'c' })).status, 'stale', 'an entry written before: at once');
  answer();
  const during = uriOf(await running);
  assert.equal((await cache.lookup(during, { convId: 'c' })).status, 'stale', 'the call open when it arrived');
  const after = mcp.callTool({ name: 'report.get', arguments: {} });
  for (let i = 0; i < 100 && waiting() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  answer();
  assert.equal((await cache.lookup(uriOf(await after), { convId: 'c' })).status, 'hit', 'a call made after it: fresh');
});

test('a stale notification while a task runs: the task\'s final result is stored stale, a later task\'s fresh', async () => {
  const { client, notify } = heldClient();
  const cache = new ResultCache({ storage: 'memory' });
  const mcp = /** @type {Wrapped} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache, convId: 'c' })));
  const task = await mcp.callTool({ name: 'report.get', arguments: { task: true } });
  await notify({ method: 'notifications/resources/updated', params: { uri: 'https://example.com/unrelated' } });
  await notify(STALE);
  const untouched = await mcp.callTool({ name: 'report.get', arguments: { task: true } });
  const uri = uriOf(await mcp.getTaskResult({ taskId: task.task?.taskId }));
  assert.equal((await cache.lookup(uri, { convId: 'c' })).status, 'stale');
  const fresh = uriOf(await mcp.getTaskResult({ taskId: untouched.task?.taskId }));
  assert.equal((await cache.lookup(fresh, { convId: 'c' })).status, 'hit', 'a task answered after the notification: fresh');
  assert.equal((await cache.entries({ convId: 'c' })).length, 2);
});

test('staleWindow: an open call notes each notification once by its URI, at most MAX_NOTED, and applies them again only when written', async () => {
  /** @type {unknown[]} */
  const applied = [];
  const window = staleWindow((n) => { applied.push(n); });
  const written = window.open();
  const dropped = window.open();
  for (let i = 0; i < MAX_NOTED + 10; i++) await window.notify({ params: { uri: `mcpfusion://stale/t${i}` } });
  await window.notify({ params: { uri: 'mcpfusion://stale/t0' } });
  await window.notify({ params: {} });
  assert.equal(applied.length, MAX_NOTED + 12, 'every notification applied at once');
  applied.length = 0;
  await window.close(dropped, false);
  assert.equal(applied.length, 0, 'nothing written: nothing applied again');
  await window.close(written, true);
  assert.equal(applied.length, MAX_NOTED, 'each noted URI once, the first MAX_NOTED');
  await window.close(written, true);
  assert.equal(applied.length, MAX_NOTED, 'closed once');
  const late = window.open();
  await window.close(late, true);
  assert.equal(applied.length, MAX_NOTED, 'a call opened after them noted none');
});

/** A real SDK server answering `report.get` with ROWS, and a real Client connected to it in memory. */
async function reportServer() {
  const server = new McpServer({ name: 'reports', version: '1.0.0' }, { capabilities: { resources: {} } });
  server.registerTool('report.get', { description: 'A report.', inputSchema: { n: z.number() } }, () => ({ content: [{ type: 'text', text: JSON.stringify({ ok: true, rows: ROWS }) }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(clientSide);
  return { server, client };
}

/**
 * Sends the stale notification and waits until `seen` has something, then a little more (for a
 * second delivery, which the callers rule out).
 * @param {McpServer} server @param {unknown[]} seen
 */
async function notifyAndSettle(server, seen) {
  await server.server.sendResourceUpdated({ uri: STALE.params.uri });
  for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  await new Promise((resolve) => setTimeout(resolve, 20));
}

test('wrapping one client again and again with one cache adds no handler per wrap: a notification reaches that cache once', async () => {
  const { server, client } = await reportServer();
  const cache = new ResultCache({ storage: 'memory' });
  /** @type {unknown[]} */
  const handled = [];
  const handle = cache.handleNotification.bind(cache);
  cache.handleNotification = (message, options) => (handled.push(message), handle(message, options));
  // A server wrapping the client per request (each request's `approve` asks its own user).
  for (let i = 0; i < 1_000; i++) wrapMcpClient(client, { cache, convId: `c${i}` });
  const other = new ResultCache({ storage: 'memory' });
  const wrapped = /** @type {{ callTool(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache: other, convId: 'c' })));
  const uri = uriOf(await wrapped.callTool({ name: 'report.get', arguments: { n: 1 } }));
  await notifyAndSettle(server, handled);
  assert.equal(handled.length, 1, 'once, not once per wrap');
  assert.equal((await other.lookup(uri, { convId: 'c' })).status, 'stale', 'every wrapping cache still gets it');
});

test('a cache the host let go of is not kept alive by the client it wrapped, and is notified no more', async () => {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = /** @type {() => void} */ (runInNewContext('gc'));
  const { server, client } = await reportServer();
  let collected = 0;
  const registry = new FinalizationRegistry(() => void (collected += 1));
  /** @type {unknown[]} */
  const handled = [];
  // A long-lived client, a new cache per conversation, each wrap used for one call and dropped.
  const useAndDrop = async (/** @type {number} */ i) => {
    const cache = new ResultCache({ storage: 'memory' });
    const handle = cache.handleNotification.bind(cache);
    cache.handleNotification = (message, options) => (handled.push(message), handle(message, options));
    registry.register(cache, i);
    const wrapped = /** @type {{ callTool(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache, convId: `c${i}` })));
    await wrapped.callTool({ name: 'report.get', arguments: { n: i } });
    cache.close();
  };
  for (let i = 0; i < 20; i++) await useAndDrop(i);
  const kept = new ResultCache({ storage: 'memory' });
  const wrapped = /** @type {{ callTool(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache: kept, convId: 'k' })));
  const uri = uriOf(await wrapped.callTool({ name: 'report.get', arguments: { n: 99 } }));
  for (let i = 0; i < 50 && collected < 20; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(collected, 20, 'every dropped cache was collected');
  // What the client keeps of them goes too, with the next wrap (no notification needed).
  const another = new ResultCache({ storage: 'memory' });
  wrapMcpClient(client, { cache: another, convId: 'n' });
  const chain = /** @type {{ windows: { live: Set<unknown> } }} */ (Reflect.get(client, Symbol.for('mcp-result-cache.resourceUpdatedChain')));
  assert.equal(chain.windows.live.size, 2, 'the windows of the two caches still held, none of the collected ones');
  await server.server.sendResourceUpdated({ uri: STALE.params.uri });
  for (let i = 0; i < 200 && (await kept.lookup(uri, { convId: 'k' })).status !== 'stale'; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.equal((await kept.lookup(uri, { convId: 'k' })).status, 'stale', 'the cache still held is notified');
  assert.equal(handled.length, 0, 'the dropped ones are not');
});

test('a client an earlier copy of the package chained (its list of handlers) is shared: each notification reaches every cache once', async () => {
  const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { server, client } = await reportServer();
  // What a copy with the chain's earlier shape (a list of handlers, no windows) leaves on a client it wrapped.
  /** @type {unknown[]} */
  const older = [];
  const originalSet = client.setNotificationHandler;
  /** @type {{ caches: ((n: unknown) => void)[], host: ((n: unknown) => unknown) | null, setNotificationHandler: (schema: unknown, handler: (n: unknown) => unknown) => unknown }} */
  const chain = {
    caches: [(notification) => void older.push(notification)],
    host: null,
    setNotificationHandler(schema, handler) {
      if (schema === ResourceUpdatedNotificationSchema) {
        chain.host = handler;
        return undefined;
      }
      return Reflect.apply(originalSet, client, [schema, handler]);
    },
  };
  Reflect.apply(originalSet, client, [ResourceUpdatedNotificationSchema, async (/** @type {unknown} */ notification) => {
    for (const handle of chain.caches) handle(notification);
    if (chain.host) await chain.host(notification);
  }]);
  Object.defineProperty(client, Symbol.for('mcp-result-cache.resourceUpdatedChain'), { value: chain, configurable: true });
  Object.defineProperty(client, 'setNotificationHandler', { value: chain.setNotificationHandler, configurable: true, writable: true });

  const cache = new ResultCache({ storage: 'memory' });
  const wrapped = /** @type {{ callTool(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache, convId: 'c' })));
  const uri = uriOf(await wrapped.callTool({ name: 'report.get', arguments: { n: 1 } }));
  await notifyAndSettle(server, older);
  assert.equal(older.length, 1, 'the older copy\'s cache got it once');
  assert.equal((await cache.lookup(uri, { convId: 'c' })).status, 'stale', 'and this copy\'s cache too');
});
