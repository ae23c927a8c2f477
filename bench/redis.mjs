// The Redis store against its floor — the same JSON through a plain SET/GET (or one DEL) on the
// same Redis — on a standalone redis-server and on a 3-master cluster (real servers on free
// loopback ports, node-redis 6), in Node, in one run; then the keys per master of 1 000
// conversations, and an expiry storm: 10 000 conversations (100 000 entries) expiring at once
// while other instances read, with the longest script call Redis logged (SLOWLOG) and the
// readers' p99 against their p99 without the storm.
// `npm run bench` writes bench/REDIS-RESULTS.md; `node bench/redis.mjs --smoke` (part of npm test)
// runs a few iterations of each on small sizes and checks the round trips, writes nothing.
// Timings never fail anything; round trips and the per-call bound do (they are the design).
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { startRedis, startRedisCluster, nodeRedisClient, nodeRedisCluster, closeClient } from '../tests/support/redis-servers.mjs';

const require = createRequire(import.meta.url);
const { ResultCache } = /** @type {typeof import('../js/node.cjs')} */ (require('../js/node.cjs'));
const { redisStorage } = /** @type {typeof import('../js/redis.cjs')} */ (require('../js/redis.cjs'));

/** A node-redis standalone client or cluster client (tests/support/redis-servers.mjs). @typedef {Awaited<ReturnType<typeof nodeRedisClient>> | Awaited<ReturnType<typeof nodeRedisCluster>>} RedisClient */
/** @typedef {Awaited<ReturnType<typeof nodeRedisClient>>} StandaloneClient */
/** @typedef {ReturnType<typeof stat>} Stat */
/** One row of a deployment's table: ours against its floor. @typedef {{ workload: string, floorNote: string, ours: Stat, floor: Stat, trips: number }} DeploymentRow */
/** @typedef {{ count: number, perMaster: { url: string, keys: number, conversations: number }[] }} Spread */
/**
 * @typedef {{
 *   entries: number, conversations: number, keys: number, fillSeconds: number, baseline: Stat, during: Stat,
 *   scripts: number, over5ms: number, longestScriptUs: number, longestOp: string, longestCommandUs: number,
 * }} Storm
 */
/** A reader of the storm: another instance with its own client, and the live entries it looks up. @typedef {{ client: StandaloneClient, cache: InstanceType<typeof ResultCache>, uris: { uri: string | null, convId: string }[] }} Reader */
/** A SLOWLOG GET entry: id, timestamp, duration (µs), the command's arguments, client address, client name. @typedef {[number, number, number, string[], string, string]} SlowlogEntry */

const smoke = process.argv.includes('--smoke');
const iterations = smoke ? 3 : Number(process.env.BENCH_ITERATIONS ?? 200);
const warmup = smoke ? 1 : 20;
const clears = smoke ? 2 : 15;
const storm = smoke ? { conversations: 200, perConversation: 10 } : { conversations: 10_000, perConversation: 10 };

const rowsOf = (/** @type {number} */ bytes) => {
  const rows = [];
  let size = 2;
  for (let i = 0; size < bytes; i += 1) {
    const row = { t: 1_700_000_000_000 + i * 60_000, value: Math.round(Math.sin(i) * 1e6) / 1e3, label: `point ${i}` };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows };
};
const payload4k = rowsOf(4 * 1024);
/** @param {readonly number[]} xs @param {number} q */
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
};
const stat = (/** @type {readonly number[]} */ xs) => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), n: xs.length, perSecond: 1000 / (xs.reduce((a, b) => a + b, 0) / xs.length) });
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `fn(i)` warmup + iterations times, in turn with `other(i)` (interleaved, so both see the same machine).
 * @param {(i: number) => Promise<unknown>} fn @param {(i: number) => Promise<unknown>} other @param {number} [count]
 * @returns {Promise<[Stat, Stat]>}
 */
async function interleaved(fn, other, count = iterations) {
  /** @type {number[]} */
  const a = [];
  /** @type {number[]} */
  const b = [];
  for (let i = 0; i < warmup + count; i += 1) {
    for (const [run, into] of /** @type {[(i: number) => Promise<unknown>, number[]][]} */ (i % 2 ? [[fn, a], [other, b]] : [[other, b], [fn, a]])) {
      const t0 = performance.now();
      await run(i);
      if (i >= warmup) into.push(performance.now() - t0);
    }
  }
  return [stat(a), stat(b)];
}

