// `mcp-result-cache/storage-conformance`: what every `storage` of a `ResultCache` promises
// (docs/STORAGE.md), as node:test tests a third party runs against its own adapter:
//
//   import { test } from 'node:test';
//   import { storageConformance } from 'mcp-result-cache/storage-conformance';
//   storageConformance(async () => myAdapter(), { test });
//
// Every test makes a fresh storage with `makeStorage()` and a `ResultCache` over it, and checks
// behaviour through the cache's public API: exact round trips, reads of several references,
// call order, the budget and the least-recently-used order within a conversation, clears, age
// eviction, invalidation, derived entries, stale marks, listing, refusals that change nothing,
// values a format would change kept exactly or refused, never changed;
// and, called on a storage object itself, `evictOldest` and `consumeOnce`. An engine's stronger
// promises (the memory store's one LRU order over every conversation) are its own tests, not these.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { ResultCache, ready, sanitizeConvId } from 'mcp-result-cache';
import { CACHE_URI_SCHEME } from './protocol.mjs';

/**
 * @typedef {import('./storage-conformance.d.ts').StorageConformanceOptions} Options
 * @typedef {import('./storage-conformance.d.ts').StorageFactory} StorageFactory
 * @typedef {{ uri: string, convId: string, sourceToolName: string, addedAt: number, sizeBytes: number, staleCause?: unknown, derivedFrom?: string }} EntryInfo
 * @typedef {{ kind: string, reason?: string, count?: number }} Event
 */

const STALE = (/** @type {string} */ pattern) => ({ method: 'notifications/resources/updated', params: { uri: `mcpfusion://stale/${pattern}` } });
const utf8 = (/** @type {unknown} */ value) => new TextEncoder().encode(JSON.stringify(value)).length;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rows = (/** @type {number} */ count) => Array.from({ length: count }, (_, i) => ({ id: i, host: i % 3 ? 'web' : 'db' }));
/** What the `evict` events of `reason` counted. @param {Event[]} events @param {string} reason */
const evicted = (events, reason) => events.reduce((sum, e) => sum + (e.kind === 'evict' && e.reason === reason ? Number(e.count) : 0), 0);

/**
 * The method `key` of a storage object, bound to it; `undefined` for a storage named by a string
 * (`"memory"`), which has no methods to call.
 * @param {unknown} storage @param {string} key @returns {((...args: unknown[]) => Promise<unknown>) | undefined}
 */
function methodOf(storage, key) {
  /** @type {unknown} */
  const method = storage !== null && typeof storage === 'object' ? Reflect.get(storage, key) : undefined;
  return typeof method === 'function' ? async (...args) => Reflect.apply(method, storage, args) : undefined;
}

/** Values every engine keeps exactly (JSON's, with the structured-clone engines agreeing). */
const ROUND_TRIPS = [
  { s: 'héllo wörld — ✓ 日本語 Ω', k: { 'clé': 'ü', '': '' } },
  { astral: '😀𝄞🀄\u{10ffff}', '😀': ['𝄞'] },
  { nul: 'a\u0000b', ctl: '\u0001\u001f\u007f', quote: '"\\/', lines: '\r\n\t' },
  { n: [Number.MAX_SAFE_INTEGER, 1e308, -1.7976931348623157e308, 5e-324, 0.1 + 0.2, -0.5, 0, 1e21, 1e-7] },
  [[], {}, [[[[]]]], [null, true, false], { deep: { deeper: { deepest: [1, 'two', null] } } }],
  { big: 'x'.repeat(256 * 1024) },
];

/**
 * Values JSON would silently change, each with the test of reading back exactly what was written:
 * a storage keeps them exactly (structured clone) or refuses them (JSON), never changes them.
 * @type {[string, unknown, (back: unknown) => boolean][]}
 */
