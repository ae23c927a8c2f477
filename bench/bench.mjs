// Runs in the browser page: floor (raw IndexedDB), js-baseline (bench/js-baseline.mjs) and ours
// (the release package), interleaved, with warm-up; publishes window.__benchResult.
import * as ours from '../js/browser.mjs';
// Server-side State Sync lives in its own entry (and its own .wasm) since the host/server split.
import * as oursServer from '../js/server.mjs';
import { JsBaselineCache, JsPolicyEngine, estimateSize as baselineSize, matchGlob as jsMatchGlob } from './js-baseline.mjs';

const params = new URLSearchParams(location.search);
const ITERATIONS = Number(params.get('iterations') ?? 20);
const WARMUP = Number(params.get('warmup') ?? 3);
const run = `${Date.now().toString(36)}`;

window.addEventListener('error', (e) => { window.__benchError = String(e.message); });
window.addEventListener('unhandledrejection', (e) => { window.__benchError = String(e.reason?.stack ?? e.reason); });

// ------------------------------------------------------------------ payloads
function rowsOfSize(bytes) {
  const row = (i) => ({ t: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), value: (i * 7919) % 1000 / 10, label: `row ${i}`, ok: i % 3 !== 0 });
  const per = JSON.stringify(row(123456)).length + 1;
  const n = Math.max(1, Math.round((bytes - 40) / per));
  return { ok: true, columns: ['t', 'value', 'label', 'ok'], rows: Array.from({ length: n }, (_, i) => row(i)) };
}
const SIZES = { '4 KB': 4 * 1024, '64 KB': 64 * 1024, '1 MB': 1024 * 1024, '8 MB': 8 * 1024 * 1024 };
const payloads = Object.fromEntries(Object.entries(SIZES).map(([k, v]) => [k, rowsOfSize(v)]));

// ------------------------------------------------------------------ floor: raw IndexedDB
function idbOpen(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('results', { keyPath: 'uri' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
const txDone = (tx) => new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error); });
let floorKey = 0;
const floor = {
  db: await idbOpen(`bench-floor-${run}`),
  async cacheAndRead(payload) {
    const uri = `k${floorKey++}`;
    const w = this.db.transaction('results', 'readwrite', { durability: 'relaxed' });
    w.objectStore('results').put({ uri, payload });
    await txDone(w);
    const r = this.db.transaction('results', 'readonly');
    const req = r.objectStore('results').get(uri);
    await txDone(r);
    return req.result.payload;
  },
  async clear() {
    const tx = this.db.transaction('results', 'readwrite', { durability: 'relaxed' });
    tx.objectStore('results').clear();
    await txDone(tx);
  },
};

// ------------------------------------------------------------------ implementations
await ours.ready();
const oursCache = new ours.ResultCache({ dbName: `bench-ours-${run}`, threshold: 0 });
const baseline = new JsBaselineCache(`bench-js-${run}`, 0);
const impls = {
  floor: { cacheAndRead: (p) => floor.cacheAndRead(p), reset: () => floor.clear() },
  'js-baseline': {
    async cacheAndRead(p) { return baseline.readCachedPayload(await baseline.cacheToolResult({ payload: p, convId: 'bench' })); },
    reset: () => baseline.clearConversation('bench'),
    cache: baseline,
  },
  ours: {
    async cacheAndRead(p) { return oursCache.readCachedPayload(await oursCache.cacheToolResult({ payload: p, convId: 'bench' })); },
    reset: () => oursCache.clearConversation('bench'),
    cache: oursCache,
  },
};