/**
 * Counts the commands a node-redis client (or cluster) is sent.
 * @param {{ sendCommand(...args: unknown[]): Promise<unknown> }} client
 */
function counting(client) {
  let sent = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = (...args) => {
    sent += 1;
    return send(...args);
  };
  return async (/** @type {() => Promise<unknown>} */ fn) => {
    const before = sent;
    await fn();
    return sent - before;
  };
}

const loadAtStart = os.loadavg()[0].toFixed(1);
/** @type {string[]} */
const failures = [];
/** @type {{ deployments: { name: string, rows: DeploymentRow[] }[], spread: Spread | null, storm: Storm | null }} */
const results = { deployments: [], spread: null, storm: null };
let n = 0;
const prefix = () => `bench${(n += 1)}:`;

/**
 * write+read of 4 KB and a clear of 1 000 entries, ours against the floor, on one client.
 * @param {string} name @param {RedisClient} client @param {RedisClient} raw
 */
async function deployment(name, client, raw) {
  const roundTrips = counting(client);
  const cache = new ResultCache({ storage: redisStorage(client, { prefix: prefix() }), threshold: 1, maxEntries: 100_000 });
  await cache.stats();
  /** @type {DeploymentRow[]} */
  const rows = [];
  // The floor: a raw SET and GET of the same JSON. Its key shares the conversation's slot on a
  // cluster, as ours does.
  const floorRound = async (/** @type {number} */ i) => {
    await raw.set(`floor:{w${i % 50}}:${i}`, JSON.stringify(payload4k));
    JSON.parse(/** @type {string} */ (await raw.get(`floor:{w${i % 50}}:${i}`)));
  };
  const [ours, floor] = await interleaved(async (i) => {
    const uri = await cache.cacheToolResult({ payload: payload4k, convId: `w${i % 50}` });
    await cache.readCachedPayload(uri, { convId: `w${i % 50}` });
  }, floorRound);
  // The storage alone (its write and read called directly, as the cache calls them): what the
  // store costs apart from the cache's own work (minting, sizing, scoping), which the memory
  // store pays too.
  const storage = redisStorage(client, { prefix: prefix() });
  const json = JSON.stringify(payload4k);
  const [alone, floorAlone] = await interleaved(async (i) => {
    const row = { uri: `mcp+cache://w${i % 50}/AAAAAAAAAA${i}`, payload: payload4k, convId: `w${i % 50}`, sourceToolName: 't', addedAt: i, sizeBytes: json.length, lastUsedAt: i };
    await storage.write(row, 1e12, 1e9, JSON.stringify(payload4k)); // stringified each round, as the floor does
    await storage.read([row.uri], i);
  }, floorRound);
  const memory = new ResultCache({ storage: 'memory', threshold: 1 });
  const [mem, floorMem] = await interleaved(async (i) => {
    const uri = await memory.cacheToolResult({ payload: payload4k, convId: `w${i % 50}` });
    await memory.readCachedPayload(uri, { convId: `w${i % 50}` });
  }, floorRound);
  const trips = await roundTrips(async () => {
    const uri = await cache.cacheToolResult({ payload: payload4k, convId: 'trips' });
    await cache.readCachedPayload(uri, { convId: 'trips' });
  });
  if (trips !== 2) failures.push(`${name}: write+read took ${trips} round trips, expected 2`);
  rows.push({ workload: `write+read 4 KB (${JSON.stringify(payload4k).length} B)`, floorNote: 'SET + GET of the JSON', ours, floor, trips });
  rows.push({ workload: 'the same, the storage alone (write + read called directly)', floorNote: 'SET + GET of the JSON', ours: alone, floor: floorAlone, trips: 2 });
  rows.push({ workload: 'the same, the cache over `storage: "memory"` (no Redis)', floorNote: 'SET + GET of the JSON', ours: mem, floor: floorMem, trips: 0 });

  const entries = smoke ? 100 : 1000;
  const small = { small: 'x'.repeat(100) };
  /** @type {number[]} */
  const oursClear = [];
  /** @type {number[]} */
  const floorClear = [];
  for (let i = 0; i < clears + 2; i += 1) {
    const conv = `clear${i}`;
    await Promise.all(Array.from({ length: entries }, () => cache.cacheToolResult({ payload: small, convId: conv })));
    const keys = Array.from({ length: entries }, (_, k) => `floor:{${conv}}:${k}`);
    await raw.mSet(keys.flatMap((k) => [k, JSON.stringify(small)]));
    // Both start from the same quiet state (the fills' garbage collected, the sockets idle), and
    // take turns going first.
    await sleep(50);
    const timeOurs = async () => {
      const t0 = performance.now();
      const trips = await roundTrips(() => cache.clearConversation(conv));
      return [performance.now() - t0, trips];
    };
    const timeFloor = async () => {
      const t0 = performance.now();
      await raw.del(keys);
      return performance.now() - t0;
    };
    let tOurs;
    let tFloor;
    let clearTrips;
    if (i % 2) {
      [tOurs, clearTrips] = await timeOurs();
      await sleep(20);
      tFloor = await timeFloor();
    } else {
      tFloor = await timeFloor();
      await sleep(20);
      [tOurs, clearTrips] = await timeOurs();
    }
    if (clearTrips !== 1) failures.push(`${name}: a clear took ${clearTrips} round trips, expected 1`);
    if (i >= 2) {
      oursClear.push(tOurs);
      floorClear.push(tFloor);
    }
  }
  if ((await cache.entries({ convId: `clear${clears + 1}` })).length !== 0) failures.push(`${name}: a clear left entries`);
  rows.push({ workload: `clear of a conversation of ${entries} entries`, floorNote: `one DEL of ${entries} keys`, ours: stat(oursClear), floor: stat(floorClear), trips: 1 });
  results.deployments.push({ name, rows });
}