const CHANGED_BY_JSON = [
  ['NaN', { n: NaN }, (back) => isObject(back) && Object.keys(back).join() === 'n' && Object.is(back.n, NaN)],
  ['-0', { z: -0 }, (back) => isObject(back) && Object.keys(back).join() === 'z' && Object.is(back.z, -0)],
  ['an undefined member', { u: undefined, k: 1 }, (back) => isObject(back) && Object.keys(back).join() === 'u,k' && back.u === undefined && back.k === 1],
  ['a Date', { d: new Date(0) }, (back) => isObject(back) && Object.keys(back).join() === 'd' && back.d instanceof Date && back.d.getTime() === 0],
];

/** @param {unknown} value @returns {value is Record<string, unknown>} */
function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Registers the conformance tests of one storage with `test` (node:test's, or one with its
 * signature).
 * @param {StorageFactory} makeStorage An async factory of a fresh storage value, as
 *   `new ResultCache({ storage })` takes it: `"memory"`, `redisStorage(client)`, an adapter.
 * @param {Options} options `test`: node:test's `test`; `name`: prefixes every test's name.
 * @returns {void}
 */
export function storageConformance(makeStorage, options) {
  if (typeof makeStorage !== 'function') throw new TypeError('storageConformance: makeStorage must be an async function that makes a storage');
  if (options === null || typeof options !== 'object' || typeof options.test !== 'function') {
    throw new TypeError('storageConformance: options.test must be node:test\'s test function');
  }
  const { test, name = 'storage' } = options;
  /** @type {Set<ResultCache>} */
  const open = new Set();
  /** A cache over a fresh storage; `clock` is its `now` (each call adds `step`). @type {Fresh} */
  const fresh = async (limits = {}) => {
    const storage = await makeStorage();
    const clock = { now: 1_000_000, step: 1 };
    const cache = new ResultCache({ threshold: 1, ...limits, storage, now: () => (clock.now += clock.step) });
    open.add(cache);
    return { cache, storage, clock };
  };
  /** @type {Check} */
  const check = (title, body) => {
    test(`${name}: ${title}`, async (t) => {
      try {
        await body(fresh, t);
      } finally {
        for (const cache of open) cache.close();
        open.clear();
      }
    });
  };
  registerData(check);
  registerBudget(check);
  registerClears(check);
  registerInvalidation(check);
  registerConsume(check, test, name, makeStorage);
}

/**
 * @typedef {(limits?: Record<string, unknown>) => Promise<{ cache: ResultCache, storage: unknown, clock: { now: number, step: number } }>} Fresh
 * @typedef {{ skip(message?: string): void }} TestContext
 * @typedef {(title: string, body: (fresh: Fresh, t: TestContext) => Promise<void>) => void} Check
 */

