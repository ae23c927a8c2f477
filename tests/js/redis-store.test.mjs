// `mcp-result-cache/redis` against real redis-server 7 processes (one standalone server, one
// 3-master cluster, started once for this file), through each of the four supported clients:
// node-redis client and cluster, ioredis Redis and Cluster. Two ResultCache instances over two
// clients of the same server share one cache: references, clears, invalidations, stale
// notifications, derived entries, one budget and one LRU order; call order on one instance;
// exact JSON round trips and TypeError refusals that write nothing; nothing written outside the
// prefix; conversations expired by Redis itself with `ttlMs`; TypeErrors for bad clients/options.
// Run: node --test tests/js/redis-store.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, cacheTools } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.mjs';
import {
  closeClient, ioredisClient, ioredisCluster, nodeRedisClient, nodeRedisCluster,
  startRedis, startRedisCluster,
} from '../support/redis-servers.mjs';
import { checkInvariants, rawCommand, scanAll, sleep, snapshot } from '../support/redis-model.mjs';

/** @typedef {import('../support/redis-servers.mjs').NodeRedisClient} NodeRedisClient */
/** @typedef {import('../support/redis-servers.mjs').TestClient} TestClient */
/** A snapshot as the refusal test reads it: `time` is left out, though `snapshot()` sets none. @typedef {import('../support/redis-model.mjs').Snapshot & { time?: unknown }} TimedSnapshot */

/** A substitution's outcome without the `sources` it reports (checked by the flow tests). */
const okArgs = (/** @type {{ ok: boolean, args?: unknown }} */ { ok, args }) => ({ ok, args });

/** @type {import('../support/redis-servers.mjs').RedisServer} */
let server;
/** @type {import('../support/redis-servers.mjs').RedisCluster} */
let cluster;
/** @type {NodeRedisClient} */
let rawStandalone; // node-redis client on the standalone server: inspection only
/** @type {import('../support/redis-servers.mjs').NodeRedisCluster} */
let rawCluster; // node-redis cluster: inspection only, routed by key
/** @type {NodeRedisClient[]} */
let masterClients; // one node-redis client per cluster master: SCAN
/** @type {TestClient[]} */
const opened = [];
/** @template {TestClient} T @param {T} client @returns {T} */
const keep = (client) => (opened.push(client), client);

before(async () => {
  [server, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
  rawStandalone = keep(await nodeRedisClient(server.url));
  rawCluster = keep(await nodeRedisCluster(cluster));
  masterClients = [];
  for (const { url } of cluster.rootNodes) masterClients.push(keep(await nodeRedisClient(url)));
});

after(async () => {
  await Promise.all(opened.map(closeClient));
  await Promise.all([server?.stop(), cluster?.stop()]);
});

const kinds = [
  { name: 'node-redis client', make: () => nodeRedisClient(server.url), standalone: true },
  { name: 'node-redis cluster', make: () => nodeRedisCluster(cluster), standalone: false },
  { name: 'ioredis Redis', make: () => ioredisClient(server.port), standalone: true },
  { name: 'ioredis Cluster', make: () => ioredisCluster(cluster), standalone: false },
];

let counter = 0;
const rows = (/** @type {number} */ count, offset = 0) => Array.from({ length: count }, (_, i) => ({ id: i + offset, host: i % 3 ? 'web' : 'db', cpu: (i * 37) % 101 }));
const DATA = { ok: true, rows: rows(12) };
const STALE = (/** @type {string} */ pattern) => ({ method: 'notifications/resources/updated', params: { uri: `mcpfusion://stale/${pattern}` } });
const utf8 = (/** @type {unknown} */ value) => Buffer.byteLength(JSON.stringify(value));

/** @typedef {{ maxEntries?: number, maxBytes?: number } | ((size: number) => { maxEntries?: number, maxBytes?: number })} Limits */
/**
 * One kind of client's fixtures (set by its `describe`'s `before`): two clients of the same
 * server (or cluster), a raw command on it, and the node clients that inspect it.
 * @typedef {{
 *   kind: typeof kinds[number], clientA: TestClient, clientB: TestClient,
 *   raw: import('../support/redis-model.mjs').RawCommand, nodes: NodeRedisClient[],
 * }} Fixture
 */

/**
 * Two caches (A over clientA, B over clientB) sharing a fresh prefix.
 * @param {Fixture} fx
 * @param {Omit<import('mcp-result-cache').ResultCacheOptions, 'storage'> & { storage?: import('mcp-result-cache/redis').RedisStorageOptions }} [opts]
 */
function pair({ clientA, clientB }, { storage = {}, ...options } = {}) {
  const prefix = `t${process.pid}-${counter++}:`;
  const make = (/** @type {TestClient} */ client) => new ResultCache({ threshold: 1, ...options, storage: redisStorage(client, { prefix, ...storage }) });
  return { prefix, A: make(clientA), B: make(clientB) };
}

/**
 * A conversation of `held` entries of one size written under large limits, then the same
 * prefix under `limits` (a deploy that lowered them): the caches over clientA and clientB,
 * the old entries' URIs from least to most recently used, and the entries' size.
 * @param {Fixture} fx
 * @param {Limits} limits
 */
async function lowered(fx, limits, held = 300) {
  let clock = 1_000_000;
  const now = () => (clock += 1);
  const { A: old, prefix } = pair(fx, { now });
  const payloadOf = (/** @type {string} */ tag) => ({ tag: tag.padStart(8, '0') });
  await Promise.all(Array.from({ length: held }, (_, i) => old.cacheToolResult({ payload: payloadOf(String(i)), convId: 'c', sourceToolName: 't' })));
  const byUse = (await old.entries({ convId: 'c' })).sort((p, q) => p.lastUsedAt - q.lastUsedAt).map((r) => r.uri);
  assert.equal(byUse.length, held);
  old.close();
  const size = utf8(payloadOf('w'));
  const options = { threshold: 1, now, ...(typeof limits === 'function' ? limits(size) : limits) };
  const A = new ResultCache({ ...options, storage: redisStorage(fx.clientA, { prefix }) });
  const B = new ResultCache({ ...options, storage: redisStorage(fx.clientB, { prefix }) });
  return { A, B, prefix, byUse, payloadOf };
}

// The tests run for each kind of client, one function each, registered under the kind's `describe` below.
/** @param {Fixture} fx */
async function referenceResolvesInB(fx) {
  const { nodes } = fx;
  const { A, B, prefix } = pair(fx);
  const uri = await A.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'metrics.query' });
  assert.match(/** @type {string} */ (uri), /^mcp\+cache:\/\/c1\/[A-Za-z0-9_-]{8,16}$/);
  assert.deepEqual(await B.readCachedPayload(uri, { convId: 'c1' }), DATA);
  assert.deepEqual(await B.lookup(uri, { convId: 'c1' }), { status: 'hit', payload: DATA });
  assert.deepEqual(okArgs(await B.substituteCacheUris({ data_uri: `${uri}#/rows/3`, keep: 1 }, { convId: 'c1' })), { ok: true, args: { data: DATA.rows[3], keep: 1 } });
  assert.equal(await B.readCachedPayload(uri, { convId: 'c2' }), null, 'another conversation does not see it');
  assert.equal((await B.lookup(uri, { convId: 'c2' })).status, 'miss');
  const refused = await B.substituteCacheUris({ data_uri: uri }, { convId: 'c2' });
  assert.equal(refused.ok, false);
  const [row] = await B.entries({ convId: 'c1' });
  assert.equal(row.uri, uri);
  assert.equal(row.convId, 'c1');
  assert.equal(row.sourceToolName, 'metrics.query');
  assert.equal(row.sizeBytes, utf8(DATA));
  assert.deepEqual(await B.entries({ convId: 'c2' }), []);
  const stats = await B.stats();
  assert.equal(stats.storage, 'redis');
  assert.equal(stats.entries, 1);
  assert.equal(stats.bytes, utf8(DATA));
  assert.equal(stats.conversations, 1);
  checkInvariants(await snapshot(nodes, prefix));
}

