// Real Redis servers for tests: standalone and cluster, on free loopback ports, nothing persisted.
//
// Every server is Debian's /usr/bin/redis-server (installed by scripts/setup.sh), started with
// `--save '' --appendonly no` in a fresh temporary directory, bound to 127.0.0.1 only. Children
// never outlive the test process: one `process.on('exit')` handler SIGKILLs whatever is still
// running, and the children are unref'd so a test that forgets `stop()` still lets Node exit.
//
// Also here: factories for connected, ready clients of the two libraries users have
// (node-redis `redis@6` and `ioredis@6`), and `closeClient()` that closes any of them.
import { spawn, execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 10_000;
const CLUSTER_TIMEOUT_MS = 20_000;
const STDERR_KEEP = 4096;
const run = promisify(execFile);
/** @type {(ms: number) => Promise<void>} */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Process bookkeeping: every live child and every temp dir, cleaned up when the process exits.
/**
 * A spawned redis-server: stderr piped, and `exitPromise` settling once it has exited.
 * @typedef {import('node:child_process').ChildProcessByStdio<null, null, import('node:stream').Readable>
 *   & { exitPromise: Promise<void> }} ServerChild
 */
/** @type {Set<ServerChild>} */
const liveChildren = new Set();
/** @type {Set<string>} */
const tmpDirs = new Set();
process.on('exit', () => {
  for (const child of liveChildren) {
    try { child.kill('SIGKILL'); } catch { /* already gone */ }
  }
  for (const dir of tmpDirs) {
    try { rmSync(dir, { recursive: true, force: true }); } catch { /* best effort */ }
  }
});

/**
 * A free TCP port on 127.0.0.1: listen on port 0, read the port the kernel chose, close.
 * (Another process may grab it before we use it; `startRedis` retries in that case.)
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/**
 * One PING over a raw socket; resolves true on `+PONG`, false on anything else.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function pingOnce(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: HOST });
    let buf = '';
    const done = (/** @type {boolean} */ ok) => { sock.destroy(); resolve(ok); };
    sock.setTimeout(1000, () => done(false));
    sock.once('error', () => done(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      if (buf.includes('\r\n')) done(buf.startsWith('+PONG'));
    });
  });
}

/**
 * Spawn one redis-server process and wait until it answers PING.
 * Rejects (with the server's stderr) if it exits first or is not ready within 10 s.
 * @param {number} port
 * @param {string} dir
 * @param {string[]} extraArgs
 * @returns {Promise<{child: ServerChild, stderr: () => string}>}
 */
async function spawnServer(port, dir, extraArgs) {
  const args = [
    '--port', String(port), '--bind', HOST,
    '--save', '', '--appendonly', 'no',
    '--dir', dir, '--protected-mode', 'no',
    ...extraArgs,
  ];
  const child = /** @type {ServerChild} */ (spawn(REDIS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] }));
  liveChildren.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d.toString()).slice(-STDERR_KEEP); });
  // Let Node exit even if a test forgets stop(); the exit handler then SIGKILLs the child.
  child.unref();
  // A piped stdio stream is a net.Socket (its declared type, Readable, has no unref()).
  /** @type {import('node:net').Socket} */ (child.stderr).unref();
  let exited = /** @type {{ code?: number | null, signal?: NodeJS.Signals | null, error?: Error } | null} */ (null); // { code, signal, error } once the process is gone
  child.exitPromise = new Promise((resolve) => {
    child.once('error', (error) => { exited = { error }; liveChildren.delete(child); resolve(); });
    child.once('exit', (code, signal) => { exited = { code, signal }; liveChildren.delete(child); resolve(); });
  });

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      const why = exited.error ? exited.error.message : `code ${exited.code}, signal ${exited.signal}`;
      const err = /** @type {Error & { addressInUse?: boolean }} */ (new Error(`redis-server on port ${port} exited before ready (${why}); stderr:\n${stderr}`));
      err.addressInUse = /address already in use/i.test(stderr);
      throw err;
    }
    if (await pingOnce(port)) return { child, stderr: () => stderr };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} not ready within ${READY_TIMEOUT_MS} ms; stderr:\n${stderr}`);
    }
    await sleep(50);
  }
}

/**
 * Send `signal` to the child (if still running) and wait until it has exited.
 * @param {ServerChild} child
 * @param {NodeJS.Signals} signal
 */
async function signalAndWait(child, signal) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.ref(); // keep the event loop alive while we wait for the exit event
  child.kill(signal);
  await child.exitPromise;
}

/**
 * A running standalone server, as `startRedis()` resolves it.
 * @typedef {{
 *   port: number, url: string, host: '127.0.0.1',
 *   stop: () => Promise<void>, kill: () => Promise<void>, restart: () => Promise<void>,
 *   stderr: () => string,
 * }} RedisServer
 */
/** @typedef {Awaited<ReturnType<typeof startRedisCluster>>} RedisCluster a running cluster, as `startRedisCluster()` resolves it */

/**
 * Start a standalone redis-server on 127.0.0.1, persisting nothing, in a fresh temp dir.
 *
 * @param {{ port?: number, extraArgs?: string[] }} [opts] `port`: use this port instead of a
 *   free one (no retry then). `extraArgs`: appended to the redis-server argv.
 * @returns {Promise<RedisServer>} Resolves once the server answers PING.
 *   `stop()` SIGTERMs and waits for exit (and removes the temp dir); `kill()` SIGKILLs and waits
 *   (a crash: the port stays reserved for `restart()`); `restart()` starts a fresh process on the
 *   same port (stopping the old one first if it is still running) and waits until ready. Data is
 *   not persisted, so a restarted server is empty.
 */
export async function startRedis({ port, extraArgs = [] } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-redis-'));
  tmpDirs.add(dir);
  /** @type {{ port: number, child: ServerChild, stderr: () => string }} */
  let current;
  for (let attempt = 0; ; attempt++) {
    const p = port ?? (await freePort());
    try {
      current = { port: p, ...(await spawnServer(p, dir, extraArgs)) };
      break;
    } catch (err) {
      // The port found free was taken in between: try another one (a few times).
      if (port === undefined && /** @type {{ addressInUse?: boolean }} */ (err).addressInUse && attempt < 4) continue;
      rmSync(dir, { recursive: true, force: true });
      tmpDirs.delete(dir);
      throw err;
    }
  }
  const p = current.port;
  return {
    port: p,
    host: HOST,
    url: `redis://${HOST}:${p}`,
    stderr: () => current.stderr(),
    async stop() {
      await signalAndWait(current.child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
      tmpDirs.delete(dir);
    },
    async kill() {
      await signalAndWait(current.child, 'SIGKILL');
    },
    async restart() {
      await signalAndWait(current.child, 'SIGTERM');
      // stop() removed the dir; after kill() it still exists. Either way, (re)create it. For a
      // cluster node the old nodes.conf stays, so the node rejoins with its identity.
      mkdirSync(dir, { recursive: true });
      tmpDirs.add(dir);
      const next = await spawnServer(p, dir, extraArgs);
      current = { port: p, ...next };
    },
  };
}