/** @param {Check} check */
function registerData(check) {
  check('payloads round trip exactly; sizes, conversation and tool are kept', async (fresh) => {
    const { cache } = await fresh();
    const uris = [];
    for (const payload of ROUND_TRIPS) uris.push(await cache.cacheToolResult({ payload, convId: 'rt', sourceToolName: 'rt.tool' }));
    for (const [i, payload] of ROUND_TRIPS.entries()) {
      assert.equal(typeof uris[i], 'string', `payload ${i} stored`);
      assert.deepEqual(await cache.readCachedPayload(uris[i], { convId: 'rt' }), payload, `payload ${i} round trips`);
    }
    /** @type {EntryInfo[]} */
    const listed = await cache.entries({ convId: 'rt' });
    assert.equal(listed.length, ROUND_TRIPS.length);
    for (const row of listed) {
      const i = uris.indexOf(row.uri);
      assert.ok(i >= 0, `listed ${row.uri} was written`);
      assert.equal(row.convId, 'rt');
      assert.equal(row.sourceToolName, 'rt.tool');
      assert.equal(row.sizeBytes, utf8(ROUND_TRIPS[i]), `size of payload ${i}`);
    }
    assert.equal(await cache.readCachedPayload(uris[0], { convId: 'other' }), null, 'another conversation does not see it');
    assert.equal((await cache.lookup(`${CACHE_URI_SCHEME}rt/AAAAAAAAAAA`, { convId: 'rt' })).status, 'miss', 'a reference never written misses');
  });

  check('a read of several references answers each its own row, in order, a miss exactly where one is absent', async (fresh) => {
    const { cache } = await fresh();
    const u = [];
    for (const v of ['A', 'B', 'C']) u.push(String(await cache.cacheToolResult({ payload: { v }, convId: 'm', sourceToolName: 't' })));
    const absent = `${CACHE_URI_SCHEME}m/AAAAAAAAAAA`;
    const read = await cache.substituteCacheUris({ first_uri: u[0], all_uri: [u[2], u[0], u[1]] }, { convId: 'm' });
    assert.ok(read.ok, 'every reference resolves');
    assert.deepEqual(read.args, { first: { v: 'A' }, all: [{ v: 'C' }, { v: 'A' }, { v: 'B' }] }, 'read(uris) answers the rows in the order of uris');
    const holed = await cache.substituteCacheUris({ all_uri: [u[0], absent, u[2]] }, { convId: 'm' });
    assert.ok(!holed.ok, 'a reference never written does not resolve');
    assert.deepEqual(holed.envelope._missing_uris, [absent], 'read(uris) answers undefined exactly where a row is absent, its other rows in place');
  });

  check('call order: a read, a listing and the totals called after a write see it; a clear wins over the writes called before it only', async (fresh) => {
    const { cache } = await fresh();
    const early = Array.from({ length: 8 }, (_, i) => cache.cacheToolResult({ payload: { i, rows: rows(4) }, convId: 'L' }));
    const clear = cache.clearConversation('L');
    const late = Array.from({ length: 8 }, (_, i) => cache.cacheToolResult({ payload: { i, late: true }, convId: 'L' }));
    const listed = cache.entries({ convId: 'L' });
    const stats = cache.stats();
    await Promise.all([...early, clear, ...late]);
    const lateUris = await Promise.all(late);
    assert.deepEqual((await listed).map((/** @type {EntryInfo} */ r) => r.uri).sort(), [...lateUris].sort());
    assert.equal((await stats).entries, 8);
    for (const uri of await Promise.all(early)) assert.equal((await cache.lookup(uri, { convId: 'L' })).status, 'miss');
    const write = cache.cacheToolResult({ payload: { fresh: 1 }, convId: 'M' });
    const seen = cache.lookup(await write, { convId: 'M' });
    assert.equal((await seen).status, 'hit');
  });

  check('the totals: entries, bytes and conversations', async (fresh) => {
    const { cache } = await fresh();
    const a = { a: rows(3) };
    const b = { b: 'β'.repeat(100) };
    await cache.cacheToolResult({ payload: a, convId: 'c1', sourceToolName: 't' });
    await cache.cacheToolResult({ payload: b, convId: 'c2', sourceToolName: 't' });
    await cache.cacheToolResult({ payload: a, convId: 'c2', sourceToolName: 't' });
    const stats = await cache.stats();
    assert.equal(stats.entries, 3);
    assert.equal(stats.bytes, 2 * utf8(a) + utf8(b));
    assert.equal(stats.conversations, 2);
  });

  check('a value the storage cannot keep is refused and nothing changes', async (fresh) => {
    const { cache } = await fresh();
    await cache.cacheToolResult({ payload: { ok: 1 }, convId: 'c1', sourceToolName: 't' });
    const before = await cache.stats();
    for (const payload of [{ f() {} }, { s: Symbol('s') }]) {
      let outcome;
      try {
        outcome = await cache.cacheToolResult({ payload, convId: 'c1', sourceToolName: 'bad' });
      } catch (error) {
        assert.ok(error instanceof Error, 'rejects with an Error');
        continue;
      }
      assert.equal(outcome, null, 'or resolves null');
    }
    assert.deepEqual(await cache.stats(), before, 'totals unchanged');
    assert.equal((await cache.entries()).length, 1);
  });

  check('a value JSON would change (NaN, -0, an undefined member, a Date) is kept exactly or refused, never changed', async (fresh) => {
    const { cache } = await fresh();
    await cache.cacheToolResult({ payload: { ok: 1 }, convId: 'c1', sourceToolName: 't' });
    for (const [name, payload, same] of CHANGED_BY_JSON) {
      const before = await cache.stats();
      let uri;
      try {
        uri = await cache.cacheToolResult({ payload, convId: 'c1', sourceToolName: 'changed' });
      } catch (error) {
        assert.ok(error instanceof Error, `${name}: rejects with an Error`);
      }
      if (typeof uri !== 'string') {
        assert.equal(uri ?? null, null, `${name}: refused (a rejection or null)`);
        assert.deepEqual(await cache.stats(), before, `${name}: refused, the totals unchanged`);
        continue;
      }
      const back = await cache.readCachedPayload(uri, { convId: 'c1' });
      assert.ok(same(back), `${name}: stored, it must read back exactly as written (${inspect(payload)}), not as ${inspect(back)}`);
    }
  });
}