/** @param {Fixture} fx */
async function clearsSeenByTheOther(fx) {
  const { nodes } = fx;
  const { A, B, prefix } = pair(fx);
  const u1 = await A.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'billing.get_invoice' });
  const u2 = await A.cacheToolResult({ payload: DATA, convId: 'c2', sourceToolName: 'billing.get_invoice' });
  const u3 = await A.cacheToolResult({ payload: DATA, convId: 'c2', sourceToolName: 'store.query' });
  const u4 = await A.cacheToolResult({ payload: DATA, convId: 'c2', sourceToolName: 'crm.get_account' });
  await B.clearConversation('c1');
  assert.equal(await A.readCachedPayload(u1, { convId: 'c1' }), null, 'cleared by B, gone for A');
  assert.equal((await A.lookup(u1, { convId: 'c1' })).status, 'miss');
  assert.deepEqual(await A.readCachedPayload(u2, { convId: 'c2' }), DATA, 'other conversation kept');
  assert.equal(await B.invalidate(['billing.*'], { cause: 'billing.refund' }), 1);
  assert.deepEqual(await A.lookup(u2, { convId: 'c2' }), { status: 'stale', cause: 'billing.refund', sourceToolName: 'billing.get_invoice' });
  const refused = await A.substituteCacheUris({ data_uri: u2 }, { convId: 'c2' });
  assert.equal(refused.ok, false);
  assert.match(JSON.stringify(refused.envelope), /stale/);
  assert.equal((await A.lookup(u3, { convId: 'c2' })).status, 'hit');
  await B.handleNotification(STALE('store.*'));
  assert.equal((await A.lookup(u3, { convId: 'c2' })).status, 'stale', 'stale notification on B marks A\'s view');
  assert.equal((await A.lookup(u4, { convId: 'c2' })).status, 'hit', 'other tools untouched');
  const rowsOf = Object.fromEntries((await A.entries()).map((r) => [r.uri, r]));
  assert.deepEqual(Object.keys(rowsOf).sort(), [u2, u3, u4].sort());
  assert.equal(rowsOf[/** @type {string} */ (u2)].staleCause, 'billing.refund');
  assert.ok(rowsOf[/** @type {string} */ (u3)].staleCause, 'stale cause of the notification is recorded');
  assert.ok(rowsOf[/** @type {string} */ (u4)].staleCause == null);
  const { entries } = checkInvariants(await snapshot(nodes, prefix));
  assert.equal(entries, 3);
  assert.equal((await B.stats()).entries, 3);
  await A.clearConversation('c2');
  assert.deepEqual(await B.entries(), []);
  assert.equal((await B.stats()).bytes, 0);
  const snap = await snapshot(nodes, prefix);
  checkInvariants(snap);
  assert.equal(snap.s.size, 0, 'no stale marks left behind');
}

