// configureDefaultCache: free-function hosts can observe the default cache. Its own process
// (node --test runs each file alone), so the default cache starts unconfigured.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { configureDefaultCache, cacheToolResult, beforeToolCall, readCachedPayload, clearConversation, lookup } from '../../pkg/node.mjs';

test('configure, then observe conflicts and misses; configuring after first use is refused', async () => {
  /** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent[]} */
  const events = [];
  await assert.rejects(configureDefaultCache({ threshold: -1 }), TypeError, 'invalid options reject');
  await assert.rejects(configureDefaultCache('nope'), TypeError);
  await configureDefaultCache({ onEvent: () => assert.fail('replaced by the next call') });
  await configureDefaultCache({ onEvent: (/** @type {import('../../pkg/node/mcp_result_cache.js').CacheEvent} */ e) => events.push(e), threshold: 10, dbName: `default-${process.pid}` });
  const uri = await cacheToolResult({ payload: { rows: [1, 2, 3, 4, 5] }, convId: 'c' });
  assert.ok(uri, 'threshold 10 applies');
  assert.deepEqual(await readCachedPayload(uri, { convId: 'c' }), { rows: [1, 2, 3, 4, 5] });
  const missing = 'mcp+cache://c/AAAAAAAAAAA';
  const blocked = await beforeToolCall('chart.create', { data_uri: missing }, { convId: 'c' });
  assert.equal(blocked.dispatch, false);
  assert.deepEqual(events.map((e) => e.kind), ['write', 'hit', 'miss']);
  await beforeToolCall('chart.create', { data: [1], data_uri: uri }, { convId: 'c' });
  assert.ok(events.some((e) => e.kind === 'conflict'), 'a data + data_uri conflict is observable');
  const late = configureDefaultCache({ onEvent: () => {} });
  await assert.rejects(late, (/** @type {Error} */ e) => e.name === 'InvalidStateError' && /before the first use/.test(e.message));
  // The free functions share that one cache: a clear through them removes the entry.
  assert.equal((await lookup(uri, { convId: 'c' })).status, 'hit');
  await clearConversation('c');
  assert.equal(await readCachedPayload(uri, { convId: 'c' }), null);
  await assert.rejects(cacheToolResult('nope'), TypeError, 'a bad argument rejects, never throws');
});
