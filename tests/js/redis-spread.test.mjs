// `redisStorage`'s layout on real redis-server 7: every key of a conversation shares that
// conversation's own hash slot, so conversations spread over every master of a cluster; the
// scripts of an operation on one conversation name only that conversation's keys; every script
// call touches a bounded number of entries (the batch), the rest left to later calls; a
// conversation Redis evicted or expired only in part is a whole miss; keys of the old one-slot
// layout are ignored. Also here: Redis out of memory (one master of a cluster, or the standalone
// server), `replicas` confirming every change, and call order when another instance's
// evictions are under way (this instance's client behind a relay that delays it by 10 ms).
// Run: node --test tests/js/redis-spread.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer as createNetServer } from 'node:net';

import { ResultCache } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.cjs';
import { BATCH } from '../../js/redis-ops.cjs';
import { SHA, storageError } from '../../js/redis-ops.cjs';
import { segmentOf } from '../../js/redis-link.cjs';
import {
  closeClient, ioredisClient, ioredisCluster, nodeRedisClient, nodeRedisCluster, startRedis, startRedisCluster,
} from '../support/redis-servers.mjs';

/** @typedef {import('../support/redis-servers.mjs').NodeRedisClient} NodeRedisClient */
/** @typedef {import('../support/redis-servers.mjs').TestClient} TestClient */

/** @type {import('../support/redis-servers.mjs').RedisServer} */
let server;
/** @type {import('../support/redis-servers.mjs').RedisCluster} */
let cluster;
/** @type {NodeRedisClient} */
let raw; // node-redis standalone client: inspection
/** @type {NodeRedisClient[]} */
const masters = []; // node-redis client per cluster master: inspection
/** @type {TestClient[]} */
const opened = [];
/** @template {TestClient} T @param {T} client @returns {T} */
const keep = (client) => (opened.push(client), client);
let counter = 0;
const fresh = () => `sp${process.pid}-${counter++}:`;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

before(async () => {
  [server, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
  raw = keep(await nodeRedisClient(server.url));
  for (const { url } of cluster.rootNodes) masters.push(keep(await nodeRedisClient(url)));
});

after(async () => {
  await Promise.all(opened.map(closeClient));
  await Promise.all([server?.stop(), cluster?.stop()]);
});

/**
 * Every key starting with `prefix` on one node.
 * @param {NodeRedisClient} node
 * @param {string} prefix
 * @returns {Promise<string[]>}
 */
async function keysOn(node, prefix) {
  /** @type {string[]} */
  const keys = [];
  let cursor = '0';
  do {
    const [next, page] = /** @type {[string, string[]]} */ (await node.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000']));
    cursor = String(next);
    keys.push(...page);
  } while (cursor !== '0');
  return keys;
}

const keysOf = (/** @type {string} */ prefix, /** @type {string} */ convId) => ['rows', 'lru', 'added', 'fresh'].map((k) => `${prefix}{${segmentOf(convId)}}:${k}`);

for (const library of [{ name: 'node-redis', connect: nodeRedisCluster }, { name: 'ioredis', connect: ioredisCluster }]) {
  test(`${library.name} cluster: 300 conversations spread over the 3 masters, each conversation in one slot`, async () => {
    const client = keep(await library.connect(cluster));
    const prefix = fresh();
    const cache = new ResultCache({ threshold: 1, storage: redisStorage(client, { prefix }) });
    const ids = Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? `会話 ${i} {x}` : `conv-${i}`));
    await Promise.all(ids.map((convId, i) => cache.cacheToolResult({ payload: { i }, convId, sourceToolName: i % 2 ? 'a.get' : 'b.get' })));
    const perMaster = await Promise.all(masters.map((node) => keysOn(node, prefix)));
    const counts = perMaster.map((keys) => keys.length);
    const total = counts.reduce((a, b) => a + b, 0);
    assert.equal(total, 300 * 4, 'four keys a conversation');
    for (const count of counts) assert.ok(count > 0 && count <= total / 2, `keys per master ${counts.join('/')}`);
    // The keys of one conversation: one tag, one slot, one master.
    const slots = new Map();
    for (const [m, keys] of perMaster.entries()) {
      for (const key of keys) {
        const tag = key.slice(prefix.length + 1, key.indexOf('}'));
        const slot = Number(await masters[m].sendCommand(['CLUSTER', 'KEYSLOT', key]));
        slots.set(tag, [...(slots.get(tag) ?? []), `${slot}@${m}`]);
      }
    }
    assert.equal(slots.size, 300);
    for (const [tag, where] of slots) assert.equal(new Set(where).size, 1, `${tag}: ${where}`);
    const stats = await cache.stats();
    assert.deepEqual([stats.entries, stats.conversations], [300, 300], 'stats walk every master');
    assert.equal(await cache.invalidate(['a.*'], { cause: 'x' }), 150, 'invalidation reaches every master');
    assert.equal((await cache.entries()).length, 300);
    await cache.evictOlderThan({ maxAgeMs: 0 });
    assert.equal((await cache.stats()).entries, 0, 'age eviction reaches every master');
    assert.deepEqual((await Promise.all(masters.map((node) => keysOn(node, prefix)))).flat(), [], 'nothing left');
  });
}

