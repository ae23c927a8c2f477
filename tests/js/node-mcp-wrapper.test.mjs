// wrapMcpClient against real SDK servers (McpServer + Client over InMemoryTransport): strict-mode
// `null` / `""` references, references that resolve to the wrong JSON type, notification
// handlers set with the SDK's CommonJS schema or on the raw client after wrapping, the inline-cap
// and display options, and retries of multi round-trip calls.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { ResultCache, cacheTools } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';
import { clientToolSet } from '../../js/ai-sdk.node.mjs';

/** @typedef {import('@modelcontextprotocol/sdk/types.js').CallToolResult} CallToolResult */
/** @typedef {import('@modelcontextprotocol/sdk/types.js').CallToolRequest['params']} CallToolParams */
/** @typedef {import('../../js/index.js').AfterToolCallOptions} AfterToolCallOptions */
/** What `store.query` results show the model: their reference, and one per array member. */
/** @typedef {{ _cache_uri: string, _cache_refs: Record<string, string> }} Stored */
/**
 * A JSON-RPC message as the hand-written server below reads it: requests carry an `id`
 * (notifications none), and the `params` of the requests it reads.
 * @typedef {{
 *   id?: string | number, method?: string,
 *   params: { protocolVersion?: string, inputResponses?: { env: { content: { env: string } } } },
 * }} RawMessage
 */

/** The SDK's CommonJS build of the same module (its own schema objects). */
/** @type {typeof import('@modelcontextprotocol/sdk/types.js')} */
const cjsTypes = createRequire(import.meta.url)('@modelcontextprotocol/sdk/types.js');
const CONV = 'chat-1';
const ROWS = Array.from({ length: 120 }, (_, i) => ({ id: i, name: `entity-${i}`, note: 'x'.repeat(20) }));
const ENTITIES = [{ name: 'Ada' }, { name: 'Grace' }];

let n = 0;
/** @param {Record<string, unknown>} [extra] */
const newCache = (extra = {}) => new ResultCache({ dbName: `wrapper-${process.pid}-${n++}`, ...extra });
/** The JSON of a result's last text block. @param {unknown} result */
const textJson = (result) => JSON.parse(/** @type {{ text: string }} */ (/** @type {{ content: unknown[] }} */ (result).content.at(-1)).text);
const until = async (/** @type {() => boolean} */ check) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

/**
 * A server whose tools record the arguments they received (`received`, per tool). `store.query`
 * returns big payloads (stored by the cache); the others are strict: an undeclared key fails.
 * @param {Record<string, unknown[]>} [received]
 */
function makeServer(received = {}) {
  const server = new McpServer({ name: 'kg', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
  /** @param {string} tool @returns {(args: unknown) => CallToolResult} */
  const record = (tool) => (args) => {
    (received[tool] ??= []).push(args);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, tool }) }] };
  };
  server.registerTool('create_entities', {
    description: 'Creates entities.',
    inputSchema: z.object({ entities: z.array(z.object({ name: z.string() }).passthrough()) }).strict(),
  }, record('create_entities'));
  server.registerTool('import_rows', {
    description: 'Imports rows (or none).',
    // Nullable: the JSON Schema is `anyOf: [{type: "array"}, {type: "null"}]`.
    inputSchema: z.object({ rows: z.array(z.unknown()).nullable(), label: z.string().optional() }).strict(),
  }, record('import_rows'));
  server.registerTool('apply_filter', {
    description: 'Applies a filter object.',
    inputSchema: z.object({ filter: z.object({ field: z.string() }).passthrough() }).strict(),
  }, record('apply_filter'));
  server.registerTool('fetch_source', {
    description: 'Declares its own `source_uri` (a plain URL, not a cache reference).',
    inputSchema: z.object({ source_uri: z.string().nullable(), items: z.array(z.string()).optional() }).strict(),
  }, record('fetch_source'));
  server.registerTool('store.query', {
    description: 'Returns the payload it is asked for.',
    inputSchema: { shape: z.string() },
  }, ({ shape }) => {
    const payloads = {
      rows: { ok: true, title: `Report ${'t'.repeat(50)}`, total: 120, rows: ROWS, 'a/b~c': ROWS.slice(0, 3) },
      nested: { ok: true, result: { rows: ROWS, filter: { field: 'name' } } },
    };
    const payload = payloads[/** @type {keyof typeof payloads} */ (shape)];
    return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
  });
  return server;
}