/** @param {Fixture} fx */
async function derivedEntriesAcrossInstances(fx) {
  const { A, B } = pair(fx);
  const source = await A.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'billing.get_invoice' });
  const select = async (/** @type {InstanceType<typeof ResultCache>} */ cache, /** @type {string | null} */ uri) => {
    const result = await cacheTools(cache, { convId: 'c1' }).callTool({ name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'host', op: '=', value: 'db' }] } });
    assert.notEqual(result.isError, true, result.content?.[0]?.text);
    return /** @type {{ count: number, _cache_uri: string }} */ (result.structuredContent);
  };
  const wanted = DATA.rows.filter((r) => r.host === 'db');
  const selected = await select(A, source);
  assert.equal(selected.count, wanted.length);
  assert.deepEqual(await B.readCachedPayload(selected._cache_uri, { convId: 'c1' }), wanted, 'derived entry written by A resolves in B');
  assert.deepEqual(okArgs(await B.substituteCacheUris({ data_uri: selected._cache_uri }, { convId: 'c1' })), { ok: true, args: { data: wanted } });
  const read = await cacheTools(B, { convId: 'c1' }).callTool({ name: 'cache_read', arguments: { uri: selected._cache_uri } });
  assert.deepEqual(/** @type {{ items: unknown }} */ (read.structuredContent).items, wanted);
  await B.invalidate(['billing.get_*'], { cause: 'billing.refund' });
  assert.equal((await A.lookup(selected._cache_uri, { convId: 'c1' })).status, 'stale', 'source stale through B: derived refused on A');
  assert.equal((await A.substituteCacheUris({ data_uri: selected._cache_uri }, { convId: 'c1' })).ok, false);
  const again = await cacheTools(A, { convId: 'c1' }).callTool({ name: 'cache_select', arguments: { uri: `${source}#/rows` } });
  assert.equal(again.isError, true, 'selecting from a stale source is refused');

  const source2 = await B.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'store.query' });
  const derived2 = (await select(B, source2))._cache_uri;
  assert.deepEqual(await A.readCachedPayload(derived2, { convId: 'c1' }), wanted);
  await A.clearConversation('c1');
  assert.equal((await B.lookup(derived2, { convId: 'c1' })).status, 'miss', 'cleared with its conversation');
  assert.equal((await B.substituteCacheUris({ data_uri: derived2 }, { convId: 'c1' })).ok, false);

  const source3 = await B.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'store.query' });
  const derived3 = (await select(B, source3))._cache_uri;
  await B.handleNotification(STALE('store.query'));
  const seen = await A.lookup(derived3, { convId: 'c1' });
  assert.equal(seen.status, 'stale', 'stale notification on the source refuses the derived entry on the other instance');
}

/**
 * A read of a derived entry reads its source in the same script call: an operation called right
 * after it (not awaited between) that removes or marks the source never changes its answer.
 * @param {Fixture} fx
 */
async function derivedReadInCallOrder(fx) {
  for (const [what, after] of /** @type {const} */ ([
    ['evictOlderThan', (/** @type {InstanceType<typeof ResultCache>} */ cache) => cache.evictOlderThan({ maxAgeMs: 5_000 })],
    ['clearConversation', (/** @type {InstanceType<typeof ResultCache>} */ cache) => cache.clearConversation('c1')],
    ['invalidate', (/** @type {InstanceType<typeof ResultCache>} */ cache) => cache.invalidate(['billing.*'], { cause: 'billing.refund' })],
  ])) {
    let clock = 1_000;
    const { A } = pair(fx, { now: () => clock });
    const source = await A.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'billing.get_invoice' });
    clock = 10_000;
    const derived = await A.cacheToolResult({ payload: { rows: rows(2) }, convId: 'c1', sourceToolName: 'cache_select', derivedFrom: source });
    const read = A.lookup(/** @type {string} */ (derived), { convId: 'c1' });
    const [seen] = await Promise.all([read, after(A)]);
    assert.equal(seen.status, 'hit', `the read called before ${what} finds its source`);
  }
}

/** @param {Fixture} fx */
async function budgetPerConversation(fx) {
  const { nodes } = fx;
  const maxBytes = 64 * 1024;
  const maxEntries = 10;
  const { A, B, prefix } = pair(fx, { maxBytes, maxEntries });
  const payloadOf = (/** @type {number} */ i) => ({ i, blob: 'x'.repeat(i % 2 ? 4096 : 9000) });
  const written = new Set();
  const writes = [];
  for (let i = 0; i < 60; i += 1) {
    const cache = i % 2 ? A : B;
    writes.push(cache.cacheToolResult({ payload: payloadOf(i), convId: `c${i % 3}`, sourceToolName: 'bulk.fetch' }).then(async (uri) => {
      assert.equal(typeof uri, 'string');
      written.add(uri);
      checkInvariants(await snapshot(nodes, prefix), { maxBytes, maxEntries });
    }));
  }
  await Promise.all(writes);
  assert.equal(written.size, 60);
  const { uris, entries, bytes } = checkInvariants(await snapshot(nodes, prefix), { maxBytes, maxEntries });
  assert.ok(entries >= 18, `each conversation keeps as many as fit (${entries})`);
  for (const uri of uris.keys()) assert.ok(written.has(uri));
  const listed = await A.entries();
  assert.deepEqual(listed.map((r) => r.uri).sort(), [...uris.keys()].sort());
  const stats = await B.stats();
  assert.deepEqual([stats.bytes, stats.entries, stats.conversations], [bytes, entries, 3]);
}