for (const library of [{ name: 'node-redis', connect: nodeRedisCluster }, { name: 'ioredis', connect: ioredisCluster }]) {
  test(`${library.name} cluster: one master out of memory (noeviction): the cache frees memory on that master, and the write lands`, async () => {
    const client = keep(await library.connect(cluster));
    const prefix = fresh();
    let clock = 1_000;
    const cache = new ResultCache({ threshold: 1, now: () => (clock += 10), storage: redisStorage(client, { prefix }) });
    const convs = Array.from({ length: 12 }, (_, i) => `oom-${i}`);
    for (const convId of convs) {
      for (let i = 0; i < 5; i += 1) await cache.cacheToolResult({ payload: { convId, i, blob: 'z'.repeat(20_000) }, convId, sourceToolName: 't' });
    }
    // The master of each conversation; the full one holds neither of the two oldest.
    /** @type {number[]} */
    const owner = [];
    for (const convId of convs) {
      const found = await Promise.all(masters.map((node) => keysOn(node, `${prefix}{${segmentOf(convId)}}`)));
      owner.push(found.findIndex((keys) => keys.length > 0));
    }
    const full = [0, 1, 2].find((m) => m !== owner[0] && m !== owner[1] && owner.includes(m));
    assert.notEqual(full, undefined, `owners ${owner.join(',')}`);
    const target = convs[owner.lastIndexOf(/** @type {number} */ (full))];
    const admin = masters[/** @type {number} */ (full)];
    const used = Number(/** @type {RegExpMatchArray} */ (String(await admin.sendCommand(['INFO', 'memory'])).match(/used_memory:(\d+)/))[1]);
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', String(used - 1000)]);
    try {
      const uri = await cache.cacheToolResult({ payload: { late: true, blob: 'q'.repeat(20_000) }, convId: target, sourceToolName: 't' });
      assert.equal(typeof uri, 'string', 'the write landed after the eviction');
      assert.equal((await cache.lookup(String(uri), { convId: target })).status, 'hit');
    } finally {
      await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
    }
    for (const convId of convs.filter((_, i) => owner[i] !== full)) {
      assert.equal((await cache.entries({ convId })).length, 5, `${convId}, on another master, kept every entry`);
    }
  });
}

for (const library of [
  { name: 'node-redis', connect: () => nodeRedisClient(cluster.rootNodes[0].url) },
  { name: 'ioredis', connect: () => ioredisClient(Number(new URL(cluster.rootNodes[0].url).port), { maxRetriesPerRequest: 1 }) },
]) {
  test(`${library.name}: a standalone client of a cluster node is told to pass a cluster client, and nothing is taken as an outage`, async () => {
    const client = keep(await library.connect());
    const cache = new ResultCache({ threshold: 1, storage: redisStorage(client, { prefix: fresh() }) });
    // Twenty conversations: some hash to slots another master serves (MOVED).
    const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => cache.cacheToolResult({ payload: { i }, convId: `conv-${i}` })));
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [/** @type {Error} */ (s.reason)] : []));
    assert.ok(refused.length > 0 && refused.length < 20, `${refused.length} of 20 refused`);
    for (const error of refused) {
      assert.equal(error.name, 'TypeError', error.message);
      assert.match(error.message, /Redis Cluster node .*MOVED.*pass createCluster/);
    }
  });
}

