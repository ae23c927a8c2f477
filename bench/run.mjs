// `npm run bench`: drives bench/index.html in headless Chromium (playwright-core +
// /usr/bin/chromium) and writes bench/results.json and bench/RESULTS.md.
// `PEER_DIR=<dir> npm run bench`: also measures the peer, chatbox-core's own engine/cache.js and
// engine/uri-substitution.js from <dir> (bench/peer.mjs; never committed here). Without it the
// peer column is absent, and RESULTS.md and the console say so.
// `node bench/run.mjs --render` rewrites RESULTS.md from results.json and READING.md.
// `node bench/run.mjs --smoke` (part of npm test): 1 iteration, no warm-up, small stores; checks
// the numbers are sane, that every store holds what it should after each round (the page throws
// otherwise) and that the payload never entered wasm memory; writes nothing. Timings never fail.
// RESULTS.md compares each median with the previous bench/results.json (read before it is
// overwritten).
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import { serve } from '../scripts/serve.mjs';
import { runBenchPage } from './page.mjs';
import { bytes, bytesTable, coldStart, coldStartTable, startup, startupTable } from './cold-start.mjs';
import { PEER_ABSENT, stagePeer } from './peer.mjs';

/** @typedef {import('./bench.mjs').BenchResultRow} BenchResultRow */
/** A row of a store-size workload (cache_select, write after clear): `storeSize` set. @typedef {BenchResultRow & { storeSize: number }} SizedRow */
/** The rows of each workload, by implementation. @typedef {Map<string, Record<string, BenchResultRow>>} ByWorkload */
/** The row of a workload and implementation, if measured. @typedef {(workload: string, impl: string) => BenchResultRow | undefined} RowOf */
/**
 * bench/results.json: the page's result (bench/bench.mjs) with what this runner adds to it.
 * `load` and `bytes` are absent from older files.
 * @typedef {import('./bench.mjs').BenchResult & {
 *   peer: string | null, load?: string, browser: string, machine: string, date: string,
 *   wasm: { raw: number, gzip: number }, bytes?: import('./cold-start.mjs').BytesRow[],
 *   coldStart?: import('./cold-start.mjs').ColdStartResult, startup?: import('./cold-start.mjs').StartupResult,
 *   seconds: number,
 *   previous?: { date: string, browser: string, machine?: string, results: { workload: string, impl: string, median: number }[] },
 * }} BenchData
 */

const smoke = process.argv.includes('--smoke');
const iterations = smoke ? 1 : Number(process.env.BENCH_ITERATIONS ?? 20);
const warmup = smoke ? 0 : 3;

// Written after looking at the numbers; kept next to the generator so a re-run keeps it.
const READING = (await readFile(new URL('./READING.md', import.meta.url), 'utf8').catch(() => '(no reading yet)')).trim();
/** @type {BenchData | null} */
const PREVIOUS = smoke ? null : await readFile(new URL('./results.json', import.meta.url), 'utf8').then(JSON.parse).catch(() => null);
const startedAt = Date.now();
const loadAtStart = os.loadavg();

// `node bench/run.mjs --render`: RESULTS.md again from results.json (after editing READING.md).
if (process.argv.includes('--render')) {
  if (!PREVIOUS) throw new Error('bench/run.mjs --render: no readable bench/results.json to render');
  await writeFile(new URL('./RESULTS.md', import.meta.url), render(PREVIOUS).markdown);
  console.log('wrote bench/RESULTS.md from bench/results.json');
  process.exit(0);
}