/** @param {Fixture} fx */
async function lruAcrossInstances(fx) {
  const { nodes } = fx;
  let clock = 1_000_000;
  const { A, B, prefix } = pair(fx, { maxEntries: 3, now: () => (clock += 10) });
  const u = [];
  for (let i = 0; i < 3; i += 1) u.push(await A.cacheToolResult({ payload: { i, rows: DATA.rows }, convId: 'c1', sourceToolName: 't' }));
  assert.deepEqual(await B.readCachedPayload(u[0], { convId: 'c1' }), { i: 0, rows: DATA.rows });
  const snap = await snapshot(nodes, prefix);
  assert.deepEqual([...snap.l.keys()], [u[1], u[2], u[0]], 'Redis LRU order after B\'s read');
  u.push(await A.cacheToolResult({ payload: { i: 3 }, convId: 'c1', sourceToolName: 't' }));
  assert.equal((await A.lookup(u[1], { convId: 'c1' })).status, 'miss', 'the least recently used is evicted');
  assert.equal((await A.lookup(u[0], { convId: 'c1' })).status, 'hit', 'the one B read is kept');
  // A write to another conversation evicts nothing here (the budget is per conversation);
  // A's lookups just made u[0] newer than u[2]: the next write to c1 evicts u[2].
  await B.cacheToolResult({ payload: { other: 1 }, convId: 'c2', sourceToolName: 't' });
  assert.equal((await A.entries({ convId: 'c1' })).length, 3);
  u.push(await B.cacheToolResult({ payload: { i: 4 }, convId: 'c1', sourceToolName: 't' }));
  assert.equal((await B.lookup(u[2], { convId: 'c1' })).status, 'miss');
  assert.deepEqual((await A.entries({ convId: 'c1' })).map((r) => r.uri).sort(), [u[0], u[3], u[4]].sort());
  checkInvariants(await snapshot(nodes, prefix), { maxEntries: 3 });
}

/** @param {Fixture} fx @param {Limits} limits */
async function loweredBackToBack(fx, limits) {
  const { nodes } = fx;
  const { A, prefix, byUse, payloadOf } = await lowered(fx, limits, 600);
  const w1 = A.cacheToolResult({ payload: payloadOf('w1'), convId: 'c', sourceToolName: 't' });
  const w2 = A.cacheToolResult({ payload: payloadOf('w2'), convId: 'c', sourceToolName: 't' });
  const [u1, u2] = await Promise.all([w1, w2]);
  assert.deepEqual(await A.lookup(u1, { convId: 'c' }), { status: 'hit', payload: payloadOf('w1') }, 'the first write stays');
  assert.deepEqual(await A.lookup(u2, { convId: 'c' }), { status: 'hit', payload: payloadOf('w2') }, 'the second write stays');
  // As if the first write, with all its evictions, ran before the second: the eight most
  // recently used of the old entries stay with them.
  assert.deepEqual((await A.entries({ convId: 'c' })).map((r) => r.uri).sort(), [...byUse.slice(-8), u1, u2].sort());
  assert.equal((await A.stats()).entries, 10);
  checkInvariants(await snapshot(nodes, prefix), { maxEntries: 10 });
}

/**
 * Reads called between two writes while the first still evicts (it has more than one batch to):
 * each read takes effect after all of the first write's evictions and before the second write.
 * @param {Fixture} fx @param {Limits} limits
 */
async function loweredReadsInCallOrder(fx, limits) {
  const { nodes } = fx;
  const { A, prefix, byUse, payloadOf } = await lowered(fx, limits, 600);
  // The first write leaves the nine most recently used old entries, byUse[591..599].
  const w1 = A.cacheToolResult({ payload: payloadOf('w1'), convId: 'c', sourceToolName: 't' });
  const evicted = A.lookup(byUse[400], { convId: 'c' }); // in the first write's second batch
  const kept = A.lookup(byUse[591], { convId: 'c' }); // now the most recently used: the second write evicts byUse[592]
  const w2 = A.cacheToolResult({ payload: payloadOf('w2'), convId: 'c', sourceToolName: 't' });
  const [u1, seenEvicted, seenKept, u2] = await Promise.all([w1, evicted, kept, w2]);
  assert.deepEqual(seenEvicted, { status: 'miss' }, 'a read called after the write does not see an entry it evicts');
  assert.equal(seenKept.status, 'hit');
  assert.deepEqual((await A.entries({ convId: 'c' })).map((r) => r.uri).sort(), [byUse[591], ...byUse.slice(593), u1, u2].sort());
  checkInvariants(await snapshot(nodes, prefix), typeof limits === 'function' ? {} : limits);
}

/**
 * Three large writes called back to back, each with more than a batch to evict, and reads
 * called between and after them: every call settles, a read called after the first write does
 * not see an entry it evicts, and the budget holds.
 * @param {Fixture} fx
 */
async function evictingWritesBackToBack(fx) {
  const { nodes } = fx;
  const size = utf8({ tag: '00000000' });
  const { A, prefix, byUse } = await lowered(fx, { maxBytes: 600 * size }, 600);
  const big = (/** @type {string} */ tag) => ({ tag, fill: 'x'.repeat(300 * size) });
  const w1 = A.cacheToolResult({ payload: big('w1'), convId: 'c', sourceToolName: 't' });
  const early = A.lookup(byUse[10], { convId: 'c' });
  const w2 = A.cacheToolResult({ payload: big('w2'), convId: 'c', sourceToolName: 't' });
  const w3 = A.cacheToolResult({ payload: big('w3'), convId: 'c', sourceToolName: 't' });
  const late = A.lookup(byUse[599], { convId: 'c' });
  const [u1, seenEarly, u2, u3, seenLate] = await Promise.all([w1, early, w2, w3, late]);
  assert.deepEqual(seenEarly, { status: 'miss' }, 'among the first write\'s evictions');
  assert.deepEqual([typeof u1, typeof u2], ['string', 'string']);
  assert.equal((await A.lookup(/** @type {string} */ (u3), { convId: 'c' })).status, 'hit', 'the last write stays');
  assert.ok(['hit', 'miss'].includes(seenLate.status));
  const { bytes } = await A.stats();
  assert.ok(bytes <= 600 * size, `bytes ${bytes}`);
  checkInvariants(await snapshot(nodes, prefix));
}