// The standalone server's tests, one function each, registered under `describe('standalone')` below.
async function scriptsNameOnlyTheirKeys() {
  const prefix = fresh();
  const cache = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix }) });
  const other = await cache.cacheToolResult({ payload: { other: 1 }, convId: 'other', sourceToolName: 't' });
  await raw.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '0']);
  await raw.sendCommand(['SLOWLOG', 'RESET']);
  try {
    const uri = await cache.cacheToolResult({ payload: { mine: 1 }, convId: 'mine', sourceToolName: 't' });
    await cache.lookup(uri, { convId: 'mine' });
    await cache.readCachedPayload(`${uri}#/mine`, { convId: 'mine' });
    await cache.entries({ convId: 'mine' });
    await cache.clearConversation('mine');
    // SLOWLOG entries: [id, timestamp, duration, argv, client address, client name].
    const log = /** @type {[unknown, unknown, unknown, unknown[], ...unknown[]][]} */ (await raw.sendCommand(['SLOWLOG', 'GET', '1000']));
    const scripts = log.map((entry) => entry[3].map(String)).filter((args) => args[0].toUpperCase() === 'EVALSHA');
    assert.ok(scripts.length >= 5, `script calls logged: ${scripts.length}`);
    for (const args of scripts) assert.deepEqual(args.slice(3, 7), keysOf(prefix, 'mine'), args.slice(0, 8).join(' '));
  } finally {
    await raw.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '10000']);
  }
  assert.equal((await cache.lookup(other, { convId: 'other' })).status, 'hit');
}

async function boundedWork() {
  const prefix = fresh();
  let clock = 1_000_000;
  const cache = new ResultCache({ threshold: 1, maxEntries: 100_000, now: () => (clock += 1), storage: redisStorage(raw, { prefix }) });
  const count = 3 * BATCH + 17;
  await Promise.all(Array.from({ length: count }, (_, i) => cache.cacheToolResult({ payload: { i }, convId: 'big', sourceToolName: `t${i % 3}` })));
  const keys = keysOf(prefix, 'big');
  const script = (/** @type {string[]} */ args) => /** @type {Promise<unknown[]>} */ (raw.sendCommand(['EVALSHA', SHA, '4', ...keys, ...args]));
  // Age eviction: one call removes one batch and says there is more.
  const [removed, more] = (await script(['d', '0', '', String(clock + 1), String(BATCH), '0'])).map(Number);
  assert.equal(removed, BATCH);
  assert.equal(more, 1);
  assert.equal((await cache.stats()).entries, count - BATCH);
  // Invalidation: each call marks what one HSCAN page holds, a bounded share of the entries.
  const [cursor, marked] = await script(['k', '0', '"c"', '0', String(BATCH), '"t0"']);
  assert.ok(Number(marked) <= 2 * BATCH && String(cursor) !== '0', `one call marked ${marked}`);
  // A budget lowered far below what the conversation holds: one call evicts one batch.
  const w = (await script(['w', '0', 'mcp+cache://big/AAAAAAAAAAA', '"big"', '10', String(clock), String(clock), '"t"', '{"uri":"mcp+cache://big/AAAAAAAAAAA","convId":"big"}', '{"a":1}', '1000000000', '10', String(BATCH)])).map(Number);
  assert.equal(w[0], BATCH, 'evicted one batch');
  assert.equal(w[3], 1, 'and says more must go');
  // Through the cache every step is finished, a batch a call.
  const small = new ResultCache({ threshold: 1, maxEntries: 10, now: () => (clock += 1), storage: redisStorage(raw, { prefix }) });
  await small.cacheToolResult({ payload: { last: 1 }, convId: 'big', sourceToolName: 't0' });
  assert.equal((await small.stats()).entries, 10);
  assert.equal((await small.invalidate(['t*'], { cause: 'c' })) >= 0, true);
  assert.equal((await small.entries({ convId: 'big' })).filter((r) => r.staleCause == null).length, 0, 'every entry marked');
  await small.evictOlderThan({ maxAgeMs: 0 });
  assert.equal((await small.stats()).entries, 0);
}