const peer = await stagePeer();
if (!peer) console.log(`bench: ${PEER_ABSENT}`);
const server = await serve();
const browser = await chromium.launch({
  ...chromiumOptions(),
});
let failed = false;
try {
  const data = /** @type {BenchData} */ (await runBenchPage(browser, server, { iterations, warmup, ...(smoke ? { smoke: 1 } : {}), ...(peer ? { peer: peer.base } : {}) }, { timeoutMinutes: smoke ? 3 : 40 }));
  data.peer = peer ? peer.label : null;
  data.load = `${loadAtStart.map((l) => l.toFixed(2)).join(' ')} at the start, ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} after the page`;
  data.browser = `Chromium ${browser.version()}`;
  data.machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}`;
  data.date = new Date().toISOString();
  const wasm = await readFile(new URL('../pkg/web/mcp_result_cache_bg.wasm', import.meta.url));
  data.wasm = { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length };
  // Bytes a host downloads per entry (always); cold start in fresh pages (full runs only: it
  // launches its own browser and takes about a minute).
  data.bytes = await bytes();
  if (!smoke) {
    data.coldStart = await coldStart({ origin: server.origin, rounds: Number(process.env.BENCH_COLD_ROUNDS ?? 10), peer });
    data.startup = await startup({ origin: server.origin, rounds: Number(process.env.BENCH_COLD_ROUNDS ?? 10) });
  }
  data.seconds = Math.round((Date.now() - startedAt) / 1000);
  if (PREVIOUS) data.previous = { date: PREVIOUS.date, browser: PREVIOUS.browser, machine: PREVIOUS.machine, results: PREVIOUS.results.map(({ workload, impl, median }) => ({ workload, impl, median })) };

  const growth = data.wasmMemory.after - data.wasmMemory.before;
  const checks = [
    ['every workload has finite timings, one per round', data.results.every((r) => Number.isFinite(r.median) && r.n === r.iterations && r.n >= 1)],
    [`wasm memory grew ${growth} bytes across all workloads (8 MB payloads included): < 1 MiB`, growth < 1024 * 1024],
  ];
  for (const [name, ok] of checks) {
    console.log(`${ok ? 'ok' : 'not ok'} - ${name}`);
    failed ||= !ok;
  }
  const table = render(data);
  console.log(table.console);
  if (!smoke) {
    await writeFile(new URL('./results.json', import.meta.url), `${JSON.stringify(data, null, 2)}\n`);
    await writeFile(new URL('./RESULTS.md', import.meta.url), table.markdown);
    console.log('wrote bench/results.json and bench/RESULTS.md');
  }
  console.log(table.targets.join('\n'));
  console.log(`bench: ${checks.filter(([, ok]) => ok).length} passed, ${checks.filter(([, ok]) => !ok).length} failed (${data.seconds} s)`);
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  await browser.close();
  await server.close();
  await peer?.remove();
}
process.exitCode = failed ? 1 : 0;

/**
 * RESULTS.md of `data` (its table, the targets and the reading), and the table for the console.
 * @param {BenchData} data @returns {{ console: string, markdown: string, targets: string[] }}
 */
function render(data) {
  /** @type {ByWorkload} */
  const byWorkload = new Map();
  for (const r of data.results) {
    if (!byWorkload.has(r.workload)) byWorkload.set(r.workload, {});
    /** @type {Record<string, BenchResultRow>} */ (byWorkload.get(r.workload))[r.impl] = r;
  }
  const hasPeer = data.results.some((r) => r.impl === 'peer');
  const tableText = resultsTable(byWorkload, hasPeer);
  /** @type {RowOf} */
  const get = (w, i) => byWorkload.get(w)?.[i];
  /** @type {string[]} */
  const targets = [
    ...peerTargets(byWorkload, get, hasPeer),
    ...originalTargets(byWorkload, get),
    ...readBackTargets(data, get),
    ...storeSizeTargets(data, get),
    ...memoryTargets(data),
  ];
  const previous = previousRun(data, byWorkload);
  if (previous) targets.push(previous.target);
  const previousSection = previous?.section ?? '';
  targets.push(...startTargets(data));
  return { console: tableText, markdown: resultsMarkdown(data, tableText, targets, previousSection), targets };
}

/**
 * The table of every workload's medians and p95s, implementation by implementation, with ours'
 * ratios to the others.
 * @param {ByWorkload} byWorkload @param {boolean} hasPeer @returns {string}
 */
function resultsTable(byWorkload, hasPeer) {
  const fmt = (/** @type {BenchResultRow | undefined} */ r) => (r ? `${r.median.toFixed(2)} / ${r.p95.toFixed(2)}` : '—');
  /** @param {BenchResultRow | undefined} a @param {BenchResultRow | undefined} b */
  const ratio = (a, b) => (a && b ? `${(a.median / b.median).toFixed(2)}×` : '—');
  const peerCell = (/** @type {Record<string, BenchResultRow>} */ m) => (hasPeer ? ` ${fmt(m.peer)} | ${ratio(m.ours, m.peer)} |` : '');
  const rows = [...byWorkload].map(([w, m]) => `| ${w} | ${fmt(m.floor)} | ${fmt(m['js-baseline'])} |${peerCell(m)} ${fmt(m.ours)} | ${ratio(m.ours, m.floor)} | ${ratio(m.ours, m['js-baseline'])} |`);
  const head = `| workload | floor ms (median / p95) | js-baseline ms |${hasPeer ? ' peer (chatbox-core) ms | **ours/peer** |' : ''} ours ms | ours/floor | ours/js-baseline |\n|---|---|---|${hasPeer ? '---|---|' : ''}---|---|---|`;
  return `${head}\n${rows.join('\n')}`;
}

/**
 * The targets against the real peer (chatbox-core's own modules), when it was measured.
 * @param {ByWorkload} byWorkload @param {RowOf} get @param {boolean} hasPeer @returns {string[]}
 */
function peerTargets(byWorkload, get, hasPeer) {
  if (!hasPeer) return [`- ${PEER_ABSENT}: the targets against chatbox-core are not checked in this run.`];
  const vsPeer = (/** @type {string} */ w) => get(w, 'ours') && get(w, 'peer') ? /** @type {BenchResultRow} */ (get(w, 'ours')).median / /** @type {BenchResultRow} */ (get(w, 'peer')).median : NaN;
  /** @param {string} what @param {string[]} names @param {number} limit */
  const line = (what, names, limit) => {
    const rs = names.map((w) => /** @type {[string, number]} */ ([w, vsPeer(w)])).filter(([, r]) => Number.isFinite(r));
    return `- ${what} ≤ ${limit.toFixed(1)}× the peer (chatbox-core): ${rs.map(([w, r]) => `${w} ${x(r)}`).join(', ')} — ${verdict(rs.length > 0 && rs.every(([, r]) => r <= limit))}.`;
  };
  const stored = [...byWorkload.keys()].filter((w) => /^cache\+read 4 KB, \d+ entries stored$/.test(w));
  const sequential = [...byWorkload.keys()].filter((w) => /sequential 4 KB writes$/.test(w));
  return [
    line('every 4 KB write+read', ['cache+read 4 KB', 'cache+read 4 KB, no clear between', ...stored], 1.0),
    line('filling entries one after another', sequential, 1.0),
    line('one-reference substitution', ['substitute 1 × 64 KB'], 1.0),
    line('kept wins (16 references, clears, big payloads)', ['substitute 16 × 64 KB', 'clearConversation 1000 entries', ...[...byWorkload.keys()].filter((w) => w.startsWith('clearConversation ') && w.includes(' of ')), 'cache+read 1 MB', 'cache+read 8 MB'], 1.0),
  ];
}

/**
 * The targets of the original workloads (no group): ours against the floor and js-baseline.
 * @param {ByWorkload} byWorkload @param {RowOf} get @returns {string[]}
 */
function originalTargets(byWorkload, get) {
  const original = [...byWorkload].filter(([, m]) => !Object.values(m)[0].group);
  // A row that is absent (`?.median` undefined) makes its ratio NaN, reported as missed.
  const cr = ['64 KB', '1 MB', '8 MB'].map((s) => /** @type {[string, number]} */ ([s, /** @type {number} */ (get(`cache+read ${s}`, 'ours')?.median) / /** @type {number} */ (get(`cache+read ${s}`, 'floor')?.median)]));
  const vsBase = original.filter(([, m]) => m.ours && m['js-baseline']).map(([w, m]) => /** @type {[string, number]} */ ([w, m.ours.median / m['js-baseline'].median]));
  const s16 = /** @type {number} */ (get('substitute 16 × 64 KB', 'js-baseline')?.median) / /** @type {number} */ (get('substitute 16 × 64 KB', 'ours')?.median);
  return [
    `- ours ≤ 1.10× floor for cache+read at 64 KB, 1 MB, 8 MB: ${cr.map(([s, r]) => `${s} ${x(r)}`).join(', ')} — ${verdict(cr.every(([, r]) => r <= 1.10))}.`,
    `- ours ≤ 1.0× js-baseline on the original workloads: worst ${x(Math.max(...vsBase.map(([, r]) => r)))} (${[...vsBase].sort((a, b) => b[1] - a[1])[0][0]}) — ${verdict(vsBase.every(([, r]) => r <= 1.0))}.`,
    `- 16-URI substitution ≥ 2× faster than js-baseline: ${x(s16)} — ${verdict(s16 >= 2)}.`,
  ];
}

/**
 * The targets of the read-back workloads: a cache_read window against the floor, cache_select
 * linear in the rows.
 * @param {BenchData} data @param {RowOf} get @returns {string[]}
 */
function readBackTargets(data, get) {
  /** @type {string[]} */
  const targets = [];
  const window100 = get('cache_read 100 rows of an 8 MB entry', 'ours');
  const windowFloor = get('cache_read 100 rows of an 8 MB entry', 'floor');
  if (window100 && windowFloor) {
    targets.push(`- cache_read of a 100-row window of an 8 MB entry ≤ 1.2× the raw IndexedDB get of the record: ${ms(window100)} vs ${ms(windowFloor)} = ${x(window100.median / windowFloor.median)} — ${verdict(window100.median / windowFloor.median <= 1.2)}.`);
  }
  const selects = /** @type {SizedRow[]} */ (data.results.filter((r) => r.impl === 'ours' && r.workload.startsWith('cache_select over '))).sort((a, b) => a.storeSize - b.storeSize);
  if (selects.length === 2) {
    const [a, b] = selects;
    const growth = (b.median / a.median) / (b.storeSize / a.storeSize);
    targets.push(`- cache_select linear in the rows: ${a.storeSize} → ${b.storeSize} rows took ${ms(a)} → ${ms(b)}, ${x(b.median / a.median)} for ${x(b.storeSize / a.storeSize)} the rows (growth per row ${x(growth)}) — ${verdict(growth <= 1.5)}.`);
  }
  return targets;
}

/**
 * The targets of the store-size workloads: the write after a clear, the burst, the clear.
 * @param {BenchData} data @param {RowOf} get @returns {string[]}
 */
function storeSizeTargets(data, get) {
  /** @type {string[]} */
  const targets = [];
  const wac = /** @type {SizedRow[]} */ (data.results.filter((r) => r.group === 'write-after-clear' && r.impl === 'ours')).sort((a, b) => a.storeSize - b.storeSize);
  if (wac.length) {
    // Every store-size workload runs js-baseline next to ours: the rows below exist.
    const base = (/** @type {BenchResultRow} */ r) => /** @type {BenchResultRow} */ (get(r.workload, 'js-baseline'));
    const ratios = wac.map((r) => r.median / base(r).median);
    targets.push(`- write after a clear ≤ 1.2× js-baseline at every store size: ${wac.map((r, k) => `N = ${r.storeSize}: ${ms(r)} vs ${ms(base(r))} = ${x(ratios[k])}`).join('; ')} — ${verdict(ratios.every((r) => r <= 1.2))}.`);
    const [lo, hi] = [wac[0], wac[wac.length - 1]];
    const flat = hi.median / lo.median;
    const baseFlat = base(hi).median / base(lo).median;
    targets.push(`- write after a clear flat in the store size (median at N = ${hi.storeSize} / N = ${lo.storeSize}) ≤ 1.2×: ours ${x(flat)} (js-baseline ${x(baseFlat)}) — ${verdict(flat <= 1.2)}.`);
  }
  const burst = data.results.find((r) => r.group === 'burst' && r.impl === 'ours');
  if (burst) {
    const b = /** @type {BenchResultRow} */ (get(burst.workload, 'js-baseline'));
    targets.push(`- ${burst.workload} ≤ 1.2× js-baseline: ${ms(burst)} vs ${ms(b)} = ${x(burst.median / b.median)} — ${verdict(burst.median / b.median <= 1.2)}.`);
  }
  const clear = data.results.find((r) => r.group === 'clear' && r.impl === 'ours');
  if (clear) {
    const [f, b] = [/** @type {BenchResultRow} */ (get(clear.workload, 'floor')), /** @type {BenchResultRow} */ (get(clear.workload, 'js-baseline'))];
    targets.push(`- ${clear.workload} ≤ 2× the key-range floor: ${ms(clear)} vs ${ms(f)} = ${x(clear.median / f.median)} (js-baseline ${ms(b)}, ours ${x(clear.median / b.median)} of it) — ${verdict(clear.median / f.median <= 2)}.`);
  }
  return targets;
}

/**
 * The targets of wasm memory (the payload never in it) and of the .wasm's size.
 * @param {BenchData} data @returns {string[]}
 */
function memoryTargets(data) {
  return [
    `- payload never in wasm memory: linear memory ${data.wasmMemory.before} → ${data.wasmMemory.after} bytes across every workload (8 MB payloads included) — ${verdict(data.wasmMemory.after - data.wasmMemory.before < 1024 * 1024)}.`,
    `- .wasm ≤ 60 KB gzip: ${(data.wasm.gzip / 1024).toFixed(1)} KB gzip (${(data.wasm.raw / 1024).toFixed(1)} KB raw) — ${verdict(data.wasm.gzip <= 60 * 1024)}.`,
  ];
}

/**
 * RESULTS.md: the run's particulars, the table, the targets, the cold start, the bytes, the
 * comparison with the previous run and the reading.
 * @param {BenchData} data @param {string} tableText @param {string[]} targets @param {string} previousSection
 * @returns {string}
 */
function resultsMarkdown(data, tableText, targets, previousSection) {
  const coldStartSection = data.coldStart ? `