/** @param {McpServer} server */
async function connect(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** @param {Partial<import('../../js/mcp-client.js').WrapMcpClientOptions>} [options] */
async function setup(options = {}) {
  /** @type {Record<string, unknown[]>} */
  const received = {};
  const server = makeServer(received);
  const client = await connect(server);
  const cache = options.cache ?? newCache();
  const wrapped = wrapMcpClient(client, { cache, convId: () => CONV, ...options });
  await wrapped.listTools();
  return { server, client, cache, wrapped, received };
}

test('strict-mode null, "" and undefined `_uri` mean "not given": dispatched with the value, without the key', async () => {
  const { client, wrapped, received } = await setup();
  for (const empty of [null, '', undefined]) {
    const result = await wrapped.callTool({ name: 'create_entities', arguments: { entities: ENTITIES, entities_uri: empty } });
    assert.equal(result.isError, undefined, `${JSON.stringify(empty)}: ${JSON.stringify(result)}`);
    assert.deepEqual(textJson(result), { ok: true, tool: 'create_entities' });
    assert.deepEqual(received.create_entities.at(-1), { entities: ENTITIES }, 'the server never sees the `_uri` key');
  }
  assert.equal(received.create_entities.length, 3);
  // A tool never listed is listed on its first call, and the same rule applies.
  const { client: fresh, received: freshReceived } = await setup();
  const unlisted = wrapMcpClient(fresh, { cache: newCache(), convId: CONV });
  const result = await unlisted.callTool({ name: 'create_entities', arguments: { entities: ENTITIES, entities_uri: null } });
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.deepEqual(freshReceived.create_entities.at(-1), { entities: ENTITIES });
  await client.close();
  await fresh.close();
});

test('a `_uri` property the server declared itself is passed on untouched, null included', async () => {
  const { client, wrapped, received } = await setup();
  const result = await wrapped.callTool({ name: 'fetch_source', arguments: { source_uri: null, items: ['a'] } });
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.deepEqual(received.fetch_source.at(-1), { source_uri: null, items: ['a'] });
  const url = await wrapped.callTool({ name: 'fetch_source', arguments: { source_uri: 'https://example.org/x' } });
  assert.equal(url.isError, undefined, JSON.stringify(url));
  assert.deepEqual(received.fetch_source.at(-1), { source_uri: 'https://example.org/x' });
  await client.close();
});

test('a non-empty `_uri` that is not a reference is still refused, and the server is not called', async () => {
  const { client, wrapped, received } = await setup();
  for (const bad of ['the entities above', 0, false, ['not-a-reference']]) {
    const result = await wrapped.callTool({ name: 'create_entities', arguments: { entities: ENTITIES, entities_uri: bad } });
    assert.equal(result.isError, true, JSON.stringify(bad));
    assert.match(textJson(result).error, /^invalid_args: `entities_uri` must hold an mcp\+cache:\/\/ reference/);
  }
  assert.equal(received.create_entities, undefined, 'never dispatched');
  await client.close();
});

test('an empty `_uri` does not lift the inline cap', async () => {
  const { client, wrapped, received } = await setup({ cappedArgs: ['entities'] });
  const many = Array.from({ length: 25 }, (_, i) => ({ name: `e${i}` }));
  for (const empty of [null, '']) {
    const result = await wrapped.callTool({ name: 'create_entities', arguments: { entities: many, entities_uri: empty } });
    assert.equal(result.isError, true, JSON.stringify(empty));
    assert.equal(textJson(result)._capped_arg, 'entities');
  }
  assert.equal(received.create_entities, undefined);
  await client.close();
});

test('a reference resolving to a string for an array parameter is refused with a type_mismatch envelope', async () => {
  const { client, wrapped, received } = await setup();
  const stored = textJson(await wrapped.callTool({ name: 'store.query', arguments: { shape: 'rows' } }));
  const uri = stored._cache_uri;
  assert.match(uri, /^mcp\+cache:\/\/chat-1\//);

  const titleRef = `${uri}#/title`;
  const result = await wrapped.callTool({ name: 'create_entities', arguments: { entities_uri: titleRef } });
  assert.equal(result.isError, true);
  const envelope = textJson(result);
  assert.equal(envelope.error, `type_mismatch: \`entities_uri\` resolved to a string but create_entities expects an array for \`entities\``);
  assert.equal(envelope._expected, 'array');
  assert.equal(envelope._got, 'string');
  assert.equal(envelope._uri, titleRef);
  assert.equal(typeof envelope.fix_hint, 'string');
  assert.equal(received.create_entities, undefined, 'the server is not called');

  // A number too, and a nullable array parameter (`anyOf: [array, null]`).
  const number = textJson(await wrapped.callTool({ name: 'import_rows', arguments: { rows_uri: `${uri}#/total` } }));
  assert.match(number.error, /^type_mismatch: `rows_uri` resolved to a number but import_rows expects an array for `rows`/);
  assert.equal(number._got, 'number');
  assert.equal(received.import_rows, undefined);

  // The whole object: the hint names ready references to its array members, escaped as
  // `_cache_refs` writes them.
  const whole = textJson(await wrapped.callTool({ name: 'create_entities', arguments: { entities_uri: uri } }));
  assert.equal(whole._got, 'object');
  assert.match(whole.error, /resolved to an object but create_entities expects an array/);
  assert.ok(whole.fix_hint.includes(`"${uri}#/rows"`), whole.fix_hint);
  assert.ok(whole.fix_hint.includes(`"${uri}#/a~1b~0c"`), whole.fix_hint);
  assert.ok(!whole.fix_hint.includes('#/title'), 'only members of the expected type');
  assert.equal(stored._cache_refs['a/b~c'], `${uri}#/a~1b~0c`, 'the same spelling as _cache_refs');
  assert.equal(received.create_entities, undefined);

  // The hinted reference works.
  const ok = await wrapped.callTool({ name: 'import_rows', arguments: { rows_uri: `${uri}#/a~1b~0c`, label: 'x' } });
  assert.equal(ok.isError, undefined, JSON.stringify(ok));
  // (`received.import_rows` was asserted `undefined` above; the call since then filled it.)
  assert.deepEqual(/** @type {unknown[]} */ (received.import_rows).at(-1), { rows: ROWS.slice(0, 3), label: 'x' });
  await client.close();
});

test('type_mismatch: a reference with a fragment gets member references appended to it; object parameters too', async () => {
  const { client, wrapped, received } = await setup({ augment: { objects: true } });
  const { tools } = await wrapped.listTools();
  assert.equal(/** @type {{ inputSchema: { properties: Record<string, { type: string }> } }} */ (tools.find((t) => t.name === 'apply_filter')).inputSchema.properties.filter_uri.type, 'string');
  const uri = textJson(await wrapped.callTool({ name: 'store.query', arguments: { shape: 'nested' } }))._cache_uri;

  const nested = textJson(await wrapped.callTool({ name: 'create_entities', arguments: { entities_uri: `${uri}#/result` } }));
  assert.equal(nested._got, 'object');
  assert.ok(nested.fix_hint.includes(`"${uri}#/result/rows"`), nested.fix_hint);

  const arrayForObject = textJson(await wrapped.callTool({ name: 'apply_filter', arguments: { filter_uri: `${uri}#/result/rows` } }));
  assert.equal(arrayForObject.error, 'type_mismatch: `filter_uri` resolved to an array but apply_filter expects an object for `filter`');
  assert.equal(arrayForObject._expected, 'object');
  assert.equal(arrayForObject._got, 'array');
  assert.equal(received.apply_filter, undefined);
  const fits = await wrapped.callTool({ name: 'apply_filter', arguments: { filter_uri: `${uri}#/result/filter` } });
  assert.equal(fits.isError, undefined, JSON.stringify(fits));
  assert.deepEqual(received.apply_filter, [{ filter: { field: 'name' } }]);
  await client.close();
});

/**
 * Stores a `store.query` result, then has the server report that tool's results stale.
 * @param {McpServer} server
 * @param {Client} wrapped
 * @returns {Promise<Stored>}
 */
async function storeThenStale(server, wrapped) {
  const stored = textJson(await wrapped.callTool({ name: 'store.query', arguments: { shape: 'rows' } }));
  assert.ok(stored._cache_refs?.rows, JSON.stringify(stored).slice(0, 200));
  await server.server.sendResourceUpdated({ uri: 'mcpfusion://stale/store.query' });
  return stored;
}

/**
 * @param {Pick<import('../../js/index.js').ResultCache, 'lookup'>} cache
 * @param {Client} wrapped
 * @param {Stored} stored
 */
async function assertStale(cache, wrapped, stored) {
  assert.equal((await cache.lookup(stored._cache_uri, { convId: CONV })).status, 'stale', 'the cache saw the notification');
  const reuse = await wrapped.callTool({ name: 'create_entities', arguments: { entities_uri: stored._cache_refs.rows } });
  assert.equal(reuse.isError, true);
  assert.match(textJson(reuse).error, /is stale/);
}

test('a CommonJS host sets its resources/updated handler through the wrapper: the cache keeps its own', async () => {
  assert.notEqual(cjsTypes.ResourceUpdatedNotificationSchema, ResourceUpdatedNotificationSchema, 'two builds, two schema objects');
  const { server, client, cache, wrapped } = await setup();
  /** @type {string[]} */
  const seen = [];
  wrapped.setNotificationHandler(cjsTypes.ResourceUpdatedNotificationSchema, (note) => { seen.push(note.params.uri); });
  const stored = await storeThenStale(server, wrapped);
  await until(() => seen.length > 0);
  assert.deepEqual(seen, ['mcpfusion://stale/store.query'], 'the host handler ran');
  await assertStale(cache, wrapped, stored);

  // Other notifications still reach the client as set.
  const listChanged = [];
  wrapped.setNotificationHandler(cjsTypes.ToolListChangedNotificationSchema, () => { listChanged.push(1); });
  server.sendToolListChanged();
  await until(() => listChanged.length > 0);
  assert.equal(listChanged.length, 1);
  await client.close();
});

test('a handler set on the raw client after wrapping (CommonJS or ESM schema) is chained after the cache', async () => {
  for (const schema of [cjsTypes.ResourceUpdatedNotificationSchema, ResourceUpdatedNotificationSchema]) {
    const { server, client, cache, wrapped } = await setup();
    /** @type {string[]} */
    const first = [];
    /** @type {string[]} */
    const seen = [];
    client.setNotificationHandler(schema, (note) => { first.push(note.params.uri); });
    client.setNotificationHandler(schema, (note) => { seen.push(note.params.uri); }); // replaces the host's, as the SDK does
    const stored = await storeThenStale(server, wrapped);
    await until(() => seen.length > 0);
    assert.deepEqual(seen, ['mcpfusion://stale/store.query']);
    assert.deepEqual(first, []);
    await assertStale(cache, wrapped, stored);

    // Removing the host's handler leaves the cache's in place.
    client.removeNotificationHandler('notifications/resources/updated');
    const again = textJson(await wrapped.callTool({ name: 'store.query', arguments: { shape: 'nested' } }));
    await server.server.sendResourceUpdated({ uri: 'mcpfusion://stale/store.query' });
    let status;
    for (let i = 0; i < 100 && status !== 'stale'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      status = (await cache.lookup(again._cache_uri, { convId: CONV })).status;
    }
    assert.equal(status, 'stale');
    assert.equal(seen.length, 1);
    await client.close();
  }
});

test('handlers are isolated: a throwing host handler or a failing cache stops neither the other', async () => {
  // The host's failure is reported by the client, after the cache has done its part.
  const { server, client, cache, wrapped } = await setup();
  /** @type {string[]} */
  const errors = [];
  client.onerror = (e) => errors.push(String(e));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => { throw new Error('host broke'); });
  const stored = await storeThenStale(server, wrapped);
  await until(() => errors.length > 0);
  assert.match(errors.join('\n'), /host broke/);
  await assertStale(cache, wrapped, stored);
  await client.close();

  // A cache whose handleNotification fails: the host's handler and a second cache still run.
  /** @type {Record<string, unknown[]>} */
  const received = {};
  const server2 = makeServer(received);
  const raw = await connect(server2);
  /** @type {string[]} */
  const seen = [];
  raw.setNotificationHandler(cjsTypes.ResourceUpdatedNotificationSchema, (note) => { seen.push(note.params.uri); });
  const broken = {
    beforeToolCall: async () => { throw new Error('unused'); },
    afterToolCall: async () => { throw new Error('unused'); },
    handleNotification: async () => { throw new Error('storage gone'); },
  };
  wrapMcpClient(raw, { cache: broken });
  const cache2 = newCache();
  const wrapped2 = wrapMcpClient(raw, { cache: cache2, convId: CONV });
  const stored2 = await storeThenStale(server2, wrapped2);
  await until(() => seen.length > 0);
  assert.deepEqual(seen, ['mcpfusion://stale/store.query'], 'set before wrapping, still runs');
  await assertStale(cache2, wrapped2, stored2);
  await raw.close();
});

/**
 * Records the options each pipeline call gets, forwarding to the real cache.
 * @template {object} C
 * @param {C} cache
 */
function spyCache(cache) {
  /** @type {{ beforeToolCall: import('../../js/index.js').BeforeToolCallOptions[], afterToolCall: AfterToolCallOptions[] }} */
  const calls = { beforeToolCall: [], afterToolCall: [] };
  const spy = new Proxy(cache, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (/** @type {unknown[]} */ ...args) => {
        /** @type {Record<string | symbol, unknown[] | undefined>} */ (calls)[prop]?.push(args[2]);
        return value.apply(target, args);
      };
    },
  });
  return { spy, calls };
}