async function partlyEvictedIsWholeMiss() {
  const prefix = fresh();
  const cache = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix }) });
  const kept = await cache.cacheToolResult({ payload: { kept: 1 }, convId: 'kept', sourceToolName: 't' });
  for (const victim of ['lru', 'rows', 'added', 'fresh']) {
    const uri = await cache.cacheToolResult({ payload: { half: victim }, convId: 'half', sourceToolName: 't' });
    await raw.sendCommand(['DEL', `${prefix}{half}:${victim}`]);
    // A read answers the entry whole (its payload and fields are one hash) or a miss: never a part.
    const seen = await cache.lookup(uri, { convId: 'half' });
    if (victim === 'rows' || victim === 'lru') assert.deepEqual(seen, { status: 'miss' }, `without ${victim}`);
    else assert.deepEqual(seen, { status: 'hit', payload: { half: victim } }, `without ${victim}`);
    // The next operation that counts drops the conversation whole.
    assert.deepEqual(await cache.entries({ convId: 'half' }), []);
    assert.deepEqual(await cache.lookup(uri, { convId: 'half' }), { status: 'miss' }, `without ${victim}, after`);
    assert.equal(await cache.readCachedPayload(`${uri}#/half`, { convId: 'half' }), null);
    const stats = await cache.stats();
    assert.deepEqual([stats.entries, stats.conversations], [1, 1], `without ${victim}: only the whole conversation counts`);
    assert.deepEqual(await keysOn(raw, `${prefix}{half}`), [], 'the rest went with it');
  }
  assert.equal((await cache.lookup(kept, { convId: 'kept' })).status, 'hit');
}

async function outOfMemoryEvictsLru() {
  const small = await startRedis({ extraArgs: ['--maxmemory', '6mb', '--maxmemory-policy', 'noeviction'] });
  const client = await nodeRedisClient(small.url);
  try {
    let clock = 1_000;
    /** @type {import('mcp-result-cache').CacheEvent[]} */
    const events = [];
    const cache = new ResultCache({ threshold: 1, now: () => (clock += 10), onEvent: (/** @type {import('mcp-result-cache').CacheEvent} */ e) => events.push(e), storage: redisStorage(client, { prefix: fresh() }) });
    const uris = [];
    for (let i = 0; i < 40; i += 1) uris.push(await cache.cacheToolResult({ payload: { i, blob: 'x'.repeat(300_000) }, convId: `c${i}` }));
    assert.ok(events.some((e) => e.kind === 'evict' && e.reason === 'quota'), 'evicted for the quota');
    assert.equal((await cache.lookup(uris[0], { convId: 'c0' })).status, 'miss', 'the oldest went, whole');
    assert.deepEqual(await cache.lookup(uris[39], { convId: 'c39' }), { status: 'hit', payload: { i: 39, blob: 'x'.repeat(300_000) } });
    assert.ok((await cache.stats()).entries < 40);
  } finally {
    await closeClient(client);
    await small.stop();
  }
}

/** How the errors of every Redis this supports read: out of memory is a quota error on 6.2 too. */
test('Redis refusing for memory is QuotaExceededError, as Redis 7 and as Redis 6.2 (a script\'s error wrapped) word it', () => {
  const seven = storageError(new Error("OOM command not allowed when used memory > 'maxmemory'."));
  const six = storageError(new Error("ERR Error running script (call to f_0123): @user_script:42: OOM command not allowed when used memory > 'maxmemory'."));
  assert.deepEqual([seven.name, six.name], ['QuotaExceededError', 'QuotaExceededError']);
  assert.equal(storageError(new Error('ERR unknown command')).name, 'UnknownError');
});

async function refusedWritesScanEachMasterOnce() {
  const small = await startRedis({ extraArgs: ['--maxmemory-policy', 'noeviction'] });
  const admin = await nodeRedisClient(small.url);
  const scans = async () => Number(/cmdstat_scan:calls=(\d+)/.exec(String(await admin.sendCommand(['INFO', 'commandstats'])))?.[1] ?? 0);
  try {
    const storage = redisStorage(admin, { prefix: fresh() });
    const row = (/** @type {string} */ conv, /** @type {number} */ i, /** @type {unknown} */ payload) =>
      ({ uri: `mcp+cache://${conv}/tok${i}`, convId: conv, sizeBytes: JSON.stringify(payload).length, addedAt: 1000 + i, lastUsedAt: 1000 + i, sourceToolName: 't', payload });
    for (let c = 0; c < 300; c++) await storage.write(row(`c${c}`, c, { x: 'a'.repeat(100) }), 1e9, 1e6);
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    await storage.evictOldest(1);
    const once = await scans();
    const used = Number(/** @type {RegExpMatchArray} */ (String(await admin.sendCommand(['INFO', 'memory'])).match(/used_memory:(\d+)/))[1]);
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', String(used + 200_000)]);
    const big = { x: 'b'.repeat(300_000) };
    const refused = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => storage.write(row(`n${i}`, 5000 + i, big), 1e9, 1e6)));
    assert.ok(refused.filter((r) => r.status === 'rejected' && r.reason.name === 'QuotaExceededError').length >= 10, 'Redis refused the writes for memory');
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    assert.ok(await storage.evictOldest(1) >= 1);
    assert.equal(await scans(), once, 'the master that refused 20 writes is walked once, as with none refused');
  } finally {
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
    await closeClient(admin);
    await small.stop();
  }
}