/** @param {Fixture} fx */
async function loweredTwoInstancesAtOnce(fx) {
  const { nodes } = fx;
  const { A, B, prefix } = await lowered(fx, { maxEntries: 10 });
  const [ua, ub] = await Promise.all([
    A.cacheToolResult({ payload: { from: 'A' }, convId: 'c', sourceToolName: 't' }),
    B.cacheToolResult({ payload: { from: 'B' }, convId: 'c', sourceToolName: 't' }),
  ]);
  assert.equal((await A.lookup(ua, { convId: 'c' })).status, 'hit');
  assert.equal((await B.lookup(ub, { convId: 'c' })).status, 'hit');
  assert.equal((await A.stats()).entries, 10);
  checkInvariants(await snapshot(nodes, prefix), { maxEntries: 10 });
}

/** @param {Fixture} fx */
async function loweredToOne(fx) {
  const { nodes } = fx;
  const { A, prefix } = await lowered(fx, { maxEntries: 1 });
  const w1 = A.cacheToolResult({ payload: { w: 1 }, convId: 'c', sourceToolName: 't' });
  const w2 = A.cacheToolResult({ payload: { w: 2 }, convId: 'c', sourceToolName: 't' });
  const [u1, u2] = await Promise.all([w1, w2]);
  assert.equal((await A.lookup(u1, { convId: 'c' })).status, 'miss', 'the second write evicted the first');
  assert.deepEqual(await A.lookup(u2, { convId: 'c' }), { status: 'hit', payload: { w: 2 } });
  assert.deepEqual((await A.entries({ convId: 'c' })).map((r) => r.uri), [u2]);
  checkInvariants(await snapshot(nodes, prefix), { maxEntries: 1 });
}

/** @param {Fixture} fx */
async function loweredOverOldEntries(fx) {
  const { raw } = fx;
  const { A, prefix, byUse } = await lowered(fx, { maxEntries: 10 }, 600);
  const rowsKey = `${prefix}{c}:rows`;
  await raw(['HDEL', rowsKey, 'n', ...byUse.map((uri) => `n:${uri}`)]);
  const [u1, u2] = await Promise.all([1, 2].map((w) => A.cacheToolResult({ payload: { w }, convId: 'c', sourceToolName: 't' })));
  assert.deepEqual((await A.entries({ convId: 'c' })).map((r) => r.uri).sort(), [...byUse.slice(-8), u1, u2].sort());
  // No field outlives its entry: the old entries left have none, the two new ones theirs.
  const fields = /** @type {string[]} */ (await raw(['HKEYS', rowsKey])).filter((f) => f.startsWith('n:'));
  assert.deepEqual(fields.sort(), [`n:${u1}`, `n:${u2}`].sort());
}

/** @param {Fixture} fx */
async function callOrderOnOneInstance(fx) {
  const { nodes } = fx;
  const { A, B, prefix } = pair(fx);
  const early = Array.from({ length: 20 }, (_, i) => A.cacheToolResult({ payload: { i, rows: DATA.rows }, convId: 'L' }));
  const clear = A.clearConversation('L');
  const late = Array.from({ length: 20 }, (_, i) => A.cacheToolResult({ payload: { i, late: true }, convId: 'L' }));
  const listed = A.entries({ convId: 'L' });
  const stats = A.stats();
  await Promise.all([...early, clear, ...late]);
  const lateUris = await Promise.all(late);
  assert.deepEqual((await listed).map((r) => r.uri).sort(), [...lateUris].sort(), 'entries() called after the writes sees exactly the late ones');
  assert.equal((await stats).entries, 20);
  assert.deepEqual((await B.entries({ convId: 'L' })).map((r) => r.uri).sort(), [...lateUris].sort());
  for (const uri of await Promise.all(early)) assert.equal(await B.readCachedPayload(uri, { convId: 'L' }), null);

  const write = A.cacheToolResult({ payload: { fresh: 1 }, convId: 'M' });
  const seen = A.entries({ convId: 'M' });
  const counted = A.stats();
  const uri = await write;
  assert.deepEqual((await seen).map((r) => r.uri), [uri], 'a listing called after a write sees it');
  assert.equal((await counted).entries, 21);
  const hitBefore = A.lookup(uri, { convId: 'M' });
  const gone = A.clearConversation('M');
  const missAfter = A.lookup(uri, { convId: 'M' });
  assert.equal((await hitBefore).status, 'hit', 'a read called before the clear sees the entry');
  await gone;
  assert.equal((await missAfter).status, 'miss', 'a read called after the clear misses it');
  checkInvariants(await snapshot(nodes, prefix));
}

