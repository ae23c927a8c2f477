// Model-based test of `mcp-result-cache/redis`: random interleavings (seeded) of writes, reads,
// clears, invalidations, evictOlderThan and real-time TTL expiry over two ResultCache instances
// (A over node-redis, B over ioredis) sharing one cache in a real redis-server 7. A plain JS model
// predicts exactly which entries exist (LRU eviction per conversation under maxBytes/maxEntries, with an
// injected clock shared by both instances), their sizes, tools, conversations, stale causes and
// lastUsedAt. After EVERY step Redis itself is read (one EVAL per conversation) and checked: the layout
// invariants (tests/support/redis-model.mjs checkInvariants) and equality with the model; the
// caches' stats() and entries() must agree with both.
// Run: node --test tests/js/redis-model.test.mjs   (REDIS_MODEL_STEPS=1000 to go further;
// REDIS_MODEL_SEEDS=1,2,3 to pick seeds)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, matchGlob, sanitizeConvId } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.mjs';
import { closeClient, ioredisClient, nodeRedisClient, startRedis } from '../support/redis-servers.mjs';
import { checkInvariants, prng, rawCommand, sleep, snapshot } from '../support/redis-model.mjs';

const STEPS = Number(process.env.REDIS_MODEL_STEPS ?? 120);
const SEEDS = (process.env.REDIS_MODEL_SEEDS ?? '1,2,3').split(',').map(Number);
const MAX_BYTES = 40_000;
const MAX_ENTRIES = 12;
const LONG_TTL = 600_000; // the instances' TTL: nothing expires unless a TTL step makes it
const SHORT_TTL = 500; // the TTL steps' own storage over the same prefix
const CONVS = ['c0', 'c1', 'c2'];
const TOOLS = ['alpha.get', 'alpha.list', 'beta.get'];
const PATTERNS = ['alpha.*', 'beta.get', '*.get', 'alpha.list', 'gamma.*'];

/**
 * The model's entry of one URI. `payload` is what was written: an object with `rows` (an array),
 * another object, or an array.
 * @typedef {{
 *   conv: string, size: number, tool: string, addedAt: number, lastUsedAt: number,
 *   stale: string | null, payload: unknown,
 * }} Entry
 */

/** @type {import('../support/redis-servers.mjs').RedisServer} */
let server;
/** @type {import('../support/redis-servers.mjs').NodeRedisClient} */
let clientA;
/** @type {import('../support/redis-servers.mjs').IoredisClient} */
let clientB;
/** @type {import('../support/redis-servers.mjs').NodeRedisClient} */
let rawClient;
/** @type {import('../support/redis-model.mjs').RawCommand} */
let raw;
before(async () => {
  server = await startRedis();
  [clientA, clientB, rawClient] = await Promise.all([nodeRedisClient(server.url), ioredisClient(server.port), nodeRedisClient(server.url)]);
  raw = rawCommand(rawClient);
});
after(async () => {
  await Promise.all([clientA, clientB, rawClient].map(closeClient));
  await server?.stop();
});

const utf8 = (/** @type {unknown} */ value) => Buffer.byteLength(JSON.stringify(value));

/** @typedef {InstanceType<typeof ResultCache>} Cache */
/**
 * One seed's run: its random source, the clock shared by the instances, the caches over one
 * prefix (A and B with the long TTL, S with the short one of the TTL steps) and the model of what
 * Redis holds (uri -> { conv, size, tool, addedAt, lastUsedAt, stale, payload }).
 * @typedef {{
 *   seed: number, rand: import('../support/redis-model.mjs').Rand, prefix: string, clock: number,
 *   A: Cache, B: Cache, S: Cache, model: Map<string, Entry>, payloadCounter: number,
 *   lastSnapshot: import('../support/redis-model.mjs').Snapshot | null,
 * }} Run
 */

/**
 * A fresh run of `seed`: its own prefix, an empty model.
 * @param {number} seed
 * @returns {Run}
 */
function newRun(seed) {
  const prefix = `model-${process.pid}-${seed}:`;
  /** @type {Run} */
  const run = /** @type {Run} */ ({ seed, rand: prng(seed), prefix, clock: 1_000_000, model: new Map(), payloadCounter: 0, lastSnapshot: null });
  const now = () => run.clock;
  const options = { threshold: 1, maxBytes: MAX_BYTES, maxEntries: MAX_ENTRIES, now };
  run.A = new ResultCache({ ...options, storage: redisStorage(clientA, { prefix, ttlMs: LONG_TTL }) });
  run.B = new ResultCache({ ...options, storage: redisStorage(clientB, { prefix, ttlMs: LONG_TTL }) });
  run.S = new ResultCache({ ...options, storage: redisStorage(clientA, { prefix, ttlMs: SHORT_TTL }) });
  return run;
}