/**
 * Start `masters` cluster-enabled servers (and `replicas` replicas of each: `servers` lists the
 * masters first, then the replicas, as `redis-cli --cluster create` pairs them), join them with
 * `redis-cli --cluster create`, and wait until every node reports `cluster_state:ok` and
 * all 16384 slots are assigned (deadline 20 s).
 *
 * @param {{ masters?: number, replicas?: number, nodeTimeoutMs?: number }} [opts] `masters`: at
 *   least 3 (redis-cli refuses fewer); `nodeTimeoutMs`: `cluster-node-timeout` (default 5000).
 * @returns {Promise<{
 *   ports: number[],
 *   nodes: {host: '127.0.0.1', port: number}[],   // for ioredis `new Cluster(nodes)`
 *   rootNodes: {url: string}[],                    // for node-redis `createCluster({ rootNodes })`
 *   servers: Awaited<ReturnType<typeof startRedis>>[],
 *   stop: () => Promise<void>,
 * }>}
 */
export async function startRedisCluster({ masters = 3, replicas = 0, nodeTimeoutMs = 5000 } = {}) {
  /** @type {RedisServer[]} */
  const servers = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      // Each server gets its own temp dir (from startRedis); nodes.conf lives there. A relative
      // file name is resolved against --dir, which startRedis sets per server.
      servers.push(await startRedis({
        extraArgs: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', String(nodeTimeoutMs)],
      }));
    }
    const ports = servers.map((s) => s.port);
    await run(REDIS_CLI, ['--cluster', 'create', ...ports.map((p) => `${HOST}:${p}`),
      '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: CLUSTER_TIMEOUT_MS });

    const deadline = Date.now() + CLUSTER_TIMEOUT_MS;
    /** @type {string | true} */
    let last = '';
    for (;;) {
      if (await clusterConverged(ports, masters).then((r) => { last = r; return r === true; })) break;
      if (Date.now() > deadline) {
        throw new Error(`redis cluster on ports ${ports.join(',')} not ok within ${CLUSTER_TIMEOUT_MS} ms: ${last}`);
      }
      await sleep(100);
    }
    return {
      ports,
      nodes: ports.map((port) => ({ host: HOST, port })),
      rootNodes: ports.map((port) => ({ url: `redis://${HOST}:${port}` })),
      servers,
      async stop() { await Promise.all(servers.map((s) => s.stop())); },
    };
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
}

/**
 * true when every node says cluster_state:ok, sees every master, and slots cover 0..16383.
 * @param {number[]} ports
 * @param {number} [masters]
 * @returns {Promise<string | true>} true, or what is not ready yet
 */
export async function clusterConverged(ports, masters = ports.length) {
  for (const port of ports) {
    const cli = (/** @type {string[]} */ ...a) => run(REDIS_CLI, ['-h', HOST, '-p', String(port), ...a], { timeout: 5000 })
      .then((r) => r.stdout);
    const info = await cli('cluster', 'info').catch((e) => e.message);
    if (!/cluster_state:ok/.test(info)) return `port ${port}: not cluster_state:ok`;
    if (!new RegExp(`cluster_slots_assigned:16384\\b`).test(info)) return `port ${port}: slots not all assigned`;
    // `cluster nodes`: every node must know all masters as connected.
    const nodes = (await cli('cluster', 'nodes')).trim().split('\n');
    const connectedMasters = nodes.filter((l) => /\bmaster\b/.test(l) && /\bconnected\b/.test(l));
    if (connectedMasters.length !== masters) return `port ${port}: sees ${connectedMasters.length} masters`;
    // `cluster slots`: the slot ranges (start/end lines follow each other) must sum to 16384.
    const slots = (await cli('cluster', 'slots')).trim().split('\n');
    let covered = 0;
    for (let i = 0; i + 1 < slots.length; i++) {
      const a = Number(slots[i]); const b = Number(slots[i + 1]);
      if (Number.isInteger(a) && Number.isInteger(b) && b >= a && b < 16384 && slots[i + 2]?.trim() === HOST) {
        covered += b - a + 1;
        i++;
      }
    }
    if (covered !== 16384) return `port ${port}: cluster slots covers ${covered}`;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Clients. Every factory returns a connected, READY client with an 'error' listener that
// swallows errors (a killed server must not crash the test process with an unhandled 'error').
const ignore = () => {};

/** @typedef {Awaited<ReturnType<typeof nodeRedisClient>>} NodeRedisClient a client of `nodeRedisClient()` */
/** @typedef {Awaited<ReturnType<typeof nodeRedisCluster>>} NodeRedisCluster a client of `nodeRedisCluster()` */
/** @typedef {Awaited<ReturnType<typeof ioredisClient>>} IoredisClient a client of `ioredisClient()` */
/** @typedef {Awaited<ReturnType<typeof ioredisCluster>>} IoredisCluster a client of `ioredisCluster()` */
/** @typedef {NodeRedisClient | NodeRedisCluster | IoredisClient | IoredisCluster} TestClient one of the clients made here */

/**
 * A connected, ready node-redis (`redis@6`) standalone client.
 * @param {string} url e.g. `redis://127.0.0.1:6379`
 * @param {object} [options] extra `createClient` options (e.g. `{ disableOfflineQueue: true }`)
 */
export async function nodeRedisClient(url, options = {}) {
  const { createClient } = await import('redis');
  const client = createClient({ url, ...options });
  client.on('error', ignore);
  await client.connect();
  return client;
}

/**
 * A connected, ready node-redis (`redis@6`) cluster client over `startRedisCluster()`'s nodes.
 * @param {{ rootNodes: {url: string}[] }} cluster
 * @param {object} [options] extra `createCluster` options
 */
export async function nodeRedisCluster(cluster, options = {}) {
  const { createCluster } = await import('redis');
  const client = createCluster({ rootNodes: cluster.rootNodes, ...options });
  client.on('error', ignore);
  await client.connect();
  return client;
}

/**
 * A connected, ready ioredis (`ioredis@6`) standalone client (status `'ready'`).
 * @param {number} port
 * @param {object} [options] extra `new Redis()` options (e.g. `{ maxRetriesPerRequest: 1 }`)
 */
export async function ioredisClient(port, options = {}) {
  const { Redis } = await import('ioredis');
  const client = new Redis({ port, host: HOST, lazyConnect: true, ...options });
  client.on('error', ignore);
  await client.connect();
  if (client.status !== 'ready') await new Promise((r) => client.once('ready', r));
  return client;
}

/**
 * A connected, ready ioredis (`ioredis@6`) Cluster client (status `'ready'`).
 * @param {{ nodes: {host: string, port: number}[] }} cluster
 * @param {object} [options] extra `new Cluster()` options
 */
export async function ioredisCluster(cluster, options = {}) {
  const { Cluster } = await import('ioredis');
  const client = new Cluster(cluster.nodes, { lazyConnect: true, ...options });
  client.on('error', ignore);
  // Cluster#connect() resolves on 'ready' (ioredis/built/cluster/index.js, readyHandler).
  await client.connect();
  if (client.status !== 'ready') await new Promise((r) => client.once('ready', r));
  return client;
}

/**
 * Close any client made above without throwing, even when its server is gone.
 * node-redis: graceful `close()` (waits for pending replies) if ready, bounded to 1 s, then
 * `destroy()` (rejects whatever is still pending). ioredis: `disconnect()` (immediate).
 * @param {{ isOpen?: boolean, isReady?: boolean, close?(): Promise<unknown>, destroy?(): void, disconnect?(): void } | null | undefined} client
 */
export async function closeClient(client) {
  if (!client) return;
  try {
    if (typeof client.destroy === 'function' && 'isOpen' in client) {
      // node-redis client or cluster
      if (!client.isOpen) return;
      if (client.isReady && client.close) {
        await Promise.race([client.close().catch(ignore), sleep(1000)]);
      }
      if (client.isOpen) client.destroy();
    } else if (typeof client.disconnect === 'function') {
      // ioredis Redis or Cluster
      client.disconnect();
    }
  } catch {
    /* closing must never throw */
  }
}
