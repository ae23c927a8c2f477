// Helpers for the redis-*.test.mjs suites: read a `redisStorage` cache's keys straight from Redis
// (through raw node-redis clients of every node, never through the storage), check the structural
// invariants of the key layout (js/redis-script.lua's header), scan whole servers, and a seeded PRNG.
import assert from 'node:assert/strict';

/** @typedef {import('./redis-servers.mjs').NodeRedisClient} NodeRedisClient */
/** @typedef {import('./redis-servers.mjs').NodeRedisCluster} NodeRedisCluster */
/**
 * A raw command sent through `rawCommand()`: its reply as the client gives it.
 * @typedef {(args: string[]) => Promise<unknown>} RawCommand
 */
/**
 * One conversation's four keys as `snapshot()` reads them: hash fields and sorted-set scores as
 * strings, and the keys' PTTLs (rows, lru, added, fresh).
 * @typedef {{
 *   rows: Map<string, string>, lru: Map<string, string>, added: Map<string, string>,
 *   fresh: Map<string, string>, pttl: number[],
 * }} Bucket
 */
/**
 * What `snapshot()` resolves: `buckets` by conversation segment, the keys under the prefix, and
 * the union over conversations (`x`, `l`, `a`, `m`, `n`, `s` by URI; `p` and `pttl` by the
 * conversation's JSON).
 * @typedef {{
 *   prefix: string, buckets: Map<string, Bucket>, keys: string[],
 *   x: Map<string, string>, l: Map<string, string>, a: Map<string, string>, m: Map<string, string>,
 *   n: Map<string, string>, s: Map<string, string>, p: Map<string, Map<string, string>>,
 *   pttl: Map<string, number[]>,
 * }} Snapshot
 */

/**
 * A raw command function over a node-redis client or cluster: `raw(args)` sends `args` routed by
 * args[1] (the first key) on a cluster. For keyless commands on a cluster use per-master clients.
 * @param {NodeRedisClient | NodeRedisCluster} client
 * @returns {RawCommand}
 */
export function rawCommand(client) {
  const cluster = typeof /** @type {{ getSlotRandomNode?: unknown }} */ (client).getSlotRandomNode === 'function'
    || Array.isArray(/** @type {{ masters?: unknown }} */ (client).masters);
  const keyOf = (/** @type {string[]} */ args) => (/^EVAL(SHA)?$/i.test(args[0]) ? args[3] : args[1]);
  return cluster
    ? (args) => /** @type {NodeRedisCluster} */ (client).sendCommand(keyOf(args), false, args)
    : (args) => /** @type {NodeRedisClient} */ (client).sendCommand(args);
}

/**
 * A hash or WITHSCORES reply as a Map, whatever the protocol (RESP2 flat list, RESP3 map/pairs).
 * @param {unknown} reply
 * @returns {Map<string, string>}
 */
const pairs = (reply) => {
  if (reply instanceof Map) return new Map(reply);
  if (!Array.isArray(reply)) return new Map(Object.entries(reply ?? {}));
  if (reply.length > 0 && Array.isArray(reply[0])) return new Map(reply.map(([k, v]) => [k, v]));
  const out = new Map();
  for (let i = 0; i < reply.length; i += 2) out.set(reply[i], reply[i + 1]);
  return out;
};

// One EVAL per conversation: its four keys and their PTTLs, read atomically on the node that owns
// its slot (KEYS: rows, lru, added, fresh).
const BUCKET = `
local out = {}
out[1] = redis.call('HGETALL', KEYS[1])
out[2] = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
out[3] = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')
out[4] = redis.call('HGETALL', KEYS[4])
out[5] = { redis.call('PTTL', KEYS[1]), redis.call('PTTL', KEYS[2]), redis.call('PTTL', KEYS[3]), redis.call('PTTL', KEYS[4]) }
return out`;

/**
 * Every key starting with `prefix` on each of `nodes` (node-redis clients), sorted.
 * @param {NodeRedisClient[]} nodes
 * @param {string} prefix
 * @returns {Promise<{ key: string, node: NodeRedisClient }[]>}
 */
async function keysUnder(nodes, prefix) {
  /** @type {{ key: string, node: NodeRedisClient }[]} */
  const keys = [];
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = /** @type {[string, string[]]} */ (await node.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']));
      keys.push(...batch.map((key) => ({ key, node })));
      cursor = String(next);
    } while (cursor !== '0');
  }
  return keys;
}