// ------------------------------------------------------------------ workloads
const workloads = [];
for (const [label, payload] of Object.entries(payloads)) {
  workloads.push({
    name: `cache+read ${label}`,
    impls: ['floor', 'js-baseline', 'ours'],
    run: async (impl) => {
      const back = await impls[impl].cacheAndRead(payload);
      if (!back || back.rows.length !== payload.rows.length) throw new Error(`${impl}: bad read-back`);
    },
    after: (impl) => impls[impl].reset(),
  });
}
for (const count of [1, 16]) {
  const uris = {};
  workloads.push({
    name: `substitute ${count} × 64 KB`,
    impls: ['js-baseline', 'ours'],
    setup: async (impl) => {
      uris[impl] = [];
      for (let i = 0; i < count; i++) uris[impl].push(await impls[impl].cache.cacheToolResult({ payload: payloads['64 KB'], convId: 'subst' }));
    },
    run: async (impl) => {
      const args = count === 1 ? { data_uri: uris[impl][0] } : { parts_uri: uris[impl] };
      const out = await impls[impl].cache.substituteCacheUris(args);
      if (!out.ok) throw new Error(`${impl}: substitution failed`);
    },
    teardown: (impl) => impls[impl].cache.clearConversation('subst'),
  });
}
const small = { pad: 'x'.repeat(5000) };
workloads.push({
  name: 'clearConversation 1000 entries',
  impls: ['js-baseline', 'ours'],
  before: async (impl) => {
    for (let i = 0; i < 1000; i++) await impls[impl].cache.cacheToolResult({ payload: small, convId: 'bulk' });
  },
  run: async (impl) => { await impls[impl].cache.clearConversation('bulk'); },
});
workloads.push({
  name: 'estimateSize 1 MB',
  impls: ['floor', 'js-baseline', 'ours'],
  run: async (impl) => {
    const p = payloads['1 MB'];
    const n = impl === 'floor' ? JSON.stringify(p).length : impl === 'ours' ? ours.estimateSize(p) : baselineSize(p);
    if (!(n > 1_000_000)) throw new Error(`${impl}: size ${n}`);
  },
});
const names = Array.from({ length: 200 }, (_, i) => `${['billing', 'sprints', 'tasks', 'countries'][i % 4]}.${['get', 'list', 'update', 'get_invoice', 'refund'][i % 5]}_${i % 7}`);
const policies = [
  { match: 'billing.refund*', invalidates: ['billing.get_*'] },
  { match: 'sprints.update*', invalidates: ['sprints.*', 'tasks.**'] },
  { match: 'countries.*', cacheControl: 'immutable' },
  { match: '**.get*', cacheControl: 'no-store' },
];
workloads.push({
  name: '10 000 × matchGlob + policy resolve',
  impls: ['js-baseline', 'ours'],
  run: async (impl) => {
    let hits = 0;
    if (impl === 'ours') {
      await oursServer.ready();
      const sync = new oursServer.StateSync({ policies });
      for (let i = 0; i < 5000; i++) {
        if (ours.matchGlob('**.get*', names[i % 200])) hits++;
        if (sync.resolve(names[i % 200])) hits++;
      }
      sync.free();
    } else {
      const engine = new JsPolicyEngine(policies);
      for (let i = 0; i < 5000; i++) {
        if (jsMatchGlob('**.get*', names[i % 200])) hits++;
        if (engine.resolve(names[i % 200])) hits++;
      }
    }
    if (hits === 0) throw new Error(`${impl}: no hits`);
  },
});

// ------------------------------------------------------------------ runner
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2, p95: q(0.95), n: s.length };
};

const memoryBefore = ours.wasmMemoryBytes();
const results = [];
const out = document.getElementById('out');
for (const w of workloads) {
  const samples = Object.fromEntries(w.impls.map((i) => [i, []]));
  for (const impl of w.impls) await w.setup?.(impl);
  for (let it = 0; it < WARMUP + ITERATIONS; it++) {
    const order = w.impls.map((_, k) => w.impls[(k + it) % w.impls.length]);
    for (const impl of order) {
      await w.before?.(impl);
      performance.mark(`${w.name}:${impl}:start`);
      const t0 = performance.now();
      await w.run(impl);
      const dt = performance.now() - t0;
      performance.measure(`${w.name} · ${impl}`, `${w.name}:${impl}:start`);
      if (it >= WARMUP) samples[impl].push(dt);
      await w.after?.(impl);
    }
  }
  for (const impl of w.impls) await w.teardown?.(impl);
  for (const impl of w.impls) results.push({ workload: w.name, impl, ...stats(samples[impl]) });
  console.log(`bench: ${w.name} done`);
  out.textContent += `\n${w.name}: ${w.impls.map((i) => `${i} ${stats(samples[i]).median.toFixed(2)} ms`).join(' · ')}`;
}
const memoryAfter = ours.wasmMemoryBytes();

// The 240-row flow: what the model has to emit for chart.create, inline vs by reference.
const rows240 = Array.from({ length: 240 }, (_, i) => ({ t: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(), value: Math.round(55 + 25 * Math.sin(i / 9)) }));
const uri240 = await oursCache.cacheToolResult({ payload: { ok: true, rows: rows240 }, convId: 'flow' });
const flow = {
  inlineChars: JSON.stringify({ data: { ok: true, rows: rows240 }, title: 'CPU' }).length,
  byReferenceChars: JSON.stringify({ data_uri: uri240, title: 'CPU' }).length,
};

window.__benchResult = {
  iterations: ITERATIONS, warmup: WARMUP, userAgent: navigator.userAgent, results, flow,
  payloadBytes: Object.fromEntries(Object.entries(payloads).map(([k, p]) => [k, new TextEncoder().encode(JSON.stringify(p)).length])),
  wasmMemory: { before: memoryBefore, after: memoryAfter },
};
out.textContent += '\ndone';