// The budget and the LRU order are per conversation (docs/REDIS.md).
const mine = (/** @type {Map<string, Entry>} */ model, /** @type {string} */ conv) => [...model].filter(([, e]) => e.conv === conv);
const lru = (/** @type {Map<string, Entry>} */ model, /** @type {string} */ conv) => mine(model, conv).sort(([u, p], [v, q]) => p.lastUsedAt - q.lastUsedAt || (u < v ? -1 : u > v ? 1 : 0));
const modelBytes = (/** @type {Map<string, Entry>} */ model, /** @type {string} */ conv) => mine(model, conv).reduce((sum, [, e]) => sum + e.size, 0);

/** A random payload: a blob, rows, or an array. @param {Run} run */
function makePayload(run) {
  const { rand } = run;
  const kind = rand.int(3);
  const n = run.payloadCounter++;
  if (kind === 0) return { n, blob: 'x'.repeat(100 + rand.int(6000)) };
  if (kind === 1) return { n, rows: Array.from({ length: 1 + rand.int(80) }, (_, i) => ({ i, v: rand.int(1000), s: 'é😀' })) };
  return [n, 'ü'.repeat(rand.int(2000)), { deep: [[[n]]] }];
}

/**
 * The model's write: LRU eviction in its conversation exactly as the budget rule (never the new entry).
 * @param {Map<string, Entry>} model
 * @param {string} uri
 * @param {Entry} entry
 */
function modelWrite(model, uri, entry) {
  let bytes = modelBytes(model, entry.conv) + entry.size - MAX_BYTES;
  let entries = mine(model, entry.conv).length + 1 - MAX_ENTRIES;
  for (const [victim, e] of lru(model, entry.conv)) {
    if (bytes <= 0 && entries <= 0) break;
    model.delete(victim);
    bytes -= e.size;
    entries -= 1;
  }
  model.set(uri, entry);
}

/**
 * After every step: Redis itself (its invariants, and exactly the model's entries), then the
 * stats() and entries() of an instance picked at random.
 * @param {Run} run
 * @param {string} where
 */
async function check(run, where) {
  const { rand, model, A, B } = run;
  const snap = await snapshot([rawClient], run.prefix);
  const { uris, bytes, entries } = checkInvariants(snap, { maxBytes: MAX_BYTES, maxEntries: MAX_ENTRIES }, where);
  assert.deepEqual([...uris.keys()].sort(), [...model.keys()].sort(), `${where}: Redis holds exactly the model's entries`);
  for (const [uri, e] of model) {
    const at = `${where}: ${uri}`;
    assert.equal(/** @type {{ size: number }} */ (uris.get(uri)).size, e.size, `${at} size`);
    assert.equal(/** @type {{ conv: string }} */ (uris.get(uri)).conv, JSON.stringify(e.conv), `${at} conversation`);
    assert.equal(snap.n.get(uri), JSON.stringify(e.tool), `${at} tool`);
    assert.equal(Number(snap.a.get(uri)), e.addedAt, `${at} addedAt`);
    assert.equal(Number(snap.l.get(uri)), e.lastUsedAt, `${at} lastUsedAt`);
    assert.equal(snap.s.has(uri) ? JSON.parse(/** @type {string} */ (snap.s.get(uri))) : null, e.stale, `${at} stale cause`);
    assert.equal(JSON.stringify(JSON.parse(/** @type {string} */ (/** @type {Map<string, string>} */ (snap.p.get(JSON.stringify(e.conv))).get(uri)))), JSON.stringify(e.payload), `${at} payload`);
    const [pttlP, pttlI] = /** @type {number[]} */ (snap.pttl.get(JSON.stringify(e.conv)));
    assert.ok(pttlP > 0 && pttlI > 0, `${at} conversation keys carry a TTL (${pttlP}, ${pttlI})`);
  }
  const cache = rand() < 0.5 ? A : B;
  const stats = await cache.stats();
  assert.equal(stats.entries, entries, `${where}: stats().entries`);
  assert.equal(stats.bytes, bytes, `${where}: stats().bytes`);
  assert.equal(stats.conversations, new Set([...model.values()].map((e) => e.conv)).size, `${where}: stats().conversations`);
  const conv = rand() < 0.5 ? undefined : rand.pick(CONVS);
  const listed = await (rand() < 0.5 ? A : B).entries(conv === undefined ? undefined : { convId: conv });
  const expected = [...model].filter(([, e]) => conv === undefined || e.conv === conv).map(([uri]) => uri).sort();
  assert.deepEqual(listed.map((r) => r.uri).sort(), expected, `${where}: entries(${conv ?? ''})`);
  for (const row of listed) {
    const e = /** @type {Entry} */ (model.get(row.uri));
    assert.equal(row.convId, e.conv);
    assert.equal(row.sourceToolName, e.tool);
    assert.equal(row.sizeBytes, e.size);
    assert.equal(row.addedAt, e.addedAt);
    assert.equal(row.lastUsedAt, e.lastUsedAt);
    assert.equal(row.staleCause ?? null, e.stale);
  }
}