async function overMaxmemoryReadsAnswer() {
  const small = await startRedis({ extraArgs: ['--maxmemory-policy', 'noeviction'] });
  const admin = await nodeRedisClient(small.url);
  /** @type {TestClient[]} */
  const clients = [];
  const used = async () => Number(/** @type {RegExpMatchArray} */ (String(await admin.sendCommand(['INFO', 'memory'])).match(/used_memory:(\d+)/))[1]);
  try {
    for (const [kind, make] of /** @type {const} */ ([['node-redis', () => nodeRedisClient(small.url)], ['ioredis', () => ioredisClient(small.port)]])) {
      const client = await make();
      clients.push(client);
      let clock = 1_000;
      const cache = new ResultCache({ threshold: 1, now: () => (clock += 10), storage: redisStorage(client, { prefix: fresh(), ttlMs: 60_000 }) });
      const data = { rows: [{ id: 1 }, { id: 2 }] };
      const uri = String(await cache.cacheToolResult({ payload: data, convId: 'c', sourceToolName: 't' }));
      const [{ lastUsedAt }] = await cache.entries({ convId: 'c' });
      // The app's own data fills Redis (2 MB made by a short command: no query buffer to free
      // later), and its limit goes below what it uses.
      await admin.sendCommand(['SETRANGE', 'app:big', '2000000', 'x']);
      await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', String((await used()) - 500_000)]);
      try {
        await assert.rejects(admin.sendCommand(['SET', 'app:more', 'x']), /^OOM|OOM command not allowed/, `${kind}: Redis is out of memory`);
        assert.deepEqual(await cache.lookup(uri, { convId: 'c' }), { status: 'hit', payload: data }, `${kind}: lookup`);
        assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c' }), data, `${kind}: readCachedPayload`);
        const substituted = await cache.substituteCacheUris({ data_uri: uri, row_uri: `${uri}#/rows/1` }, { convId: 'c' });
        assert.deepEqual(substituted.ok && substituted.args, { data, row: data.rows[1] }, `${kind}: substituteCacheUris`);
        assert.deepEqual(await cache.lookup('mcp+cache://c/AAAAAAAAAAA', { convId: 'c' }), { status: 'miss' }, `${kind}: an absent entry is a miss`);
        // A removal with nothing to remove writes nothing, so Redis has nothing to refuse.
        await cache.evictOlderThan({ maxAgeMs: 3_600_000 });
        assert.equal((await cache.stats()).entries, 1, `${kind}: an age eviction that finds nothing old resolves, removing nothing`);
        assert.deepEqual((await cache.entries({ convId: 'c' })).map((r) => r.lastUsedAt), [lastUsedAt], `${kind}: the last use is not recorded`);
      } finally {
        await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
        await admin.sendCommand(['DEL', 'app:big']);
      }
      await cache.lookup(uri, { convId: 'c' });
      assert.ok((await cache.entries({ convId: 'c' }))[0].lastUsedAt > lastUsedAt, `${kind}: with memory again, a read records its use`);
      cache.close();
    }
  } finally {
    await Promise.all([admin, ...clients].map(closeClient));
    await small.stop();
  }
}

async function replicasConfirmEveryChange() {
  const prefix = fresh();
  const plain = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix }) });
  // No replica is attached to this server: nothing `replicas: 1` waits for is ever confirmed.
  const confirming = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix, replicas: 1, timeoutMs: 300 }) });
  const timedOut = (/** @type {Promise<unknown>} */ change, /** @type {string} */ what) => assert.rejects(change, (error) => error instanceof Error && error.name === 'TimeoutError', what);
  for (const convId of ['a', 'b']) await plain.cacheToolResult({ payload: { convId }, convId, sourceToolName: 't.get' });
  await timedOut(confirming.cacheToolResult({ payload: { c: 1 }, convId: 'c', sourceToolName: 't.get' }), 'a write');
  await timedOut(confirming.invalidate(['t.*'], { cause: 'x' }), 'an invalidation that marked entries');
  await timedOut(confirming.clearConversation('a'), 'a clear that removed entries');
  await timedOut(confirming.evictOlderThan({ maxAgeMs: 0 }), 'an age eviction that removed entries');
  // Changing nothing, there is nothing to confirm.
  await confirming.clearConversation('nobody');
  assert.equal(await confirming.invalidate(['none.*'], { cause: 'x' }), 0);
  await confirming.evictOlderThan({ maxAgeMs: 0 });
}

