// Helpers for the redis-*.test.mjs suites: read a `redisStorage` cache's keys straight from Redis
// (through a raw node-redis client, never through the storage), check the structural invariants
// of the key layout (js/redis-script.lua's header), scan whole servers, and a seeded PRNG.
import assert from 'node:assert/strict';

/**
 * A raw command function over a node-redis client or cluster: `raw(args)` sends `args` routed by
 * args[1] (the first key) on a cluster. For keyless commands on a cluster use per-master clients.
 */
export function rawCommand(client) {
  const cluster = typeof client.getSlotRandomNode === 'function' || Array.isArray(client.masters);
  const keyOf = (args) => (/^EVAL(SHA)?$/i.test(args[0]) ? args[3] : args[1]);
  return cluster ? (args) => client.sendCommand(keyOf(args), false, args) : (args) => client.sendCommand(args);
}

/** A hash or WITHSCORES reply as a Map, whatever the protocol (RESP2 flat list, RESP3 map/pairs). */
const pairs = (reply) => {
  if (reply instanceof Map) return new Map(reply);
  if (!Array.isArray(reply)) return new Map(Object.entries(reply ?? {}));
  if (reply.length > 0 && Array.isArray(reply[0])) return new Map(reply.map(([k, v]) => [k, v]));
  const out = new Map();
  for (let i = 0; i < reply.length; i += 2) out.set(reply[i], reply[i + 1]);
  return out;
};

// One EVAL: every structure of one cache, its p:/i: keys, every key under the prefix and the
// server's TIME, read atomically (nothing expires or changes in between).
const SNAPSHOT = `
local base = string.sub(KEYS[1], 1, -2)
local prefix = ARGV[1]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local out = { tostring(now) }
out[#out + 1] = redis.call('HGETALL', base .. 't')
out[#out + 1] = redis.call('ZRANGE', base .. 'l', 0, -1, 'WITHSCORES')
out[#out + 1] = redis.call('ZRANGE', base .. 'a', 0, -1, 'WITHSCORES')
out[#out + 1] = redis.call('HGETALL', base .. 'x')
out[#out + 1] = redis.call('HGETALL', base .. 'm')
out[#out + 1] = redis.call('HGETALL', base .. 'n')
out[#out + 1] = redis.call('HGETALL', base .. 's')
out[#out + 1] = redis.call('ZRANGE', base .. 'v', 0, -1, 'WITHSCORES')
local keys = redis.call('KEYS', string.gsub(prefix, '[%*%?%[%]\\\\]', '\\\\%0') .. '*')
out[#out + 1] = keys
local convs = {}
for _, key in ipairs(keys) do
  local kind, conv = string.match(string.sub(key, #base + 1), '^([pi]):(.*)$')
  if kind and string.sub(key, 1, #base) == base then convs[conv] = true end
end
local x = redis.call('HGETALL', base .. 'x')
for i = 2, #x, 2 do convs[string.sub(x[i], string.find(x[i], ' ', 1, true) + 1)] = true end
local v = redis.call('ZRANGE', base .. 'v', 0, -1)
for _, conv in ipairs(v) do convs[conv] = true end
local per = {}
for conv in pairs(convs) do
  per[#per + 1] = { conv, redis.call('HGETALL', base .. 'p:' .. conv), redis.call('SMEMBERS', base .. 'i:' .. conv),
    redis.call('PTTL', base .. 'p:' .. conv), redis.call('PTTL', base .. 'i:' .. conv) }
end
out[#out + 1] = per
return out`;

/**
 * Everything one cache (one prefix) holds in Redis, read atomically in one EVAL:
 * `{ base, time, t, l, a, x, m, n, s, v, keys, p, i, pttl }` (Maps; `v`/`l`/`a` scores as strings).
 */
export async function snapshot(raw, prefix) {
  const base = `${prefix}{all}:`;
  const reply = await raw(['EVAL', SNAPSHOT, '1', `${base}t`, prefix]);
  const [time, t, l, a, x, m, n, s, v, keys, per] = reply;
  const p = new Map();
  const i = new Map();
  const pttl = new Map();
  for (const [conv, payloads, members, pttlP, pttlI] of per) {
    p.set(conv, pairs(payloads));
    i.set(conv, new Set(members));
    pttl.set(conv, [Number(pttlP), Number(pttlI)]);
  }
  const scores = (reply) => new Map([...pairs(reply)].map(([k, score]) => [k, String(score)]));
  return { base, time: Number(time), t: pairs(t), l: scores(l), a: scores(a), x: pairs(x), m: pairs(m), n: pairs(n), s: pairs(s), v: scores(v), keys: [...keys].sort(), p, i, pttl };
}

const sorted = (iterable) => [...iterable].sort();

