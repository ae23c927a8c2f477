// The boundary never traps: hostile values (revoked Proxies, throwing getters, huge lengths,
// wrong types) into every export of the release package. Sync exports return or throw an Error;
// async ones settle; 100 000 such calls leave the module fully working.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as host from '../../pkg/node.mjs';
import * as server from '../../pkg/server.node.mjs';
import * as lists from '../../pkg/lists.node.mjs';
import { HOSTILE, HOSTILE_NAMES, targets, classify, stillWorks } from '../boundary/hostile.mjs';

// Every entry's exports (the host's where names are shared: matchGlob, ready, wasmMemoryBytes).
const api = { ...lists, ...server, ...host };
// The wrong-typed arguments below are wrong on purpose: each is cast to `never`.

/** @type {unknown[]} */
let uncaught = [];
process.on('uncaughtException', (e) => uncaught.push(e));
process.on('unhandledRejection', (e) => uncaught.push(e));

test('every export, every hostile value in every position: no trap, no unsettled promise', async () => {
  const all = targets(api);
  const failures = [];
  for (const [name, fn] of Object.entries(all)) {
    for (const hostile of HOSTILE_NAMES) {
      for (let position = 0; position < 3; position++) {
        /** @type {unknown[]} */
        const args = ['t', { convId: 'c' }, { convId: 'c' }];
        args[position] = HOSTILE[hostile]();
        const outcome = await classify(fn, args);
        if (outcome.kind === 'trap' || outcome.kind === 'unsettled') {
          failures.push(`${name}(${hostile} at ${position}): ${outcome.kind} ${outcome.error ?? ''}`);
        }
      }
    }
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(uncaught, [], 'no exception escaped as uncaught');
  assert.ok(await stillWorks(api));
});

test('bad input is a TypeError (sync) or a rejected promise with a TypeError (async)', async () => {
  const cache = new api.ResultCache({ storage: 'memory' });
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  assert.throws(() => api.matchGlob(/** @type {never} */ ({ length: 3e9 }), 'a'), TypeError);
  assert.throws(() => api.checkInlineListCap(/** @type {never} */ ({ length: 3e9 }), {}), TypeError);
  assert.throws(() => api.checkInlineListCap('t', proxy), TypeError);
  await assert.rejects(cache.substituteCacheUris(proxy, { convId: 'A' }), TypeError);
  await assert.rejects(cache.beforeToolCall(/** @type {never} */ ({ length: 3e9 }), {}), TypeError);
  await assert.rejects(cache.beforeToolCall('t', proxy, { convId: 'A' }), TypeError);
  await assert.rejects(cache.afterToolCall('t', proxy, { convId: 'A' }), TypeError);
  await assert.rejects(cache.cacheToolResult(/** @type {never} */ (proxy)), TypeError);
  assert.throws(() => cache.observeTools(/** @type {never} */ (proxy)), TypeError);
});

test('100 000 hostile calls leave the module fully working', async () => {
  const cache = new api.ResultCache({ storage: 'memory' });
  const pending = [];
  for (let i = 0; i < 100_000; i++) {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    switch (i % 4) {
      case 0: pending.push(cache.substituteCacheUris(proxy, { convId: 'A' }).catch(() => 'rejected')); break;
      case 1: try { api.matchGlob(/** @type {never} */ ({ length: 3e9 }), 'a'); } catch { /* TypeError */ } break;
      case 2: pending.push(cache.afterToolCall('t', { content: [proxy] }).then(() => 'resolved', () => 'rejected')); break;
      default: try { api.checkInlineListCap('t', proxy); } catch { /* TypeError */ } break;
    }
    if (pending.length >= 1000) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  assert.deepEqual(uncaught, []);
  assert.ok(await stillWorks(api));
});

test('a lone surrogate in a reference\'s pointer selects nothing: TypeError for lookups, null parse, no substitution', async () => {
  const cache = new host.ResultCache({ storage: 'memory' });
  const uri = await cache.cacheToolResult({ payload: { '\uFFFD': 'replacement key', rows: 'x'.repeat(5000) }, convId: 'c' });
  assert.equal(await cache.readCachedPayload(`${uri}#/\uFFFD`, { convId: 'c' }), 'replacement key', 'the real key resolves');
  const lone = `${uri}#/\uD800`;
  await assert.rejects(cache.readCachedPayload(lone, { convId: 'c' }), TypeError);
  await assert.rejects(cache.lookup(lone, { convId: 'c' }), TypeError);
  assert.equal(host.parseCacheUri(lone), null);
  const substituted = await cache.substituteCacheUris({ data_uri: lone }, { convId: 'c' });
  assert.deepEqual(substituted, { ok: true, args: { data_uri: lone } }, 'left as it is, never the U+FFFD key');
});

test('the integrations\' synchronous exports: an argument that cannot be read is a TypeError naming it, never the caller\'s own error', async () => {
  const { wrapMcpClient } = await import('../../js/mcp-client.node.mjs');
  const { wrapAiSdkTools, cacheToolApproval, toModelOutput } = await import('../../js/ai-sdk.node.mjs');
  const cache = new host.ResultCache({ storage: 'memory' });
  const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
  const throwing = (/** @type {string} */ key) => Object.defineProperty({}, key, { enumerable: true, get() { throw new Error(`getter ${key}`); } });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const unreadable = (/** @type {string} */ who, /** @type {string} */ what) => (/** @type {unknown} */ e) =>
    e instanceof TypeError && e.message === `${who}: could not read ${what} (a getter threw, or the object is a revoked Proxy)` && e.cause instanceof Error;
  assert.throws(() => wrapMcpClient(client, /** @type {never} */ (throwing('cache'))), unreadable('wrapMcpClient', '`options.cache`'));
  assert.throws(() => wrapMcpClient(/** @type {never} */ (throwing('listTools')), { cache, convId: 'c' }), unreadable('wrapMcpClient', '`client.listTools`'));
  assert.throws(() => wrapMcpClient(/** @type {never} */ (revoked), { cache, convId: 'c' }), unreadable('wrapMcpClient', '`client.listTools`'));
  assert.throws(() => wrapAiSdkTools({}, /** @type {never} */ (throwing('convId'))), unreadable('wrapAiSdkTools', '`options.convId`'));
  assert.throws(() => wrapAiSdkTools(/** @type {never} */ (throwing('chart')), { cache, convId: 'c' }), unreadable('wrapAiSdkTools', '`tools.chart`'));
  assert.throws(() => wrapAiSdkTools(/** @type {never} */ (revoked), { cache, convId: 'c' }), unreadable('wrapAiSdkTools', '`tools`'));
  assert.throws(() => cacheToolApproval(/** @type {never} */ (throwing('chart'))), unreadable('cacheToolApproval', '`tools.chart`'));
  assert.throws(() => toModelOutput(/** @type {never} */ (throwing('output'))), unreadable('toModelOutput', '`options.output`'));
  assert.throws(() => toModelOutput({ output: throwing('content') }), unreadable('toModelOutput', 'its arguments'));
  // Their own messages stand.
  assert.throws(() => wrapMcpClient(client, /** @type {never} */ ({ cache: 1 })), { name: 'TypeError', message: 'wrapMcpClient needs { cache: ResultCache }' });
  assert.deepEqual(toModelOutput({ output: 'fine' }), { type: 'text', value: 'fine' });
});

test('a result whose `then` cannot be read is a TypeError, not the error its getter throws', async () => {
  const cache = new host.ResultCache({ storage: 'memory' });
  const trap = new Proxy({}, { get() { throw new Error('trap'); } });
  const thenGetter = Object.defineProperty({ content: [] }, 'then', { get() { throw new Error('then getter'); } });
  for (const result of [trap, thenGetter]) {
    await assert.rejects(cache.afterToolCall('t', result, { convId: 'c' }), (e) => e instanceof TypeError && /^result cannot be read/.test(e.message));
  }
});

test('a polluted Object.prototype.get or set changes nothing the tool sets define', async () => {
  const { wrapAiSdkTools } = await import('../../js/ai-sdk.node.mjs');
  const cache = new host.ResultCache({ storage: 'memory' });
  const { jsonSchema } = await import('ai');
  const tools = { chart: { description: 'Draws.', inputSchema: jsonSchema({ type: 'object', properties: { data: { type: 'array' } } }), execute: async () => 'ok' } };
  const proto = /** @type {Record<string, unknown>} */ (Object.prototype);
  proto.get = () => 'polluted';
  let wrapped;
  try {
    wrapped = wrapAiSdkTools(/** @type {never} */ (tools), { cache, convId: 'c' });
  } finally {
    delete proto.get;
  }
  assert.deepEqual(Object.keys(wrapped), ['chart']);
  assert.equal(typeof Object.getOwnPropertyDescriptor(wrapped, 'chart')?.value, 'object');
});