test('cap, cappedArgs, maxChars and mediaMaxBytes reach beforeToolCall / afterToolCall', async () => {
  const { spy, calls } = spyCache(newCache());
  const options = { cache: spy, cap: 3, cappedArgs: ['entities'], maxChars: 400, mediaMaxBytes: 1234 };
  const { client, wrapped, received } = await setup(options);
  const four = Array.from({ length: 4 }, (_, i) => ({ name: `e${i}` }));
  const blocked = await wrapped.callTool({ name: 'create_entities', arguments: { entities: four } });
  assert.equal(blocked.isError, true, 'an inline array over the custom cap is blocked');
  const envelope = textJson(blocked);
  assert.equal(envelope._capped_arg, 'entities');
  assert.match(envelope.error, /4/);
  assert.equal(received.create_entities, undefined);
  const three = await wrapped.callTool({ name: 'create_entities', arguments: { entities: four.slice(0, 3) } });
  assert.equal(three.isError, undefined, JSON.stringify(three));
  assert.equal(/** @type {unknown[]} */ (received.create_entities).length, 1);

  const shown = textJson(await wrapped.callTool({ name: 'store.query', arguments: { shape: 'rows' } }));
  assert.ok(shown._truncated, 'maxChars 400 summarizes the stored result');
  assert.ok(shown._cache_uri);

  assert.deepEqual(calls.beforeToolCall.at(-1), { convId: CONV, cap: 3, cappedArgs: ['entities'], maxChars: 400, server: 'kg' });
  const after = /** @type {AfterToolCallOptions} */ (calls.afterToolCall.at(-1));
  assert.equal(after.maxChars, 400);
  assert.equal(after.mediaMaxBytes, 1234);
  assert.equal(after.convId, CONV);
  await client.close();

  // Not given: not passed (the cache's defaults apply).
  const plain = spyCache(newCache());
  const second = await setup({ cache: plain.spy });
  await second.wrapped.callTool({ name: 'create_entities', arguments: { entities: four } });
  assert.equal(second.received.create_entities.length, 1, 'the default cap (20, on `data`) lets 4 through');
  assert.deepEqual(plain.calls.beforeToolCall.at(-1), { convId: CONV, server: 'kg' }, 'the server\'s name always goes');
  assert.deepEqual(Object.keys(/** @type {AfterToolCallOptions} */ (plain.calls.afterToolCall.at(-1))).sort(), ['args', 'convId', 'server']);
  await second.client.close();
});