/**
 * Keys per master of 1 000 conversations written through a cluster client.
 * @param {Awaited<ReturnType<typeof startRedisCluster>>} cluster @param {RedisClient} client
 */
async function spread(cluster, client) {
  const p = prefix();
  const cache = new ResultCache({ storage: redisStorage(client, { prefix: p }), threshold: 1 });
  const count = smoke ? 100 : 1000;
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, k) => cache.cacheToolResult({ payload: { i: i + k }, convId: `conversation-${i + k}` })));
  }
  const perMaster = [];
  for (const { url } of cluster.rootNodes) {
    const node = await nodeRedisClient(url);
    let cursor = '0';
    let keys = 0;
    do {
      const [next, page] = /** @type {[string, string[]]} */ (await node.sendCommand(['SCAN', cursor, 'MATCH', `${p}*`, 'COUNT', '1000']));
      cursor = String(next);
      keys += page.length;
    } while (cursor !== '0');
    perMaster.push({ url, keys, conversations: keys / 4 });
    await closeClient(node);
  }
  const most = Math.max(...perMaster.map((m) => m.keys));
  if (most > (count * 4) / 2) failures.push(`spread: one master holds ${most} of ${count * 4} keys`);
  results.spread = { count, perMaster };
}

/**
 * Readers' lookups (other instances) timed for `ms`.
 * @param {number} ms @param {readonly Reader[]} readers
 */
async function readersFor(ms, readers) {
  /** @type {number[]} */
  const times = [];
  const until = performance.now() + ms;
  await Promise.all(readers.map(async ({ cache, uris }) => {
    let i = 0;
    while (performance.now() < until) {
      const uri = uris[i++ % uris.length];
      const t0 = performance.now();
      const got = await cache.lookup(uri.uri, { convId: uri.convId });
      times.push(performance.now() - t0);
      if (got.status !== 'hit') failures.push('storm: a reader missed a live entry');
    }
  }));
  return stat(times);
}

/**
 * 10 000 conversations (100 000 entries) expiring at once while other instances read.
 * @param {Awaited<ReturnType<typeof startRedis>>} server
 */