/** @param {Check} check */
function registerBudget(check) {
  check('budget: maxEntries holds within a conversation, least recently used out first', async (fresh) => {
    const { cache } = await fresh({ maxEntries: 3 });
    const u = [];
    for (let i = 0; i < 3; i += 1) u.push(await cache.cacheToolResult({ payload: { i }, convId: 'c1', sourceToolName: 't' }));
    assert.deepEqual(await cache.readCachedPayload(u[0], { convId: 'c1' }), { i: 0 }, 'a read makes u0 the newest');
    u.push(await cache.cacheToolResult({ payload: { i: 3 }, convId: 'c1', sourceToolName: 't' }));
    assert.equal((await cache.lookup(u[1], { convId: 'c1' })).status, 'miss', 'the least recently used went');
    for (const i of [0, 2, 3]) assert.equal((await cache.lookup(u[i], { convId: 'c1' })).status, 'hit', `u${i} kept`);
    assert.ok((await cache.stats()).entries <= 3);
    assert.equal((await cache.entries({ convId: 'c1' })).length, 3);
  });

  check('budget: maxBytes holds within a conversation, a row fitting it exactly; write answers how many it evicted; an evicted entry is a whole miss', async (fresh) => {
    const payload = (/** @type {number} */ i) => ({ i, blob: 'x'.repeat(1000) });
    const size = utf8(payload(0));
    /** @type {Event[]} */
    const events = [];
    const { cache } = await fresh({ maxBytes: size * 3, onEvent: (/** @type {Event} */ e) => events.push(e) });
    const u = [];
    for (let i = 0; i < 6; i += 1) u.push(await cache.cacheToolResult({ payload: payload(i), convId: 'c1', sourceToolName: 't' }));
    const stats = await cache.stats();
    assert.equal(stats.entries, 3, 'maxBytes of exactly three entries holds three: a write fits when the bytes with it are <= maxBytes');
    assert.equal(stats.bytes, size * 3);
    assert.equal(evicted(events, 'budget'), 3, 'write answers [evicted, …]: how many rows it evicted (the cache\'s `evict` events count them)');
    for (const i of [0, 1, 2]) {
      assert.equal((await cache.lookup(u[i], { convId: 'c1' })).status, 'miss');
      assert.equal(await cache.readCachedPayload(`${u[i]}#/blob`, { convId: 'c1' }), null, 'no part of it either');
    }
    for (const i of [3, 4, 5]) assert.deepEqual(await cache.readCachedPayload(u[i], { convId: 'c1' }), payload(i));
  });

  check('evictOldest(bytes) frees at least bytes, least recently used first, and answers how many it evicted', async (fresh, t) => {
    const { cache, storage } = await fresh();
    const evictOldest = methodOf(storage, 'evictOldest');
    if (!evictOldest) {
      t.skip('this storage value is not an object with evictOldest');
      return;
    }
    const payload = (/** @type {number} */ i) => ({ i, blob: 'x'.repeat(500) });
    const size = utf8(payload(0));
    const u = [];
    for (let i = 0; i < 4; i += 1) u.push(String(await cache.cacheToolResult({ payload: payload(i), convId: 'c1', sourceToolName: 't' })));
    assert.deepEqual(await cache.readCachedPayload(u[0], { convId: 'c1' }), payload(0), 'a read makes u0 the newest');
    const order = [u[1], u[2], u[3], u[0]];
    const count = await evictOldest(size + 1);
    const kept = (await cache.entries({ convId: 'c1' })).map((/** @type {EntryInfo} */ r) => r.uri);
    const gone = order.filter((uri) => !kept.includes(uri));
    assert.ok(gone.length * size >= size + 1, `evictOldest(${size + 1}) frees at least that many bytes (it evicted ${gone.length} rows of ${size} bytes)`);
    assert.deepEqual(gone, order.slice(0, gone.length), 'evictOldest evicts the least recently used rows first');
    assert.equal(count, gone.length, 'evictOldest answers how many rows it evicted');
    assert.equal(await evictOldest(size * 100), kept.length, 'asked for more than there is, evictOldest evicts every row and counts them');
    assert.equal((await cache.stats()).entries, 0);
  });

  check('LRU: a write never evicts the entry it writes, and a rewrite of a reference replaces it', async (fresh) => {
    const { cache } = await fresh({ maxEntries: 1 });
    const a = await cache.cacheToolResult({ payload: { a: 1 }, convId: 'c1', sourceToolName: 't' });
    const b = await cache.cacheToolResult({ payload: { b: 2 }, convId: 'c1', sourceToolName: 't' });
    assert.equal((await cache.lookup(a, { convId: 'c1' })).status, 'miss');
    assert.deepEqual(await cache.lookup(b, { convId: 'c1' }), { status: 'hit', payload: { b: 2 } });
    assert.equal((await cache.stats()).entries, 1);
  });
}