test('a retry carrying input responses is neither answered from a reused result nor stored', async () => {
  const server = new McpServer({ name: 'ref', version: '1.0.0' });
  let calls = 0;
  server.registerTool('countries.list', {
    description: 'All countries. [Cache-Control: immutable]',
    inputSchema: { region: z.string() },
  }, () => {
    calls += 1;
    const payload = { ok: true, call: calls, rows: ROWS };
    return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
  });
  const client = await connect(server);
  const cache = newCache({ reuseImmutable: true });
  const wrapped = wrapMcpClient(client, { cache, convId: CONV });
  await wrapped.listTools();
  const args = { region: 'EU' };
  const first = textJson(await wrapped.callTool({ name: 'countries.list', arguments: args }));
  assert.ok(first._cache_uri);
  const reused = textJson(await wrapped.callTool({ name: 'countries.list', arguments: args }));
  assert.equal(reused._cache_uri, first._cache_uri, 'an identical call is reused');
  assert.equal(calls, 1);

  // `inputResponses` and `requestState` (2026-07-28): not in the SDK's types yet.
  const retry = await wrapped.callTool(/** @type {CallToolParams} */ ({ name: 'countries.list', arguments: args, inputResponses: { confirm: { action: 'accept', content: {} } }, requestState: 'opaque' }));
  assert.equal(calls, 2, 'the retry reached the server');
  const visible = textJson(retry);
  assert.equal(visible.call, 2);
  assert.equal(visible._cache_uri, undefined, 'and its result was not stored');
  const stateOnly = textJson(await wrapped.callTool(/** @type {CallToolParams} */ ({ name: 'countries.list', arguments: args, requestState: 'opaque-2' })));
  assert.equal(calls, 3);
  assert.equal(stateOnly._cache_uri, undefined);

  // The first result is still the one reused; the retries changed nothing.
  const later = textJson(await wrapped.callTool({ name: 'countries.list', arguments: args }));
  assert.equal(later._cache_uri, first._cache_uri);
  assert.equal(calls, 3);
  await client.close();
});

