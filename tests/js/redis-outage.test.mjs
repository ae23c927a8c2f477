// `mcp-result-cache/redis` when its server dies: a standalone redis-server 7 is SIGKILLed under a
// cache with `timeoutMs: 1000`, through node-redis and ioredis. Every storage-backed method
// rejects within timeoutMs + slack with a NetworkError or TimeoutError (operations in flight at
// the kill too); `afterToolCall` still resolves what the model can read (the result itself, or a
// note that it was not kept). After a restart (an empty server that forgot the script), the same
// cache objects write and read again, the script reloaded on NOSCRIPT, in call order.
// Run: node --test tests/js/redis-outage.test.mjs
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.mjs';
import { closeClient, ioredisClient, nodeRedisClient, startRedis } from '../support/redis-servers.mjs';
import { sleep } from '../support/redis-model.mjs';

/** The SHA1 of js/redis-script.lua, as the storage sends it with EVALSHA. */
const SCRIPT_SHA = createHash('sha1').update(readFileSync(new URL('../../js/redis-script.lua', import.meta.url), 'utf8')).digest('hex');
const TIMEOUT_MS = 1000;
const SLACK_MS = 1500;
const rows = (/** @type {number} */ count) => Array.from({ length: count }, (_, i) => ({ i, name: `row ${i}`, value: (i * 37) % 101 }));
const DATA = { ok: true, rows: rows(20) };

/** @typedef {import('../support/redis-servers.mjs').TestClient} TestClient */
/** What `afterToolCall` resolves here: a tool result of text content. */
/** @typedef {{ isError?: boolean, content: { type: string, text: string }[] }} TextResult */

/**
 * @type {{
 *   name: string,
 *   make: (server: import('../support/redis-servers.mjs').RedisServer) => Promise<TestClient>,
 *   ready: (client: { isReady?: unknown, status?: unknown }) => boolean,
 * }[]}
 */
const kinds = [
  { name: 'node-redis', make: (server) => nodeRedisClient(server.url), ready: (client) => client.isReady === true },
  { name: 'ioredis', make: (server) => ioredisClient(server.port), ready: (client) => client.status === 'ready' },
];

/**
 * Awaits `promise`, which must reject with NetworkError/TimeoutError within the bound.
 * @param {string} what
 * @param {Promise<unknown>} promise
 * @param {number} [started]
 * @returns {Promise<Error>}
 */
async function rejectsInTime(what, promise, started = Date.now()) {
  /** @type {Error | undefined} */
  let error;
  try {
    const value = await promise;
    assert.fail(`${what}: resolved ${JSON.stringify(value)} while Redis is down`);
  } catch (caught) {
    error = /** @type {Error} */ (caught);
  }
  const elapsed = Date.now() - started;
  assert.ok(error?.name === 'NetworkError' || error?.name === 'TimeoutError', `${what}: ${error?.name}: ${error?.message}`);
  assert.ok(error instanceof Error, `${what}: an Error`);
  assert.ok(elapsed <= TIMEOUT_MS + SLACK_MS, `${what}: rejected after ${elapsed} ms`);
  // The operation is named once ("writing an entry: redisStorage: …"), never twice.
  assert.doesNotMatch(error.message, /^([a-z ]+): redisStorage: \1:/, `${what}: ${error.message}`);
  return error;
}

/**
 * Polls `condition` every 50 ms until it holds; fails after `ms`.
 * @param {string} what
 * @param {() => boolean | Promise<boolean>} condition
 * @param {number} [ms]
 */