/**
 * Several writes called at once on both instances: their order in Redis is unknown. When they
 * all fit the model is exact; otherwise it checks that only the least recently used went, and
 * adopts which of the new entries Redis kept.
 * @param {Run} run
 */
async function burst(run) {
  const { rand, model, A, B } = run;
  const clock = run.clock;
  const calls = Array.from({ length: 2 + rand.int(4) }, () => {
    const payload = makePayload(run);
    const conv = rand.pick(CONVS);
    const tool = rand.pick(TOOLS);
    return { payload, conv, tool, promise: (rand() < 0.5 ? A : B).cacheToolResult({ payload, convId: conv, sourceToolName: tool }) };
  });
  const uris = /** @type {string[]} */ (await Promise.all(calls.map((c) => c.promise)));
  const fits = CONVS.every((conv) => {
    const mineNow = calls.filter((c) => c.conv === conv);
    const extra = mineNow.reduce((sum, c) => sum + utf8(c.payload), 0);
    return modelBytes(model, conv) + extra <= MAX_BYTES && mine(model, conv).length + mineNow.length <= MAX_ENTRIES;
  });
  if (fits) {
    for (const [i, c] of calls.entries()) model.set(uris[i], { conv: c.conv, size: utf8(c.payload), tool: c.tool, addedAt: clock, lastUsedAt: clock, stale: null, payload: c.payload });
    return;
  }
  // Evictions: the survivors are Redis' business, but only the LRU head may go and every
  // survivor must be one the model knows.
  const snap = await snapshot([rawClient], run.prefix);
  const present = new Set(snap.x.keys());
  for (const conv of CONVS) {
    const before = lru(model, conv).map(([uri]) => uri);
    const evicted = before.filter((uri) => !present.has(uri));
    assert.deepEqual(evicted, before.slice(0, evicted.length), `evictions in ${conv} take its least recently used first`);
    for (const uri of evicted) model.delete(uri);
  }
  for (const [i, c] of calls.entries()) {
    if (present.has(uris[i])) model.set(uris[i], { conv: c.conv, size: utf8(c.payload), tool: c.tool, addedAt: clock, lastUsedAt: clock, stale: null, payload: c.payload });
  }
  const newest = uris.filter((uri) => present.has(uri));
  assert.ok(newest.length >= 1, 'the last write called is kept');
}

/** A lookup through either instance, of a known entry (sometimes in another conversation) or an unknown one. @param {Run} run */
async function read(run) {
  const { rand, model, A, B } = run;
  const clock = run.clock;
  const cache = rand() < 0.5 ? A : B;
  const known = [...model.keys()];
  const pick = rand();
  let uri;
  let conv;
  if (known.length > 0 && pick < 0.75) {
    uri = rand.pick(known);
    conv = rand() < 0.85 ? /** @type {Entry} */ (model.get(uri)).conv : rand.pick(CONVS);
  } else {
    conv = rand.pick(CONVS);
    uri = `mcp+cache://${conv}/${'Zz09_-ab'.repeat(1).slice(0, 8)}${rand.int(1000)}`;
  }
  const entry = model.get(uri);
  const result = await cache.lookup(uri, { convId: conv });
  // A read of a stored entry is a use (LRU and TTL) when the reference's segment is the
  // conversation's own (these ids are their own segments): one scoped to another
  // conversation answers a miss without reading anything (the memory storage behaves the same).
  if (entry && uri.startsWith(`mcp+cache://${sanitizeConvId(conv)}/`)) entry.lastUsedAt = Math.max(entry.lastUsedAt, clock);
  if (!entry || entry.conv !== conv) {
    assert.equal(result.status, 'miss', `lookup ${uri} in ${conv}`);
    return;
  }
  if (entry.stale !== null) assert.deepEqual(result, { status: 'stale', cause: entry.stale, sourceToolName: entry.tool });
  else assert.deepEqual(result, { status: 'hit', payload: entry.payload });
}