async function expiryStorm(server) {
  const raw = await nodeRedisClient(server.url);
  const writer = await nodeRedisClient(server.url);
  const p = prefix();
  const cache = new ResultCache({ storage: redisStorage(writer, { prefix: p, ttlMs: 3_600_000 }), threshold: 1 });
  const payload = { rows: rowsOf(200).rows };
  const t0 = performance.now();
  for (let c = 0; c < storm.conversations; c += 100) {
    /** @type {Promise<string | null>[]} */
    const writes = [];
    for (let k = c; k < Math.min(storm.conversations, c + 100); k += 1) {
      for (let e = 0; e < storm.perConversation; e += 1) writes.push(cache.cacheToolResult({ payload, convId: `storm-${k}` }));
    }
    await Promise.all(writes);
  }
  const fillSeconds = (performance.now() - t0) / 1000;
  // Other instances: their own clients, reading entries of conversations that do not expire.
  /** @type {Reader[]} */
  const readers = [];
  for (let r = 0; r < 3; r += 1) {
    const client = await nodeRedisClient(server.url);
    const reader = new ResultCache({ storage: redisStorage(client, { prefix: p, ttlMs: 3_600_000 }), threshold: 1 });
    /** @type {Reader['uris']} */
    const uris = [];
    for (let k = 0; k < 20; k += 1) uris.push({ uri: await reader.cacheToolResult({ payload, convId: `live-${r}-${k}` }), convId: `live-${r}-${k}` });
    readers.push({ client, cache: reader, uris });
  }
  // Every command of 100 µs or more (a script call of the store takes 20–60 µs).
  await raw.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '100']);
  await raw.sendCommand(['CONFIG', 'SET', 'slowlog-max-len', '100000']);
  const baseline = await readersFor(smoke ? 300 : 3000, readers);
  // Every key of the storm's conversations: one deadline, 1.5 s ahead.
  const at = Date.now() + 1500;
  let cursor = '0';
  let keys = 0;
  do {
    const [next, page] = /** @type {[string, string[]]} */ (await raw.sendCommand(['SCAN', cursor, 'MATCH', `${p}{storm-*`, 'COUNT', '5000']));
    cursor = String(next);
    const multi = raw.multi();
    for (const key of page) multi.pExpireAt(key, at);
    await multi.exec();
    keys += page.length;
  } while (cursor !== '0');
  await raw.sendCommand(['SLOWLOG', 'RESET']);
  const during = await readersFor(smoke ? 2500 : 6000, readers);
  const stats = await cache.stats();
  if (stats.entries !== readers.length * 20) failures.push(`storm: ${stats.entries} entries left, expected ${readers.length * 20}`);
  const log = /** @type {SlowlogEntry[]} */ (await raw.sendCommand(['SLOWLOG', 'GET', '-1']));
  const scripts = log.filter((entry) => /^EVAL/i.test(String(entry[3][0])));
  const longest = scripts.reduce((most, entry) => Math.max(most, Number(entry[2])), 0);
  const longestOp = String(scripts.find((entry) => Number(entry[2]) === longest)?.[3]?.[7] ?? '');
  const longestAny = log.reduce((most, entry) => Math.max(most, Number(entry[2])), 0);
  const over5ms = scripts.filter((entry) => Number(entry[2]) > 5000).length;
  await raw.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '10000']);
  results.storm = { entries: storm.conversations * storm.perConversation, conversations: storm.conversations, keys, fillSeconds, baseline, during, scripts: scripts.length, over5ms, longestScriptUs: longest, longestOp, longestCommandUs: longestAny };
  for (const { client } of readers) await closeClient(client);
  await closeClient(raw);
  await closeClient(writer);
}

const server = await startRedis();
const cluster = await startRedisCluster({ masters: 3 });
try {
  const standalone = await nodeRedisClient(server.url);
  const rawStandalone = await nodeRedisClient(server.url);
  await deployment('standalone', standalone, rawStandalone);
  const clusterClient = await nodeRedisCluster(cluster);
  const rawCluster = await nodeRedisCluster(cluster);
  await deployment('3-master cluster', clusterClient, rawCluster);
  await spread(cluster, clusterClient);
  for (const c of [standalone, rawStandalone, clusterClient, rawCluster]) await closeClient(c);
  await expiryStorm(server);
} finally {
  await cluster.stop();
  await server.stop();
}

const ms = (/** @type {number} */ x) => x.toFixed(3);
const lines = [];
for (const { name, rows } of results.deployments) {
  lines.push(`### ${name}`, '', '| workload | floor p50 / p99 ms | floor ops/s | measured p50 / p99 ms | measured ops/s | measured/floor (p50) | round trips to Redis |', '|---|---|---|---|---|---|---|');
  for (const r of rows) {
    lines.push(`| ${r.workload} | ${ms(r.floor.p50)} / ${ms(r.floor.p99)} (${r.floorNote}) | ${Math.round(r.floor.perSecond)} | ${ms(r.ours.p50)} / ${ms(r.ours.p99)} | ${Math.round(r.ours.perSecond)} | ${(r.ours.p50 / r.floor.p50).toFixed(2)}× | ${r.trips} |`);
  }
  lines.push('');
}
// Both set by now: spread() and expiryStorm() ran (a failure of either threw out of the run).
const s = /** @type {Spread} */ (results.spread);
lines.push(`### Keys per master, ${s.count} conversations (3-master cluster)`, '', '| master | keys | conversations |', '|---|---|---|', ...s.perMaster.map((m) => `| ${m.url} | ${m.keys} | ${m.conversations} |`), '');
const st = /** @type {Storm} */ (results.storm);
lines.push(`### Expiry storm: ${st.conversations} conversations (${st.entries} entries, ${st.keys} keys) expiring at once`, '',
  `Filled in ${st.fillSeconds.toFixed(1)} s. Readers: 3 other instances (own clients) looking up live entries in a loop.`, '',
  '| | reader p50 ms | reader p99 ms | lookups |', '|---|---|---|---|',
  `| without the storm | ${ms(st.baseline.p50)} | ${ms(st.baseline.p99)} | ${st.baseline.n} |`,
  `| during the storm | ${ms(st.during.p50)} | ${ms(st.during.p99)} | ${st.during.n} |`, '',
  `p99 during / without: ${(st.during.p99 / st.baseline.p99).toFixed(2)}×. SLOWLOG over the storm (commands of 100 µs or more): ${st.scripts} script calls, ${st.over5ms} of them over 5 ms; the longest script call: ${st.longestScriptUs} µs (operation \`${st.longestOp}\`); the longest command of any kind: ${st.longestCommandUs} µs.`, '');