## Cold start

Fresh page per round, no HTTP cache: \`import()\` of the entry → first completed
\`cacheToolResult\`, on a new database and on an existing one, next to the plain-JS module.

${coldStartTable(data.coldStart)}
${data.startup ? `
## Startup: the first tool result a second after the page started

What a chat app does: the cache is created and its database opened when the page starts; the
first tool result comes a second later. That first call against the warm ones after it.

${startupTable(data.startup)}
` : ''}` : '';
  const bytesSection = data.bytes ? `
## Bytes

What a browser downloads per entry (JS glue + \`.wasm\`), raw and \`gzip -9 -n\`.

${bytesTable(data.bytes)}
` : '';
  const fewer = [...new Set(data.results.filter((r) => r.iterations !== data.iterations).map((r) => `; ${r.workload}: ${r.iterations} after ${r.warmup}`))].join('');
  return `# Benchmark results

Generated by \`npm run bench\` (${data.iterations} measured iterations after ${data.warmup} warm-up${fewer}; the
implementations interleaved in one page; ${data.seconds} s in all). Do not edit the tables by hand;
the reading below is maintained with them.

- Compared against: ${data.peer ? `the peer, ${data.peer}` : `no peer (${PEER_ABSENT})`}; \`js-baseline\` is bench/js-baseline.mjs, a plain-JS module written in this repository (not chatbox-core's code); the floor is raw IndexedDB
- Machine: ${data.machine}${data.load ? `; load average (1/5/15 min) ${data.load}` : ''}
- Browser: ${data.browser} (headless${data.crossOriginIsolated ? ', cross-origin isolated: 5 µs timer' : ''})
- Date: ${data.date}
- Payload sizes (UTF-8 JSON bytes): ${Object.entries(data.payloadBytes).map(([k, v]) => `${k} = ${v}`).join(', ')}
- \`.wasm\`: ${data.wasm.raw} bytes raw, ${data.wasm.gzip} bytes gzip
- 240-row flow, LLM-visible \`chart.create\` arguments: ${data.flow.inlineChars} chars inline vs ${data.flow.byReferenceChars} chars by reference

${tableText}

## Targets

Timings never fail a test; these are checked and reported here only.

${targets.join('\n')}
${coldStartSection}${bytesSection}${previousSection}
## Reading

${READING}
`;
}

