// `redisStorage(client, { replicas: 1 })` through a failover of a real Redis Cluster (3 masters,
// 3 replicas, cluster-node-timeout 1000): one master is SIGKILLed while a cache keeps writing and
// reading. Every call settles within timeoutMs (checked against our own deadline: node:test
// would report a hung test as cancelled, not failed), with a named error when it fails; once the
// replica is promoted, every write acknowledged before or during the failover reads back whole,
// and the same cache object keeps working. Both client libraries (node-redis 6, ioredis 6).
// Run: node --test tests/js/redis-failover.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { ResultCache } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.mjs';
import {
  closeClient, clusterConverged, ioredisCluster, nodeRedisCluster, startRedisCluster,
} from '../support/redis-servers.mjs';

const run = promisify(execFile);
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const TIMEOUT_MS = 1500;
/** How late past timeoutMs a call may settle before it counts as hanging (timer and event-loop slack). */
const SLACK_MS = 1000;
const NAMES = new Set(['TimeoutError', 'NetworkError', 'UnknownError']);

/**
 * `promise` settled by our own deadline: { ok, value } or { ok: false, error }; throws when it hangs.
 * (A call that fails rejects with the storage's named error.)
 * @template T
 * @param {Promise<T>} promise
 * @param {string} what
 * @returns {Promise<{ ok: true, value: T, error?: undefined } | { ok: false, error: Error, value?: undefined }>}
 */
async function settled(promise, what) {
  let timer;
  const hung = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${TIMEOUT_MS + SLACK_MS} ms`)), TIMEOUT_MS + SLACK_MS);
  });
  try {
    return await Promise.race([promise.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error })), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until every master has its replica connected (WAIT needs them), deadline 20 s.
 * @param {number[]} ports
 */
async function replicasOnline(ports) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    let online = 0;
    for (const port of ports) {
      const { stdout } = await run('/usr/bin/redis-cli', ['-p', String(port), 'info', 'replication']);
      if (/role:master/.test(stdout) && /connected_slaves:1/.test(stdout) && /state=online/.test(stdout)) online += 1;
    }
    if (online === 3) return;
    if (Date.now() > deadline) throw new Error(`replicas not online (${online}/3)`);
    await sleep(200);
  }
}

const libraries = [
  { name: 'node-redis cluster', connect: nodeRedisCluster },
  { name: 'ioredis Cluster', connect: ioredisCluster },
];

for (const library of libraries) {
  test(`${library.name}: a master killed mid-run; calls settle in time with named errors; acknowledged writes survive the promotion`, { timeout: 120_000 }, async () => {
    const cluster = await startRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 1000 });
    let client;
    let stop = false;
    let loop = Promise.resolve();
    try {
      await replicasOnline(cluster.ports);
      client = await library.connect(cluster);
      const cache = new ResultCache({ threshold: 1, storage: redisStorage(client, { prefix: 'fo:', replicas: 1, timeoutMs: TIMEOUT_MS }) });
      /** @type {Map<string, { convId: string, payload: unknown }>} */
      const acked = new Map();
      /** @type {Error[]} */
      const failures = [];
      let n = 0;
      const writeOne = async () => {
        const i = n++;
        const convId = `conv-${i % 40}`;
        const payload = { i, rows: Array.from({ length: 20 }, (_, k) => ({ k, v: `${i}:${k}` })) };
        const outcome = await settled(cache.cacheToolResult({ payload, convId, sourceToolName: 'fo.tool' }), `write ${i}`);
        if (outcome.ok) acked.set(/** @type {string} */ (outcome.value), { convId, payload });
        else failures.push(outcome.error);
        return outcome;
      };
      for (let i = 0; i < 80; i += 1) assert.equal((await writeOne()).ok, true, 'before the kill every write is acknowledged');

      // Writes and reads keep going while the first master dies and its replica takes over.
      const reads = [];
      loop = (async () => {
        while (!stop) {
          await writeOne();
          const [uri, { convId }] = [...acked][Math.floor(Math.random() * acked.size)];
          const read = await settled(cache.lookup(uri, { convId }), 'a read');
          reads.push(read);
          if (!read.ok) failures.push(read.error);
        }
      })();
      await sleep(500);
      await cluster.servers[0].kill();
      const survivors = cluster.ports.slice(1);
      const deadline = Date.now() + 30_000;
      while ((await clusterConverged(survivors, 3)) !== true) {
        assert.ok(Date.now() < deadline, 'the replica is promoted within 30 s');
        await sleep(200);
      }
      // Reads work again on the same cache object, and every write acknowledged with
      // replicas: 1, before or during the failover, reads back whole.
      const readAll = async () => {
        for (const [uri, { convId, payload }] of acked) {
          const got = await settled(cache.lookup(uri, { convId }), 'a read after the promotion');
          assert.equal(got.ok, true, got.error?.message);
          assert.deepEqual(got.value, { status: 'hit', payload }, `${uri} reads back whole`);
        }
      };
      let readable = false;
      /** @type {Error | undefined} */
      let why;
      while (!readable) {
        assert.ok(Date.now() < deadline + 15_000, `reads succeed again after the promotion (${why?.message})`);
        readable = await readAll().then(() => true, (error) => {
          why = error;
          return false;
        });
      }
      stop = true;
      await loop;
      await readAll();
      // The promoted master has no replica until the killed node comes back as one: until then a
      // write there is not acknowledged (TimeoutError), and afterwards every write is, again
      // through the same cache object.
      await cluster.servers[0].restart();
      let working = 0;
      while (working < 40) {
        assert.ok(Date.now() < deadline + 45_000, 'writes are acknowledged again once the old master is a replica');
        const outcome = await writeOne();
        working = outcome.ok ? working + 1 : 0;
        if (!outcome.ok) await sleep(200);
      }
      for (const error of failures) {
        assert.ok(NAMES.has(error?.name), `a failed call is named (${error?.name}: ${error?.message})`);
      }
      await readAll();
      assert.ok(acked.size >= 100, `writes acknowledged: ${acked.size}`);
      const stats = await settled(cache.stats(), 'stats after the promotion');
      assert.equal(stats.ok, true, stats.error?.message);
      assert.ok(stats.value.entries >= acked.size, 'stats walk every master, the promoted one included');
    } finally {
      stop = true;
      await loop.catch(() => {});
      await closeClient(client);
      await cluster.stop();
    }
  });
}
