// Self-check of tests/support/redis-servers.mjs: real servers (standalone + 3-master cluster),
// SET/GET through all four client kinds, crash + restart of the standalone server, and no
// redis-server left behind. Run: node --test tests/js/redis-harness.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeClient, ioredisClient, ioredisCluster, nodeRedisClient, nodeRedisCluster,
  startRedis, startRedisCluster,
} from '../support/redis-servers.mjs';

/**
 * PIDs of redis-server processes listening on any of `ports` (other test runs are ignored).
 * @param {number[]} ports
 * @returns {string[]}
 */
function serversOn(ports) {
  let out = '';
  try { out = execFileSync('pgrep', ['-af', 'redis-server.*127\\.0\\.0\\.1'], { encoding: 'utf8' }); } catch { /* none */ }
  return out.split('\n').filter((l) => ports.some((p) => l.includes(`127.0.0.1:${p}`)));
}

/** @type {import('../support/redis-servers.mjs').RedisServer} */
let server;
/** @type {import('../support/redis-servers.mjs').RedisCluster} */
let cluster;
/** @type {import('../support/redis-servers.mjs').TestClient[]} */
const clients = [];
/** @template {import('../support/redis-servers.mjs').TestClient} T @param {T} c @returns {T} */
const keep = (c) => (clients.push(c), c);

before(async () => {
  [server, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
});

after(async () => {
  await Promise.all(clients.map(closeClient));
  const ports = [server.port, ...cluster.ports];
  await Promise.all([server.stop(), cluster.stop()]);
  assert.deepEqual(serversOn(ports), [], 'every redis-server we started has exited');
});

test('servers are up on loopback and distinct ports', () => {
  const ports = [server.port, ...cluster.ports];
  assert.equal(new Set(ports).size, 4);
  assert.equal(serversOn(ports).length, 4);
  assert.equal(server.url, `redis://127.0.0.1:${server.port}`);
  assert.deepEqual(cluster.rootNodes.map((n) => n.url), cluster.ports.map((p) => `redis://127.0.0.1:${p}`));
});

test('node-redis standalone: SET/GET', async () => {
  const c = keep(await nodeRedisClient(server.url));
  assert.equal(c.isReady, true);
  assert.equal(await c.set('nr:k', 'v1'), 'OK');
  assert.equal(await c.get('nr:k'), 'v1');
  assert.equal(await c.sendCommand(['GET', 'nr:missing']), null);
});

test('ioredis standalone: SET/GET', async () => {
  const c = keep(await ioredisClient(server.port));
  assert.equal(c.status, 'ready');
  assert.equal(await c.set('io:k', 'v2'), 'OK');
  assert.equal(await c.get('io:k'), 'v2');
  assert.equal(await c.call('GET', 'io:missing'), null);
});

// Keys chosen to land on different masters: 'a' → slot 15495, 'b' → 3300, 'c' → 7365.
const clusterKeys = ['a', 'b', 'c'];

test('node-redis cluster: SET/GET on keys in different slots', async () => {
  const c = keep(await nodeRedisCluster(cluster));
  assert.equal(c.isReady, true);
  for (const k of clusterKeys) assert.equal(await c.set(`{${k}}nr`, `v-${k}`), 'OK');
  for (const k of clusterKeys) assert.equal(await c.get(`{${k}}nr`), `v-${k}`);
  // Raw command: firstKey routes it, isReadonly, then the full argv.
  assert.equal(await c.sendCommand('{a}nr', true, ['GET', '{a}nr']), 'v-a');
});

test('ioredis cluster: SET/GET on keys in different slots', async () => {
  const c = keep(await ioredisCluster(cluster));
  assert.equal(c.status, 'ready');
  for (const k of clusterKeys) assert.equal(await c.set(`{${k}}io`, `v-${k}`), 'OK');
  for (const k of clusterKeys) assert.equal(await c.get(`{${k}}io`), `v-${k}`);
  // The keys really are spread over more than one master.
  const owners = new Set(clusterKeys.map((k) => c.slots[slotOf(k)]?.[0]));
  assert.ok(owners.size >= 2, `keys spread over ${owners.size} node(s)`);
});

test('standalone crash (SIGKILL) and restart on the same port: new clients work', async () => {
  const port = server.port;
  await server.kill();
  assert.deepEqual(serversOn([port]), [], 'killed server is gone');
  await server.restart();
  assert.equal(server.port, port);
  const nr = keep(await nodeRedisClient(server.url));
  const io = keep(await ioredisClient(server.port));
  assert.equal(await nr.get('nr:k'), null, 'nothing persisted across the restart');
  assert.equal(await nr.set('after', 'restart'), 'OK');
  assert.equal(await io.get('after'), 'restart');
});

/**
 * CRC16/XMODEM key slot (no hash tags needed for these one-letter keys).
 * @param {string} key
 * @returns {number}
 */
function slotOf(key) {
  let crc = 0;
  for (const b of Buffer.from(key)) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}