test('multi round-trip: an input_required result comes back untouched, and the retry carries the answers to the server', async () => {
  // A server speaking the 2026-07-28 shapes by hand (the SDK has none yet): it asks first,
  // then answers the retry.
  /** @type {unknown[]} */
  const seen = [];
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message) => {
    if (/** @type {RawMessage} */ (message).id === undefined) return;
    const { method, params } = /** @type {RawMessage} */ (message);
    /** @type {Record<string, unknown>} */
    let result = {};
    if (method === 'initialize') {
      result = { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1.0.0' } };
    } else if (method === 'tools/list') {
      result = { tools: [{ name: 'deploy', description: 'Deploys.', inputSchema: { type: 'object', properties: { service: { type: 'string' } } } }] };
    } else if (method === 'tools/call') {
      seen.push(params);
      result = params.inputResponses
        ? { content: [{ type: 'text', text: JSON.stringify({ ok: true, env: /** @type {NonNullable<RawMessage['params']['inputResponses']>} */ (params.inputResponses).env.content.env, rows: ROWS }) }] }
        : { resultType: 'input_required', inputRequests: { env: { method: 'elicitation/create', params: { message: 'Which environment?' } } }, requestState: 's'.repeat(6000) };
    }
    serverSide.send(/** @type {import('@modelcontextprotocol/sdk/types.js').JSONRPCMessage} */ ({ jsonrpc: '2.0', id: /** @type {RawMessage} */ (message).id, result }));
  };
  await serverSide.start();
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(clientSide);
  const wrapped = wrapMcpClient(client, { cache: newCache(), convId: CONV });
  await wrapped.listTools();
  // A host that reads the new fields passes a schema keeping them as they are.
  // (The SDK declares only its two result schemas for `callTool`; any schema works.)
  const asIs = /** @type {typeof import('@modelcontextprotocol/sdk/types.js').CallToolResultSchema} */ (/** @type {unknown} */ (z.object({}).passthrough()));

  const ask = await wrapped.callTool({ name: 'deploy', arguments: { service: 'api' } }, asIs);
  assert.equal(ask.resultType, 'input_required');
  assert.equal(ask.requestState, 's'.repeat(6000));
  assert.deepEqual(Object.keys(ask).sort(), ['inputRequests', 'requestState', 'resultType'], 'not stored (no _cache_uri)');

  const inputResponses = { env: { action: 'accept', content: { env: 'prod' } } };
  const done = await wrapped.callTool(/** @type {CallToolParams} */ ({ name: 'deploy', arguments: { service: 'api' }, inputResponses, requestState: ask.requestState }), asIs);
  assert.deepEqual(seen.at(-1), { name: 'deploy', arguments: { service: 'api' }, inputResponses, requestState: ask.requestState }, 'the retry reached the server whole');
  const visible = textJson(done);
  assert.equal(visible.env, 'prod');
  assert.equal(visible._cache_uri, undefined, 'the answer-dependent result is not stored');
  await client.close();
});