/** @param {Check} check */
function registerClears(check) {
  check('clearConversation deletes exactly that conversation', async (fresh) => {
    const { cache } = await fresh();
    const ids = ['c1', 'c2', 'we"ird ü/id {x}', ''];
    /** @type {Record<string, string>} */
    const uris = {};
    for (const id of ids) uris[id] = String(await cache.cacheToolResult({ payload: { id }, convId: id, sourceToolName: 't' }));
    await cache.clearConversation('we"ird ü/id {x}');
    await cache.clearConversation('c1');
    assert.equal((await cache.lookup(uris.c1, { convId: 'c1' })).status, 'miss');
    assert.equal((await cache.lookup(uris['we"ird ü/id {x}'], { convId: 'we"ird ü/id {x}' })).status, 'miss');
    assert.deepEqual(await cache.readCachedPayload(uris.c2, { convId: 'c2' }), { id: 'c2' });
    assert.deepEqual((await cache.entries()).map((/** @type {EntryInfo} */ r) => r.convId).sort(), ['', 'c2'].sort());
    assert.equal((await cache.stats()).conversations, 2);
    await cache.clearConversation('');
    assert.equal((await cache.lookup(uris[''], { convId: '' })).status, 'miss', 'remove("") clears the conversation whose id is the empty string');
    assert.deepEqual(await cache.readCachedPayload(uris.c2, { convId: 'c2' }), { id: 'c2' }, 'remove("") clears that conversation only');
    assert.equal((await cache.stats()).conversations, 1);

    // Two ids of one URI segment, 'a b' and the id spelled like its segment ('a_b-…'), are still
    // two conversations: each is listed and cleared by its exact id.
    await ready();
    const spaced = 'a b';
    const segment = sanitizeConvId(spaced);
    assert.notEqual(segment, spaced);
    for (const id of [spaced, segment]) uris[id] = String(await cache.cacheToolResult({ payload: { id }, convId: id, sourceToolName: 't' }));
    for (const [id, other] of [[spaced, segment], [segment, spaced]]) {
      assert.deepEqual((await cache.entries({ convId: id })).map((/** @type {EntryInfo} */ r) => r.uri), [uris[id]], `list(${JSON.stringify(id)}) lists exactly its own rows, not those of ${JSON.stringify(other)} (same URI segment)`);
    }
    await cache.clearConversation(spaced);
    assert.equal((await cache.lookup(uris[spaced], { convId: spaced })).status, 'miss');
    assert.deepEqual(await cache.readCachedPayload(uris[segment], { convId: segment }), { id: segment }, `remove(${JSON.stringify(spaced)}) leaves ${JSON.stringify(segment)}, whose id is its URI segment`);
    assert.deepEqual((await cache.entries({ convId: segment })).map((/** @type {EntryInfo} */ r) => r.uri), [uris[segment]]);
    uris[spaced] = String(await cache.cacheToolResult({ payload: { again: 1 }, convId: spaced, sourceToolName: 't' }));
    await cache.clearConversation(segment);
    assert.equal((await cache.lookup(uris[segment], { convId: segment })).status, 'miss');
    assert.deepEqual(await cache.readCachedPayload(uris[spaced], { convId: spaced }), { again: 1 }, `remove(${JSON.stringify(segment)}) leaves ${JSON.stringify(spaced)}`);
    assert.deepEqual((await cache.entries()).map((/** @type {EntryInfo} */ r) => r.convId).sort(), ['c2', spaced].sort());
  });

  check('evictOlderThan deletes the entries added before the cutoff, in every conversation, and not one added at it', async (fresh) => {
    /** @type {Event[]} */
    const events = [];
    const { cache, clock } = await fresh({ onEvent: (/** @type {Event} */ e) => events.push(e) });
    const old1 = await cache.cacheToolResult({ payload: { o: 1 }, convId: 'c1', sourceToolName: 't' });
    const old2 = await cache.cacheToolResult({ payload: { o: 2 }, convId: 'c2', sourceToolName: 't' });
    clock.now += 60_000;
    const young = await cache.cacheToolResult({ payload: { y: 1 }, convId: 'c1', sourceToolName: 't' });
    const { addedAt } = /** @type {EntryInfo} */ ((await cache.entries()).find((/** @type {EntryInfo} */ r) => r.uri === young));
    // The clock stops where the cutoff, now - maxAgeMs, is exactly the young entry's addedAt.
    Object.assign(clock, { now: addedAt + 30_000, step: 0 });
    await cache.evictOlderThan({ maxAgeMs: 30_000 });
    assert.equal((await cache.lookup(old1, { convId: 'c1' })).status, 'miss');
    assert.equal((await cache.lookup(old2, { convId: 'c2' })).status, 'miss');
    assert.equal((await cache.lookup(young, { convId: 'c1' })).status, 'hit', 'remove(undefined, cutoff) deletes addedAt < cutoff: an entry added at the cutoff stays');
    assert.equal((await cache.stats()).entries, 1);
    assert.equal(evicted(events, 'maxAge'), 2, 'remove answers how many rows it deleted');
  });
}