async function until(what, condition, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms`);
    await sleep(50);
  }
}

/** @typedef {typeof kinds[number]} Kind */
/** @typedef {InstanceType<typeof ResultCache>} Cache */

/**
 * Kills the server under a write and a stats call in flight: each answers before the kill or
 * rejects in time.
 * @param {Cache} cache
 * @param {import('../support/redis-servers.mjs').RedisServer} server
 */
async function killWithOperationsInFlight(cache, server) {
  // Operations in flight when the server dies (handled at once: they may settle during the kill).
  const inFlight = /** @type {[string, Promise<unknown>][]} */ ([
    ['write in flight', cache.cacheToolResult({ payload: DATA, convId: 'c1' })],
    ['stats in flight', cache.stats()],
  ]).map(([what, promise]) => {
    const started = Date.now();
    return /** @type {[string, number, Promise<{ value: unknown } | { error: unknown, at: number }>]} */ (
      [what, started, promise.then((value) => ({ value }), (error) => ({ error, at: Date.now() }))]);
  });
  await server.kill();
  for (const [what, started, settled] of inFlight) {
    const outcome = await settled;
    // Either answered before the kill, or rejected in time.
    if ('error' in outcome) await rejectsInTime(what, Promise.reject(outcome.error), started - (Date.now() - outcome.at));
  }
}

/**
 * With the server down: every storage-backed method rejects in time, one by one and all at once
 * (`substituteCacheUris` may resolve a refusal instead).
 * @param {Cache} cache
 * @param {string | null} uri an entry written before the kill
 */
async function everyCallRejectsInTime(cache, uri) {
  const calls = {
    cacheToolResult: () => cache.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'metrics.query' }),
    readCachedPayload: () => cache.readCachedPayload(uri, { convId: 'c1' }),
    lookup: () => cache.lookup(uri, { convId: 'c1' }),
    substituteCacheUris: () => cache.substituteCacheUris({ data_uri: uri }, { convId: 'c1' }),
    stats: () => cache.stats(),
    entries: () => cache.entries(),
    clearConversation: () => cache.clearConversation('c1'),
    invalidate: () => cache.invalidate(['metrics.*'], { cause: 'outage' }),
    evictOlderThan: () => cache.evictOlderThan({ maxAgeMs: 1 }),
  };
  for (const [name, call] of Object.entries(calls)) {
    if (name === 'substituteCacheUris') {
      // Resolves an envelope for the model, or rejects like the others; never a hit.
      const started = Date.now();
      const outcome = /** @type {{ value: import('mcp-result-cache').SubstitutionResult, error?: undefined } | { error: Error, value?: undefined }} */ (
        await call().then((value) => ({ value }), (error) => ({ error })));
      if (outcome.error) await rejectsInTime(name, Promise.reject(outcome.error), started);
      else {
        assert.equal(outcome.value.ok, false, `${name}: not resolved while Redis is down`);
        assert.ok(Date.now() - started <= TIMEOUT_MS + SLACK_MS);
      }
      continue;
    }
    await rejectsInTime(name, call());
  }
  // All of them at once, too.
  const started = Date.now();
  await Promise.all(Object.entries(calls).filter(([n]) => n !== 'substituteCacheUris').map(([name, call]) => rejectsInTime(`${name} (concurrent)`, call(), started)));
}

/**
 * With the server down, `afterToolCall` still resolves in time: a small result whole, a big one
 * as a note, and an error event tells the host. Resolves the big result (shown again after the restart).
 * @param {Cache} cache
 * @param {import('mcp-result-cache').CacheEvent[]} events what the cache's `onEvent` collects
 */
async function afterToolCallWhileDown(cache, events) {
  // afterToolCall never rejects: a result that fits is shown whole; a big one is a note.
  events.length = 0;
  const small = { content: [{ type: 'text', text: JSON.stringify(DATA) }] };
  const t0 = Date.now();
  const shownSmall = /** @type {TextResult} */ (await cache.afterToolCall('metrics.query', small, { convId: 'c1' }));
  assert.ok(Date.now() - t0 <= TIMEOUT_MS + SLACK_MS);
  assert.notEqual(shownSmall.isError, true);
  assert.deepEqual(JSON.parse(shownSmall.content[0].text), DATA, 'the model still sees the data');
  const bigRows = rows(2000);
  const big = { content: [{ type: 'text', text: JSON.stringify({ rows: bigRows }) }] };
  const t1 = Date.now();
  const shownBig = /** @type {TextResult} */ (await cache.afterToolCall('metrics.query', big, { convId: 'c1' }));
  assert.ok(Date.now() - t1 <= TIMEOUT_MS + SLACK_MS);
  const note = JSON.parse(shownBig.content[0].text);
  assert.equal(note._cache_uri, undefined, 'no reference to a result that was not kept');
  assert.equal(note._truncated, true);
  assert.equal(note.rows, 2000);
  assert.match(note._truncation_hint, /not kept/);
  assert.ok(JSON.stringify(shownBig).length < 5000, 'the note, not 55 kB of rows');
  const errors = events.filter((e) => e.kind === 'error');
  assert.ok(errors.length >= 1, 'an error event tells the host');
  assert.ok(errors.every((e) => e.name === 'NetworkError' || e.name === 'TimeoutError'), JSON.stringify(errors));
  return { big, bigRows };
}

/**
 * Restarts the server (empty, without the script): the same cache objects write and read again,
 * the script reloaded on NOSCRIPT, in call order.
 * @param {import('node:test').TestContext} t
 * @param {Kind} kind
 * @param {{ cache: Cache, client: TestClient, server: import('../support/redis-servers.mjs').RedisServer }} setup
 * @param {{ uri: string | null, big: { content: { type: string, text: string }[] }, bigRows: unknown[] }} earlier
 *   the entry written before the kill, and the big result (and its rows) shown while the server was down
 */
async function worksAgainAfterRestart(t, kind, { cache, client, server }, { uri, big, bigRows }) {
  // Restart: an empty server without the script. The same cache objects work again.
  await server.restart();
  await until('the client is ready again', () => kind.ready(client));
  const raw = await nodeRedisClient(server.url);
  try {
    const sha = SCRIPT_SHA;
    // What the client library replayed on reconnect (ioredis resends commands that were in
    // flight at the kill: the first of them met NOSCRIPT and reloaded the script) is not ours
    // to judge here; SCRIPT FLUSH makes the next calls meet NOSCRIPT for sure.
    const replayed = await cache.entries();
    if (replayed.length > 0) t.diagnostic(`${kind.name}: ${replayed.length} entr(y/ies) written after the restart by operations that had rejected: ${replayed.map((r) => r.uri).join(' ')}`);
    for (const row of replayed) assert.equal(row.convId, 'c1');
    await raw.sendCommand(['SCRIPT', 'FLUSH']);
    assert.deepEqual(await raw.sendCommand(['SCRIPT', 'EXISTS', sha]), [0], 'the server forgot the script');
    // A burst called at once: every call meets NOSCRIPT, the script is loaded once, and
    // they take effect in call order (the stats called last counts every write).
    const writes = Array.from({ length: 5 }, (_, i) => cache.cacheToolResult({ payload: { i, rows: DATA.rows }, convId: 'c2', sourceToolName: 'metrics.query' }));
    const counted = cache.stats();
    const uris = await Promise.all(writes);
    assert.equal((await counted).entries, 5 + replayed.length, 'stats called after the writes counts them');
    assert.deepEqual(await raw.sendCommand(['SCRIPT', 'EXISTS', sha]), [1], 'the script was loaded again');
    for (const [i, u] of uris.entries()) assert.deepEqual(await cache.readCachedPayload(u, { convId: 'c2' }), { i, rows: DATA.rows });
    assert.equal((await cache.lookup(uri, { convId: 'c1' })).status, 'miss', 'the old entry is gone with the old server');
    assert.deepEqual((await cache.entries({ convId: 'c2' })).map((r) => r.uri).sort(), [...uris].sort());
    const fresh = await cache.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'metrics.query' });
    assert.deepEqual(await cache.readCachedPayload(fresh, { convId: 'c1' }), DATA);
    const shown = /** @type {TextResult} */ (await cache.afterToolCall('metrics.query', big, { convId: 'c1' }));
    const summary = JSON.parse(shown.content[0].text);
    assert.match(summary._cache_uri, /^mcp\+cache:\/\/c1\//, 'big results are stored again');
    assert.deepEqual(await cache.readCachedPayload(summary._cache_uri, { convId: 'c1' }), { rows: bigRows });
    const tools = (await cache.entries()).filter((r) => r.sourceToolName === 'metrics.query').length;
    assert.ok(tools >= 7);
    assert.equal(await cache.invalidate(['metrics.*'], { cause: 'after' }), tools);
    await cache.clearConversation('c2');
    assert.equal((await cache.stats()).entries, 2 + replayed.length);

    // SCRIPT FLUSH while the server runs: the next operation reloads it too.
    await raw.sendCommand(['SCRIPT', 'FLUSH']);
    assert.equal((await cache.lookup(fresh, { convId: 'c1' })).status, 'stale');
    assert.deepEqual(await raw.sendCommand(['SCRIPT', 'EXISTS', sha]), [1]);
  } finally {
    await closeClient(raw);
  }
}

/**
 * The outage scenario through one kind of client: a write and a read, the kill, every operation
 * while the server is down, then the restart.
 * @param {import('node:test').TestContext} t
 * @param {Kind} kind
 */
async function killAndRestart(t, kind) {
  const server = await startRedis();
  const client = await kind.make(server);
  /** @type {import('mcp-result-cache').CacheEvent[]} */
  const events = [];
  const prefix = `outage-${process.pid}:`;
  const cache = new ResultCache({ threshold: 1, onEvent: (/** @type {import('mcp-result-cache').CacheEvent} */ e) => events.push(e), storage: redisStorage(client, { prefix, timeoutMs: TIMEOUT_MS }) });
  try {
    const uri = await cache.cacheToolResult({ payload: DATA, convId: 'c1', sourceToolName: 'metrics.query' });
    assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c1' }), DATA);
    await killWithOperationsInFlight(cache, server);
    await everyCallRejectsInTime(cache, uri);
    const { big, bigRows } = await afterToolCallWhileDown(cache, events);
    await worksAgainAfterRestart(t, kind, { cache, client, server }, { uri, big, bigRows });
  } finally {
    await closeClient(client);
    await server.stop();
  }
}

for (const kind of kinds) {
  test(`${kind.name}: a killed server makes every operation reject in time; after a restart the same cache works again`, (t) => killAndRestart(t, kind));
}

for (const kind of kinds) {
  test(`${kind.name}: an operation called while a forgotten script is loaded again goes after the ones that met NOSCRIPT`, async () => {
    const server = await startRedis();
    const client = await kind.make(server);
    // The client's own send, wrapped: the later write is called at the moment the storage sends
    // the script to load it (after the earlier write met NOSCRIPT, before its retry).
    const method = kind.name === 'node-redis' ? 'sendCommand' : 'call';
    const target = /** @type {Record<string, (...args: unknown[]) => unknown>} */ (/** @type {unknown} */ (client));
    const send = target[method];
    /** @type {(() => void) | null} */
    let onLoad = null;
    target[method] = function (...args) {
      const argv = /** @type {string[]} */ (kind.name === 'node-redis' ? args[0] : args);
      if (argv[0] === 'EVAL' && argv[7] === 'o' && onLoad) {
        queueMicrotask(onLoad);
        onLoad = null;
      }
      return send.apply(this, args);
    };
    // One entry per conversation: a later write evicts the earlier one.
    const cache = new ResultCache({ threshold: 1, maxEntries: 1, storage: redisStorage(client, { prefix: `noscript-${process.pid}:`, timeoutMs: TIMEOUT_MS }) });
    try {
      await cache.cacheToolResult({ payload: DATA, convId: 'warm', sourceToolName: 't' });
      const raw = await nodeRedisClient(server.url);
      await raw.sendCommand(['SCRIPT', 'FLUSH']);
      await closeClient(raw);
      /** @type {Promise<string | null> | undefined} */
      let late;
      onLoad = () => {
        late = cache.cacheToolResult({ payload: { who: 'late' }, convId: 'x', sourceToolName: 't' });
      };
      const early = await cache.cacheToolResult({ payload: { who: 'early' }, convId: 'x', sourceToolName: 't' });
      await until('the later write was called during the load', () => late !== undefined);
      const later = await late;
      assert.ok(early !== null && later !== null, 'both writes stored');
      assert.equal((await cache.lookup(early, { convId: 'x' })).status, 'miss', 'the earlier write was evicted by the later one');
      assert.deepEqual(await cache.readCachedPayload(later, { convId: 'x' }), { who: 'late' }, 'the later write is kept');
    } finally {
      cache.close();
      await closeClient(client);
      await server.stop();
    }
  });
}