const table = lines.join('\n');
console.log(table);

if (!smoke) {
  const markdown = `# Redis store benchmark

Generated by \`npm run bench\` (\`bench/redis.mjs\`) in Node ${process.version}, real \`redis-server\` processes on loopback (one standalone, one 3-master cluster), node-redis 6.

- **write+read 4 KB**: one \`cacheToolResult\` then one \`readCachedPayload\` of the same 4 KB JSON, against the floor: \`SET\` of its \`JSON.stringify\` then \`GET\` and \`JSON.parse\` on the same server (on the cluster, a key in the same slot as the conversation). ${iterations} measured iterations of each after ${warmup} warm-up, interleaved (ours, floor, floor, ours, …) so both see the same machine; p50/p99 of one pair, ops/s = pairs a second from the mean (one pair at a time).
- **the storage alone**: the same pair through \`redisStorage\`'s \`write\` and \`read\` called directly (what the store costs apart from the cache's own work); **the cache over memory**: the same pair through a \`ResultCache\` with \`storage: "memory"\` (the cache's own work, which no store avoids), each against its own interleaved floor.
- **clear of 1 000 entries**: \`clearConversation\` of a conversation holding 1 000 entries, against the floor: one \`DEL\` of 1 000 keys in one slot. ${clears} measured iterations after 2 warm-up.
- **Round trips**: the commands the storage sent for the operation (write+read: 2; a clear: 1).
- **Keys per master**: one entry in each of ${s.count} conversations through the cluster client, then \`SCAN\` of each master.
- **SLOWLOG** measures wall-clock time inside Redis: a script call the OS deschedules on a loaded machine shows that wait too. The work one call does is bounded by construction (one conversation, at most 256 entries, or the references a read asks for) and asserted in \`npm test\` (tests/js/redis-spread.test.mjs).
- **Expiry storm**: ${st.entries} entries in ${st.conversations} conversations, every key of them set to expire at one instant (\`PEXPIREAT\`), while 3 other instances read live entries; reader latency against the same readers for 3 s before the storm, and \`SLOWLOG\` (every command of 100 µs or more) over the storm.
- Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores (shared with other work while measured: load average ${loadAtStart} at the start, ${os.loadavg()[0].toFixed(1)} at the end), ${Math.round(os.totalmem() / 2 ** 30)} GiB
- Targets: write+read 4 KB within 1.5× the floor (p50): ${results.deployments.map((d) => `${d.name} ${(d.rows[0].ours.p50 / d.rows[0].floor.p50).toFixed(2)}×`).join(', ')}; a clear of 1 000 entries within 2× its one \`DEL\`: ${results.deployments.map((d) => `${d.name} ${(d.rows[3].ours.p50 / d.rows[3].floor.p50).toFixed(2)}×`).join(', ')}; no script call over 5 ms during the storm: ${/** @type {Storm} */ (results.storm).over5ms} over; readers' p99 within 2× of theirs without the storm: ${(/** @type {Storm} */ (results.storm).during.p99 / /** @type {Storm} */ (results.storm).baseline.p99).toFixed(2)}×.
- Date: ${new Date().toISOString()}

${table}
`;
  await writeFile(new URL('./REDIS-RESULTS.md', import.meta.url), markdown);
  console.log('wrote bench/REDIS-RESULTS.md');
}
if (failures.length > 0) {
  for (const f of [...new Set(failures)]) console.error(`redis bench: ${f}`);
  process.exit(1);
}