/**
 * Everything one cache (one prefix) holds in Redis, one conversation (bucket) at a time, each read
 * atomically on its own node: `{ buckets, keys, x, l, a, m, n, s, p, pttl }`. `buckets` maps each
 * segment to its `rows`, `lru`, `added`, `fresh` (Maps) and `pttl`; the flat Maps are the union
 * over conversations (`x`: uri -> "<size> <conv JSON>", `n`: uri -> tool JSON, `l` by last use).
 * @param {NodeRedisClient[]} nodes node-redis clients of every node that may hold the cache's keys
 * @param {string} prefix
 * @returns {Promise<Snapshot>}
 */
export async function snapshot(nodes, prefix) {
  const found = await keysUnder(nodes, prefix);
  /** @type {Map<string, Bucket>} */
  const buckets = new Map();
  /** @type {Omit<Snapshot, 'prefix' | 'buckets' | 'keys' | 'l'> & { l: [string, string][] }} */
  const flat = { x: new Map(), l: [], a: new Map(), m: new Map(), n: new Map(), s: new Map(), p: new Map(), pttl: new Map() };
  /** @type {Map<string, NodeRedisClient>} */
  const tags = new Map();
  for (const { key, node } of found) tags.set(key.slice(prefix.length + 1, key.indexOf('}', prefix.length)), node);
  for (const [tag, node] of tags) {
    const keys = ['rows', 'lru', 'added', 'fresh'].map((k) => `${prefix}{${tag}}:${k}`);
    const [rows, lru, added, fresh, pttl] = /** @type {[unknown, unknown, unknown, unknown, number[]]} */ (await node.sendCommand(['EVAL', BUCKET, '4', ...keys]));
    /** @type {Bucket} */
    const bucket = { rows: pairs(rows), lru: scores(lru), added: scores(added), fresh: pairs(fresh), pttl: pttl.map(Number) };
    buckets.set(tag, bucket);
    for (const [field, value] of bucket.rows) {
      if (!field.startsWith('m:')) continue;
      const uri = field.slice(2);
      const meta = JSON.parse(value);
      const conv = JSON.stringify(meta.convId);
      flat.x.set(uri, `${bucket.rows.get(`z:${uri}`)} ${conv}`);
      flat.m.set(uri, value);
      flat.n.set(uri, JSON.stringify(meta.sourceToolName));
      if (bucket.lru.has(uri)) flat.l.push([uri, /** @type {string} */ (bucket.lru.get(uri))]);
      if (bucket.added.has(uri)) flat.a.set(uri, /** @type {string} */ (bucket.added.get(uri)));
      if (bucket.rows.has(`s:${uri}`)) flat.s.set(uri, /** @type {string} */ (bucket.rows.get(`s:${uri}`)));
      if (!flat.p.has(conv)) flat.p.set(conv, new Map());
      if (bucket.rows.has(`p:${uri}`)) /** @type {Map<string, string>} */ (flat.p.get(conv)).set(uri, /** @type {string} */ (bucket.rows.get(`p:${uri}`)));
      flat.pttl.set(conv, [bucket.pttl[0], bucket.pttl[1]]);
    }
  }
  flat.l.sort(([u, a], [v, b]) => Number(a) - Number(b) || (u < v ? -1 : u > v ? 1 : 0));
  return { prefix, buckets, keys: found.map(({ key }) => key).sort(), ...flat, l: new Map(flat.l) };
}

const sorted = (/** @type {Iterable<string>} */ iterable) => [...iterable].sort();
const scores = (/** @type {unknown} */ reply) => new Map([...pairs(reply)].map(([k, score]) => [k, String(score)]));

/**
 * The invariants of the layout, per conversation (js/redis-script.lua's header): its totals are
 * the sum/count of its entries, `f` counts its fresh ones; each entry carries the number of the
 * write that stored it (`n:<uri>`: distinct, at most the last write's `n`); `lru` and `added` hold
 * exactly its entries; `fresh` and the stale causes split them; every row names its own URI, size and tool;
 * the budget holds per conversation; no key outside the four of a conversation with entries.
 * Returns `{ uris: Map<uri, {size, conv}>, bytes, entries }` over the whole cache.
 * @param {Snapshot} snap
 * @param {{ maxBytes?: number, maxEntries?: number }} [limits]
 * @param {string} [where]
 * @returns {{ uris: Map<string, { size: number, conv: string }>, bytes: number, entries: number }}
 */