/** A random step of each kind (but the TTL step), over `run`. */
const ops = {
  /** @param {Run} run */
  async write(run) {
    const { rand, model, A, B } = run;
    const clock = run.clock;
    const cache = rand() < 0.5 ? A : B;
    const payload = makePayload(run);
    const conv = rand.pick(CONVS);
    const tool = rand.pick(TOOLS);
    const uri = /** @type {string} */ (await cache.cacheToolResult({ payload, convId: conv, sourceToolName: tool }));
    assert.equal(typeof uri, 'string');
    assert.ok(!model.has(uri));
    modelWrite(model, uri, { conv, size: utf8(payload), tool, addedAt: clock, lastUsedAt: clock, stale: null, payload });
  },
  burst,
  read,
  /** @param {Run} run */
  async pointer(run) {
    const { rand, model, A, B } = run;
    const clock = run.clock;
    const known = [...model].filter(([, e]) => e.stale === null && Array.isArray(/** @type {{ rows?: unknown }} */ (e.payload).rows));
    if (known.length === 0) return ops.read(run);
    const [uri, entry] = rand.pick(known);
    const index = rand.int(/** @type {{ rows: unknown[] }} */ (entry.payload).rows.length);
    const answer = /** @type {{ ok: boolean, args?: unknown, sources?: import('mcp-result-cache').ReferenceSource[] }} */ (
      await (rand() < 0.5 ? A : B).substituteCacheUris({ data_uri: `${uri}#/rows/${index}` }, { convId: entry.conv }));
    assert.deepEqual({ ok: answer.ok, args: answer.args }, { ok: true, args: { data: /** @type {{ rows: unknown[] }} */ (entry.payload).rows[index] } });
    // Where the data came from: the entry's tool (what a flow policy checks).
    assert.equal(answer.sources?.[0]?.sourceToolName, entry.tool);
    entry.lastUsedAt = Math.max(entry.lastUsedAt, clock);
  },
  /** @param {Run} run */
  async clear(run) {
    const { rand, model, A, B } = run;
    const conv = rand.pick(CONVS);
    await (rand() < 0.5 ? A : B).clearConversation(conv);
    for (const [uri, e] of model) if (e.conv === conv) model.delete(uri);
  },
  /** @param {Run} run */
  async invalidate(run) {
    const { rand, model, A, B } = run;
    const pattern = rand.pick(PATTERNS);
    const cause = `cause-${rand.int(100)}`;
    const cache = rand() < 0.5 ? A : B;
    let expected = 0;
    for (const e of model.values()) if (e.stale === null && matchGlob(pattern, e.tool)) expected += 1;
    const marked = rand() < 0.3
      ? (await cache.handleNotification({ method: 'notifications/resources/updated', params: { uri: `mcpfusion://stale/${pattern}` } }), null)
      : await cache.invalidate([pattern], { cause });
    for (const e of model.values()) {
      if (e.stale === null && matchGlob(pattern, e.tool)) e.stale = marked === null ? (await snapshotCause(run, e)) : cause;
    }
    if (marked !== null) assert.equal(marked, expected, `invalidate ${pattern}`);
  },
  /** @param {Run} run */
  async evictOlderThan(run) {
    const { rand, model, A, B } = run;
    const clock = run.clock;
    const maxAgeMs = (1 + rand.int(25)) * 1000 - rand.int(2) * 500;
    const cutoff = clock - maxAgeMs;
    await (rand() < 0.5 ? A : B).evictOlderThan({ maxAgeMs });
    for (const [uri, e] of model) if (e.addedAt < cutoff) model.delete(uri);
  },
};

// A stale notification's cause is the cache's to word: read what it recorded (the model
// already knows WHICH entries must be stale; the check compares the rest).
/** @param {Run} run @param {Entry} entry @returns {Promise<string>} */
async function snapshotCause(run, entry) {
  run.lastSnapshot ??= await snapshot([rawClient], run.prefix);
  const uri = /** @type {[string, Entry]} */ ([...run.model].find(([, e]) => e === entry))[0];
  const cause = run.lastSnapshot.s.get(uri);
  assert.ok(cause !== undefined, `${uri} marked stale by the notification`);
  return JSON.parse(cause);
}