/** @param {Fixture} fx */
async function exactRoundTrips(fx) {
  const { nodes } = fx;
  const { A, B, prefix } = pair(fx);
  /** @type {unknown[]} */
  let nested = [];
  for (let i = 0; i < 60; i += 1) nested = [i, nested, { k: [nested.length] }];
  const proto = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}');
  const big = { rows: Array.from({ length: 8 }, (_, i) => `${'ä€😀'.repeat(10)}${String(i).repeat(1024 * 1024)}`) };
  const payloads = [
    { s: 'héllo wörld — ✓ 日本語 Ω', k: { 'clé': 'ü', '': '' } },
    { astral: '😀𝄞🀄\u{10ffff}', '😀': ['𝄞'] },
    { lone: '\ud800', tail: 'a\udfffb', pair: '\ud83d\ude00', '\udc00': ['\ud800\ud800'] },
    { nul: 'a\u0000b', ctl: '\u0001\u001f\u007f', quote: '"\\/', lines: '\r\n\t' },
    { n: [Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e308, -1.7976931348623157e308, 5e-324, 0.1 + 0.2, 123456789.12345679, -0.5, 0, 1e21, 1e-7] },
    [nested, [], {}, [[[[]]]], [null, true, false]],
    proto,
    [1, 'two', null],
    big,
  ];
  /** @type {string[]} */
  const uris = [];
  for (const payload of payloads) {
    const uri = await A.cacheToolResult({ payload, convId: 'rt', sourceToolName: 'rt.tool' });
    assert.equal(typeof uri, 'string');
    uris.push(/** @type {string} */ (uri));
  }
  for (const [i, payload] of payloads.entries()) {
    const back = await B.readCachedPayload(uris[i], { convId: 'rt' });
    assert.deepEqual(back, payload, `payload ${i} round trips`);
    assert.equal(JSON.stringify(back), JSON.stringify(payload));
  }
  assert.equal(Object.getOwnPropertyNames(await B.readCachedPayload(uris[6], { convId: 'rt' })).sort().join(), '__proto__,constructor', 'an own "__proto__" key stays an own key');
  const sizes = Object.fromEntries((await B.entries({ convId: 'rt' })).map((r) => [r.uri, r.sizeBytes]));
  for (const [i, payload] of payloads.entries()) assert.equal(sizes[uris[i]], utf8(payload), `size of payload ${i}`);
  assert.ok(sizes[uris[8]] > 8 * 1024 * 1024);
  assert.deepEqual(okArgs(await B.substituteCacheUris({ data_uri: `${uris[2]}#/lone` }, { convId: 'rt' })), { ok: true, args: { data: '\ud800' } });
  checkInvariants(await snapshot(nodes, prefix));
}

/** @param {Fixture} fx */
async function refusedValuesWriteNothing(fx) {
  const { nodes } = fx;
  const { A, B, prefix } = pair(fx);
  await A.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'ok.tool' });
  const before = await B.stats();
  const keysBefore = await scanAll(nodes);
  const snapBefore = await snapshot(nodes, prefix);
  const cycle = /** @type {{ a: number, self?: unknown }} */ ({ a: 1 });
  cycle.self = { back: cycle };
  const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
  const symbolKey = { a: 1, [Symbol('s')]: 2 };
  const bad = {
    Date: { when: new Date(0) },
    Map: { m: new Map([[1, 2]]) },
    Set: { s: new Set([1]) },
    'undefined property': { a: 1, b: undefined },
    'undefined in an array': [1, undefined],
    NaN: { n: NaN },
    Infinity: { n: [Infinity] },
    '-Infinity': { n: -Infinity },
    '-0': { n: -0 },
    function: { f() {} },
    'sparse array': { list: sparse },
    'class instance': { v: new (class Point { constructor() { this.x = 1; } })() },
    'typed array': { t: new Uint8Array(4) },
    cycle,
    BigInt: { big: 10n },
    'symbol key': symbolKey,
    'symbol value': { s: Symbol('v') },
    'toJSON method': { toJSON: () => ({ a: 1 }) },
    'boxed string': { s: Object('str') },
  };
  // What reaches the storage is refused by it with a TypeError. The cache itself refuses some
  // values before the storage sees them: not plain JSON (Map, Set, class instances, typed
  // arrays, toJSON, boxed primitives) resolves null with a `skip` event, and what JSON.stringify
  // throws on (a cycle, a BigInt) resolves null: accepted too, as long as nothing is written.
  const beforeStorage = new Set(['Map', 'Set', 'class instance', 'typed array', 'toJSON method', 'boxed string', 'cycle', 'BigInt']);
  for (const [name, payload] of Object.entries(bad)) {
    let outcome;
    try {
      outcome = await A.cacheToolResult({ payload, convId: 'c1', sourceToolName: 'bad.tool' });
    } catch (error) {
      assert.ok(error instanceof TypeError, `${name}: a TypeError, got ${/** @type {Error | undefined} */ (error)?.name}: ${/** @type {Error | undefined} */ (error)?.message}`);
      assert.match(error.message, /redisStorage|JSON|cycle|BigInt/, name);
      continue;
    }
    assert.ok(beforeStorage.has(name), `${name}: expected a TypeError, resolved ${outcome}`);
    assert.equal(outcome, null, `${name}: refused (null) when the cache refuses it itself`);
  }
  assert.deepEqual(await B.stats(), before, 'stats unchanged');
  assert.deepEqual(await scanAll(nodes), keysBefore, 'no key added or removed');
  // `snapshot()` resolves no `time` field: leaving it out changes nothing (TimedSnapshot).
  const { time: _t1, ...snapAfter } = /** @type {TimedSnapshot} */ (await snapshot(nodes, prefix));
  const { time: _t0, ...snapThen } = /** @type {TimedSnapshot} */ (snapBefore);
  assert.deepEqual(snapAfter, snapThen, 'the cache\'s keys unchanged');
}