export function checkInvariants(snap, { maxBytes = Infinity, maxEntries = Infinity } = {}, where = '') {
  const at = (/** @type {string} */ what) => `${where ? `${where}: ` : ''}${what}`;
  /** @type {Map<string, { size: number, conv: string }>} */
  const uris = new Map();
  let bytes = 0;
  const allowed = new Set();
  for (const [tag, bucket] of snap.buckets) {
    /** @type {string[]} */
    const mine = [];
    let sum = 0;
    const convs = new Set();
    const numbers = new Set();
    for (const [field, value] of bucket.rows) {
      if (!field.startsWith('z:')) continue;
      const uri = field.slice(2);
      const size = Number(value);
      assert.ok(Number.isSafeInteger(size) && size >= 0, at(`size of ${uri}`));
      const meta = JSON.parse(/** @type {string} */ (bucket.rows.get(`m:${uri}`)));
      assert.ok(bucket.rows.has(`p:${uri}`), at(`${uri} has its payload`));
      assert.equal(meta.uri, uri, at(`m of ${uri} names it`));
      assert.equal(meta.sizeBytes, size, at(`m of ${uri} has its size`));
      assert.equal(Number(bucket.added.get(uri)), meta.addedAt, at(`added of ${uri} is its addedAt`));
      const stale = bucket.rows.has(`s:${uri}`);
      assert.equal(bucket.fresh.has(uri), !stale, at(`${uri} is fresh or stale, not both`));
      if (!stale) assert.equal(bucket.fresh.get(uri), JSON.stringify(meta.sourceToolName), at(`fresh of ${uri} is its tool`));
      // The number of the write that stored it: its own, at most the conversation's last.
      const number = Number(bucket.rows.get(`n:${uri}`));
      assert.ok(Number.isSafeInteger(number) && number >= 1 && number <= Number(bucket.rows.get('n')), at(`n of ${uri} (${number}) numbers a write`));
      assert.ok(!numbers.has(number), at(`n of ${uri} is its own`));
      numbers.add(number);
      uris.set(uri, { size, conv: JSON.stringify(meta.convId) });
      convs.add(JSON.stringify(meta.convId));
      mine.push(uri);
      sum += size;
    }
    for (const field of bucket.rows.keys()) {
      if (/^[pmsn]:/.test(field)) assert.ok(bucket.rows.has(`z:${field.slice(2)}`), at(`${tag}: ${field} belongs to an entry`));
    }
    bytes += sum;
    if (mine.length === 0) continue;
    for (const k of ['rows', 'lru', 'added', 'fresh']) allowed.add(`${snap.prefix}{${tag}}:${k}`);
    assert.equal(Number(bucket.rows.get('b')), sum, at(`${tag}: b = sum of sizes`));
    assert.equal(Number(bucket.rows.get('e')), mine.length, at(`${tag}: e = entries`));
    assert.equal(Number(bucket.rows.get('f') ?? 0), bucket.fresh.size, at(`${tag}: f = fresh entries`));
    // '*' once two ids shared the segment, even after one of them was cleared.
    if (convs.size > 1) assert.equal(bucket.rows.get('c'), '*', at(`${tag}: c says two conversations share it`));
    else assert.ok([[...convs][0], '*'].includes(/** @type {string} */ (bucket.rows.get('c'))), at(`${tag}: c names its conversation`));
    assert.deepEqual(sorted(bucket.lru.keys()), sorted(mine), at(`${tag}: lru has exactly its entries`));
    assert.deepEqual(sorted(bucket.added.keys()), sorted(mine), at(`${tag}: added has exactly its entries`));
    for (const conv of convs) {
      const list = [...uris.values()].filter((u) => u.conv === conv);
      assert.ok(list.reduce((n, u) => n + u.size, 0) <= maxBytes, at(`${conv}: bytes within maxBytes ${maxBytes}`));
      assert.ok(list.length <= maxEntries, at(`${conv}: entries within maxEntries ${maxEntries}`));
    }
  }
  for (const key of snap.keys) assert.ok(allowed.has(key), at(`no stray key: ${key}`));
  return { uris, bytes, entries: uris.size };
}

/**
 * Every key of every node in `raws` (keyless SCAN per node), sorted.
 * @param {NodeRedisClient[]} nodeClients
 * @returns {Promise<string[]>}
 */
export async function scanAll(nodeClients) {
  /** @type {string[]} */
  const keys = [];
  for (const client of nodeClients) {
    let cursor = '0';
    do {
      const [next, batch] = /** @type {[string, string[]]} */ (await client.sendCommand(['SCAN', cursor, 'COUNT', '1000']));
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys.sort();
}

/**
 * A seeded random source: `rand()` in [0, 1), `rand.int(n)` in 0..n-1, `rand.pick(list)` one of `list`.
 * @typedef {{ (): number, int: (n: number) => number, pick: <T>(list: readonly T[]) => T }} Rand
 */

/**
 * mulberry32: a small seeded PRNG; `rand()` in [0, 1).
 * @param {number} seed
 * @returns {Rand}
 */
export function prng(seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  rand.int = (/** @type {number} */ n) => Math.floor(rand() * n);
  /** @template T @param {readonly T[]} list @returns {T} */
  rand.pick = (list) => list[rand.int(list.length)];
  return rand;
}

/** @type {(ms: number) => Promise<void>} */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