/**
 * The real-time TTL step: conversations written through S expire unless read within the TTL.
 * @param {Run} run
 * @param {number} index
 */
async function ttlStep(run, index) {
  const { seed, prefix, model, A, B, S } = run;
  const clock = run.clock;
  const idle = `ttl-idle-${seed}-${index}`;
  const kept = `ttl-kept-${seed}-${index}`;
  /** @type {Record<string, number>} */
  const sizeOf = {};
  /** @type {Record<string, string>} */
  const uris = {};
  for (const conv of [idle, kept]) {
    const payload = { conv, rows: [1, 2, 3] };
    uris[conv] = /** @type {string} */ (await S.cacheToolResult({ payload, convId: conv, sourceToolName: 'ttl.tool' }));
    sizeOf[conv] = utf8(payload);
    modelWrite(model, uris[conv], { conv, size: sizeOf[conv], tool: 'ttl.tool', addedAt: clock, lastUsedAt: clock, stale: null, payload });
  }
  const idleKeys = ['rows', 'lru', 'added', 'fresh'].map((k) => `${prefix}{${idle}}:${k}`);
  for (const key of idleKeys) {
    const pttl = Number(await raw(['PTTL', key]));
    assert.ok(pttl > 0 && pttl <= SHORT_TTL, `${key} PTTL ${pttl}`);
  }
  // Read "kept" through S every 100 ms until Redis has dropped "idle".
  const deadline = Date.now() + SHORT_TTL * 10;
  while (Number(await raw(['EXISTS', ...idleKeys])) > 0) {
    assert.ok(Date.now() < deadline, 'the idle conversation expired');
    assert.equal((await S.lookup(uris[kept], { convId: kept })).status, 'hit', 'a conversation read within its TTL stays');
    if (model.has(uris[kept])) /** @type {Entry} */ (model.get(uris[kept])).lastUsedAt = Math.max(/** @type {Entry} */ (model.get(uris[kept])).lastUsedAt, clock);
    await sleep(100);
  }
  // Back to the long TTL for "kept" through A.
  const stillKept = await A.lookup(uris[kept], { convId: kept });
  assert.equal(stillKept.status, model.has(uris[kept]) ? 'hit' : 'miss');
  model.delete(uris[idle]);
  assert.equal((await B.lookup(uris[idle], { convId: idle })).status, 'miss', 'expired');
}

/** @type {[keyof typeof ops, number][]} */
const weights = [['write', 30], ['burst', 6], ['read', 25], ['pointer', 6], ['clear', 6], ['invalidate', 10], ['evictOlderThan', 5]];

/**
 * STEPS random steps of `seed` (two of them TTL steps), each followed by the check.
 * @param {import('node:test').TestContext} t
 * @param {number} seed
 */
async function runSeed(t, seed) {
  const run = newRun(seed);
  /** @type {Record<string, number>} */
  const counts = {};
  const { rand, model } = run;
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  const ttlSteps = new Set([Math.floor(STEPS / 3), Math.floor((2 * STEPS) / 3)]);
  for (let step = 0; step < STEPS; step += 1) {
    run.clock += rand.int(3) * 500; // sometimes the same ms: lastUsedAt ties, ordered by uri
    run.lastSnapshot = null;
    /** @type {keyof typeof ops | 'ttl' | undefined} */
    let name;
    if (ttlSteps.has(step)) {
      name = 'ttl';
      await ttlStep(run, step);
    } else {
      let r = rand.int(total);
      for (const [op, w] of weights) {
        if (r < w) {
          name = op;
          break;
        }
        r -= w;
      }
      await ops[/** @type {keyof typeof ops} */ (name)](run);
    }
    counts[/** @type {string} */ (name)] = (counts[/** @type {string} */ (name)] ?? 0) + 1;
    await check(run, `seed ${seed} step ${step} (${name})`);
  }
  t.diagnostic(`seed ${seed}: ${JSON.stringify(counts)}; ${model.size} entries at the end`);
  assert.ok(counts.ttl === 2 || STEPS < 3);
}

for (const seed of SEEDS) {
  test(`seed ${seed}: ${STEPS} random steps over two instances agree with the model and keep every invariant`, (t) => runSeed(t, seed));
}