/** @param {Fixture} fx */
async function nothingOutsideThePrefix(fx) {
  const { kind, raw, nodes } = fx;
  const { A, B, prefix } = pair(fx, { storage: { ttlMs: 60_000 } });
  // Foreign keys that look like a cache's: another prefix, the default prefix, a prefix sharing ours' start.
  const foreign = [`x${prefix}{c1}:rows`, `mcp-result-cache:{c1}:rows`, `${prefix.slice(0, -1)}{c1}:rows`];
  for (const key of foreign) await raw(['HSET', key, 'b', '7', 'e', '1']);
  const all = async () => new Set(await scanAll(nodes));
  const before = await all();
  const u1 = await A.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'billing.get_invoice' });
  await A.cacheToolResult({ payload: DATA, convId: 'we"ird ü/id', sourceToolName: 'x.y' });
  const u3 = await B.cacheToolResult({ payload: DATA, convId: 'c3', sourceToolName: 'x.y' });
  await B.readCachedPayload(u1, { convId: 'c1' });
  await cacheTools(B, { convId: 'c3' }).callTool({ name: 'cache_select', arguments: { uri: `${u3}#/rows` } });
  await B.invalidate(['billing.*'], { cause: 'r' });
  await A.handleNotification(STALE('x.*'));
  await A.evictOlderThan({ maxAgeMs: 3_600_000 });
  await A.entries();
  await A.stats();
  await B.afterToolCall('big.tool', { content: [{ type: 'text', text: JSON.stringify({ rows: rows(200) }) }] }, { convId: 'c4' });
  const afterKeys = await all();
  const added = [...afterKeys].filter((k) => !before.has(k));
  const removed = [...before].filter((k) => !afterKeys.has(k));
  assert.ok(added.length >= 8, `the cache wrote keys (${added.length})`);
  for (const key of added) {
    assert.match(key.slice(prefix.length), /^\{[A-Za-z0-9_-]{1,64}\}:(rows|lru|added|fresh)$/, `key ${key} starts with the prefix and a conversation's tag`);
  }
  assert.deepEqual(removed, [], 'no key deleted');

  for (const key of foreign) assert.deepEqual(Object.fromEntries(await raw(['HGETALL', key]).then((r) => Object.entries(/** @type {Record<string, string>} */ (r)))), { b: '7', e: '1' }, `${key} untouched`);
  for (const key of added) {
    const pttl = Number(await raw(['PTTL', key]));
    assert.ok(pttl > 0 && pttl <= 60_000, `${key} expires with the TTL (PTTL ${pttl})`);
  }
  if (!kind.standalone) {
    // Each conversation on the one master owning its slot.
    for (const convId of ['c1', 'c3', 'c4']) {
      const owners = [];
      for (const [i, client] of masterClients.entries()) {
        const exists = await client.sendCommand(['EXISTS', `${prefix}{${convId}}:rows`]).catch((error) => {
          assert.match(error.message, /^MOVED/);
          return 0;
        });
        if (exists === 1) owners.push(i);
      }
      assert.equal(owners.length, 1, convId);
    }
  }
  await A.clearConversation('c1');
  await A.clearConversation('we"ird ü/id');
  await A.clearConversation('c3');
  await A.clearConversation('c4');
  assert.equal((await B.stats()).entries, 0);
  for (const key of foreign) await raw(['DEL', key]);
}

/** @param {Fixture} fx */
async function ttlExpiresUntouched(fx) {
  const { raw, nodes } = fx;
  const ttlMs = 400;
  const { A, B, prefix } = pair(fx, { storage: { ttlMs } });
  const keyOf = (/** @type {string} */ id, /** @type {string} */ k) => `${prefix}{${id}}:${k}`;
  const idle = await A.cacheToolResult({ payload: DATA, convId: 'idle', sourceToolName: 't' });
  const busy = await A.cacheToolResult({ payload: { busy: true, rows: DATA.rows }, convId: 'busy', sourceToolName: 't' });
  for (const id of ['idle', 'busy']) {
    for (const k of ['rows', 'lru', 'added', 'fresh']) {
      const pttl = Number(await raw(['PTTL', keyOf(id, k)]));
      assert.ok(pttl > 0 && pttl <= ttlMs, `${k}:${id} has a PTTL within the TTL (${pttl})`);
    }
  }
  // Keep "busy" alive through B; nothing calls a script on "idle": Redis alone expires it.
  const deadline = Date.now() + ttlMs * 2 + 200;
  while (Date.now() < deadline) {
    assert.deepEqual(await B.readCachedPayload(busy, { convId: 'busy' }), { busy: true, rows: DATA.rows });
    await sleep(80);
  }
  // No instance touched "idle" for > 2 TTLs.
  for (const k of ['rows', 'lru', 'added', 'fresh']) assert.equal(Number(await raw(['EXISTS', keyOf('idle', k)])), 0, `idle conversation's ${k} is gone`);
  assert.equal((await B.lookup(idle, { convId: 'idle' })).status, 'miss');
  assert.equal((await A.lookup(busy, { convId: 'busy' })).status, 'hit', 'the conversation read within the TTL stays');
  const stats = await A.stats();
  assert.equal(stats.entries, 1);
  assert.equal(stats.bytes, utf8({ busy: true, rows: DATA.rows }), 'no phantom bytes of the expired conversation');
  assert.equal(stats.conversations, 1);
  assert.deepEqual((await B.entries()).map((r) => r.uri), [busy]);
  checkInvariants(await snapshot(nodes, prefix));

  // Untouched by every script call: Redis alone expires the keys.
  const { A: C, prefix: other } = pair(fx, { storage: { ttlMs } });
  await C.cacheToolResult({ payload: DATA, convId: 'alone', sourceToolName: 't' });
  const keysOf = async () => (await scanAll(nodes)).filter((k) => k.startsWith(other));
  assert.ok((await keysOf()).includes(`${other}{alone}:rows`));
  const until = Date.now() + ttlMs + 3000;
  while ((await keysOf()).length > 0 && Date.now() < until) await sleep(100);
  assert.deepEqual(await keysOf(), [], 'Redis expired every key of the untouched cache');
  const after = await C.stats();
  assert.equal(after.entries, 0);
  assert.equal(after.bytes, 0);
}

