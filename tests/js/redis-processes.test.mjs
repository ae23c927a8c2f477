// Two Node processes share one cache through one redis-server 7: a child process (its own cache
// over its own node-redis client) writes a result and prints the reference; this process (an
// ioredis client) resolves it; this process clears the conversation and a second child sees a
// miss, while an entry this process wrote resolves in that child; an invalidation in a child is
// seen here. Run: node --test tests/js/redis-processes.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { ResultCache } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.mjs';
import { closeClient, ioredisClient, startRedis } from '../support/redis-servers.mjs';

const run = promisify(execFile);
/** A substitution's outcome without the `sources` it reports (checked by the flow tests). */
const okArgs = (/** @type {{ ok: boolean, args?: unknown }} */ { ok, args }) => ({ ok, args });
const here = (/** @type {string} */ path) => new URL(path, import.meta.url).href;

// The child: REDIS_URL, PREFIX, and a JSON list of steps in STEPS; prints one JSON line of answers.
const CHILD = `
import { ResultCache } from ${JSON.stringify(here('../../pkg/node.mjs'))};
import { redisStorage } from ${JSON.stringify(here('../../js/redis.mjs'))};
import { nodeRedisClient, closeClient } from ${JSON.stringify(here('../support/redis-servers.mjs'))};

const client = await nodeRedisClient(process.env.REDIS_URL);
const cache = new ResultCache({ threshold: 1, storage: redisStorage(client, { prefix: process.env.PREFIX }) });
const out = [];
for (const [op, ...args] of JSON.parse(process.env.STEPS)) {
  if (op === 'write') out.push(await cache.cacheToolResult({ payload: args[0], convId: args[1], sourceToolName: args[2] }));
  else if (op === 'lookup') out.push(await cache.lookup(args[0], { convId: args[1] }));
  else if (op === 'invalidate') out.push(await cache.invalidate(args[0], { cause: args[1] }));
  else if (op === 'stats') out.push(await cache.stats());
  else throw new Error('unknown step ' + op);
}
process.stdout.write(JSON.stringify({ pid: process.pid, out }) + '\\n');
await closeClient(client);
`;

/** @type {import('../support/redis-servers.mjs').RedisServer} */
let server;
/** @type {import('../support/redis-servers.mjs').IoredisClient} */
let client;
before(async () => {
  server = await startRedis();
  client = await ioredisClient(server.port);
});
after(async () => {
  await closeClient(client);
  await server?.stop();
});

/**
 * Runs CHILD in a new Node process over `prefix` with `steps`; its answers, one a step.
 * @param {string} prefix
 * @param {unknown[][]} steps
 * @returns {Promise<unknown[]>}
 */
async function child(prefix, steps) {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: { ...process.env, REDIS_URL: server.url, PREFIX: prefix, STEPS: JSON.stringify(steps) },
    timeout: 20_000,
  });
  const answer = /** @type {{ pid: number, out: unknown[] }} */ (JSON.parse(/** @type {string} */ (stdout.trim().split('\n').at(-1))));
  assert.notEqual(answer.pid, process.pid, 'ran in another process');
  return answer.out;
}

const DATA = { ok: true, rows: Array.from({ length: 30 }, (_, i) => ({ i, label: `row ${i} ✓ 😀` })) };

test('a reference written by a child process resolves here; a clear here is a miss in the next child', async () => {
  const prefix = `proc-${process.pid}:`;
  const cache = new ResultCache({ threshold: 1, storage: redisStorage(client, { prefix }) });
  const [uri, otherUri] = /** @type {[string, string]} */ (await child(prefix, [['write', DATA, 'c1', 'metrics.query'], ['write', { other: true }, 'c2', 'crm.get']]));
  assert.match(uri, /^mcp\+cache:\/\/c1\//);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c1' }), DATA, 'the child\'s entry resolves here');
  assert.deepEqual(okArgs(await cache.substituteCacheUris({ data_uri: `${uri}#/rows/29` }, { convId: 'c1' })), { ok: true, args: { data: DATA.rows[29] } });
  assert.equal((await cache.lookup(uri, { convId: 'c2' })).status, 'miss', 'scoped to its conversation');
  const stats = await cache.stats();
  assert.equal(stats.entries, 2);
  assert.equal(stats.conversations, 2);

  const mine = await cache.cacheToolResult({ payload: { mine: [1, 2, 3] }, convId: 'c2', sourceToolName: 'crm.get' });
  await cache.clearConversation('c1');
  const [gone, kept, theirs, counted] = /** @type {[unknown, unknown, unknown, { entries: number, conversations: number }]} */ (await child(prefix, [['lookup', uri, 'c1'], ['lookup', mine, 'c2'], ['lookup', otherUri, 'c2'], ['stats']]));
  assert.deepEqual(gone, { status: 'miss' }, 'the next child misses the cleared entry');
  assert.deepEqual(kept, { status: 'hit', payload: { mine: [1, 2, 3] } }, 'and resolves what this process wrote');
  assert.deepEqual(theirs, { status: 'hit', payload: { other: true } });
  assert.equal(counted.entries, 2);
  assert.equal(counted.conversations, 1);

  const [marked] = await child(prefix, [['invalidate', ['crm.*'], 'crm.update']]);
  assert.equal(marked, 2);
  assert.deepEqual(await cache.lookup(mine, { convId: 'c2' }), { status: 'stale', cause: 'crm.update', sourceToolName: 'crm.get' });
});

test('two children writing at once and this process: one cache, every entry resolvable everywhere', async () => {
  const prefix = `proc2-${process.pid}:`;
  const cache = new ResultCache({ threshold: 1, storage: redisStorage(client, { prefix }) });
  const steps = (/** @type {string} */ tag) => Array.from({ length: 10 }, (_, i) => ['write', { tag, i, rows: DATA.rows }, `conv-${i % 2}`, `${tag}.tool`]);
  const [a, b, here] = await Promise.all([
    child(prefix, steps('a')),
    child(prefix, steps('b')),
    Promise.all(Array.from({ length: 10 }, (_, i) => cache.cacheToolResult({ payload: { tag: 'p', i }, convId: `conv-${i % 2}` }))),
  ]);
  const all = [...a, ...b, ...here];
  assert.equal(new Set(all).size, 30);
  assert.deepEqual((await cache.entries()).map((r) => r.uri).sort(), [...all].sort());
  for (const [i, uri] of a.entries()) assert.deepEqual(await cache.readCachedPayload(uri, { convId: `conv-${i % 2}` }), { tag: 'a', i, rows: DATA.rows });
  const seen = await child(prefix, here.map((uri, i) => ['lookup', uri, `conv-${i % 2}`]));
  assert.deepEqual(seen, here.map((_, i) => ({ status: 'hit', payload: { tag: 'p', i } })));
});