async function waitingWritesShareTheirWait() {
  const prefix = fresh();
  const plain = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix, timeoutMs: 1000 }) });
  const uri = String(await plain.cacheToolResult({ payload: { a: 1 }, convId: 'other', sourceToolName: 't' }));
  // No replica is attached: every write of `confirming` waits (WAIT) until its timeout, on the
  // connection the other cache's read goes over too.
  const confirming = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix, replicas: 1, timeoutMs: 1000 }) });
  const writes = Array.from({ length: 40 }, (_, i) => confirming.cacheToolResult({ payload: { i }, convId: `c${i}`, sourceToolName: 't' }).then(() => 'confirmed', (e) => e.name));
  await sleep(100);
  const read = await plain.lookup(uri, { convId: 'other' }).then((r) => r.status, (e) => e.name);
  assert.equal(read, 'hit', 'a read behind 40 writes waiting for replicas answers within its own timeout');
  assert.deepEqual(new Set(await Promise.all(writes)), new Set(['TimeoutError']), 'and the writes still time out unconfirmed');
}

/** A row as the cache writes it (docs/STORAGE.md), in conversation `conv`. @param {string} conv @param {number} i @param {unknown} payload */
const rowOf = (conv, i, payload) => ({ uri: `mcp+cache://${conv}/tok${String(i).padStart(8, '0')}`, payload, convId: conv, sourceToolName: 'tool', addedAt: 1000 + i, sizeBytes: 10, lastUsedAt: 1000 + i });

async function bouncedReadKeepsCallOrder() {
  // This instance's client reaches Redis through a relay that delays what it sends by 10 ms
  // (a network), while another connection, standing in for another instance, marks the
  // conversation as evicting (`x`) at once.
  const upstream = server.port;
  const relay = createNetServer((client) => {
    const up = connect(upstream, '127.0.0.1');
    let chain = Promise.resolve();
    client.on('data', (data) => {
      chain = chain.then(() => new Promise((done) => setTimeout(() => { up.write(data); done(undefined); }, 10)));
    });
    up.on('data', (data) => client.write(data));
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
    client.on('error', () => {});
    up.on('error', () => {});
  });
  await new Promise((listening) => relay.listen(0, '127.0.0.1', () => listening(undefined)));
  const slow = await nodeRedisClient(`redis://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (relay.address()).port}`);
  try {
    const prefix = fresh();
    const storage = redisStorage(slow, { prefix });
    const first = rowOf('S', 1, { v: 'old' });
    await storage.write(first, 1e9, 1e9);
    const w0 = storage.write(rowOf('S', 2, { v: 2 }), 1e9, 1e9);
    await sleep(3);
    // Called while w0 is unsettled: flagged; it reaches Redis after the mark and is sent again.
    const r1 = storage.read([first.uri], 5000);
    await w0;
    await raw.sendCommand(['HSET', `${prefix}{S}:rows`, 'x', '999']);
    // Called after r1: it must take effect after r1's resend.
    const w2 = storage.write({ ...first, payload: { v: 'new' } }, 1e9, 1e9);
    const [read] = /** @type {{ payload: unknown }[]} */ (await r1);
    await w2;
    assert.deepEqual(read.payload, { v: 'old' }, 'the read called before the write does not see it');
  } finally {
    await closeClient(slow);
    await new Promise((closed) => relay.close(() => closed(undefined)));
  }
}