/** @param {Fixture} fx */
function badOptions(fx) {
  const { clientA } = fx;
  for (const options of [
    { prefix: 'a{b' }, { prefix: 'a}' }, { prefix: '' }, { prefix: 7 }, { prefix: 'x'.repeat(257) }, { prefix: 'a\ud800' },
    { ttlMs: 0 }, { ttlMs: -1 }, { ttlMs: 1.5 }, { ttlMs: '100' }, { ttlMs: NaN }, { ttlMs: Infinity }, { ttlMs: null },
    { timeoutMs: 0 }, { timeoutMs: -5 }, { timeoutMs: 2.5 }, { timeoutMs: 2 ** 31 }, { timeoutMs: '1000' },
    { ttl: 100 }, { prefix: 'ok:', extra: true }, null, 'prefix', [], 5,
  ]) {
    assert.throws(() => redisStorage(clientA, /** @type {import('mcp-result-cache/redis').RedisStorageOptions} */ (options)), TypeError, `options ${JSON.stringify(options)}`);
  }
  assert.equal(redisStorage(clientA, { prefix: 'ok:', ttlMs: 1, timeoutMs: 1 }).kind, 'redis');
  assert.equal(redisStorage(clientA).prefix, 'mcp-result-cache:');
}

for (const kind of kinds) {
  describe(kind.name, () => {
    const fx = /** @type {Fixture} */ ({ kind });
    before(async () => {
      fx.clientA = keep(await kind.make());
      fx.clientB = keep(await kind.make());
      fx.raw = rawCommand(kind.standalone ? rawStandalone : rawCluster);
      fx.nodes = kind.standalone ? [rawStandalone] : masterClients;
    });
    test('a reference minted by A resolves in B: whole, by JSON pointer, and only in its conversation', () => referenceResolvesInB(fx));
    test('clears, invalidations and stale notifications through one instance are seen by the other', () => clearsSeenByTheOther(fx));
    test('derived entries (cache_select) resolve from the other instance and are refused once the source is stale or cleared', () => derivedEntriesAcrossInstances(fx));
    test('a derived read takes effect where it was called: an eviction, clear or invalidation called right after it does not change its answer', () => derivedReadInCallOrder(fx));
    test('the budget per conversation: two instances writing concurrently never exceed maxBytes / maxEntries in any conversation (stats and Redis itself)', () => budgetPerConversation(fx));
    test('LRU across instances: a read on B makes an entry the newest for A\'s eviction', () => lruAcrossInstances(fx));
    for (const [what, limits] of /** @type {const} */ ([
      ['maxEntries', { maxEntries: 10 }],
      ['maxBytes', (/** @type {number} */ size) => ({ maxBytes: 10 * size })],
    ])) {
      test(`${what} lowered below what a conversation holds: two writes called back to back both stay, in call order, and the conversation holds exactly the limit`, () => loweredBackToBack(fx, limits));
      test(`${what} lowered below what a conversation holds: reads called between two writes take effect between them, after all of the first one's evictions`, () => loweredReadsInCallOrder(fx, limits));
    }
    test('three writes back to back, each evicting in several calls, with reads between: all settle in call order and the budget holds', () => evictingWritesBackToBack(fx));
    test('maxEntries lowered: writes of two instances at once both stay, and the conversation holds exactly the limit', () => loweredTwoInstancesAtOnce(fx));
    test('maxEntries lowered to 1: of two writes called back to back, the second stays', () => loweredToOne(fx));
    test('maxEntries lowered over entries an earlier version wrote (without the number of their write): two writes both stay', () => loweredOverOldEntries(fx));
    test('call order on one instance: a clear amid writes keeps exactly the later ones; reads see earlier writes', () => callOrderOnOneInstance(fx));
    test('exact round trips: unicode, astral, lone surrogates, large numbers, nested arrays, 8 MB', () => exactRoundTrips(fx));
    test('values JSON cannot hold exactly are refused with a TypeError and write nothing', () => refusedValuesWriteNothing(fx));
    test('nothing is written outside the prefix, and every key carries its conversation\'s tag', () => nothingOutsideThePrefix(fx));
    test('ttlMs: Redis itself deletes a conversation nobody touched; no phantom bytes; one read within the TTL keeps it', () => ttlExpiresUntouched(fx));
    test('TypeErrors at once for bad options', () => badOptions(fx));
  });
}

test('TypeErrors at once for anything that is not a supported client', () => {
  const fakes = [
    undefined, null, {}, 42, 'redis://127.0.0.1:6379', () => {}, [],
    { sendCommand() {} },
    { sendCommand: 'yes', isOpen: true },
    { call() {}, status: 'ready' },
    { call() {}, evalsha() {} },
    { get() {}, set() {} },
    Object.create(null),
  ];
  for (const client of fakes) {
    assert.throws(() => redisStorage(client), TypeError, `client ${String(client && Object.keys(client))}`);
    assert.throws(() => redisStorage(client, { prefix: 'ok:' }), TypeError);
  }
});

test('TypeErrors at once for clients that would break the contract: a node-redis pool, an ioredis keyPrefix', async () => {
  const { createClientPool } = await import('redis');
  const { Redis, Cluster } = await import('ioredis');
  // Never connected: the refusal needs no server.
  const pool = createClientPool({ url: 'redis://127.0.0.1:1' });
  assert.throws(() => redisStorage(pool), { name: 'TypeError', message: /client pool.*call order/ });
  const prefixed = [
    new Redis({ lazyConnect: true, keyPrefix: 'app:' }),
    new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true, keyPrefix: 'app:' }),
  ];
  for (const client of prefixed) {
    assert.throws(() => redisStorage(client), { name: 'TypeError', message: /keyPrefix.*`prefix` option/ });
    client.disconnect();
  }
  // Without a keyPrefix the same kinds of client are taken.
  const plain = new Redis({ lazyConnect: true });
  assert.doesNotThrow(() => redisStorage(plain));
  plain.disconnect();
});
