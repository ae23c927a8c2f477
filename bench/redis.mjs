// The Redis store against the memory store and against the floor, one plain SET/GET of the same
// JSON on the same Redis (a real redis-server on a free port, node-redis 6), in Node, in one run.
// `npm run bench` runs it after the browser bench and writes bench/REDIS-RESULTS.md;
// `node bench/redis.mjs --smoke` (part of npm test) runs one iteration of each and checks the
// round trips, writes nothing. Timings never fail anything; round trips do (they are the design).
//
// Workloads: write+read of one 4 KB and one 1 MB result; a substitution of 16 references (one
// read of 16 entries); a clear of a conversation of 1 000 entries. Round trips are counted at the
// client: every command the storage sends.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { startRedis, nodeRedisClient, closeClient } from '../tests/support/redis-servers.mjs';

const require = createRequire(import.meta.url);
const { ResultCache } = require('../js/node.cjs');
const { redisStorage } = require('../js/redis.cjs');

const smoke = process.argv.includes('--smoke');
const iterations = smoke ? 1 : Number(process.env.BENCH_ITERATIONS ?? 30);
const warmup = smoke ? 0 : 3;

const rowsOf = (bytes) => {
  const rows = [];
  let size = 2;
  for (let i = 0; size < bytes; i += 1) {
    const row = { t: 1_700_000_000_000 + i * 60_000, value: Math.round(Math.sin(i) * 1e6) / 1e3, label: `point ${i}` };
    rows.push(row);
    size += JSON.stringify(row).length + 1;
  }
  return { rows };
};
const payloads = { '4 KB': rowsOf(4 * 1024), '1 MB': rowsOf(1024 * 1024) };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p95 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))];
};

async function measure(fn) {
  const times = [];
  for (let i = 0; i < warmup + iterations; i += 1) {
    const t0 = performance.now();
    await fn(i);
    const dt = performance.now() - t0;
    if (i >= warmup) times.push(dt);
  }
  return { median: median(times), p95: p95(times) };
}

const server = await startRedis();
const client = await nodeRedisClient(server.url);
// Every command the storage sends goes through sendCommand: counted here.
let sent = 0;
const send = client.sendCommand.bind(client);
client.sendCommand = (...args) => {
  sent += 1;
  return send(...args);
};
const roundTrips = async (fn) => {
  const before = sent;
  await fn();
  return sent - before;
};