/**
 * The invariants of the layout: totals = sum/count over x; l, a, x, m, n hold the same uris; each
 * uri's payload and index membership exist in its conversation's keys and nowhere else; v holds
 * exactly the conversations with entries; stale ⊆ uris; the budget holds. Returns
 * `{ uris: Map<uri, {size, conv}>, bytes, entries }`.
 */
export function checkInvariants(snap, { maxBytes = Infinity, maxEntries = Infinity } = {}, where = '') {
  const at = (what) => `${where ? `${where}: ` : ''}${what}`;
  const uris = new Map();
  let bytes = 0;
  for (const [uri, entry] of snap.x) {
    const space = entry.indexOf(' ');
    assert.ok(space > 0, at(`x entry "${entry}" is "<size> <conv>"`));
    const size = Number(entry.slice(0, space));
    assert.ok(Number.isSafeInteger(size) && size >= 0, at(`size of ${uri}`));
    uris.set(uri, { size, conv: entry.slice(space + 1) });
    bytes += size;
  }
  const b = Number(snap.t.get('b') ?? 0);
  const e = Number(snap.t.get('e') ?? 0);
  assert.equal(b, bytes, at('totals b = sum of sizes in x'));
  assert.equal(e, uris.size, at('totals e = number of uris in x'));
  const expected = sorted(uris.keys());
  assert.deepEqual(sorted(snap.l.keys()), expected, at('l has exactly the uris of x'));
  assert.deepEqual(sorted(snap.a.keys()), expected, at('a has exactly the uris of x'));
  assert.deepEqual(sorted(snap.m.keys()), expected, at('m has exactly the uris of x'));
  assert.deepEqual(sorted(snap.n.keys()), expected, at('n has exactly the uris of x'));
  for (const uri of snap.s.keys()) assert.ok(uris.has(uri), at(`stale uri ${uri} is an entry`));
  const withEntries = new Set([...uris.values()].map((u) => u.conv));
  assert.deepEqual(sorted(snap.v.keys()), sorted(withEntries), at('v holds exactly the conversations with entries'));
  // A conversation whose time has passed (score <= TIME) waits for the next script call's
  // sweep: Redis may have expired its p:/i: keys already, so they are not checked.
  const pending = (conv) => snap.time !== undefined && Number(snap.v.get(conv)) <= snap.time;
  for (const conv of new Set([...snap.p.keys(), ...snap.i.keys()])) {
    if (pending(conv)) continue;
    const mine = sorted([...uris].filter(([, u]) => u.conv === conv).map(([uri]) => uri));
    assert.deepEqual(sorted(snap.p.get(conv)?.keys() ?? []), mine, at(`p:${conv} holds exactly its entries' payloads`));
    assert.deepEqual(sorted(snap.i.get(conv) ?? []), mine, at(`i:${conv} holds exactly its entries`));
  }
  for (const [uri, { size }] of uris) {
    const meta = JSON.parse(snap.m.get(uri));
    assert.equal(meta.uri, uri, at(`m of ${uri} names it`));
    assert.equal(meta.sizeBytes, size, at(`m of ${uri} has its size`));
    assert.equal(JSON.stringify(meta.sourceToolName), snap.n.get(uri), at(`n of ${uri} is its tool`));
    assert.equal(Number(snap.a.get(uri)), meta.addedAt, at(`a of ${uri} is its addedAt`));
  }
  if (snap.keys) {
    const allowed = new Set(['t', 'l', 'a', 'x', 'm', 'n', 's', 'v'].map((k) => `${snap.base}${k}`));
    for (const conv of withEntries) {
      allowed.add(`${snap.base}p:${conv}`);
      allowed.add(`${snap.base}i:${conv}`);
    }
    for (const key of snap.keys) {
      const conv = key.startsWith(`${snap.base}p:`) || key.startsWith(`${snap.base}i:`) ? key.slice(snap.base.length + 2) : null;
      assert.ok(allowed.has(key) || (conv !== null && pending(conv)), at(`no stray key: ${key}`));
    }
  }
  assert.ok(bytes <= maxBytes, at(`bytes ${bytes} <= maxBytes ${maxBytes}`));
  assert.ok(uris.size <= maxEntries, at(`entries ${uris.size} <= maxEntries ${maxEntries}`));
  return { uris, bytes, entries: uris.size };
}

/** Every key of every node in `raws` (keyless SCAN per node), sorted. */
export async function scanAll(nodeClients) {
  const keys = [];
  for (const client of nodeClients) {
    let cursor = '0';
    do {
      const [next, batch] = await client.sendCommand(['SCAN', cursor, 'COUNT', '1000']);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys.sort();
}

/** mulberry32: a small seeded PRNG; `rand()` in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  rand.int = (n) => Math.floor(rand() * n);
  rand.pick = (list) => list[rand.int(list.length)];
  return rand;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