/** A cell's verdict. @param {boolean} ok */
function verdict(ok) {
  return ok ? 'met' : '**missed**';
}
/** A median as written. @param {BenchResultRow} r */
function ms(r) {
  return `${r.median.toFixed(2)} ms`;
}
/** A ratio as written. @param {number} r */
function x(r) {
  return `${r.toFixed(2)}×`;
}
/** The median of `xs`. @param {readonly number[]} xs */
function med(xs) {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/**
 * Nothing slower than before: each median against the previous run's, with the JS module as the
 * control for how much the machine itself moved between the runs. `null` without a previous run.
 * @param {BenchData} data @param {ByWorkload} byWorkload
 * @returns {{ target: string, section: string } | null}
 */
function previousRun(data, byWorkload) {
  if (!data.previous) return null;
  const before = new Map(data.previous.results.map((r) => [`${r.workload}\u0000${r.impl}`, r.median]));
  /** @param {string} w @param {string} i */
  const was = (w, i) => before.get(`${w}\u0000${i}`);
  // (The filter keeps the workloads that `was(w, 'ours')` knows.)
  const lines = [...byWorkload].filter(([w, m]) => m.ours && was(w, 'ours') !== undefined).map(([w, m]) => {
    const oursRatio = m.ours.median / /** @type {number} */ (was(w, 'ours'));
    const b = m['js-baseline'] && was(w, 'js-baseline') !== undefined ? m['js-baseline'].median / /** @type {number} */ (was(w, 'js-baseline')) : null;
    const rel = b ? oursRatio / b : oursRatio;
    return { w, line: `| ${w} | ${/** @type {number} */ (was(w, 'ours')).toFixed(2)} | ${m.ours.median.toFixed(2)} | ${x(oursRatio)} | ${b ? x(b) : '—'} | ${x(rel)} |`, rel };
  });
  const slower = lines.filter((l) => l.rel > 1.10);
  const target = `- nothing slower than the previous run (ours' change relative to js-baseline's, > 1.10× counts as slower): ${slower.length ? `${slower.map((l) => `${l.w} ${x(l.rel)}`).join(', ')}` : `no workload (worst ${x(Math.max(...lines.map((l) => l.rel)))})`} — ${verdict(slower.length === 0)}.`;
  const section = `
## Against the previous run

Previous run: ${data.previous.date} (${data.previous.browser}${data.previous.machine ? `, ${data.previous.machine}` : ''}). Medians in ms; "relative" divides
ours' change by the JS module's (the control for the machine's own drift).

| workload | ours before | ours now | ours now/before | js-baseline now/before | relative |
|---|---|---|---|---|---|
${lines.map((l) => l.line).join('\n')}
`;
  return { target, section };
}

/**
 * The targets of the cold start, the startup and the bytes, when they were measured.
 * @param {BenchData} data @returns {string[]}
 */
function startTargets(data) {
  /** @type {string[]} */
  const targets = [];
  if (data.coldStart) {
    const r = data.coldStart.results;
    const ratios = /** @type {const} */ (['new', 'existing']).map((state) => /** @type {[string, number]} */ ([state, med(r.ours[state]) / med(r['js-baseline'][state])]));
    targets.push(`- cold start ≤ 1.3× the plain-JS module (js-baseline): ${ratios.map(([st, v]) => `${st} database ${x(v)}`).join(', ')} — ${verdict(ratios.every(([, v]) => v <= 1.3))}.`);
    if (r.peer) {
      const vsPeer = /** @type {const} */ (['new', 'existing']).map((state) => /** @type {[string, number]} */ ([state, med(r.ours[state]) / med(r.peer[state])]));
      targets.push(`- import → first write ≤ 1.3× the peer (chatbox-core): ${vsPeer.map(([st, v]) => `${st} database ${x(v)}`).join(', ')} — ${verdict(vsPeer.every(([, v]) => v <= 1.3))}.`);
    }
  }
  if (data.startup) {
    const o = data.startup.results.ours;
    const r = med(o.first) / med(o.warm);
    const f = data.startup.results.floor;
    const floor = f ? ` (raw IndexedDB's own first \`put\` after the same second: ${x(med(f.first) / med(f.warm))} its warm ones)` : '';
    targets.push(`- first \`afterToolCall\` a second after a start that called \`ready()\`, \`stats()\` and \`warmUp(options)\` ≤ 1.2× a warm one: ${med(o.first).toFixed(2)} ms vs ${med(o.warm).toFixed(2)} ms = ${x(r)} — ${verdict(r <= 1.2)}${floor}.`);
  }
  if (data.bytes) {
    const host = data.bytes.find((row) => row.entry.startsWith('host'));
    if (host) targets.push(`- host entry ≤ 64 KB gzip -9 (JS glue + \`.wasm\`): ${host.gzip} bytes — ${verdict(host.gzip <= 64 * 1024)}.`);
  }
  return targets;
}