const failures = [];
const rows = [];
try {
  let n = 0;
  const redisCache = () => new ResultCache({ storage: redisStorage(client, { prefix: `bench${(n += 1)}:` }), threshold: 1 });
  const memoryCache = () => new ResultCache({ storage: 'memory', threshold: 1 });
  const conv = 'bench';

  // The store's first call loads its script: not part of any measurement.
  await redisCache().stats();

  for (const [label, payload] of Object.entries(payloads)) {
    const json = JSON.stringify(payload);
    const redis = redisCache();
    const memory = memoryCache();
    const floor = await measure(async (i) => {
      await client.set(`floor:${i}`, JSON.stringify(payload));
      JSON.parse(await client.get(`floor:${i}`));
    });
    const ours = await measure(async () => {
      const uri = await redis.cacheToolResult({ payload, convId: conv });
      await redis.readCachedPayload(uri, { convId: conv });
    });
    const mem = await measure(async () => {
      const uri = await memory.cacheToolResult({ payload, convId: conv });
      await memory.readCachedPayload(uri, { convId: conv });
    });
    const trips = await roundTrips(async () => {
      const uri = await redis.cacheToolResult({ payload, convId: conv });
      await redis.readCachedPayload(uri, { convId: conv });
    });
    if (trips !== 2) failures.push(`write+read ${label}: ${trips} round trips, expected 2 (one per operation)`);
    rows.push({ workload: `write+read ${label} (${json.length} B)`, floor, memory: mem, ours, trips });
    await client.flushAll();
    await redis.stats(); // the script again after FLUSHALL left it cached: nothing to measure
  }

  {
    const redis = redisCache();
    const memory = memoryCache();
    const payload = payloads['4 KB'];
    const args = async (cache) => {
      const entries = {};
      for (let i = 0; i < 16; i += 1) entries[`d${i}_uri`] = await cache.cacheToolResult({ payload, convId: conv });
      return entries;
    };
    const redisArgs = await args(redis);
    const memoryArgs = await args(memory);
    const floorKeys = Array.from({ length: 16 }, (_, i) => `floor:sub:${i}`);
    for (const key of floorKeys) await client.set(key, JSON.stringify(payload));
    const floor = await measure(async () => {
      for (const value of await client.mGet(floorKeys)) JSON.parse(value);
    });
    const ours = await measure(() => redis.substituteCacheUris(redisArgs, { convId: conv }));
    const mem = await measure(() => memory.substituteCacheUris(memoryArgs, { convId: conv }));
    const trips = await roundTrips(() => redis.substituteCacheUris(redisArgs, { convId: conv }));
    if (trips !== 1) failures.push(`16-reference substitution: ${trips} round trips, expected 1`);
    rows.push({ workload: 'substitution of 16 × 4 KB references', floor, floorNote: 'one MGET of 16 keys', memory: mem, ours, trips });
  }

  {
    const entries = smoke ? 50 : 1000;
    const payload = { small: 'x'.repeat(100) };
    const fill = async (cache, convId) => {
      await Promise.all(Array.from({ length: entries }, () => cache.cacheToolResult({ payload, convId })));
    };
    const redis = redisCache();
    const memory = memoryCache();
    const times = { ours: [], memory: [], floor: [] };
    let trips = 0;
    for (let i = 0; i < warmup + Math.max(1, Math.ceil(iterations / 3)); i += 1) {
      await fill(redis, `clear${i}`);
      await fill(memory, `clear${i}`);
      const keys = Array.from({ length: entries }, (_, k) => `floor:clear:${i}:${k}`);
      await client.mSet(keys.flatMap((k) => [k, '{"small":"x"}']));
      let t0 = performance.now();
      const before = sent;
      await redis.clearConversation(`clear${i}`);
      trips = sent - before;
      const ours = performance.now() - t0;
      t0 = performance.now();
      await memory.clearConversation(`clear${i}`);
      const mem = performance.now() - t0;
      t0 = performance.now();
      await client.del(keys);
      const floor = performance.now() - t0;
      if (i >= warmup) {
        times.ours.push(ours);
        times.memory.push(mem);
        times.floor.push(floor);
      }
    }
    if ((await redis.stats()).entries !== 0) failures.push('clear: entries left behind');
    if (trips !== 1) failures.push(`clear of ${entries}: ${trips} round trips, expected 1`);
    const stat = (xs) => ({ median: median(xs), p95: p95(xs) });
    rows.push({ workload: `clear of a conversation of ${entries} entries`, floor: stat(times.floor), floorNote: `one DEL of ${entries} keys`, memory: stat(times.memory), ours: stat(times.ours), trips });
  }
} finally {
  await closeClient(client);
  await server.stop();
}

const ms = (x) => x.toFixed(2);
const table = [
  '| workload | floor ms (median / p95) | memory store ms | redis store ms | redis/floor | round trips |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.workload} | ${ms(r.floor.median)} / ${ms(r.floor.p95)}${r.floorNote ? ` (${r.floorNote})` : ''} | ${ms(r.memory.median)} / ${ms(r.memory.p95)} | ${ms(r.ours.median)} / ${ms(r.ours.p95)} | ${(r.ours.median / r.floor.median).toFixed(2)}× | ${r.trips} |`),
].join('\n');
console.log(table);

if (!smoke) {
  const markdown = `# Redis store benchmark

Generated by \`npm run bench\` (\`bench/redis.mjs\`): ${iterations} measured iterations after ${warmup} warm-up (clears: a third of that), in Node ${process.version}, one real \`redis-server\` on loopback, node-redis 6. The floor is the same JSON through a plain \`SET\`/\`GET\` (stringify, set, get, parse) on the same server; the memory store is \`storage: "memory"\` in the same process. Round trips are the commands the storage sent for one logical operation pair (write+read: 2).

- Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB
- Date: ${new Date().toISOString()}

${table}
`;
  await writeFile(new URL('./REDIS-RESULTS.md', import.meta.url), markdown);
  console.log('wrote bench/REDIS-RESULTS.md');
}
if (failures.length > 0) {
  for (const f of failures) console.error(`redis bench: ${f}`);
  process.exit(1);
}
