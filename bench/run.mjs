// `npm run bench`: drives bench/index.html in headless Chromium (playwright-core +
// /usr/bin/chromium) and writes bench/results.json and bench/RESULTS.md.
// `node bench/run.mjs --smoke` (part of npm test): 1 iteration, no warm-up, checks the numbers
// are sane and that the payload never entered wasm memory; writes nothing.
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../scripts/chromium.mjs';
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import { serve } from '../scripts/serve.mjs';

const smoke = process.argv.includes('--smoke');
const iterations = smoke ? 1 : Number(process.env.BENCH_ITERATIONS ?? 20);
const warmup = smoke ? 0 : 3;

// Written after looking at the numbers; kept next to the generator so a re-run keeps it.
const READING = (await readFile(new URL('./READING.md', import.meta.url), 'utf8').catch(() => '(no reading yet)')).trim();

const server = await serve();
const browser = await chromium.launch({
  ...chromiumOptions(),
});
let failed = false;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(server.url.replace('/www/', `/bench/index.html?iterations=${iterations}&warmup=${warmup}`));
  page.on('console', (m) => m.type() === 'log' && process.env.BENCH_VERBOSE && console.log(`  [page] ${m.text()}`));
  await page.waitForFunction(() => window.__benchResult || window.__benchError || null,
    null, { timeout: (smoke ? 3 : 20) * 60_000, polling: 250 });
  const data = await page.evaluate(() => window.__benchResult);
  if (!data) throw new Error(`benchmark page failed: ${await page.evaluate(() => window.__benchError)} ${errors.join(' | ')}`);
  if (errors.length) throw new Error(`page errors: ${errors.join(' | ')}`);
  data.browser = `Chromium ${browser.version()}`;
  data.machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}`;
  data.date = new Date().toISOString();
  const wasm = await readFile(new URL('../pkg/web/mcp_result_cache_bg.wasm', import.meta.url));
  data.wasm = { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length };

  const growth = data.wasmMemory.after - data.wasmMemory.before;
  const checks = [
    ['every workload has finite timings', data.results.every((r) => Number.isFinite(r.median) && r.n === iterations)],
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
  console.log(`bench: ${checks.filter(([, ok]) => ok).length} passed, ${checks.filter(([, ok]) => !ok).length} failed`);
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  await browser.close();
  await server.close();
}
process.exitCode = failed ? 1 : 0;

function render(data) {
  const byWorkload = new Map();
  for (const r of data.results) {
    if (!byWorkload.has(r.workload)) byWorkload.set(r.workload, {});
    byWorkload.get(r.workload)[r.impl] = r;
  }
  const fmt = (r) => (r ? `${r.median.toFixed(2)} / ${r.p95.toFixed(2)}` : '—');
  const ratio = (a, b) => (a && b ? `${(a.median / b.median).toFixed(2)}×` : '—');
  const rows = [...byWorkload].map(([w, m]) => `| ${w} | ${fmt(m.floor)} | ${fmt(m['js-baseline'])} | ${fmt(m.ours)} | ${ratio(m.ours, m.floor)} | ${ratio(m.ours, m['js-baseline'])} |`);
  const head = '| workload | floor ms (median / p95) | js-baseline ms | ours ms | ours/floor | ours/js-baseline |\n|---|---|---|---|---|---|';
  const tableText = `${head}\n${rows.join('\n')}`;
  const get = (w, i) => byWorkload.get(w)?.[i];
  const verdict = (ok) => (ok ? 'met' : '**missed**');
  const cr = ['64 KB', '1 MB', '8 MB'].map((s) => [s, get(`cache+read ${s}`, 'ours')?.median / get(`cache+read ${s}`, 'floor')?.median]);
  const vsBase = [...byWorkload].filter(([, m]) => m.ours && m['js-baseline']).map(([w, m]) => [w, m.ours.median / m['js-baseline'].median]);
  const s16 = get('substitute 16 × 64 KB', 'js-baseline')?.median / get('substitute 16 × 64 KB', 'ours')?.median;
  const targets = [
    `- ours ≤ 1.10× floor for cache+read at 64 KB, 1 MB, 8 MB: ${cr.map(([s, r]) => `${s} ${r.toFixed(2)}×`).join(', ')} — ${verdict(cr.every(([, r]) => r <= 1.10))}.`,
    `- ours ≤ 1.0× js-baseline everywhere: worst ${Math.max(...vsBase.map(([, r]) => r)).toFixed(2)}× (${vsBase.sort((a, b) => b[1] - a[1])[0][0]}) — ${verdict(vsBase.every(([, r]) => r <= 1.0))}.`,
    `- 16-URI substitution ≥ 2× faster than js-baseline: ${s16.toFixed(2)}× — ${verdict(s16 >= 2)}.`,
    `- payload never in wasm memory: linear memory ${data.wasmMemory.before} → ${data.wasmMemory.after} bytes across every workload (8 MB payloads included) — ${verdict(data.wasmMemory.after - data.wasmMemory.before < 1024 * 1024)}.`,
    `- .wasm ≤ 60 KB gzip: ${(data.wasm.gzip / 1024).toFixed(1)} KB gzip (${(data.wasm.raw / 1024).toFixed(1)} KB raw) — ${verdict(data.wasm.gzip <= 60 * 1024)}.`,
  ];
  const markdown = `# Benchmark results

Generated by \`npm run bench\` (${data.iterations} measured iterations after ${data.warmup} warm-up, the three
implementations interleaved in one page). Do not edit the tables by hand; the reading below is
maintained with them.

- Machine: ${data.machine}
- Browser: ${data.browser} (headless)
- Date: ${data.date}
- Payload sizes (UTF-8 JSON bytes): ${Object.entries(data.payloadBytes).map(([k, v]) => `${k} = ${v}`).join(', ')}
- \`.wasm\`: ${data.wasm.raw} bytes raw, ${data.wasm.gzip} bytes gzip
- 240-row flow, LLM-visible \`chart.create\` arguments: ${data.flow.inlineChars} chars inline vs ${data.flow.byReferenceChars} chars by reference

${tableText}

## Targets

${targets.join('\n')}

## Reading

${READING}
`;
  return { console: tableText, markdown };
}