/** A server named `name` whose `report.get` returns a big payload and whose `report.refresh`
 * answers with an invalidation tag for `report.*`. */
/** @param {string} name */
function namedServer(name) {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
  server.registerTool('report.get', { description: 'A report.', inputSchema: {} }, () => {
    const payload = { ok: true, server: name, rows: ROWS };
    return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
  });
  server.registerTool('report.refresh', { description: 'Refreshes reports.', inputSchema: {} }, () => ({
    content: [
      { type: 'text', text: '<cache_invalidation cause="report.refresh" domains="report.*" />' },
      { type: 'text', text: JSON.stringify({ ok: true }) },
    ],
  }));
  return server;
}

test('two servers with the same tool names: each one\'s invalidations and stale notifications stay with its entries', async () => {
  const cache = newCache();
  const [alphaServer, betaServer] = [namedServer('alpha'), namedServer('beta')];
  const alpha = wrapMcpClient(await connect(alphaServer), { cache, convId: CONV });
  const beta = wrapMcpClient(await connect(betaServer), { cache, convId: CONV });
  const refA = textJson(await alpha.callTool({ name: 'report.get', arguments: {} }))._cache_uri;
  const refB = textJson(await beta.callTool({ name: 'report.get', arguments: {} }))._cache_uri;
  assert.ok(refA && refB);
  const sources = (await cache.entries({ convId: CONV })).map((e) => [e.sourceServer, e.sourceToolName]).sort();
  assert.deepEqual(sources, [['alpha', 'report.get'], ['beta', 'report.get']], 'entries remember their server');

  // alpha's invalidation tag marks alpha's entry only.
  await alpha.callTool({ name: 'report.refresh', arguments: {} });
  assert.equal((await cache.lookup(refA, { convId: CONV })).status, 'stale');
  assert.equal((await cache.lookup(refB, { convId: CONV })).status, 'hit', 'beta\'s report is untouched');

  // beta's stale notification marks beta's entry; a fresh alpha entry stays fresh.
  const refA2 = textJson(await alpha.callTool({ name: 'report.get', arguments: {} }))._cache_uri;
  await betaServer.server.sendResourceUpdated({ uri: 'mcpfusion://stale/report.get' });
  for (let i = 0; i < 100 && (await cache.lookup(refB, { convId: CONV })).status !== 'stale'; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal((await cache.lookup(refB, { convId: CONV })).status, 'stale');
  assert.equal((await cache.lookup(refA2, { convId: CONV })).status, 'hit', 'alpha\'s new report is untouched');
  const stale = /** @type {Extract<import('../../js/index.js').LookupResult, { status: 'stale' }>} */ (await cache.lookup(refB, { convId: CONV }));
  assert.equal(stale.sourceToolName, 'report.get');
  assert.equal(stale.sourceServer, 'beta');

  // The host's own invalidate, without a server, reaches every server's entries.
  await cache.invalidate(['report.*'], { cause: 'host' });
  assert.equal((await cache.lookup(refA2, { convId: CONV })).status, 'stale');
  // A bad server name is a TypeError, not a silent no-op.
  await assert.rejects(cache.invalidate(['report.*'], { server: /** @type {never} */ (42) }), TypeError);
});

test('a tool that must be called as a task is listed as declared: no `_uri` parameter the wrapped call could not resolve', async () => {
  const taskStore = new InMemoryTaskStore();
  const jobs = new McpServer({ name: 'jobs', version: '1.0.0' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore });
  jobs.registerTool('rows', { inputSchema: { data: z.array(z.any()).optional() } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  jobs.experimental.tasks.registerToolTask('plot', { inputSchema: { data: z.array(z.any()).optional() }, execution: { taskSupport: 'required' } }, {
    createTask: async (_args, extra) => ({ task: await extra.taskStore.createTask({ ttl: 60_000 }) }),
    getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => /** @type {CallToolResult} */ (await extra.taskStore.getTaskResult(extra.taskId)),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await jobs.connect(serverSide);
  const raw = new Client({ name: 't', version: '1.0.0' });
  await raw.connect(clientSide);
  try {
    const client = wrapMcpClient(raw, { cache: new ResultCache({ storage: 'memory' }), convId: CONV });
    const { tools } = await client.listTools();
    const props = (/** @type {string} */ name) => Object.keys(/** @type {{ inputSchema: { properties: object } }} */ (tools.find((t) => t.name === name)).inputSchema.properties);
    assert.deepEqual(props('rows'), ['data', 'data_uri']);
    assert.deepEqual(props('plot'), ['data'], 'as the server declared it');
    assert.deepEqual(tools.map((t) => t.name), ['rows', 'plot'], 'in the server\'s order');
  } finally {
    await raw.close();
    await jobs.close();
  }
});

test('an object with listTools() and callTool() only (a hand-written client, cacheTools) is wrapped: the pipeline runs, no notification API is made up', async () => {
  /** @type {Record<string, unknown[]>} */
  const received = {};
  const server = makeServer(received);
  const raw = await connect(server);
  try {
    // No setNotificationHandler, no getServerVersion: only what a client must have to be called.
    const handWritten = {
      listTools: (/** @type {{ cursor?: string }} */ params = {}) => raw.listTools(params),
      callTool: (/** @type {CallToolParams} */ params) => raw.callTool(params),
    };
    const cache = new ResultCache({ storage: 'memory' });
    const wrapped = wrapMcpClient(handWritten, { cache, convId: CONV });
    assert.equal(/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (wrapped)).setNotificationHandler, undefined);
    assert.equal(/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (wrapped)).removeNotificationHandler, undefined);
    const { tools } = await wrapped.listTools();
    assert.ok(Object.keys(/** @type {{ inputSchema: { properties: object } }} */ (tools.find((t) => t.name === 'import_rows')).inputSchema.properties).includes('rows_uri'));
    const stored = /** @type {Stored} */ (textJson(await wrapped.callTool({ name: 'store.query', arguments: { shape: 'rows' } })));
    await wrapped.callTool({ name: 'import_rows', arguments: { rows_uri: stored._cache_refs.rows } });
    assert.deepEqual(received.import_rows, [{ rows: ROWS }]);

    // The cache's own read-back tools are such an object (docs/READ-BACK.md).
    const readBack = wrapMcpClient(cacheTools(cache, { convId: CONV }), { cache: new ResultCache({ storage: 'memory' }), convId: CONV });
    assert.ok((await readBack.listTools()).tools.some((/** @type {{ name: string }} */ t) => t.name === 'cache_read'));
    const page = textJson(await readBack.callTool({ name: 'cache_read', arguments: { uri: stored._cache_refs.rows, limit: 2 } }));
    assert.deepEqual(page.items, ROWS.slice(0, 2));
  } finally {
    await raw.close();
    await server.close();
  }
  // What cannot be called is refused up front, naming what is missing.
  const cache = new ResultCache({ storage: 'memory' });
  for (const [client, missing] of /** @type {const} */ ([[{ callTool: async () => ({}) }, /listTools\(\) missing/], [{ listTools: async () => ({ tools: [] }) }, /callTool\(\) missing/], [null, /listTools\(\) and callTool\(\) missing/]])) {
    assert.throws(() => wrapMcpClient(/** @type {never} */ (client), { cache, convId: CONV }), { name: 'TypeError', message: missing });
    assert.throws(() => wrapMcpClient(/** @type {never} */ (client), { cache, convId: CONV }), { message: /^wrapMcpClient expects an MCP SDK Client/ });
  }
});

test('a hand-written client whose getTaskResult throws at once: each read fails with its error, and a later read asks again', async () => {
  let connected = true;
  let reads = 0;
  const handWritten = {
    listTools: async () => ({ tools: [{ name: 'job', inputSchema: { type: /** @type {const} */ ('object'), properties: {} } }] }),
    callTool: async (/** @type {unknown} */ _params) => ({ task: { taskId: 't1', status: 'working' } }),
    // Not async: throws before any promise exists, as a disconnected hand-written client may.
    getTaskResult: (/** @type {unknown} */ _params) => {
      reads += 1;
      if (!connected) throw new Error('Not connected');
      return Promise.resolve({ content: [{ type: 'text', text: 'final' }] });
    },
  };
  const wrapped = wrapMcpClient(handWritten, { cache: new ResultCache({ storage: 'memory' }), convId: CONV });
  await wrapped.callTool({ name: 'job', arguments: {} });
  connected = false;
  await assert.rejects(wrapped.getTaskResult({ taskId: 't1' }), { message: 'Not connected' });
  await assert.rejects(wrapped.getTaskResult({ taskId: 't1' }), { message: 'Not connected' });
  connected = true;
  assert.deepEqual(await wrapped.getTaskResult({ taskId: 't1' }), { content: [{ type: 'text', text: 'final' }] });
  assert.equal(reads, 3);
});

test('approve gets the call\'s signal, and an abort rejects the call at once, the server never called', async () => {
  let called = 0;
  const client = {
    listTools: async () => ({ tools: [{ name: 'mail.send', inputSchema: { type: 'object', properties: { body: { type: 'string' } } }, annotations: { openWorldHint: true } }] }),
    callTool: async () => { called += 1; return { content: [{ type: 'text', text: 'sent' }] }; },
    getServerVersion: () => ({ name: 'mailer' }),
  };
  const cache = newCache();
  const uri = /** @type {string} */ (await cache.cacheToolResult({ payload: { rows: ROWS }, convId: CONV, sourceToolName: 'db.query', server: 'db', threshold: 0 }));
  /** @type {(AbortSignal | undefined)[]} */
  const signals = [];
  const approve = (/** @type {unknown} */ _flow, /** @type {{ signal?: AbortSignal }} */ { signal }) => {
    signals.push(signal);
    return new Promise(() => {});
  };
  const wrapped = /** @type {{ listTools(): Promise<unknown>, callTool(p: object, s: unknown, o: object): Promise<unknown> }} */ (
    /** @type {unknown} */ (wrapMcpClient(client, { cache, convId: CONV, flows: () => 'ask', approve })));
  await wrapped.listTools();
  const controller = new AbortController();
  const call = wrapped.callTool({ name: 'mail.send', arguments: { body_uri: uri } }, undefined, { signal: controller.signal });
  for (let i = 0; i < 100 && signals.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.equal(signals[0], controller.signal, 'the question carries the call\'s signal');
  controller.abort(new Error('user left'));
  await assert.rejects(call, /user left/);
  assert.equal(called, 0);
});

test('a result a layer below already stored is handed on as it is: a wrapped client wrapped again, or made into AI SDK tools, stores it once', async () => {
  const { client, cache } = await setup();
  const inner = wrapMcpClient(client, { cache, convId: () => CONV });
  const outer = wrapMcpClient(inner, { cache, convId: () => CONV });
  await outer.listTools();
  const before = (await cache.entries({ convId: CONV })).length;
  const answered = await outer.callTool({ name: 'store.query', arguments: { shape: 'rows' } });
  const stored = await cache.entries({ convId: CONV });
  assert.equal(stored.length, before + 1, 'one entry for one result, not one per layer');
  const meta = /** @type {{ _meta: Record<string, string[]> }} */ (answered)._meta['mcp-result-cache/uris'];
  assert.deepEqual(meta, [stored.at(-1)?.uri], 'the model is shown the one reference stored');
  assert.equal(/** @type {Stored} */ (textJson(answered))._cache_uri, meta[0], 'the text names the same one');
  assert.ok(!/** @type {{ content: { type: string }[] }} */ (answered).content.some((b) => b.type === 'resource_link'), 'no second link to the same data');

  // AI SDK tools made of the wrapped client, over the same cache: stored once too.
  const tools = await clientToolSet(inner, { cache, convId: CONV });
  const tool = /** @type {{ execute: (input: unknown, options: unknown) => Promise<unknown> }} */ (tools['store.query']);
  await tool.execute({ shape: 'nested' }, { toolCallId: 'c1', messages: [] });
  assert.equal((await cache.entries({ convId: CONV })).length, before + 2, 'clientToolSet over a wrapped client stores once');

  // Over another cache, the outer layer stores what the model will pass to its own tools.
  const other = newCache();
  const across = wrapMcpClient(inner, { cache: other, convId: () => CONV });
  await across.listTools();
  const mirrored = await across.callTool({ name: 'store.query', arguments: { shape: 'rows' } });
  assert.equal((await other.entries({ convId: CONV })).length, 1, 'the other cache stores its own entry');
  assert.equal((await cache.entries({ convId: CONV })).length, before + 3, 'and the inner layer its own');
  assert.ok(/** @type {{ _meta?: Record<string, string[]> }} */ (mirrored)._meta?.['mcp-result-cache/uris']?.length, 'the outer answer names its own reference');
});