async function oldLayoutIgnored() {
  const prefix = fresh();
  const old = `${prefix}{all}:`;
  await raw.sendCommand(['HSET', `${old}t`, 'b', '10', 'e', '1']);
  await raw.sendCommand(['HSET', `${old}x`, 'mcp+cache://c1/AAAAAAAAAAA', '10 "c1"']);
  await raw.sendCommand(['HSET', `${old}p:"c1"`, 'mcp+cache://c1/AAAAAAAAAAA', '{"a":1}']);
  await raw.sendCommand(['ZADD', `${old}l`, '1', 'mcp+cache://c1/AAAAAAAAAAA']);
  const cache = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix }) });
  assert.equal((await cache.lookup('mcp+cache://c1/AAAAAAAAAAA', { convId: 'c1' })).status, 'miss');
  assert.equal((await cache.stats()).entries, 0);
  const uri = await cache.cacheToolResult({ payload: { all: 1 }, convId: 'all', sourceToolName: 't' });
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'all' }), { all: 1 }, 'a conversation named "all" is its own');
  assert.deepEqual(await raw.sendCommand(['HGETALL', `${old}t`]), { b: '10', e: '1' });
  assert.equal(Number(await raw.sendCommand(['ZCARD', `${old}l`])), 1);
}

async function ttlExpiresConversation() {
  const prefix = fresh();
  const cache = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix, ttlMs: 300 }) });
  const idle = await cache.cacheToolResult({ payload: { idle: 1 }, convId: 'idle', sourceToolName: 't' });
  for (const key of keysOf(prefix, 'idle')) {
    const pttl = Number(await raw.sendCommand(['PTTL', key]));
    assert.ok(pttl > 0 && pttl <= 300, `${key} expires (PTTL ${pttl})`);
  }
  const until = Date.now() + 5000;
  while ((await keysOn(raw, prefix)).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await keysOn(raw, prefix), []);
  assert.equal((await cache.lookup(idle, { convId: 'idle' })).status, 'miss');
  assert.deepEqual([(await cache.stats()).entries, (await cache.stats()).bytes], [0, 0]);
}

async function ttlOnOneInstance() {
  const prefix = fresh();
  const expiring = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix, ttlMs: 300 }) });
  const lasting = new ResultCache({ threshold: 1, storage: redisStorage(raw, { prefix }) });
  await expiring.cacheToolResult({ payload: { a: 1 }, convId: 'mixed', sourceToolName: 't' });
  // The invalidation empties the fresh index; the other instance's write makes it again.
  assert.equal(await lasting.invalidate(['t'], { cause: 'u' }), 1);
  await lasting.cacheToolResult({ payload: { b: 2 }, convId: 'mixed', sourceToolName: 't' });
  for (const key of keysOf(prefix, 'mixed')) {
    const pttl = Number(await raw.sendCommand(['PTTL', key]));
    assert.ok(pttl > 0 && pttl <= 300, `${key} expires with the others (PTTL ${pttl})`);
  }
  const until = Date.now() + 5000;
  while ((await keysOn(raw, prefix)).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await keysOn(raw, prefix), []);
}

describe('standalone', () => {
  test('the scripts of one conversation\'s operations name only its keys (SLOWLOG of every call)', scriptsNameOnlyTheirKeys);
  test('bounded work: one script call evicts, ages out or marks at most a batch; the cache finishes across calls', boundedWork);
  test('a conversation Redis evicted in part is a whole miss: never half an entry, never counted', partlyEvictedIsWholeMiss);
  test('Redis out of memory (noeviction): the cache evicts the least recently used conversations and the write lands', outOfMemoryEvictsLru);
  test('Redis over maxmemory (noeviction): a read of a stored entry answers it, its last use unrecorded, and an age eviction with nothing to do resolves, through both clients', overMaxmemoryReadsAnswer);
  test('writes Redis refused for memory: the eviction that follows walks their master once, not once a write', refusedWritesScanEachMasterOnce);
  test('replicas: 1 without a replica: every write, clear, invalidation and age eviction that changed something rejects unconfirmed (TimeoutError)', replicasConfirmEveryChange);
  test('replicas: 40 writes waiting for replicas share one WAIT at a time: a read of another cache on the same connection is not held behind them', waitingWritesShareTheirWait);
  test('another instance\'s evictions under way: a read bounced and sent again still takes effect before a write called after it', bouncedReadKeepsCallOrder);
  test('keys of the old one-slot layout are ignored (neither read nor counted nor changed)', oldLayoutIgnored);
  test('ttlMs: Redis itself expires a conversation; nothing of it is counted after', ttlExpiresConversation);
  test('ttlMs set on one instance only: the conversation still expires whole (no key of it outlives the others)', ttlOnOneInstance);
});