/** @param {Check} check */
function registerInvalidation(check) {
  check('invalidate marks the fresh entries of matching tools stale in every conversation, once', async (fresh) => {
    const { cache } = await fresh();
    const bill1 = await cache.cacheToolResult({ payload: { b: 1 }, convId: 'c1', sourceToolName: 'billing.get_invoice' });
    const bill2 = await cache.cacheToolResult({ payload: { b: 2 }, convId: 'c2', sourceToolName: 'billing.list' });
    const other = await cache.cacheToolResult({ payload: { o: 1 }, convId: 'c2', sourceToolName: 'crm.get' });
    assert.equal(await cache.invalidate(['billing.*'], { cause: 'billing.refund' }), 2);
    assert.deepEqual(await cache.lookup(bill1, { convId: 'c1' }), { status: 'stale', cause: 'billing.refund', sourceToolName: 'billing.get_invoice' });
    assert.equal((await cache.lookup(bill2, { convId: 'c2' })).status, 'stale');
    assert.equal(await cache.readCachedPayload(bill2, { convId: 'c2' }), null, 'a stale entry resolves nothing');
    assert.equal((await cache.lookup(other, { convId: 'c2' })).status, 'hit');
    assert.equal(await cache.invalidate(['billing.*'], { cause: 'again' }), 0, 'already stale: not marked again');
    assert.equal((await cache.lookup(bill1, { convId: 'c1' })).status, 'stale');
    /** @type {EntryInfo[]} */
    const listed = await cache.entries();
    assert.equal(listed.find((r) => r.uri === bill1)?.staleCause, 'billing.refund', 'the first cause stays');
    assert.ok(listed.find((r) => r.uri === other)?.staleCause == null);
    const rewritten = await cache.cacheToolResult({ payload: { b: 3 }, convId: 'c1', sourceToolName: 'billing.get_invoice' });
    assert.equal((await cache.lookup(rewritten, { convId: 'c1' })).status, 'hit', 'a new entry of the tool is fresh');
    assert.equal(await cache.invalidate(['billing.*'], { cause: 'second' }), 1, 'markStale marks and counts the fresh rows only: a stale row of the same tool is not counted again');
    assert.deepEqual(await cache.lookup(bill1, { convId: 'c1' }), { status: 'stale', cause: 'billing.refund', sourceToolName: 'billing.get_invoice' }, 'a stale row keeps its first cause');
    assert.deepEqual(await cache.lookup(rewritten, { convId: 'c1' }), { status: 'stale', cause: 'second', sourceToolName: 'billing.get_invoice' });
  });

  check('a derived entry keeps its derivedFrom: it lists it, and reads stale with its source', async (fresh) => {
    const { cache } = await fresh();
    const source = await cache.cacheToolResult({ payload: { rows: rows(3) }, convId: 'd', sourceToolName: 'src.get' });
    const part = await cache.cacheToolResult({ payload: { picked: [1] }, convId: 'd', sourceToolName: 'pick', derivedFrom: `${source}#/rows` });
    /** @type {EntryInfo[]} */
    const listed = await cache.entries({ convId: 'd' });
    assert.equal(listed.find((r) => r.uri === part)?.derivedFrom, source, 'list() gives back a row\'s derivedFrom as written');
    assert.deepEqual(await cache.lookup(part, { convId: 'd' }), { status: 'hit', payload: { picked: [1] } });
    assert.equal(await cache.invalidate(['src.*'], { cause: 'src changed' }), 1);
    assert.deepEqual(await cache.lookup(part, { convId: 'd' }), { status: 'stale', cause: 'src changed', sourceToolName: 'src.get' },
      'read() gives back a row\'s derivedFrom as written: a derived entry reads stale with its source');
  });

  check('a stale notification marks matching entries; later operations see the marks', async (fresh) => {
    const { cache } = await fresh();
    const u = await cache.cacheToolResult({ payload: { s: 1 }, convId: 'c1', sourceToolName: 'store.query' });
    const v = await cache.cacheToolResult({ payload: { s: 2 }, convId: 'c1', sourceToolName: 'crm.get' });
    const marked = cache.handleNotification(STALE('store.*'));
    const seen = cache.lookup(u, { convId: 'c1' });
    assert.equal(await marked, 1);
    assert.equal((await seen).status, 'stale', 'a lookup called after the notification sees the mark');
    assert.equal((await cache.lookup(v, { convId: 'c1' })).status, 'hit');
  });
}

/**
 * @param {Check} check @param {Options['test']} test @param {string} name @param {StorageFactory} makeStorage
 */
function registerConsume(check, test, name, makeStorage) {
  test(`${name}: consumeOnce is true the first time within its TTL, false after, atomically`, async (t) => {
    const once = methodOf(await makeStorage(), 'consumeOnce');
    if (!once) {
      // A built-in storage named by a string ("memory") is not an object with methods.
      t.skip('this storage value is not an object with consumeOnce');
      return;
    }
    const key = `approval:${Math.random().toString(36).slice(2)}`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => once(key, 250)));
    assert.equal(answers.filter((a) => a === true).length, 1, 'exactly one of concurrent calls wins');
    assert.equal(await once(key, 250), false);
    assert.equal(await once(`${key}:other`, 250), true, 'another key is its own');
    await sleep(400);
    assert.equal(await once(key, 250), true, 'consumable again once its TTL passed');
    for (const [k, ms] of [['', 100], [7, 100], [key, 0], [key, -1], [key, 1.5], [key, '100']]) {
      await assert.rejects(async () => once(k, ms), TypeError, `consumeOnce(${JSON.stringify(k)}, ${JSON.stringify(ms)})`);
    }
  });
  void check;
}
